package sim

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aclwasm/aclwasm/acl"
)

// op is one queued operation.
type op struct {
	work   work
	cancel func() // runs instead of work when the op is dropped; may be nil
	done   func() // runs once the stream counts the op complete; may be nil
	mark   bool   // an OnComplete mark: not counted by Pending
	record bool   // an event record: runs on a stopped stream too, to report its error
	held   [2]span
	free   releaser // releases what the op holds beyond held; may be nil
	v      *vop     // the op in the timing model; nil: it takes no modeled time
	// steal marks a copy of at most one chunk, or an OnComplete mark: a
	// caller that synchronizes the stream may run it itself (see steal).
	steal bool
	// late marks a quick launch too large to run in its call (Compute): a
	// caller that synchronizes the stream may run it too, but enqueue
	// never runs it in its call.
	late bool
}

// small is work that reports its bytes, so that a copy of at most one
// chunk may run on a synchronizing caller.
type small interface{ bytes() uint64 }

// work is what an operation does when it runs, on the stream's worker or,
// for pageable host memory, on the caller's goroutine (see submit). held
// is the spans the operation holds: a copy's destination and source, a
// memset's destination. A copy's work is the rest of its arguments, small
// enough to box cheaply.
//
// A long operation looks at stop between chunks of its work, and returns
// its error when it says to stop.
type work interface {
	run(st *stream, held [2]span, stop halt) error
}

// opFunc is work that is a function, for operations that close over
// their state.
type opFunc func(*stream) error

func (f opFunc) run(s *stream, _ [2]span, _ halt) error { return f(s) }

// markFunc is the work of an OnComplete mark: the caller's function
// itself, so that queueing it allocates nothing (a closure around it
// would, on every asynchronous copy the host counts).
type markFunc func()

func (f markFunc) run(*stream, [2]span, halt) error { f(); return nil }

// costed is work with a declared duration in the timing model (a
// compute launch), taken instead of the time it really ran.
type costed interface{ cost() time.Duration }

// releaser is what an operation holds beyond its two spans (a batch's
// memory).
type releaser interface{ release() }

// release drops the references the op holds.
func (o *op) release() {
	o.held[0].release()
	o.held[1].release()
	if o.free != nil {
		o.free.release()
	}
}

// submit makes w, an asynchronous copy or memset, an operation of st
// holding held and free, which are released once it has run or failed to
// queue. One that touches pageable host memory waits for the work queued
// on st and runs before submit returns, as the native runtime copies
// pageable memory: if that work failed, its error is returned (and cleared,
// as a synchronize clears it) instead; any other is queued. w is a type parameter so that the
// pageable path allocates nothing: w is boxed only when it is queued.
func submit[W work](ctx context.Context, st *stream, pageable bool, w W, held [2]span, free releaser) error {
	if !pageable {
		o := op{work: w, held: held, free: free}
		if c := st.b.clk; c != nil {
			o.v = c.workCost(w, held)
		}
		if z, ok := o.work.(small); ok {
			o.steal = z.bytes() <= chunk
		}
		return st.push(ctx, o)
	}
	o := op{held: held, free: free}
	defer o.release()
	if err := st.drain(ctx); err != nil {
		return err
	}
	// As the native runtime synchronizes the stream first, the error of
	// the work queued before returns here, and the copy does not run.
	if err := st.takeErr(); err != nil {
		return err
	}
	err := w.run(st, held, haltOn(ctx))
	if c := st.b.clk; c != nil && err == nil {
		c.hostOp(ctx, st.vs, c.workCost(w, held))
	}
	return err
}

