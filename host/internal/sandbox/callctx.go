package sandbox

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aclwasm/aclwasm/host/internal/engine"
)

// CallCtx is the context of an instance's guest calls: one per Instance,
// armed by each call and ended after it, so that a call makes no context,
// timer or value of its own (context.WithTimeout, WithCancel and
// WithValue cost about ten allocations and a microsecond per call, more
// than the call of an empty export). It is done when the policy's timeout
// of the call expires (cause ErrPolicyTimeout, as withPolicyTimeout), when
// the caller's context is done, or when Close cancels the call. It carries
// the session for the engines (engine.InvokerKey), and implements
// AfterFunc so that contexts derived from it (a host call's own timeout)
// need no goroutine to follow it.
//
// Calls never overlap (callMu), so only one call arms it at a time; the
// timer's and the parent's callbacks of an earlier call may still run late
// and are recognized as stale.
type CallCtx struct {
	Bind engine.Binding // the session, for the engines (engine.InvokerKey)

	// ended and doneCh are err != nil and done, read without mu: every
	// host call asks (the engines after each, the backends' waits).
	// doneCh holds a chan struct{}: an atomic.Value stores a channel as
	// is, where an atomic.Pointer would need the channel variable moved
	// to the heap, an allocation per armed instance.
	ended  atomic.Bool
	doneCh atomic.Value

	mu     sync.Mutex
	parent context.Context // the armed call's; nil between calls
	// done is closed when the call's context ends, and replaced then. It
	// is made by the first Done, not by Arm: a call that nobody waits on
	// (the engines ask ended, and follow the call with Watch) makes no
	// channel, an allocation per instance where each request has its own.
	done       chan struct{}
	armed      bool // Arm has been called: Done makes done from here on
	err, cause error
	deadline   time.Time
	hasDL      bool
	// timer is the policy's timeout, taken from policyTimers at the first
	// call with one and kept until Release, reset per call; timerSet: it
	// is set for the armed call; timerRan: a callback of it has started.
	timer      *policyTimer
	timerSet   bool
	timerRan   bool
	limit      time.Duration // the policy's timeout of the armed call, for its error
	stopParent func() bool   // stops following a cancelable parent
	afters     []*func()     // in aftersBuf while it fits: a call has one watcher (the engine's)
	aftersBuf  [2]*func()
}

// Arm starts a call under parent, bounded by the policy's timeout d
// (NoTimeout: none). The caller holds the instance's callMu and mu.
func (c *CallCtx) Arm(parent context.Context, d time.Duration) {
	c.stopTimer() // an earlier call not ended
	c.mu.Lock()
	c.parent, c.armed = parent, true
	if c.err != nil { // the last call's done is closed: the next Done makes one
		c.done = nil
		c.doneCh.Store((chan struct{})(nil))
	}
	c.err, c.cause = nil, nil
	c.ended.Store(false)
	c.deadline, c.hasDL = parent.Deadline()
	policy := false
	if d >= 0 {
		if dl := time.Now().Add(d); !c.hasDL || dl.Before(c.deadline) {
			c.deadline, c.hasDL, policy = dl, true, true
		}
	}
	c.mu.Unlock()
	if parent.Done() != nil {
		c.stopParent = context.AfterFunc(parent, func() { c.parentDone(parent) })
	}
	if policy {
		c.mu.Lock()
		c.limit = d
		c.mu.Unlock()
		if c.timer == nil {
			c.timer = policyTimers.Get().(*policyTimer)
			c.timer.c.Store(c)
		}
		c.timer.t.Reset(d)
		c.timerSet = true
	}
}

// policyTimer is the timer of a policy's timeout, shared by the call
// contexts of a process in turn (policyTimers): where each request has an
// instance of its own, a timer per instance was an allocation and a
// closure of its own. c is the call context it is armed for.
type policyTimer struct {
	t *time.Timer
	c atomic.Pointer[CallCtx]
}

// policyTimers holds the stopped timers of released call contexts: one
// goes back only if Stop prevented every callback of its call context's
// calls, so that a timer taken again never runs a call context's expire
// for an earlier one. A timer whose callback started is left to its call
// context (and the garbage collector).
var policyTimers = sync.Pool{New: func() any {
	pt := &policyTimer{}
	pt.t = time.AfterFunc(time.Hour, pt.fire)
	pt.t.Stop()
	return pt
}}

func (pt *policyTimer) fire() {
	if c := pt.c.Load(); c != nil {
		c.expire()
	}
}

// stopTimer stops the armed call's timer, if set, noting whether its
// callback has started.
func (c *CallCtx) stopTimer() {
	if c.timerSet {
		c.timerSet = false
		if !c.timer.t.Stop() {
			c.timerRan = true
		}
	}
}

// Release gives the call context's timer back for other call contexts:
// its instance makes no more calls. The caller holds the instance's
// callMu.
func (c *CallCtx) Release() {
	c.stopTimer()
	if pt := c.timer; pt != nil && !c.timerRan {
		pt.c.Store(nil)
		policyTimers.Put(pt)
	}
	c.timer = nil
}

