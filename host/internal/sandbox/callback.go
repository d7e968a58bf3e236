package sandbox

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/aclwasm/aclwasm/acl"
)

// Stream callbacks (ABI section 12): aclrtLaunchHostFunc queues a guest
// function on a stream. The host never runs guest code on another
// goroutine than the guest's own, so what the backend queues is a host
// function that marks the callback due and then holds the stream until the
// guest's goroutine has run it. The guest's goroutine runs due callbacks
// through the SDK's dispatcher export (DispatchExport), re-entrantly from
// inside a host call: inside every blocking wait of the session (the
// backend's methods that take a context, see cbBackend), and at the start
// of the guest's next host call after one became due. Work queued after a
// callback on its stream waits for it: the stream worker is held.

// DispatchExport is the export through which the host calls a guest's
// callbacks: (fn i32, userData i32) -> (), which calls the function at
// table index fn with userData (call_indirect, so that a bad index or a
// function of another type traps the guest, never the host).
const DispatchExport = "aclwasm_dispatch_callback"

// DispatchSignature is DispatchExport's type with its parameters named, and
// DispatchType the same as module.FuncExportType writes it: Load refuses
// a dispatcher of another type.
const (
	DispatchSignature = "(fn i32, userData i32) -> ()"
	DispatchType      = "(i32, i32) -> ()"
)

// DispatchOption is what a guest sets to get the dispatcher export, as
// load-time refusals name it: the C SDK's macro, the Rust crate's feature,
// the Go SDK's package, the AssemblyScript SDK's re-export.
const DispatchOption = "ACLWASM_CALLBACKS (C/C++: define it before including acl/acl.h, or build with -DACLWASM_CALLBACKS; Rust: the aclwasm crate's feature \"callbacks\"; Go: import _ \"github.com/aclwasm/aclwasm/guest-sdk/go/acl/callback\"; AssemblyScript: export { aclwasm_dispatch_callback } from \"@aclwasm/sdk/assembly/callback\" in the entry file)"

// Dispatcher calls the guest's DispatchExport with fn and arg from inside
// a host call of the same instance (engine.Instance.Reenter); an error is
// how the guest's callback ended other than by returning (a trap, an exit,
// the run's timeout).
type Dispatcher func(ctx context.Context, fn, arg uint32) error

// SetDispatcher gives the session the way to run the guest's callbacks;
// without one aclrtLaunchHostFunc fails with 207000.
func (s *Session) SetDispatcher(d Dispatcher) { s.cbDispatch = d }

// callbacks is a session's stream callback state, made at its first launch.
type callbacks struct {
	mu  sync.Mutex
	due []*callbackRec // became due, in that order, not yet run; under mu
	// dueN is len(due), read without mu by every host call's start.
	dueN atomic.Int32
	// wake has a token when a callback became due since a wait last looked.
	wake chan struct{}
	// cancel is closed at the session's release: held stream workers let
	// go without running their callbacks.
	cancel    chan struct{}
	cancelled atomic.Bool
	// pending counts callbacks launched and not yet run or cancelled: a
	// wait without any takes the direct path. The guest's goroutine
	// alone uses it, as the two below.
	pending int
	// subs is how each stream takes callbacks (callback_report.go), and
	// subscribed how many are bound to the guest's thread.
	subs       map[*streamRec]*subscription
	subscribed int
}

// callbackRec is one launched callback.
type callbackRec struct {
	fn, arg uint32
	atCall  bool          // aclrtLaunchHostFunc's: the start of any host call runs it
	ran     chan struct{} // closed once the guest ran it (or the session ended)
}

// unwind carries, as a panic, how a dispatched callback ended other than
// by returning, up through the import that dispatched it (Call.run
// re-panics its error) to the engine, which ends the guest's run with it.
type unwind struct{ err error }