// stream is a FIFO queue of operations that one worker goroutine runs in
// order. enq counts the operations accepted and done those completed, so
// "the work queued before now" is a target count that waiters compare
// against done.
type stream struct {
	h   acl.Stream
	dev *device
	b   *Backend
	vs  *vstream // the stream in the timing model; nil when off

	mu      sync.Mutex
	cond    sync.Cond // signals the worker: an op was queued, or stop
	q       []op
	head    int
	enq     uint64
	done    uint64
	err     error  // first asynchronous error since the last synchronize
	marks   int    // OnComplete marks queued and not complete
	running bool   // an op is running, on the worker or a caller (steal)
	closing bool   // no more ops are accepted
	stop    bool   // the worker exits once its running op is done
	dead    bool   // the worker has exited
	wakes   uint64 // times the worker woke to look for work (tests)
	waiters []*waiter

	// failStop is ACL_STOP_ON_FAILURE (SetStreamFailureMode): while err
	// is set, operations other than event records do not run.
	failStop bool
	// popped marks the running op as one taken from the queue, by the
	// worker or a synchronizing caller (steal), rather than one a caller
	// runs in its call (claim, enqueue's inline path, runIdle).
	popped bool
	// free is, for a look without s.mu, whether nothing queued waits or
	// runs (no popped op), the stream is neither closing nor stopped by a
	// failure and no timing model runs (publishLocked): a quick launch
	// without regions then runs in its call without the lock (runFree).
	// An op a caller runs in its call does not change it: one of another
	// goroutine is concurrent with the launch, one of the launch's own
	// goroutine over before it.
	free atomic.Bool

	aborted bool
	abort   chan struct{} // closed when queued work is cancelled: a running wait gives up
	hctx    haltCtx       // the halt of the worker's operations (abort), as a context
	exited  chan struct{} // closed when the worker returns
}

type waiter struct {
	target uint64
	ch     chan struct{}
}

var (
	errDead    = errors.New("stream destroyed")
	errTimeout = errors.New("timeout")
)

// newStreamLocked creates a stream on d and starts its worker. Backend.mu
// is held, shared will do (or b is not shared yet).
func (b *Backend) newStreamLocked(d *device) *stream {
	s := &stream{h: acl.Stream(b.nextH.Add(1)), dev: d, b: b, abort: make(chan struct{}), exited: make(chan struct{})}
	s.cond.L = &s.mu
	s.hctx = haltCtx{halt{done: s.abort}}
	s.free.Store(b.clk == nil)
	if b.clk != nil {
		s.vs = &vstream{}
	}
	b.streams.put(uint64(s.h), s)
	b.smu.Lock()
	b.live[s] = struct{}{}
	d.streams[s] = struct{}{}
	b.smu.Unlock()
	go s.loop()
	return s
}

func (s *stream) loop() {
	defer close(s.exited)
	s.mu.Lock()
	for {
		for (s.head == len(s.q) || s.running) && !s.stop {
			s.cond.Wait()
			s.wakes++
		}
		if s.stop {
			for s.running { // a caller's op (steal): close waits for it too
				s.cond.Wait()
			}
			s.mu.Unlock()
			return
		}
		o := s.popLocked()
		skip := s.skipsLocked(&o)
		s.mu.Unlock()

		var err error
		switch {
		case skip: // a stopped stream's operations fail without effect
			if o.v != nil && o.v.kind == vHost {
				s.b.clk.ran(o.v, 0)
			}
		case o.v != nil && o.v.kind == vHost:
			t := time.Now()
			err = s.exec(&o)
			d := time.Since(t)
			if c, ok := o.work.(costed); ok && c.cost() > 0 {
				d = c.cost()
			}
			s.b.clk.ran(o.v, d)
		default:
			err = s.exec(&o)
		}
		o.release()

		s.mu.Lock()
		s.finishLocked(&o, err)
	}
}

// popLocked takes the op at the head of the queue and marks it running.
func (s *stream) popLocked() op {
	o := s.q[s.head]
	s.q[s.head] = op{}
	s.head++
	switch {
	case s.head == len(s.q):
		s.q, s.head = s.q[:0], 0
	case s.head >= 64 && 2*s.head >= len(s.q):
		n := copy(s.q, s.q[s.head:])
		clear(s.q[n:])
		s.q, s.head = s.q[:n], 0
	}
	s.running, s.popped = true, true
	return o
}

