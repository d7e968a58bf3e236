package sandbox

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"slices"
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
	// Typed, instead of Fn, runs a function of any wasm type (Type): it
	// reads its parameters and leaves its results on the call's stack
	// (Stack); an error traps the guest (engine.HostTrap).
	Typed func(c *Call) error
	Type  *engine.FuncType // Typed's type; nil for Fn (F's parameters, one i32 result)
	// embedder marks the embedder's functions (Embedder), the ones that
	// run the embedder's code, which may call Close (InHostFunc).
	embedder bool
	// kernel marks a kernel's launcher (kernel.go): a typed function
	// whose error is a status, never a trap; kprof and kstatus are the
	// profile and status it launches with (launch, its Typed, which
	// launchFast calls directly rather than through the function value).
	kernel  *Kernel
	kprof   abi.Profile
	kstatus bool
}

// Kernel returns the kernel h launches, nil when h is no launcher.
func (h *HostFunc) Kernel() *Kernel { return h.kernel }

// Unguarded reports whether the session may leave h's panics to the
// engine (engine.Func.Unguarded): a launcher's, which launchFast runs
// without a recover of its own where the engine recovers.
func (h *HostFunc) Unguarded() bool { return h.kernel != nil }

// Embedder returns the host function that runs fn, an embedder's, for
// module.name with the parameters params: fn runs marked, so that a Close
// from fn itself can tell (InHostFunc).
func Embedder(module, name string, params []abi.Param, fn func(c *Call) (int32, error)) *HostFunc {
	return &HostFunc{
		Module: module, Name: name,
		F:        abi.Func{Name: module + "." + name, Group: abi.Group(module), Params: append([]abi.Param(nil), params...)},
		Fn:       fn,
		embedder: true,
	}
}

// EmbedderTyped returns the host function that runs fn, an embedder's of
// any wasm type t, for module.name; marked as Embedder's.
func EmbedderTyped(module, name string, t engine.FuncType, fn func(c *Call) error) *HostFunc {
	t = engine.FuncType{Params: slices.Clone(t.Params), Results: slices.Clone(t.Results)}
	f := abi.Func{Name: module + "." + name, Group: abi.Group(module), Params: make([]abi.Param, len(t.Params))}
	for k, v := range t.Params { // for traces: floats show as their bits
		f.Params[k] = abi.Param{Name: fmt.Sprintf("%s%d", v, k), Type: abi.I32}
		if v.Is64() {
			f.Params[k].Type = abi.U64
		}
	}
	return &HostFunc{Module: module, Name: name, F: f, Typed: fn, Type: &t, embedder: true}
}

// Signature returns h's wasm type as abi.Func.Signature writes it.
func (h *HostFunc) Signature() string {
	if h.Type != nil {
		return h.Type.Signature()
	}
	return h.F.Signature()
}

// Stack returns the call's stack: the parameters as the guest passed them
// (i32 and f32 zero-extended), where a typed host function leaves its
// results. It holds as many values as the parameters or the results,
// whichever are more.
func (c *Call) Stack() []uint64 { return c.args }

// Context returns the call's context.
func (c *Call) Context() context.Context { return c.ctx }

// Session returns the calling session.
func (c *Call) Session() *Session { return c.s }

// Arg returns parameter i as the guest passed it.
func (c *Call) Arg(i int) uint64 { return c.args[i] }

// Guest returns the n guest bytes at ptr, or an ACL_ERROR_INVALID_PARAM
// error naming the range (as name) when it is NULL or outside guest memory.
func (c *Call) Guest(name string, ptr uint32, n uint64) ([]byte, error) { return c.guest(name, ptr, n) }

