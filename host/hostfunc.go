package host

import (
	"context"
	"fmt"
	"sort"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

// HostFunc is a host function of the embedder's own, importable by guests
// from Module under Name. It goes through the same machinery as the ACL
// imports: its pointers are checked against guest memory (HostCall.Read
// and Write), an error reaches the guest as its aclError code with its
// message (aclGetRecentErrMsg), a panic becomes ACL_ERROR_INTERNAL_ERROR,
// and every call is counted in Stats and passed to the trace callback, on
// both engines.
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

// WithHostFuncs adds the embedder's host functions. Load accepts imports
// of their modules with their exact signatures.
func WithHostFuncs(fns ...HostFunc) Option {
	return func(c *config) { c.hostFuncs = append(c.hostFuncs, fns...) }
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
		case u.Fn == nil:
			return nil, fmt.Errorf("host function %s.%s: Fn is nil", u.Module, u.Name)
		case seen[[2]string{u.Module, u.Name}]:
			return nil, fmt.Errorf("host function %s.%s is defined twice", u.Module, u.Name)
		}
		if len(u.Params) > maxHostParams {
			return nil, fmt.Errorf("host function %s.%s: %d parameters, at most %d", u.Module, u.Name, len(u.Params), maxHostParams)
		}
		for _, p := range u.Params {
			if p.Type < abi.Addr || p.Type > abi.U64 {
				return nil, fmt.Errorf("host function %s.%s: parameter %s has no wire type (%d)", u.Module, u.Name, p.Name, p.Type)
			}
		}
		seen[[2]string{u.Module, u.Name}] = true
		fn := u.Fn
		out = append(out, sandbox.Embedder(u.Module, u.Name, u.Params, func(c *sandbox.Call) (int32, error) {
			return fn(hostCall(c))
		}))
	}
	return out, nil
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
		if !seen[h.Module] {
			seen[h.Module] = true
			out = append(out, h.Module)
		}
	}
	sort.Strings(out)
	return out
}