// finishLocked counts the running op o complete with its error.
func (s *stream) finishLocked(o *op, err error) {
	if err != nil && s.err == nil {
		s.err = err
	}
	s.done++
	s.running, s.popped = false, false
	s.publishLocked()
	if o.mark {
		s.marks--
	}
	if o.done != nil {
		// After the count: whoever it wakes (an event's waiter) then
		// finds the stream complete too, as the native runtime reports.
		o.done()
	}
	if len(s.waiters) > 0 {
		s.wakeLocked()
	}
}

// publishLocked sets free from the stream's state: every change of what
// it reads ends in a call (finishLocked, enqueue's queueing, close,
// DestroyStream, the clearing of the error, SetStreamFailureMode). It
// writes only a change, so that an op run in its call on an idle stream,
// which leaves it idle, costs a load. s.mu is held.
func (s *stream) publishLocked() {
	free := !s.closing && !s.stop && !s.popped && s.head == len(s.q) && !(s.failStop && s.err != nil) && s.b.clk == nil
	if s.free.Load() != free {
		s.free.Store(free)
	}
}

// steal runs on the caller's goroutine the ops a synchronize waits for, as
// long as they are copies of at most one chunk, OnComplete marks or quick
// launches (late) at the head of the queue and the worker is not running
// one. Handing a small copy to the worker
// and waiting to be woken costs far more than the copy (two goroutine
// switches, often across cores), and a caller that synchronizes waits for
// it anyway. The op runs exactly as on the worker (in stream order, one at
// a time, stopped by the stream's cancellation within its one chunk), so
// nothing else can tell. Not with the timing model, whose worker paces
// each op. s.mu is held.
func (s *stream) steal(ctx context.Context, target uint64) {
	for s.done < target && !s.running && !s.stop && s.head < len(s.q) && (s.q[s.head].steal || s.q[s.head].late) && s.b.clk == nil && ctxErr(ctx) == nil {
		o := s.popLocked()
		skip := s.skipsLocked(&o)
		s.mu.Unlock()
		var err error
		if !skip { // a stopped stream's operations fail without effect
			err = s.exec(&o)
		}
		o.release()
		s.mu.Lock()
		s.finishLocked(&o, err)
		s.handBackLocked()
	}
}

// claim takes an idle stream for an operation its caller runs itself, as
// enqueue's inline path does: counted as queued and running, so that
// waiters and the worker see it. ok is false when the stream is not idle
// (or the timing model runs), and nothing changed. run is false when a
// stopped stream's operation must fail without effect; abort is the
// stream's cancellation. finish ends the operation.
func (s *stream) claim() (run bool, abort <-chan struct{}, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing || !s.idleLocked() || (s.b.depth > 0 && s.countedLocked() >= uint64(s.b.depth)) {
		return false, nil, false
	}
	s.enq++
	s.running = true
	return !s.skipsLocked(&op{}), s.abort, true
}

// idleLocked reports whether an op may run on the caller's goroutine now:
// nothing queued or running, the stream not stopping, no timing model
// (whose worker paces each op). s.mu is held.
func (s *stream) idleLocked() bool {
	return s.b.clk == nil && !s.running && !s.stop && s.head == len(s.q)
}

// skipsLocked reports whether o fails without effect when it runs: on a
// stream stopped by a failure, every op but an event record (loop, steal,
// enqueue and claim alike). s.mu is held.
func (s *stream) skipsLocked(o *op) bool { return s.failStop && s.err != nil && !o.record }

// finish ends the operation claim began, with its error.
func (s *stream) finish(err error) {
	s.mu.Lock()
	var o op
	s.finishLocked(&o, err)
	s.handBackLocked()
	s.mu.Unlock()
}