// launchHostFunc is aclrtLaunchHostFunc(stream, fn, args).
func launchHostFunc(c *Call) error {
	st, err := c.streamHandle(c.u32(0)) // stream
	if err != nil {
		return err
	}
	fn, arg := c.u32(1), c.u32(2)
	if fn == 0 { // fn
		return acl.Errorf(acl.ErrRTParamInvalid, "fn is NULL")
	}
	if st != nil && c.s.sub(st).user { // subscribed
		return acl.Errorf(errStreamSubscribe, "the stream is bound to thread %d (aclrtSubscribeReport): it takes aclrtLaunchCallback callbacks, not host functions", c.s.sub(st).threadID)
	}
	if st, err = c.bindStream(st); err != nil { // context
		return err
	}
	if err := c.streamCtx(st); err != nil { // streamctx
		return err
	}
	if err := c.queueCallback(st, fn, arg, true, true); err != nil {
		return err
	}
	c.s.sub(st).runtime = true
	return nil
}

// callbacks returns the session's callback state, made at the first
// launch; from then on the session's blocking waits go through cbBackend.
func (s *Session) callbacks() *callbacks {
	if s.cb == nil {
		s.cb = &callbacks{wake: make(chan struct{}, 1), cancel: make(chan struct{})}
		s.b = &cbBackend{Backend: s.b, s: s}
	}
	return s.cb
}

// hold returns the stream work of callback r: mark it due, then hold the
// stream until the guest has run it or the session ends.
func (cb *callbacks) hold(r *callbackRec, block bool) func() error {
	return func() error {
		cb.mu.Lock()
		cb.due = append(cb.due, r)
		cb.dueN.Add(1)
		cb.mu.Unlock()
		select {
		case cb.wake <- struct{}{}:
		default:
		}
		if !block { // ACL_CALLBACK_NO_BLOCK: the stream goes on
			return nil
		}
		select {
		case <-r.ran:
		case <-cb.cancel:
		}
		return nil
	}
}

// next takes the callback that became due first (with atCall, the first
// of aclrtLaunchHostFunc's), nil if none.
func (cb *callbacks) next(atCall bool) *callbackRec {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	for i, r := range cb.due {
		if atCall && !r.atCall {
			continue
		}
		cb.due = append(cb.due[:i:i], cb.due[i+1:]...)
		cb.dueN.Add(-1)
		return r
	}
	return nil
}

// dispatchDue runs, on the guest's goroutine, every callback due now, in
// the order they became due. The host call in flight is saved around each
// (the callback's own host calls reuse s.call) and restored after. A
// callback that ended the run (a trap, an exit, the timeout) panics as
// an unwind, after its stream was let go.
func (s *Session) dispatchDue(ctx context.Context) { s.dispatch(ctx, false) }

// dispatch is dispatchDue, of aclrtLaunchHostFunc's callbacks only with
// atCall.
func (s *Session) dispatch(ctx context.Context, atCall bool) {
	cb := s.cb
	for !cb.cancelled.Load() {
		r := cb.next(atCall)
		if r == nil {
			return
		}
		cb.pending--
		saved := s.call
		err := s.cbDispatch(ctx, r.fn, r.arg)
		s.call = saved
		close(r.ran)
		if err != nil {
			panic(unwind{err})
		}
	}
}

// dueAtCall runs the callbacks due at the start of a host call.
func (s *Session) dueAtCall(ctx context.Context) {
	if s.cb != nil && s.cb.dueN.Load() > 0 && s.cbDispatch != nil {
		s.dispatchAtCall(ctx)
	}
}

// dispatchAtCall is dispatchDue outside Call.run, whose recovery turns an
// unwind into its error: this does the same.
func (s *Session) dispatchAtCall(ctx context.Context) {
	defer func() {
		if r := recover(); r != nil {
			if u, ok := r.(unwind); ok {
				panic(u.err)
			}
			panic(r)
		}
	}()
	s.dispatch(ctx, true)
}

// cancelCallbacks lets go of every stream held for a callback that has
// not run: the session is ending, and its guest runs no more.
func (s *Session) cancelCallbacks() {
	if s.cb != nil && s.cb.cancelled.CompareAndSwap(false, true) {
		close(s.cb.cancel)
	}
}