// End ends the armed call. Contexts derived from it and still following
// it are cancelled, as they were when each call had a context of its own.
func (c *CallCtx) End() {
	c.stopTimer()
	if c.stopParent != nil {
		c.stopParent()
		c.stopParent = nil
	}
	c.mu.Lock()
	leaked := len(c.afters) > 0
	c.mu.Unlock()
	if leaked {
		c.Cancel(context.Canceled, context.Canceled)
	}
	c.mu.Lock()
	c.parent = nil
	c.mu.Unlock()
}

// expire is the policy timeout's callback; a late one of an earlier call
// finds the deadline not reached.
func (c *CallCtx) expire() {
	c.mu.Lock()
	stale := c.parent == nil || time.Now().Before(c.deadline)
	d := c.limit
	c.mu.Unlock()
	if !stale {
		c.Cancel(context.DeadlineExceeded, TimeoutCause(d))
	}
}

// parentDone follows the caller's context p.
func (c *CallCtx) parentDone(p context.Context) {
	c.mu.Lock()
	stale := c.parent != p
	c.mu.Unlock()
	if !stale {
		c.Cancel(p.Err(), context.Cause(p))
	}
}

// Cancel ends the armed call's context with err and cause (first one
// wins); nothing between calls.
func (c *CallCtx) Cancel(err, cause error) {
	c.mu.Lock()
	if c.err != nil || c.parent == nil {
		c.mu.Unlock()
		return
	}
	c.err, c.cause = err, cause
	c.ended.Store(true)
	if c.done == nil {
		c.done = closedChan
		c.doneCh.Store(closedChan)
	} else {
		close(c.done)
	}
	afters := slices.Clone(c.afters) // aftersBuf is the next call's
	c.afters = nil
	clear(c.aftersBuf[:])
	c.mu.Unlock()
	for _, f := range afters {
		go (*f)()
	}
}

// Cause is context.Cause of the call's context (which context.Cause
// cannot read from a context of this type).
func (c *CallCtx) Cause() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cause
}

// Deadline implements context.Context.
func (c *CallCtx) Deadline() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.deadline, c.hasDL
}

// callDeadline is Deadline for the armed call's own host calls, without
// mu (a launch asks at every queueing): Arm sets the deadline before the
// call starts, on the goroutine that runs it, and the next Arm comes only
// after the call has returned (callMu).
func (c *CallCtx) callDeadline() (time.Time, bool) { return c.deadline, c.hasDL }

// Done implements context.Context.
func (c *CallCtx) Done() <-chan struct{} {
	if ch, _ := c.doneCh.Load().(chan struct{}); ch != nil {
		return ch
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil && c.armed {
		c.done = make(chan struct{})
		c.doneCh.Store(c.done) // Done reads it without mu
	}
	return c.done // nil if never armed
}

// closedChan is the done of a call cancelled before anyone asked for it.
var closedChan = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()

// Err implements context.Context.
func (c *CallCtx) Err() error {
	if !c.ended.Load() {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Value implements context.Context: the session for the engines, the
// caller's values otherwise.
func (c *CallCtx) Value(key any) any {
	if _, ok := key.(engine.InvokerKey); ok {
		if c.Bind.Invoker == nil {
			return nil
		}
		return &c.Bind
	}
	c.mu.Lock()
	p := c.parent
	c.mu.Unlock()
	if p == nil {
		return nil
	}
	return p.Value(key)
}

// AfterFunc runs f on a goroutine of its own once the call's context is
// done; context.AfterFunc, WithCancel and WithTimeout use it instead of a
// goroutine that waits for Done.
func (c *CallCtx) AfterFunc(f func()) (stop func() bool) {
	p := &f
	c.Watch(p)
	return func() bool { return c.Unwatch(p) }
}

// Watch is AfterFunc without allocations, for the engines
// (engine.Watcher): *f, which the caller keeps, runs on a goroutine of
// its own once the call's context is done.
func (c *CallCtx) Watch(f *func()) {
	c.mu.Lock()
	if c.err != nil || c.parent == nil {
		c.mu.Unlock()
		go (*f)()
		return
	}
	if c.afters == nil {
		c.afters = c.aftersBuf[:0]
	}
	c.afters = append(c.afters, f)
	c.mu.Unlock()
}

// Unwatch stops a Watch of f: false if *f has been started.
func (c *CallCtx) Unwatch(f *func()) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := slices.Index(c.afters, f)
	if i < 0 {
		return false
	}
	c.afters = slices.Delete(c.afters, i, i+1)
	return true
}

// ErrPolicyTimeout is the cause of a context ended by the policy's
// timeout: it tells ErrTimeout (the policy's) from ErrCanceled (the
// caller's deadline or cancellation).
var ErrPolicyTimeout = errors.New("the policy's timeout expired")

// TimeoutCause is ErrPolicyTimeout with the timeout that expired, so that
// the error names the limit the guest ran into.
type TimeoutCause time.Duration

func (c TimeoutCause) Error() string {
	return "the policy's timeout of " + time.Duration(c).String() + " expired"
}

// Is makes a TimeoutCause ErrPolicyTimeout.
func (c TimeoutCause) Is(target error) bool { return target == ErrPolicyTimeout }

// WithPolicyTimeout returns ctx bounded by the policy's timeout d, whose
// expiry is marked as the policy's (ErrPolicyTimeout), or only cancelable
// with NoTimeout.
func WithPolicyTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d < 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, d, TimeoutCause(d))
}