// handBackLocked wakes the worker after an op ran on a caller's goroutine
// (steal, or enqueue on an idle stream), when the worker can go on: ops
// were queued behind it, or the stream is stopping. Otherwise the worker
// would only wake to wait again: a wasted goroutine switch, and on an idle
// machine an OS thread woken on the other core for every inline copy.
// s.mu is held.
func (s *stream) handBackLocked() {
	if s.head < len(s.q) || s.stop {
		s.cond.Signal()
	}
}

// exec runs o. A panic in it (a host function's, or a simulator bug) is
// the operation's error rather than the end of the process.
func (s *stream) exec(o *op) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = acl.Errorf(acl.ErrInternal, "stream %d: operation panicked: %v", s.h, r)
		}
	}()
	return o.work.run(s, o.held, halt{done: s.abort})
}

// push queues o, first waiting while the stream holds the configured depth
// of operations (WithQueueDepth) or until ctx is done. pushNow queues at
// once whatever the stream holds, for the calls that take no context. On
// failure the references o holds are released.
func (s *stream) push(ctx context.Context, o op) error {
	if ctx == nil { // callers may pass none (see done)
		ctx = context.Background()
	}
	return s.enqueue(ctx, true, o)
}

// pushNow queues o without waiting for room (see push).
func (s *stream) pushNow(o op) error { return s.enqueue(context.Background(), false, o) }

// enqueue is push, or pushNow when wait is false.
func (s *stream) enqueue(ctx context.Context, wait bool, o op) error {
	s.mu.Lock()
	// The depth counts the operations Pending reports, which the host holds
	// against its own limit: OnComplete marks ride along uncounted, or a
	// host limit equal to the depth would never be reached (every counted
	// copy queues a mark, so the stream would fill at half of it).
	for wait && s.b.depth > 0 && !s.closing && s.countedLocked() >= uint64(s.b.depth) {
		// Woken at the next completion, which may be a mark's: the loop
		// looks again.
		w := &waiter{target: s.done + 1, ch: make(chan struct{})}
		s.waiters = append(s.waiters, w)
		s.mu.Unlock()
		select {
		case <-w.ch:
		case <-ctx.Done():
		}
		s.mu.Lock()
		s.removeLocked(w)
		if err := ctx.Err(); err != nil && s.countedLocked() >= uint64(s.b.depth) {
			s.mu.Unlock()
			o.release()
			return err
		}
	}
	if s.closing {
		s.mu.Unlock()
		o.release()
		return acl.Errorf(acl.ErrRTInvalidHandle, "stream %d is being destroyed", s.h)
	}
	if o.steal && s.idleLocked() {
		// The stream is idle: a small op runs here, as steal would run it
		// at the next synchronize, instead of waking the worker for it
		// (where a host call runs on a locked OS thread, as on wasmtime,
		// the hand-off and the wake-up of the waiting caller are each a
		// thread sleep and wake-up).
		s.enq++
		if o.mark {
			s.marks++
		}
		s.running = true
		skip := s.skipsLocked(&o)
		s.mu.Unlock()
		var err error
		if !skip {
			err = s.exec(&o)
		}
		o.release()
		s.mu.Lock()
		s.finishLocked(&o, err)
		s.handBackLocked()
		s.mu.Unlock()
		return nil
	}
	s.q = append(s.q, o)
	s.enq++
	s.publishLocked()
	if c := s.b.clk; c != nil {
		c.submit(s.vs, o.v)
	}
	if o.mark {
		s.marks++
	}
	s.cond.Signal()
	s.mu.Unlock()
	return nil
}

// countedLocked returns the operations queued and not complete, less the
// OnComplete marks: what Pending reports and the depth bounds.
func (s *stream) countedLocked() uint64 { return s.enq - s.done - uint64(s.marks) }

// target returns the count of operations queued so far.
func (s *stream) target() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enq
}

