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

// DispatchOption is what gives a guest the dispatcher export in each SDK,
// as load-time refusals name it. The C/C++ SDK's library (libaclwasm.a,
// which every program links) holds it, and the headers' callback launchers
// pull it in; the others need their option.
const DispatchOption = "of its language (C/C++: link the SDK's library libaclwasm.a, as `pkg-config --libs aclwasm` says (-laclwasm), from which the headers' aclrtLaunchHostFunc and aclrtLaunchCallback take it; Rust: the aclwasm crate's feature \"callbacks\"; Go: import _ \"github.com/aclwasm/aclwasm/guest-sdk/go/acl/callback\"; AssemblyScript: export { aclwasm_dispatch_callback } from \"@aclwasm/sdk/assembly/callback\" in the entry file)"

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
	mu sync.Mutex
	// host and report hold the callbacks that became due and have not
	// run, under mu: aclrtLaunchHostFunc's, which the start of any host
	// call runs, and aclrtLaunchCallback's, which only aclrtProcessReport
	// and blocking waits run. seq numbers them as they become due, so
	// that a dispatch takes them from both in that order; two queues let
	// the start of a call look at its own alone, however many report
	// callbacks are never processed.
	host, report fifo
	seq          uint64
	// dueN counts the callbacks in both queues, hostN those in host; read
	// without mu (hostN by every host call's start).
	dueN, hostN atomic.Int32
	// wake has a token when a callback became due since a wait last looked.
	wake chan struct{}
	// cancel is closed at the session's release, or once the run's
	// context is done inside a callback wait: held stream workers let go
	// without running their callbacks.
	cancel    chan struct{}
	cancelled atomic.Bool
	// pending counts callbacks launched and not yet run, cancelled nor
	// dropped with their stream's work (Limits.MaxCallbacks bounds it): a
	// wait without any takes the direct path. The guest's goroutine
	// alone uses it, as the fields below.
	pending int
	// depth counts the callbacks running nested on the guest's goroutine
	// (Limits.MaxCallbackDepth bounds it).
	depth int
	// unwound is how the innermost callback that ended the run ended:
	// each level of nesting gets it back wrapped by its own engine call,
	// and passes this on instead, so that the error does not grow with
	// the depth.
	unwound error
	// subs is how each stream takes callbacks (callback_report.go), and
	// subscribed how many are bound to the guest's thread.
	subs       map[*streamRec]*subscription
	subscribed int
}

// fifo is a queue of callbacks, O(1) amortized per push and pop.
type fifo struct {
	q    []*callbackRec
	head int
}

func (f *fifo) push(r *callbackRec) { f.q = append(f.q, r) }

// peek returns the first callback, nil if none.
func (f *fifo) peek() *callbackRec {
	if f.head < len(f.q) {
		return f.q[f.head]
	}
	return nil
}

// pop removes the first callback, which peek returned.
func (f *fifo) pop() {
	f.q[f.head] = nil
	f.head++
	switch {
	case f.head == len(f.q):
		f.q, f.head = f.q[:0], 0
	case f.head >= 64 && 2*f.head >= len(f.q): // the live half moves down: amortized O(1)
		n := copy(f.q, f.q[f.head:])
		clear(f.q[n:])
		f.q, f.head = f.q[:n], 0
	}
}

