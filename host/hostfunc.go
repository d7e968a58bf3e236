package host

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

// HostFunc is a host function of the embedder's own, importable by guests
// from Module under Name. It goes through the same machinery as the ACL
// imports: its pointers are checked against guest memory (HostCall.Read
// and Write), an error reaches the guest as its aclError code with its
// message (aclGetRecentErrMsg), a panic becomes ACL_ERROR_INTERNAL_ERROR,
// and every call is counted in Stats and passed to the trace callback, on
// both engines.
//
// That is the form of a literal HostFunc: parameters by ABI wire type, an
// i32 result. NewHostFunc makes one of any wasm type.
type HostFunc struct {
	// Module is the import module: any name but "acl", "acl32", "aclwasm"
	// and "wasi_snapshot_preview1".
	Module string
	// Name is the function's name in Module.
	Name string
	// Params are the parameters by wire type: abi.Gptr, abi.Handle and
	// abi.I32 travel as i32, abi.Addr, abi.Size and abi.U64 as i64. The function
	// returns an i32.
	Params []abi.Param
	// Fn runs the call. It returns the i32 result (ignored when err is
	// not nil), or an error: an acl error (acl.Errorf) gives its code and
	// message to the guest; any other error ACL_ERROR_INTERNAL_ERROR with
	// the error's text. Fn runs on the guest's goroutine.
	Fn func(c *HostCall) (int32, error)

	// NewHostFunc's form.
	params, results []ValueType
	call            func(c *HostCall, stack []uint64) error
}

// ValueType is a WebAssembly value type, of a host function's parameters
// and results (NewHostFunc): its binary encoding, as wazero's
// api.ValueType.
type ValueType byte

// The value types.
const (
	ValueTypeI32 ValueType = 0x7f
	ValueTypeI64 ValueType = 0x7e
	ValueTypeF32 ValueType = 0x7d
	ValueTypeF64 ValueType = 0x7c
)

// String returns the type's name in the text format: "i32".
func (t ValueType) String() string { return engine.ValType(t).String() }

// NewHostFunc returns the host function module.name of wasm type params
// -> results (any number of each, up to 16), run by fn, as wazero's
// api.GoModuleFunc: fn reads its parameters from stack and leaves its
// results there, from stack[0]; stack holds as many values as the
// parameters or the results, whichever are more. An i32 or f32 takes the
// low 32 bits of its value (zero-extended on the way in), a float its IEEE
// 754 bits (math.Float32bits, math.Float64frombits). stack is valid until
// fn returns.
//
// An error from fn (or a panic) traps the guest: the call or run ends
// with ErrTrap, whose reason names the function and the error, which
// aclGetRecentErrMsg also reads. A function that reports errors to the
// guest returns them among its results instead. Calls are counted in
// Stats and traced (floats as their bits) as a HostFunc's.
func NewHostFunc(module, name string, params, results []ValueType, fn func(c *HostCall, stack []uint64) error) HostFunc {
	return HostFunc{Module: module, Name: name, params: slices.Clone(params), results: slices.Clone(results), call: fn}
}

// HostCall is one call of a HostFunc: its arguments and a bounds-checked
// view of the calling guest's memory, valid until Fn returns (the session
// reuses it for its next host call: keep none of it).
type HostCall struct{ c *sandbox.Call }

// hostCall returns the HostCall of c, the session's own: a host call
// allocates nothing.
func hostCall(c *sandbox.Call) *HostCall {
	hc := &c.Session().Owner().(*Session).hc
	hc.c = c
	return hc
}

// Context returns the call's context: it ends with the guest call's
// timeout or cancellation, so a blocking HostFunc should watch it.
func (h *HostCall) Context() context.Context { return h.c.Context() }

// Session returns the calling guest's session.
func (h *HostCall) Session() *Session { return h.c.Session().Owner().(*Session) }

// Arg returns parameter i as the guest passed it: an i32 zero-extended.
func (h *HostCall) Arg(i int) uint64 { return h.c.Arg(i) }