// invokeHost is Session.invoke for host function k, outside module "acl":
// the same recording of the message, statistics and trace, the same
// recovery of a panic. A typed function's error traps the guest, after
// it was recorded.
func (s *Session) invokeHost(ctx context.Context, k int, h *HostFunc, mem []byte, stack []uint64) {
	c := &s.call
	c.ctx, c.s, c.fi, c.mem, c.args, c.ret, c.note = ctx, s, -1, mem, stack, nil, ""
	var t0 time.Time
	if s.tracer != nil {
		t0 = time.Now()
	}
	// The embedder's functions are counted in flight, without a defer:
	// runHost recovers every panic.
	if h.embedder {
		s.inHost.Add(1)
	}
	var params []uint64 // a typed function's parameters, for the trace
	if h.Typed != nil && s.tracer != nil {
		params = append(s.hostArgs[:0], stack[:len(h.Type.Params)]...)
		s.hostArgs = params
	}
	res, err := c.runHost(h)
	if h.embedder {
		s.inHost.Add(-1)
	}
	if s.kout != nil {
		s.kout.flush()
	}
	*c = Call{}
	code, msg := s.hostEnded(k, h, err)
	if err != nil {
		res = int32(code)
	}
	if h.Typed != nil {
		if s.tracer != nil {
			if err == nil && len(h.Type.Results) > 0 {
				res = int32(uint32(stack[0]))
			}
			s.tracer.HostCall(&Traced{Func: &h.F, Index: -1, Profile: s.prof, Stack: params, Result: res, Code: code, Msg: msg, Session: s.id, Start: t0})
		}
		switch {
		case err != nil && h.kernel != nil: // a launcher's status
			if len(h.Type.Results) > 0 {
				stack[0] = uint64(uint32(code))
			}
		case err != nil:
			panic(engine.NewHostTrap("host function " + msg))
		}
		return
	}
	if s.tracer != nil {
		s.tracer.HostCall(&Traced{Func: &h.F, Index: -1, Profile: s.prof, Stack: stack, Result: res, Code: code, Msg: msg, Session: s.id, Start: t0})
	}
	stack[0] = uint64(uint32(res))
}

// hostEnded counts the end of host function k, h, with its error (nil:
// success) in the statistics and the session's last error: its code and
// message, 0 and "" for a success.
func (s *Session) hostEnded(k int, h *HostFunc, err error) (acl.Error, string) {
	st := s.stats.hostStat(k, len(s.sh.hostFuncs), h.F.Name)
	st.calls++
	if err == nil {
		return 0, ""
	}
	return s.hostFailed(h, st, err)
}

// hostFailed is hostEnded's failure, apart so that its success inlines.
func (s *Session) hostFailed(h *HostFunc, st *hostCount, err error) (acl.Error, string) {
	code := acl.CodeOf(err)
	msg := h.F.Name + ": " + acl.MessageOf(err)
	s.lastErr, s.msgRead = msg, false
	st.fail(code)
	return code, msg
}

// launchFast is invokeHost for launcher k, h, of a plain session
// (Session.plain): the launch run and counted, its status set, as
// invokeHost does, without the steps that only observers need (the trace
// and the kernel prints, which a plain session has none of) and, on an
// engine that recovers the panics of host calls (engine.Recoverer),
// without a recover of its own: Recover then fails the call with
// ACL_ERROR_INTERNAL_ERROR, as runHost does. A launcher is not the
// embedder's function (invokeHost marks none in flight). Those steps cost
// a launch of a kernel that does little as much as its stream's lock.
func (s *Session) launchFast(ctx context.Context, k int, h *HostFunc, mem []byte, stack []uint64) {
	c := &s.call
	c.ctx, c.s, c.fi, c.mem, c.args = ctx, s, -1, mem, stack
	var err error
	if s.recovers {
		s.inLaunch = k + 1
		err = h.launch(c)
		s.inLaunch = 0
	} else {
		_, err = c.runHost(h)
	}
	s.launchEnded(k, h, err, stack)
}