// callbackRec is one launched callback.
type callbackRec struct {
	fn, arg uint32
	st      *streamRec    // the stream it was launched on
	atCall  bool          // aclrtLaunchHostFunc's: the start of any host call runs it
	seq     uint64        // when it became due, under callbacks.mu
	cover   clock         // the copies it follows, in the checking mode (asynccheck.go)
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
		r.st.cbQueued.Add(-1)
		cb.mu.Lock()
		cb.seq++
		r.seq = cb.seq
		if r.atCall {
			cb.host.push(r)
			cb.hostN.Add(1)
		} else {
			cb.report.push(r)
		}
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
// of aclrtLaunchHostFunc's), nil if none became due by seq last.
func (cb *callbacks) next(atCall bool, last uint64) *callbackRec {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	q := &cb.host
	if h, r := q.peek(), cb.report.peek(); !atCall && r != nil && (h == nil || r.seq < h.seq) {
		q = &cb.report
	}
	r := q.peek()
	if r == nil || r.seq > last {
		return nil
	}
	q.pop()
	cb.dueN.Add(-1)
	if r.atCall {
		cb.hostN.Add(-1)
	}
	return r
}

// rewake leaves a wake token when callbacks are due: a nested wait may
// have taken the token of one it could not run, which an enclosing wait
// is to look at.
func (cb *callbacks) rewake() {
	if cb.dueN.Load() > 0 {
		select {
		case cb.wake <- struct{}{}:
		default:
		}
	}
}

// dispatchDue runs, on the guest's goroutine, every callback due now, in
// the order they became due; those that become due meanwhile wait for the
// next dispatch (so a callback that launches another and processes
// reports nests, but one that only launches another does not loop here).
// The host call in flight is saved around each (the callback's own host
// calls reuse s.call) and restored after. A callback that ended the run (a
// trap, an exit, the timeout) panics as an unwind, after its stream was
// let go.
func (s *Session) dispatchDue(ctx context.Context) { s.dispatch(ctx, false) }

// dispatch is dispatchDue, of aclrtLaunchHostFunc's callbacks only with
// atCall. Callbacks already nested Limits.MaxCallbackDepth deep run none:
// those due wait for a shallower call. Once ctx is done it runs none
// either: the run is ending.
func (s *Session) dispatch(ctx context.Context, atCall bool) {
	cb := s.cb
	cb.mu.Lock()
	last := cb.seq
	cb.mu.Unlock()
	for cb.depth < s.policy.MaxCallbackDepth && !cb.cancelled.Load() && ctx.Err() == nil {
		r := cb.next(atCall, last)
		if r == nil {
			return
		}
		cb.pending--
		if s.ck != nil {
			s.land(ctx, r.cover)
		}
		saved := s.call
		cb.depth++
		err := s.cbDispatch(ctx, r.fn, r.arg)
		cb.depth--
		s.call = saved
		close(r.ran)
		if err != nil {
			if cb.unwound == nil {
				cb.unwound = err
			} else { // a nested callback's end, wrapped by this level's engine call
				err = cb.unwound
			}
			panic(unwind{err})
		}
	}
}

// dueAtCall runs the callbacks due at the start of a host call.
func (s *Session) dueAtCall(ctx context.Context) {
	if s.cb != nil && s.cb.hostN.Load() > 0 && s.cbDispatch != nil {
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

// CallbacksDue returns how many callbacks are due and not yet run, for
// tests that need one due before they act.
func (s *Session) CallbacksDue() int {
	if s.cb == nil {
		return 0
	}
	return int(s.cb.dueN.Load())
}

// cancelCallbacks lets go of every stream held for a callback that has
// not run: the session is ending, or its run (a done context ends the
// instance), and its guest runs no more.
func (s *Session) cancelCallbacks() {
	if s.cb != nil && s.cb.cancelled.CompareAndSwap(false, true) {
		close(s.cb.cancel)
	}
}

// wait runs op, a blocking wait of the backend, on the guest's goroutine
// when no callback is pending or running; otherwise on a goroutine of its
// own while the guest's goroutine runs the callbacks that become due
// meanwhile (which op may be waiting for), until op returns. Once ctx is
// done the run is ending: the held streams are let go, since op may wait
// for a callback that will never run now (a forced destruction waits for
// the running operation; a callback may destroy or synchronize its own
// stream, which waits for the callback itself), and then op returns.
func (s *Session) wait(ctx context.Context, op func(context.Context) error) error {
	cb := s.cb
	if cb.pending == 0 && cb.depth == 0 || cb.cancelled.Load() || s.cbDispatch == nil {
		return op(ctx)
	}
	s.dispatchDue(ctx)
	done := make(chan error, 1)
	go func() { done <- op(ctx) }()
	for {
		select {
		case err := <-done:
			cb.rewake()
			return err
		case <-cb.wake:
			s.dispatchDue(ctx)
		case <-ctx.Done():
			s.cancelCallbacks()
			return <-done
		}
	}
}

// blocking runs op, a blocking backend method that takes no context
// (DestroyStreamForce), as cbBackend runs those that take one.
func (s *Session) blocking(ctx context.Context, op func(context.Context) error) error {
	if s.cb == nil {
		return op(ctx)
	}
	return s.wait(ctx, op)
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
