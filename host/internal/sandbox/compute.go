package sandbox

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aclwasm/aclwasm/acl"
)

// nativeEnd is the stream's error for a native launch (an operator, a
// model) whose end the backend reported to its Ran with err: nil for none;
// a stop by the launch's bounds as the backend's *acl.StoppedError, which
// is already in the sandbox's words; otherwise the backend's code, with
// failed (what failed, and where) before its message.
func nativeEnd(err error, failed string) error {
	var stopped *acl.StoppedError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &stopped):
		return &fault{stopped}
	}
	return &fault{acl.Errorf(acl.CodeOf(err), "%s: %s", failed, acl.MessageOf(err))}
}

// bounds is what bounds the Run of a compute launch queued by a call: the
// stream's cancellation (the ctx Run receives), the end of the session
// (halt) and the run's time limit. The limit is read when the launch is
// queued: the call's own context is re-armed for the guest's next call and
// must not be held by queued work.
type bounds struct {
	halt     context.Context
	deadline time.Time // zero: no limit
}

// bounds returns the bounds of a launch the call in progress queues.
func (c *Call) bounds() bounds { return bounds{halt: c.s.halt, deadline: c.runDeadline()} }

// runDeadline is the run's deadline, zero for none.
func (c *Call) runDeadline() time.Time {
	if cc, ok := c.ctx.(*CallCtx); ok {
		dl, _ := cc.callDeadline()
		return dl
	}
	dl, _ := c.ctx.Deadline()
	return dl
}

// launchBounds returns bounds as a function of Run's context, for the
// launches that bound a context of their own.
func (c *Call) launchBounds() func(ctx context.Context) (context.Context, context.CancelFunc) {
	b := c.bounds()
	return func(ctx context.Context) (context.Context, context.CancelFunc) {
		bc := &boundCtx{}
		b.set(bc, ctx, 0)
		return bc, bc.release
	}
}

// set makes bc the context of a Run that received ctx, also bounded by
// timeout when it is positive (a launch's own timeout, from now).
// bc may be one a Run used before (reusable): every field is set again.
func (b bounds) set(bc *boundCtx, ctx context.Context, timeout time.Duration) {
	bc.bind(ctx, b.halt, b.deadline, timeout)
}

// bind is bounds{halt, deadline}.set(c, ctx, timeout), field by field for
// a kernel's launch (kernelLaunch.run), which keeps its bounds in its own
// fields: building the bounds to copy them cost it a stall on their
// 16-byte moves.
func (c *boundCtx) bind(ctx, halt context.Context, deadline time.Time, timeout time.Duration) {
	c.parent, c.halt, c.deadline = ctx, halt, deadline
	c.own, c.calm = time.Time{}, false
	if timeout > 0 {
		c.own = time.Now().Add(timeout)
	}
}

// boundCtx is the context of a launch's Run: done when the stream's work
// is cancelled (parent), the session ends (halt), the run's deadline
// passes or the launch's own timeout does. Err answers by looking at each,
// which costs nothing per launch; the channel Done returns, and the
// goroutine and timers behind it, are made only when a computation asks
// for it (one that waits rather than one that computes): a launch made
// each of them with context.WithCancel, AfterFunc and WithDeadline, three
// contexts and a goroutine, where the launch itself is a few hundred
// nanoseconds.
type boundCtx struct {
	parent, halt context.Context
	deadline     time.Time // the run's, zero for none
	own          time.Time // the launch's own, zero for none
	// calm: parent is never done (a launch run in its call gets such
	// a one, acl.Launch.InCall), so Err need not ask it.
	calm bool
	mu   sync.Mutex
	lazy atomic.Pointer[lazyDone]
}

// lazyDone is a boundCtx's Done made on demand: a context done when it is.
type lazyDone struct {
	ctx  context.Context
	stop func()
}

// Deadline is the earlier of the run's and the launch's.
func (c *boundCtx) Deadline() (time.Time, bool) {
	d := c.deadline
	if d.IsZero() || !c.own.IsZero() && c.own.Before(d) {
		d = c.own
	}
	return d, !d.IsZero()
}

// Value is the parent's.
func (c *boundCtx) Value(key any) any { return c.parent.Value(key) }

// Err is context.Canceled once the stream's work is cancelled or the
// session ends, context.DeadlineExceeded once a deadline passes.
func (c *boundCtx) Err() error {
	if l := c.lazy.Load(); l != nil { // agree with the channel Done made
		return l.ctx.Err()
	}
	return c.now()
}

// now is Err before Done is made.
func (c *boundCtx) now() error {
	if !c.calm {
		if err := c.parent.Err(); err != nil {
			return err
		}
	}
	if c.halt.Err() != nil {
		return context.Canceled
	}
	if c.deadline.IsZero() && c.own.IsZero() { // most launches: no call of Deadline
		return nil
	}
	if d, ok := c.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return nil
}

// Done makes, at its first call, a context done when c is.
func (c *boundCtx) Done() <-chan struct{} {
	if l := c.lazy.Load(); l != nil {
		return l.ctx.Done()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if l := c.lazy.Load(); l != nil {
		return l.ctx.Done()
	}
	ctx, cancel := context.WithCancel(c.parent)
	stopHalt := context.AfterFunc(c.halt, cancel)
	stop := func() { stopHalt(); cancel() }
	if c.halt.Err() != nil { // AfterFunc cancels in a goroutine of its own
		cancel()
	}
	if d, ok := c.Deadline(); ok {
		var stopDL context.CancelFunc
		ctx, stopDL = context.WithDeadline(ctx, d)
		stop = func() { stopDL(); stopHalt(); cancel() }
	}
	c.lazy.Store(&lazyDone{ctx: ctx, stop: stop})
	return ctx.Done()
}

// release frees what Done made, once Run has returned.
func (c *boundCtx) release() {
	if l := c.lazy.Load(); l != nil {
		l.stop()
	}
}

// reusable reports whether c may serve another Run (set) once this one
// has returned: Done made nothing, so nothing but Run saw it.
func (c *boundCtx) reusable() bool { return c.lazy.Load() == nil }

// expired reports which deadline a computation that ended with
// context.DeadlineExceeded met: the run's, or the launch's own.
func (c *boundCtx) expired() (run, own bool) {
	now := time.Now()
	run = !c.deadline.IsZero() && !now.Before(c.deadline)
	own = !c.own.IsZero() && !now.Before(c.own)
	return run, own
}