// launchEnded ends launchFast's call of launcher k, h, with err, as
// invokeHost ends a launcher's call.
func (s *Session) launchEnded(k int, h *HostFunc, err error, stack []uint64) {
	s.call.drop()
	if code, _ := s.hostEnded(k, h, err); err != nil && len(h.Type.Results) > 0 {
		stack[0] = uint64(uint32(code))
	}
}

// runHost runs h's function, a panic made an internal error. Its frame
// on a goroutine's stack is the mark of a host call in progress there
// (InHostFunc): of these functions, only the embedder's run code that
// could call Close.
//
//go:noinline
func (c *Call) runHost(h *HostFunc) (res int32, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = 0, acl.Errorf(acl.ErrInternal, "host bug: %v", r)
		}
	}()
	if h.Typed != nil {
		return 0, h.Typed(c)
	}
	return h.Fn(c)
}

// InHostFunc reports whether the caller may run inside one of the
// embedder's host functions called by this session's guest: one is in
// flight (inHost), and the caller's own stack holds a host function's
// frame (runHost). A Close made there must not wait for the call it is
// part of. Nothing identifies a goroutine on a host call's way in
// (reading a goroutine id takes a stack trace: 98% of the call that way);
// only this check walks the caller's stack, and only while one of the
// session's host functions is in flight. A caller on another goroutine
// that is itself inside a host function of another session, at such a
// moment, is taken for one inside: the answer that cannot deadlock.
func (s *Session) InHostFunc() bool { return s.inHost.Load() > 0 && inHostCall() }

// inHostCall reports whether the calling goroutine's stack holds a
// runHost frame.
func inHostCall() bool {
	pcs := make([]uintptr, 64)
	for {
		n := runtime.Callers(2, pcs)
		if n < len(pcs) {
			pcs = pcs[:n]
			break
		}
		pcs = make([]uintptr, 2*len(pcs))
	}
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		if f.Function == hostFrame {
			return true
		}
		if !more {
			return false
		}
	}
}

// hostFrame is runHost's name in stack frames.
var hostFrame = runtime.FuncForPC(reflect.ValueOf((*Call).runHost).Pointer()).Name()

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
		// fn%len(abi.Funcs) without a division (an import of either
		// profile): a division cost more than the checks of a copy.
		for n := len(abi.Funcs); fn >= n; {
			fn -= n
		}
		if fn == memcpyFI && s.recovers && s.sc != nil && s.plain() && s.memcpyFast(ctx, mem, stack) {
			return
		}
		s.invoke(ctx, fn, mem, stack)
		return
	}
	k := fn - HostFuncBase
	h := s.sh.hostFuncs[k]
	if h.kernel != nil && s.plain() {
		s.launchFast(ctx, k, h, mem, stack)
		return
	}
	s.invokeHost(ctx, k, h, mem, stack)
}

// Recovering implements engine.Recoverer: the engine recovers the panics
// of host calls, so memcpyFast may run without a recover of its own.
func (v *invoker) Recovering() { v.recovers = true }

// Recover implements engine.Recoverer: a panic of memcpyFast is a host
// bug, which fails the call with ACL_ERROR_INTERNAL_ERROR as Call.run
// makes of one; any other is the engine's.
func (v *invoker) Recover(r any, stack []uint64) bool {
	s := (*Session)(v)
	if k := s.inLaunch - 1; k >= 0 { // launchFast's
		s.inLaunch = 0
		s.launchEnded(k, s.sh.hostFuncs[k], acl.Errorf(acl.ErrInternal, "host bug: %v", r), stack)
		return true
	}
	if !s.inFast {
		return false
	}
	s.inFast = false
	s.copyEnded(s.stats.of(memcpyFI), acl.Errorf(acl.ErrInternal, "host bug: %v", r), stack)
	return true
}

func (v *invoker) Hold(m engine.Releaser) { v.mem = m }

func (v *invoker) Release(ctx context.Context) error { return (*Session)(v).Release(ctx) }