// wait blocks until the first target operations have completed, ctx is
// done (its error), tmo is closed (errTimeout) or the stream dies
// (errDead). A nil ctx never ends the wait.
func (s *stream) wait(ctx context.Context, target uint64, tmo <-chan struct{}) error {
	s.mu.Lock()
	if tmo == nil { // a wait with a timeout leaves the work to the worker
		s.steal(ctx, target)
	}
	switch {
	case s.done >= target:
		s.mu.Unlock()
		return nil
	case s.dead:
		s.mu.Unlock()
		return errDead
	}
	w := &waiter{target: target, ch: make(chan struct{})}
	s.waiters = append(s.waiters, w)
	s.mu.Unlock()

	select {
	case <-w.ch:
	case <-done(ctx):
	case <-tmo:
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.removeLocked(w)
	switch {
	case s.done >= target:
		return nil
	case s.dead:
		return errDead
	case ctxErr(ctx) != nil:
		return ctxErr(ctx)
	}
	return errTimeout
}

func (s *stream) wakeLocked() {
	k := 0
	for _, w := range s.waiters {
		if s.done >= w.target || s.dead {
			close(w.ch)
		} else {
			s.waiters[k] = w
			k++
		}
	}
	clear(s.waiters[k:])
	s.waiters = s.waiters[:k]
}

func (s *stream) removeLocked(w *waiter) {
	for i, x := range s.waiters {
		if x == w {
			s.waiters = append(s.waiters[:i], s.waiters[i+1:]...)
			s.waiters = s.waiters[:len(s.waiters):len(s.waiters)]
			return
		}
	}
}

// takeErr returns the pending asynchronous error and clears it.
func (s *stream) takeErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.err
	s.err = nil
	s.publishLocked()
	return err
}

// drain waits for the work queued so far, as a copy of pageable memory
// must before it runs.
func (s *stream) drain(ctx context.Context) error {
	switch err := s.wait(ctx, s.target(), nil); err {
	case errDead:
		return acl.Errorf(acl.ErrRTInvalidHandle, "stream %d was destroyed while waiting", s.h)
	default:
		return err
	}
}

// close stops the stream for good. With cancel it drops the operations not
// yet started and makes a running wait give up; either way it returns once
// the worker has finished its running operation and exited.
func (s *stream) close(cancel bool) {
	s.mu.Lock()
	s.closing = true
	var dropped []op
	if cancel {
		dropped = append(dropped, s.q[s.head:]...)
		clear(s.q)
		s.q, s.head = nil, 0
		if !s.aborted {
			s.aborted = true
			close(s.abort)
		}
		if c := s.b.clk; c != nil {
			c.drop(s.vs, len(dropped))
		}
	}
	s.stop = true
	s.publishLocked()
	s.cond.Broadcast()
	s.mu.Unlock()

	for i := range dropped {
		if dropped[i].cancel != nil {
			dropped[i].cancel()
		}
		dropped[i].release()
	}
	<-s.exited

	s.mu.Lock()
	s.dead = true
	s.wakeLocked()
	s.mu.Unlock()
}

// timeout returns a channel closed after ms milliseconds: never for -1 (nil
// channel), at once for 0 (a poll).
func timeout(ms int32) (<-chan struct{}, func()) {
	switch {
	case ms < 0:
		return nil, func() {}
	case ms == 0:
		return closed, func() {}
	}
	c := make(chan struct{})
	t := time.AfterFunc(time.Duration(ms)*time.Millisecond, func() { close(c) })
	return c, func() { t.Stop() }
}

// done returns ctx.Done(), or nil (never ready) for a nil ctx.
func done(ctx context.Context) <-chan struct{} {
	if ctx == nil {
		return nil
	}
	return ctx.Done()
}

// ctxErr returns ctx.Err(), or nil for a nil ctx.
func ctxErr(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	return ctx.Err()
}

var closed = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// stream returns the live stream h, or 107017.
func (b *Backend) stream(h acl.Stream) (*stream, error) {
	s := b.streams.get(uint64(h))
	switch {
	case b.shut.Load():
		return nil, errClosed()
	case s == nil:
		return nil, acl.Errorf(acl.ErrRTInvalidHandle, "stream %d is not a live stream", h)
	}
	return s, nil
}

