package host

import (
	"sort"
	"strings"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/host/internal/engine/wazero"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

// The engine adapters live in host/internal/engine/...: they compile,
// instantiate and call, and route every host function to the session
// (sandbox.Session.Invoker) with the guest's memory and a stack of
// parameters. No import logic lives in them.

// engines are the engine constructors this build has, by name
// (engine_wasmtime.go adds wasmtime).
var engines = map[string]engine.New{"wazero": wazero.New}

func engineNames() string {
	var names []string
	for n := range engines {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// engineFuncs lists the host functions every engine provides besides
// WASI: the "acl" imports (index i is abi.Funcs[i]), the same under
// "acl32" with its wire form (index len(abi.Funcs)+i is abi.Funcs[i]:
// one implementation, the session's profile decides the layout), then
// the runtime's host functions (from index sandbox.HostFuncBase).
func engineFuncs(hf []*sandbox.HostFunc) []engine.Func {
	out := make([]engine.Func, 0, sandbox.HostFuncBase+len(hf))
	for _, prof := range abi.Profiles {
		for i := range abi.Funcs {
			out = append(out, engine.Func{Module: prof.Module(), Name: abi.Funcs[i].Name, Params: abi.Funcs[i].Params, Profile: prof, Unguarded: sandbox.Unguarded(i)})
		}
	}
	for _, h := range hf {
		out = append(out, engine.Func{Module: h.Module, Name: h.Name, Params: h.F.Params, Type: h.Type, Unguarded: h.Unguarded()})
	}
	return out
}
