package sim

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/aclwasm/aclwasm/acl"
)

// launch is a queued [acl.Launch]: the spans of its regions, referenced
// until it has run, so a Free of their memory waits for it.
type launch struct {
	l     *acl.Launch
	spans []span
	// For a launch of up to launchInline regions, the spans, the
	// allocations and the bytes its run locks and passes, without
	// allocations of their own.
	spanBuf  [launchInline]span
	allocBuf [launchInline]*alloc
	memBuf   [launchInline][]byte
}

// launchInline is the regions a launch holds without an allocation of
// their own.
const launchInline = 4

// Compute implements [acl.Computer]: l runs on the stream's worker once the
// work queued before it has, with the data locks of its allocations held.
func (b *Backend) Compute(h acl.Stream, l *acl.Launch) error {
	if l == nil || l.Run == nil {
		return acl.Errorf(acl.ErrInvalidParam, "the launch has no computation")
	}
	s, err := b.stream(h)
	if err != nil {
		return err
	}
	quick := l.Quick && b.clk == nil
	// A quick launch without regions holds nothing (b.stream found the
	// simulator open, as hold would): on an idle stream it runs without
	// a record, and without the stream's lock while nothing queued
	// waits (runFree).
	if quick && len(l.Regions) == 0 {
		if s.free.Load() {
			s.runFree(l)
			return nil
		}
		if s.runIdle(l, nil) {
			return nil
		}
	}
	x := launches.Get().(*launch)
	x.l, x.spans = l, x.spanBuf[:0]
	if len(l.Regions) > 0 {
		if err := b.hold(x); err != nil {
			x.release()
			return err
		}
	}
	if quick && len(l.Regions) > 0 && x.few() && s.runIdle(l, x) {
		return nil
	}
	// A synchronizing caller may run a quick launch it waits for, as a
	// small copy: it would wait for it anyway, and a worker it hands off
	// to and is woken by costs it two goroutine switches, often across
	// cores (or threads, where the host calls run on a locked thread).
	o := op{work: x, free: x, late: quick}
	if b.clk != nil {
		o.v = &vop{kind: vHost}
	}
	return s.pushNow(o)
}

// runIdle runs l, a quick launch, on the caller's goroutine when the
// stream is idle, as its worker would run it at once (asyncSmall does the
// same for small copies), without the hand-off to the worker and back;
// false, with nothing changed, when it is not (or the timing model runs).
// x is l's record holding its spans, nil for a launch without regions.
// It holds s.mu throughout, one lock where claim and finish take two: a
// quick launch never waits (acl.Launch.Quick), and what it locks (its
// allocations, the sandbox's tables) is never held by a goroutine that
// waits for s.mu, so whoever looks at the stream meanwhile waits for it as
// for a running op; nothing can queue behind it, so the worker need not
// be woken after. The stream is not closing, so its work is not cancelled
// (close sets both under s.mu) before Run returns: the worker's look at its
// halt is moot, and Run's context is one never done (Background), which
// a kernel that looks at it before each block reads for less than the
// halt's channel.
func (s *stream) runIdle(l *acl.Launch, x *launch) bool {
	s.mu.Lock()
	if s.closing || !s.idleLocked() || (s.b.depth > 0 && s.countedLocked() >= uint64(s.b.depth)) {
		s.mu.Unlock()
		return false
	}
	s.enq++
	l.InCall = true
	o := &launchOp
	var err error
	if !s.skipsLocked(o) { // a stopped stream's operations fail without effect
		err = exec(l, x, context.Background())
	}
	if x != nil {
		x.release()
	} else if l.Done != nil {
		l.Done()
	}
	s.finishLocked(o, err)
	s.mu.Unlock()
	return true
}

// runFree runs l, a quick launch without regions, on the caller's
// goroutine while the stream is free (nothing queued waits or runs, see
// stream.free), without s.mu: the two atomic operations of its Lock and
// Unlock were a tenth of a one-block launch's cost. What it may skip is
// what nothing can tell apart. The work queued before it, on this
// goroutine or any that synchronized with it, is done (free is read
// after it was published). Whatever looks at the stream or queues on it
// meanwhile does so at once with a launch that is not over, so may take
// the launch as after it: it is not counted (enq and done, which a
// launch in its call leaves as they were), an op queued meanwhile may run
// beside it, and a destroy or Close need not wait for it; with no
// regions, the launch touches no memory of the device that another op
// could see half done. Its error fails the stream, as finishLocked's
// does.
func (s *stream) runFree(l *acl.Launch) {
	l.InCall = true
	err := exec(l, nil, context.Background())
	if l.Done != nil {
		l.Done()
	}
	if err != nil {
		s.mu.Lock()
		if s.err == nil {
			s.err = err
		}
		s.publishLocked()
		s.mu.Unlock()
	}
}

// launchOp is the op runIdle counts a launch as: neither a mark nor a
// record, nothing to call when done. Never written: one on the stack
// cost each launch the zeroing of its 168 bytes.
var launchOp op

// few reports whether the launch's regions hold at most smallAsync bytes,
// the most a quick launch runs on the caller's goroutine.
func (x *launch) few() bool {
	var n uint64
	for _, r := range x.l.Regions {
		if n += r.N; r.N > smallAsync || n > smallAsync {
			return false
		}
	}
	return true
}