// DefaultStream implements [acl.Backend].
func (b *Backend) DefaultStream(dev int32) (acl.Stream, error) {
	d, err := b.device(dev)
	if err != nil {
		return 0, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return 0, errClosed()
	}
	return d.def.h, nil
}

// CreateStream implements [acl.Backend]. Every stream has its own worker
// goroutine until it is destroyed.
func (b *Backend) CreateStream(dev int32) (acl.Stream, error) {
	d, err := b.device(dev)
	if err != nil {
		return 0, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return 0, errClosed()
	}
	return b.newStreamLocked(d).h, nil
}

// DestroyStream implements [acl.Backend]. The handle is invalid from the
// start of the call. If ctx is done before the queued work completes, the
// work not yet started is dropped (records of events in it complete with
// ACL_ERROR_RT_STREAM_ABORT) and the running operation is waited for. The
// stream is destroyed either way, so the result is nil: a caller that needs
// to know whether work was dropped checks ctx. A default stream cannot be
// destroyed (100000).
func (b *Backend) DestroyStream(ctx context.Context, h acl.Stream) error {
	b.mu.RLock()
	s := b.streams.get(uint64(h))
	switch {
	case b.closed:
		b.mu.RUnlock()
		return errClosed()
	case s == nil || (s != s.dev.def && !b.streams.del(uint64(h))): // of two destroys at once, one wins
		b.mu.RUnlock()
		return acl.Errorf(acl.ErrRTInvalidHandle, "stream %d is not a live stream", h)
	case s == s.dev.def:
		b.mu.RUnlock()
		return acl.Errorf(acl.ErrInvalidParam, "stream %d is the default stream of device %d, which cannot be destroyed", h, s.dev.id)
	}
	b.smu.Lock()
	delete(s.dev.streams, s)
	b.smu.Unlock()
	b.mu.RUnlock()

	s.mu.Lock()
	s.closing = true
	s.publishLocked()
	target := s.enq
	s.mu.Unlock()
	err := s.wait(ctx, target, nil)
	if err == errDead { // Close stopped it meanwhile
		return nil
	}
	if c := b.clk; c != nil && err == nil {
		c.waitStream(ctx, s.vs, target, -1)
	}
	s.close(err != nil)
	b.smu.Lock()
	delete(b.live, s)
	b.smu.Unlock()
	return nil
}

// SynchronizeStream implements [acl.Backend]. It waits for the work queued
// when it is called; a stream destroyed meanwhile gives 107017.
func (b *Backend) SynchronizeStream(ctx context.Context, h acl.Stream, timeoutMs int32) error {
	if err := acl.CheckTimeout(timeoutMs); err != nil {
		return err
	}
	s, err := b.stream(h)
	if err != nil {
		return err
	}
	if b.clk == nil {
		// Nothing queued (small copies mostly ran in their call): one
		// look under the lock instead of target, wait and takeErr's three.
		s.mu.Lock()
		if s.done >= s.enq {
			err := s.err
			s.err = nil
			s.publishLocked()
			s.mu.Unlock()
			return err
		}
		s.mu.Unlock()
	}
	tmo, stop := timeout(timeoutMs)
	defer stop()
	target := s.target()
	switch err := s.wait(ctx, target, tmo); err {
	case nil:
		if c := b.clk; c != nil && c.waitStream(ctx, s.vs, target, timeoutMs) == expired {
			return acl.Errorf(acl.ErrRTStreamSyncTimeout, "stream %d: queued work did not complete within %d ms of modeled time", h, timeoutMs)
		}
	case errTimeout:
		return acl.Errorf(acl.ErrRTStreamSyncTimeout, "stream %d: queued work did not complete within %d ms", h, timeoutMs)
	case errDead:
		return acl.Errorf(acl.ErrRTInvalidHandle, "stream %d was destroyed while waiting", h)
	default:
		return err
	}
	return s.takeErr()
}

