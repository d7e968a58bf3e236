package host

import (
	"context"
	"errors"
	"sort"
	"strings"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/host/internal/engine/wazero"
	"github.com/aclwasm/aclwasm/host/internal/module"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

// The engine adapters live in host/internal/engine/...: they compile,
// instantiate and call, and route every host function to the session
// (sessionInvoker) with the guest's memory and a stack of parameters. No
// import logic lives in them.

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

// errNoExport and errArgs report a call the instance refused before any
// guest code ran: the instance stays usable.
var (
	errNoExport = engine.ErrNoExport
	errArgs     = engine.ErrArgs
)

// engineFuncs lists the host functions every engine provides besides
// WASI: the "acl" imports (index i is abi.Funcs[i]), the same under
// "acl32" with its wire form (index len(abi.Funcs)+i is abi.Funcs[i]:
// one implementation, the session's profile decides the layout), then
// the runtime's host functions (from index sandbox.HostFuncBase).
func engineFuncs(hf []*sandbox.HostFunc) []engine.Func {
	out := make([]engine.Func, 0, sandbox.HostFuncBase+len(hf))
	for _, prof := range abi.Profiles {
		for i := range abi.Funcs {
			out = append(out, engine.Func{Module: prof.Module(), Name: abi.Funcs[i].Name, Params: abi.Funcs[i].Params, Profile: prof})
		}
	}
	for _, h := range hf {
		out = append(out, engine.Func{Module: h.Module, Name: h.Name, Params: h.F.Params})
	}
	return out
}

// prepare makes a module ready for any engine: its tables bounded
// (module.BoundTables), its names made safe to print
// (module.SanitizeNames), its stack bounded (module.BoundStack), its
// start function moved to an export (module.HoistStart) and its memory
// exported (module.MemoryExport). Problems are reasons to refuse the
// module.
func prepare(wasm []byte, p *Policy) (engine.Module, []string) {
	bin, probs := module.BoundTables(wasm, p.MaxTableEntries)
	bin = module.SanitizeNames(bin)
	bin, stack, err := module.BoundStack(bin, p.MaxStackBytes)
	if err != nil {
		return engine.Module{}, append(probs, err.Error())
	}
	bin, mem := module.MemoryExport(bin)
	bin, start := module.HoistStart(bin)
	return engine.Module{Wasm: bin, Start: start, Memory: mem, Stack: stack}, probs
}

// engineErr is an engine's error as the host reports it: its exit, trap
// and timeout types.
func engineErr(ctx context.Context, err error) error {
	if err == nil {
		return nil // before any error variable: they escape (errors.As)
	}
	return convertErr(ctx, err)
}

func convertErr(ctx context.Context, err error) error {
	var ee *engine.ExitError
	var te *engine.Trap
	var de *engine.Done
	switch {
	case errors.As(err, &ee):
		return &ExitError{Code: ee.Code}
	case errors.As(err, &te):
		return trapError(te)
	case errors.As(err, &de):
		return doneErr(ctx, de.Call)
	}
	return err
}

// isExit reports whether err is or wraps an *ExitError.
func isExit(err error) bool {
	var ee *ExitError
	return errors.As(err, &ee)
}