// hold resolves and references every region of x's launch.
func (b *Backend) hold(x *launch) error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return errClosed()
	}
	for i, r := range x.l.Regions {
		if r.Ptr == 0 {
			return acl.Errorf(acl.ErrRTParamInvalid, "%s: buffer %d is NULL", x.l.Name, i)
		}
		sp, err := b.spanLocked(acl.Device(r.Ptr), r.N, r.Write, x.l.Name)
		if err != nil {
			return err
		}
		x.spans = append(x.spans, sp)
	}
	return nil
}

// launches are launch records to reuse: a launch of a quick kernel costs
// a few hundred nanoseconds, and allocating its record half as much again.
var launches = sync.Pool{New: func() any { return new(launch) }}

// release drops the references x holds, once it has run, been dropped or
// failed to queue, and recycles it: nothing refers to it after.
func (x *launch) release() {
	for _, s := range x.spans {
		s.release()
	}
	done := x.l.Done
	// Only what the launch used refers to anything: the rest of the
	// inline room is clear already.
	n := min(len(x.spans), launchInline)
	clear(x.spanBuf[:n])
	clear(x.allocBuf[:n])
	clear(x.memBuf[:n])
	x.l, x.spans = nil, nil
	launches.Put(x)
	if done != nil {
		done()
	}
}

// cost is the launch's declared duration for the timing model (0: the
// time it really ran).
func (x *launch) cost() time.Duration { return x.l.Cost }

// run runs the launch on the stream's worker, unless the stream's work
// was cancelled, with the worker's halt as Run's context (or the
// synchronous caller's).
func (x *launch) run(st *stream, _ [2]span, stop halt) error {
	if err := stop.err(); err != nil {
		return err
	}
	var ctx context.Context = &st.hctx // the worker's: boxing a haltCtx allocates
	if stop.ctx != nil || stop.done != st.abort {
		ctx = haltCtx{stop}
	}
	return exec(x.l, x, ctx)
}

// noMem is the bytes of a launch without regions.
var noMem = [][]byte{}

// exec runs l, held by x (nil: l has no regions), with context ctx: its
// Check, then Run on its regions' bytes with each allocation locked once,
// in id order (two regions may share one, and copies take the same locks
// in the same order). A panic in Run fails the launch as a device fault;
// one before it (in Check, the caller's, or the simulator's own set-up)
// is a host bug, ACL_ERROR_INTERNAL_ERROR, as a panic in any other
// operation of the stream is (stream.exec). One guard tells the two by
// running, set as Run starts: a quick launch run in its call so takes
// one deferred call, and none when Run guards itself (acl.Launch.Recovers)
// and nothing comes before it (no Check, no region to lock).
func exec(l *acl.Launch, x *launch, ctx context.Context) (err error) {
	if l.Recovers && l.Check == nil && (x == nil || len(x.spans) == 0) {
		// Nothing of the simulator's runs before Run, and Run guards
		// itself: no guard of exec's.
		if err := l.Run(ctx, noMem); err != nil {
			return launchErr(l.Name, err)
		}
		return nil
	}
	var allocs []*alloc
	running := false
	defer func() {
		for _, a := range allocs {
			a.mu.Unlock()
		}
		if r := recover(); r != nil {
			if !running {
				err = acl.Errorf(acl.ErrInternal, "host bug: %s: the launch's check panicked: %v", l.Name, r)
				return
			}
			err = acl.Errorf(acl.ErrRTAicoreException, "%s failed on the device: it panicked: %v", l.Name, r)
		}
	}()
	if l.Check != nil {
		if err := l.Check(); err != nil {
			return err
		}
	}
	mem := noMem
	if x != nil && len(x.spans) > 0 {
		as := x.allocBuf[:0]
		for _, s := range x.spans {
			as = append(as, s.a)
		}
		if len(as) > 1 {
			slices.SortFunc(as, func(a, b *alloc) int { return cmp.Compare(a.id, b.id) })
			as = slices.Compact(as)
		}
		for _, a := range as {
			a.mu.Lock()
		}
		allocs = as
		mem = x.memBuf[:0]
		for i, s := range x.spans {
			mem = append(mem, s.bytes(l.Regions[i].N))
		}
	}
	running = true
	if err := l.Run(ctx, mem); err != nil {
		return launchErr(l.Name, err)
	}
	return nil
}

// launchErr is the stream's error for a launch that failed as it ran: its
// own code when it carries one, else a device fault, as a kernel that
// faults natively fails its stream.
func launchErr(name string, err error) error {
	var code acl.Error
	if errors.As(err, &code) {
		return err
	}
	if errors.Is(err, context.Canceled) {
		return errStopped()
	}
	return acl.Errorf(acl.ErrRTAicoreException, "%s failed on the device: %v", name, err)
}

// haltCtx is a halt as a context, for computations that take one: done
// when the stream's work is cancelled (or the synchronous caller's
// context is).
type haltCtx struct{ h halt }

func (c haltCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c haltCtx) Done() <-chan struct{}       { return c.h.done }
func (c haltCtx) Value(any) any               { return nil }
func (c haltCtx) Err() error {
	select {
	case <-c.h.done:
		if c.h.ctx != nil {
			return c.h.ctx.Err()
		}
		return context.Canceled
	default:
		return nil
	}
}