// StreamQuery implements [acl.Backend]. With the timing model, the work
// must also be complete in modeled time.
func (b *Backend) StreamQuery(h acl.Stream) (acl.StreamStatus, error) {
	n, err := b.Pending(h)
	switch {
	case err != nil:
		return acl.StreamStatusReserved, err
	case n > 0:
		return acl.StreamStatusNotReady, nil
	}
	if c := b.clk; c != nil {
		s, err := b.stream(h)
		if err != nil {
			return acl.StreamStatusReserved, err
		}
		target := s.target()
		if !c.poll(func() bool { return s.vs.done >= target }) {
			return acl.StreamStatusNotReady, nil
		}
	}
	return acl.StreamStatusComplete, nil
}

// Pending implements [acl.Backend].
func (b *Backend) Pending(h acl.Stream) (int, error) {
	s, err := b.stream(h)
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return int(s.countedLocked()), nil
}

// Idle implements [acl.Backend]: the simulator always knows. A pending
// error makes it false: an operation after it may have failed or, on a
// stream that stops on failure, been skipped.
func (b *Backend) Idle(h acl.Stream) bool {
	s, err := b.stream(h)
	if err != nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.countedLocked() == 0 && s.err == nil
}

// LaunchHostFunc implements [acl.Backend]. fn runs on the stream's worker; a
// panic in it becomes the stream's error (500000) instead of crashing.
func (b *Backend) LaunchHostFunc(h acl.Stream, fn func() error) error {
	if fn == nil {
		return acl.Errorf(acl.ErrInvalidParam, "fn is nil")
	}
	s, err := b.stream(h)
	if err != nil {
		return err
	}
	o := op{work: opFunc(func(*stream) error { return fn() })}
	if b.clk != nil {
		o.v = &vop{kind: vHost}
	}
	return s.pushNow(o)
}

// OnComplete implements [acl.Backend]: fn runs on the stream's worker (or
// a caller synchronizing the stream) after the operations queued before it, and is dropped with them when the
// stream's work is cancelled.
func (b *Backend) OnComplete(h acl.Stream, fn func()) error {
	if fn == nil {
		return acl.Errorf(acl.ErrInvalidParam, "fn is nil")
	}
	s, err := b.stream(h)
	if err != nil {
		return err
	}
	// A mark's fn is quick and calls no backend (acl.Backend): a
	// synchronizing caller may run it as it runs small copies (steal).
	return s.pushNow(op{work: markFunc(fn), mark: true, steal: true})
}

// cancelled is a context that is done from the start: DestroyStream with
// it cancels the queued work instead of waiting for it.
var cancelled = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// DestroyStreamForce implements [acl.Backend]: the operations not yet
// started are dropped (records of events in them complete with
// ACL_ERROR_RT_STREAM_ABORT), a running one stops within a chunk, and the
// stream is destroyed.
func (b *Backend) DestroyStreamForce(h acl.Stream) error {
	return b.DestroyStream(cancelled, h)
}

// CreateStreamWithConfig implements [acl.Backend]. The simulator
// has no launch paths or scheduling for the flags and the priority to
// tune, so the stream is a plain one.
func (b *Backend) CreateStreamWithConfig(dev int32, _ uint32, _ acl.StreamFlag) (acl.Stream, error) {
	return b.CreateStream(dev)
}

// SetStreamFailureMode implements [acl.Backend]. With
// [acl.StopOnFailure], once an operation of the stream fails, the operations
// after it fail without effect (event records still complete, reporting
// the error) until a synchronize takes the error.
func (b *Backend) SetStreamFailureMode(h acl.Stream, mode acl.FailureMode) error {
	s, err := b.stream(h)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := acl.CheckFailureModeChange(s.mode(), mode); err != nil {
		return err
	}
	s.failStop = mode == acl.StopOnFailure
	s.publishLocked()
	return nil
}

// mode returns the stream's failure mode. Called with s.mu held.
func (s *stream) mode() acl.FailureMode {
	if s.failStop {
		return acl.StopOnFailure
	}
	return acl.ContinueOnFailure
}
