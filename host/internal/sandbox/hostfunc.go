package sandbox

import (
	"context"
	"runtime"
	"time"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host/internal/engine"
)

// HostFunc is a host function outside module "acl": those of
// abi.IOModule (IOFuncs) and the embedder's (host.HostFunc). F names it
// "module.name" in traces and statistics.
type HostFunc struct {
	Module, Name string
	F            abi.Func
	Fn           func(c *Call) (int32, error)
}

// Embedder returns the host function that runs fn, an embedder's, for
// module.name with the parameters params: it records the calling
// goroutine around fn, so that a Close from fn itself can tell.
func Embedder(module, name string, params []abi.Param, fn func(c *Call) (int32, error)) *HostFunc {
	return &HostFunc{
		Module: module, Name: name,
		F: abi.Func{Name: module + "." + name, Group: abi.Group(module), Params: append([]abi.Param(nil), params...)},
		Fn: func(c *Call) (int32, error) {
			c.s.hostG.Store(goid())
			defer c.s.hostG.Store(0)
			return fn(c)
		},
	}
}

// Context returns the call's context.
func (c *Call) Context() context.Context { return c.ctx }

// Session returns the calling session.
func (c *Call) Session() *Session { return c.s }

// Arg returns parameter i as the guest passed it.
func (c *Call) Arg(i int) uint64 { return c.args[i] }

// Guest returns the n guest bytes at ptr, or an ACL_ERROR_INVALID_PARAM
// error naming the range (as name) when it is NULL or outside guest memory.
func (c *Call) Guest(name string, ptr uint32, n uint64) ([]byte, error) { return c.guest(name, ptr, n) }

// invokeHost is Session.invoke for a host function outside module "acl":
// the same recording of the message, statistics and trace, the same
// recovery of a panic.
func (s *Session) invokeHost(ctx context.Context, h *HostFunc, mem []byte, stack []uint64) {
	c := &s.call
	*c = Call{ctx: ctx, s: s, fi: -1, mem: mem, args: stack}
	var t0 time.Time
	if s.tracer != nil {
		t0 = time.Now()
	}
	res, err := c.runHost(h)
	code := acl.CodeOf(err)
	if err != nil {
		res = int32(code)
	}
	*c = Call{}
	st := s.stats.hostStat(h.F.Name)
	st.calls++
	var msg string
	if err != nil {
		msg = h.F.Name + ": " + acl.MessageOf(err)
		s.lastErr, s.msgRead = msg, false
		st.errs[code]++
	}
	if s.tracer != nil {
		s.tracer.HostCall(&Traced{Func: &h.F, Index: -1, Profile: s.prof, Stack: stack, Result: res, Code: code, Msg: msg, Session: s.id, Start: t0})
	}
	stack[0] = uint64(uint32(res))
}

func (c *Call) runHost(h *HostFunc) (res int32, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = 0, acl.Errorf(acl.ErrInternal, "host bug: %v", r)
		}
	}()
	return h.Fn(c)
}

// goid returns the calling goroutine's id, from the header of its stack
// trace ("goroutine 42 [running]:"). It costs about a microsecond, so it
// runs only around the embedder's host functions, where a Close of the
// instance from the function itself must be told from one on another
// goroutine.
func goid() int64 {
	var buf [32]byte
	b := buf[:runtime.Stack(buf[:], false)]
	var id int64
	for _, c := range b[len("goroutine "):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + int64(c-'0')
	}
	return id
}

// InHostFunc reports whether the caller runs inside one of the embedder's
// host functions called by this session's guest.
func (s *Session) InHostFunc() bool {
	g := s.hostG.Load()
	return g != 0 && g == goid()
}

// HostFuncBase is the engine index of the first of the runtime's host
// functions (Shared.HostFuncs), after the imports of both profiles.
var HostFuncBase = len(abi.Profiles) * len(abi.Funcs)

// Invoker returns the session as the engines see it.
func (s *Session) Invoker() engine.Invoker { return (*invoker)(s) }

// invoker is a Session as the engines see it (engine.Invoker), without
// adding methods to the session's own.
type invoker Session

func (v *invoker) Invoke(ctx context.Context, fn int, mem []byte, stack []uint64) {
	s := (*Session)(v)
	if fn < HostFuncBase {
		s.invoke(ctx, fn%len(abi.Funcs), mem, stack)
		return
	}
	s.invokeHost(ctx, s.sh.hostFuncs[fn-HostFuncBase], mem, stack)
}

func (v *invoker) Hold(m engine.Releaser) { v.mem = m }

func (v *invoker) Release(ctx context.Context) error { return (*Session)(v).Release(ctx) }