// Read returns a copy of the n guest bytes at ptr. NULL or a range outside
// guest memory gives an ACL_ERROR_INVALID_PARAM error naming the range,
// which Fn can return as it is.
func (h *HostCall) Read(ptr uint32, n uint32) ([]byte, error) {
	b, err := h.View(ptr, n)
	if err != nil {
		return nil, err
	}
	return append([]byte(nil), b...), nil
}

// View returns the n guest bytes at ptr themselves, not a copy, with
// Read's checks: reading and writing them reads and writes guest memory,
// with no allocation (as wazero's api.Memory.Read). The view is valid
// until Fn returns; keep none of it.
func (h *HostCall) View(ptr uint32, n uint32) ([]byte, error) {
	return h.c.Guest("pointer", ptr, uint64(n))
}

// Write copies b to guest memory at ptr, with Read's checks: on error
// nothing is written.
func (h *HostCall) Write(ptr uint32, b []byte) error {
	dst, err := h.c.Guest("pointer", ptr, uint64(len(b)))
	if err != nil {
		return err
	}
	copy(dst, b)
	return nil
}

// WithHostFuncs adds the embedder's host functions, granted to every
// plugin: Load accepts imports of them with their exact signatures, unless
// the plugin's grants (Policy.HostFuncs, LoadHostFuncs) name any host
// function, when only those granted are accepted.
func WithHostFuncs(fns ...HostFunc) Option {
	return func(c *config) { c.hostFuncs = append(c.hostFuncs, fns...) }
}

// WithGrantedHostFuncs adds host functions that a plugin may import only
// when they are granted to it, by Policy.HostFuncs or LoadHostFuncs: Load
// refuses an import of one not granted as it refuses an import the policy
// denies.
func WithGrantedHostFuncs(fns ...HostFunc) Option {
	return func(c *config) {
		for _, f := range fns {
			c.hostFuncs = append(c.hostFuncs, f)
			c.grantOnly = append(c.grantOnly, f.Module+"."+f.Name)
		}
	}
}

// LoadHostFuncs grants the plugin the runtime's host functions named, as
// Policy.HostFuncs does (added to the policy's).
func LoadHostFuncs(names ...string) LoadOption {
	return func(c *loadConfig) { c.hostFuncs = append(c.hostFuncs, names...) }
}