// wait runs op, a blocking wait of the backend, on the guest's goroutine
// when no callback is pending; otherwise on a goroutine of its own while
// the guest's goroutine runs the callbacks that become due meanwhile
// (which op may be waiting for), until op returns.
func (s *Session) wait(ctx context.Context, op func(context.Context) error) error {
	cb := s.cb
	if cb.pending == 0 || cb.cancelled.Load() || s.cbDispatch == nil {
		return op(ctx)
	}
	s.dispatchDue(ctx)
	done := make(chan error, 1)
	go func() { done <- op(ctx) }()
	for {
		select {
		case err := <-done:
			return err
		case <-cb.wake:
			s.dispatchDue(ctx)
		}
	}
}

// cbBackend is the session's backend once it launched a callback: its
// blocking waits (the methods that take a context) run callbacks that
// become due while they wait.
type cbBackend struct {
	acl.Backend
	s *Session
}

func (b *cbBackend) SynchronizeDevice(ctx context.Context, dev int32, timeoutMs int32) error {
	return b.s.wait(ctx, func(ctx context.Context) error { return b.Backend.SynchronizeDevice(ctx, dev, timeoutMs) })
}

func (b *cbBackend) Free(ctx context.Context, p acl.DevPtr) error {
	return b.s.wait(ctx, func(ctx context.Context) error { return b.Backend.Free(ctx, p) })
}

func (b *cbBackend) HostUnregister(ctx context.Context, pin acl.HostPin) error {
	return b.s.wait(ctx, func(ctx context.Context) error { return b.Backend.HostUnregister(ctx, pin) })
}

func (b *cbBackend) DestroyStream(ctx context.Context, st acl.Stream) error {
	return b.s.wait(ctx, func(ctx context.Context) error { return b.Backend.DestroyStream(ctx, st) })
}

func (b *cbBackend) SynchronizeStream(ctx context.Context, st acl.Stream, timeoutMs int32) error {
	return b.s.wait(ctx, func(ctx context.Context) error { return b.Backend.SynchronizeStream(ctx, st, timeoutMs) })
}

func (b *cbBackend) SynchronizeEvent(ctx context.Context, e acl.Event, timeoutMs int32) error {
	return b.s.wait(ctx, func(ctx context.Context) error { return b.Backend.SynchronizeEvent(ctx, e, timeoutMs) })
}

func (b *cbBackend) MemcpyAsync(ctx context.Context, dst, src acl.Buf, n uint64, st acl.Stream) error {
	return b.s.wait(ctx, func(ctx context.Context) error { return b.Backend.MemcpyAsync(ctx, dst, src, n, st) })
}

func (b *cbBackend) Memcpy2DAsync(ctx context.Context, dst acl.Buf, dpitch uint64, src acl.Buf, spitch, width, height uint64, st acl.Stream) error {
	return b.s.wait(ctx, func(ctx context.Context) error {
		return b.Backend.Memcpy2DAsync(ctx, dst, dpitch, src, spitch, width, height, st)
	})
}

func (b *cbBackend) MemcpyBatchAsync(ctx context.Context, copies []acl.Copy, st acl.Stream) error {
	return b.s.wait(ctx, func(ctx context.Context) error { return b.Backend.MemcpyBatchAsync(ctx, copies, st) })
}

func (b *cbBackend) MemsetAsync(ctx context.Context, dst acl.Buf, value byte, n uint64, st acl.Stream) error {
	return b.s.wait(ctx, func(ctx context.Context) error { return b.Backend.MemsetAsync(ctx, dst, value, n, st) })
}

func (b *cbBackend) MemsetD32Async(ctx context.Context, dst acl.Buf, value uint32, n uint64, st acl.Stream) error {
	return b.s.wait(ctx, func(ctx context.Context) error { return b.Backend.MemsetD32Async(ctx, dst, value, n, st) })
}