// checkGrants returns an error naming the first grant (Policy.HostFuncs,
// LoadHostFuncs) that names no host function of the embedder's.
func (r *Runtime) checkGrants(grants []string) error {
	for _, g := range grants {
		found := false
		for _, h := range r.sh.HostFuncs() {
			if h.Module != abi.IOModule && h.Kernel() == nil && grants1(g, h) {
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("policy: HostFuncs: %q names no host function of the runtime (module.name or module.*; the runtime has %s)", g, r.embedderFuncs())
		}
	}
	return nil
}

// grants1 reports whether grant g ("module.name" or "module.*") names h.
func grants1(g string, h *sandbox.HostFunc) bool {
	mod, name, ok := strings.Cut(g, ".")
	return ok && mod == h.Module && (name == "*" || name == h.Name)
}

// granted reports whether a plugin with grants may import h: one of them
// names it, or none are made and h is not WithGrantedHostFuncs'. The
// bytes call's functions are always granted.
func (r *Runtime) granted(grants []string, h *sandbox.HostFunc) bool {
	if h.Module == abi.IOModule {
		return true
	}
	if len(grants) == 0 {
		return !slices.Contains(r.grantOnly, h.Module+"."+h.Name)
	}
	for _, g := range grants {
		if grants1(g, h) {
			return true
		}
	}
	return false
}

// embedderFuncs lists the embedder's host functions, "none" if none.
func (r *Runtime) embedderFuncs() string {
	var names []string
	for _, h := range r.sh.HostFuncs() {
		if h.Module != abi.IOModule && h.Kernel() == nil {
			names = append(names, h.Module+"."+h.Name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// maxHostParams bounds a HostFunc's parameters (the engines' fixed stacks).
const maxHostParams = 16

// hostFuncs returns the host functions of a runtime: the bytes call's,
// then the embedder's, checked.
func hostFuncs(user []HostFunc) ([]*sandbox.HostFunc, error) {
	out := sandbox.IOFuncs()
	seen := map[[2]string]bool{}
	for _, h := range out {
		seen[[2]string{h.Module, h.Name}] = true
	}
	for _, u := range user {
		switch {
		case u.Module == abi.Module || u.Module == abi.Module32 || u.Module == abi.IOModule || u.Module == "wasi_snapshot_preview1":
			return nil, fmt.Errorf("host function %s.%s: module %q is reserved", u.Module, u.Name, u.Module)
		case u.Module == "" || u.Name == "":
			return nil, fmt.Errorf("host function %q.%q: module and name must not be empty", u.Module, u.Name)
		case u.Fn == nil && u.call == nil:
			return nil, fmt.Errorf("host function %s.%s: Fn is nil", u.Module, u.Name)
		case u.Fn != nil && u.call != nil:
			return nil, fmt.Errorf("host function %s.%s: Fn is set on a function of NewHostFunc", u.Module, u.Name)
		case seen[[2]string{u.Module, u.Name}]:
			return nil, fmt.Errorf("host function %s.%s is defined twice", u.Module, u.Name)
		}
		seen[[2]string{u.Module, u.Name}] = true
		if u.call != nil {
			h, err := typedFunc(u)
			if err != nil {
				return nil, err
			}
			out = append(out, h)
			continue
		}
		if len(u.Params) > maxHostParams {
			return nil, fmt.Errorf("host function %s.%s: %d parameters, at most %d", u.Module, u.Name, len(u.Params), maxHostParams)
		}
		for _, p := range u.Params {
			if p.Type < abi.Addr || p.Type > abi.U64 {
				return nil, fmt.Errorf("host function %s.%s: parameter %s has no wire type (%d)", u.Module, u.Name, p.Name, p.Type)
			}
		}
		fn := u.Fn
		out = append(out, sandbox.Embedder(u.Module, u.Name, u.Params, func(c *sandbox.Call) (int32, error) {
			return fn(hostCall(c))
		}))
	}
	return out, nil
}

// typedFunc returns the sandbox's function of u, one of NewHostFunc.
func typedFunc(u HostFunc) (*sandbox.HostFunc, error) {
	if len(u.params) > maxHostParams || len(u.results) > maxHostParams {
		return nil, fmt.Errorf("host function %s.%s: %d parameters and %d results, at most %d of each", u.Module, u.Name, len(u.params), len(u.results), maxHostParams)
	}
	var t engine.FuncType
	for _, l := range []struct {
		in  []ValueType
		out *[]engine.ValType
	}{{u.params, &t.Params}, {u.results, &t.Results}} {
		for k, v := range l.in {
			switch v {
			case ValueTypeI32, ValueTypeI64, ValueTypeF32, ValueTypeF64:
			default:
				return nil, fmt.Errorf("host function %s.%s: value %d is of no value type (%#x): want i32, i64, f32 or f64", u.Module, u.Name, k, byte(v))
			}
			*l.out = append(*l.out, engine.ValType(v))
		}
	}
	fn := u.call
	return sandbox.EmbedderTyped(u.Module, u.Name, t, func(c *sandbox.Call) error {
		return fn(hostCall(c), c.Stack())
	}), nil
}

// lookupHost returns the host function module.name of the runtime, or nil.
func (r *Runtime) lookupHost(module, name string) *sandbox.HostFunc {
	for _, h := range r.sh.HostFuncs() {
		if h.Module == module && h.Name == name {
			return h
		}
	}
	return nil
}

// hostModules lists the modules of the runtime's host functions.
func (r *Runtime) hostModules() []string {
	seen := map[string]bool{}
	var out []string
	for _, h := range r.sh.HostFuncs() {
		if !seen[h.Module] && h.Kernel() == nil {
			seen[h.Module] = true
			out = append(out, h.Module)
		}
	}
	sort.Strings(out)
	return out
}
