package host

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

// Instance is a plugin instantiated as a reactor: its exports can be called
// until Close. It is safe for concurrent use, but its calls must not
// overlap: a call made while another is in progress fails with ErrBusy
// (guest code is not reentrant, and silently queueing calls would hide
// the caller's bug and let one call's wait eat another's timeout).
type Instance struct {
	p     *Plugin
	s     *Session
	inst  engine.Instance
	stdin *sandbox.Stdin // Config.Stdin, made interruptible; nil if it never blocks
	io    *sandbox.IO    // the bytes calls' input and output, made at the first (under callMu)
	warm  bool           // in a pool, idle: it served a call since it was last idled (Pool.mu)

	// callMu is held while guest code runs (a call, the start function,
	// _initialize, a whole Run) and while the instance finishes: Close
	// takes it to wait for a call it cancelled, and Call only tries it.
	callMu sync.Mutex

	mu      sync.Mutex
	cc      sandbox.CallCtx // the context of the call in progress
	armed   bool            // a call is in progress: cc is armed
	closing bool            // Close was called: no new call may start
	done    bool            // finished: session and engine instance released
}

// Session returns the instance's session.
func (i *Instance) Session() *Session { return i.s }

// Call calls an exported function with wasm values (i32 zero-extended,
// floats as their bits; results likewise) within the policy's timeout.
// A call that is refused before guest code runs (no such export, wrong
// number of arguments, ErrBusy) leaves the instance as it was. A call
// whose guest exits (an *ExitError, code 0 included), traps, times out or
// is cancelled ends the instance: its session is released, and later
// calls fail with ErrClosed.
func (i *Instance) Call(ctx context.Context, name string, args ...uint64) ([]uint64, error) {
	if err := i.tryLock(); err != nil {
		return nil, fmt.Errorf("host: call %s: %w", name, err)
	}
	defer i.callMu.Unlock()
	return i.call(ctx, name, args...)
}

// call is Call with callMu held.
func (i *Instance) call(ctx context.Context, name string, args ...uint64) ([]uint64, error) {
	if name == i.p.start {
		return nil, fmt.Errorf("host: %w: %q", errNoExport, name)
	}
	ro := i.p.begin(ctx, name)
	i.s.observe(ro)
	res, err := i.exec(ctx, i.p.policy.Timeout, name, name, args...)
	if err == nil {
		// The checking mode's findings come with the results: the guest
		// returned, and the instance stays usable.
		err = i.asyncErr(ctx, name)
		i.p.ran(0, err)
		end(ro, i.s, 0, err)
		return res, err
	}
	if errors.Is(err, ErrTrap) {
		if aerr := i.asyncErr(ctx, name); aerr != nil {
			err = errors.Join(err, aerr) // often why it trapped
		}
	}
	i.p.ran(0, err)
	if !errors.Is(err, errNoExport) && !errors.Is(err, errArgs) {
		err = errors.Join(err, i.finish(ctx, true))
		end(ro, i.s, 0, err)
		return nil, err
	}
	end(ro, i.s, 0, err)
	return res, err
}

// tryLock takes callMu for a call, or for an operation of the embedder's
// that reads or changes what a call uses (guest memory, the session's
// address space), or says why not: ErrBusy while a call runs, ErrClosed
// (as "instance is closed") once the instance is closing or done.
func (i *Instance) tryLock() error {
	if i.callMu.TryLock() {
		return nil
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.closing || i.done {
		return errInstanceClosed
	}
	return ErrBusy
}

// exec runs the guest's export name, as label in errors, under ctx and
// the timeout d (NoTimeout: ctx's own deadline only); the caller holds
// callMu. It does not finish the instance.
func (i *Instance) exec(ctx context.Context, d time.Duration, name, label string, args ...uint64) ([]uint64, error) {
	cctx, err := i.arm(ctx, d, label)
	if err != nil {
		return nil, err
	}
	res, err := i.invoke(cctx, name, args...)
	return res, i.disarm(cctx, label, engineErr(cctx, err))
}

// execArmed is exec within a call already armed (a Run's: its call
// context stays armed from the instantiation to _start's end, so that a
// run arms it once); the caller holds callMu and disarms it.
func (i *Instance) execArmed(name, label string) ([]uint64, error) {
	i.mu.Lock()
	closed := i.closing || i.done
	i.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("host: call %s: instance is %w", label, ErrClosed)
	}
	res, err := i.invoke(&i.cc, name)
	return res, i.settle(&i.cc, label, engineErr(&i.cc, err), false)
}

// invoke calls the guest's export name under the armed call context cctx.
func (i *Instance) invoke(cctx context.Context, name string, args ...uint64) ([]uint64, error) {
	i.s.s.ClearGuestMessage() // error_set speaks for the call it is made in
	i.stdin.Watch(cctx)
	res, err := i.inst.Call(cctx, name, args...)
	i.stdin.Unwatch()
	return res, err
}

// arm refuses a call once the instance is closing, or returns the call's
// context (the instance's callCtx, armed with ctx and the timeout d),
// which Close cancels.
func (i *Instance) arm(ctx context.Context, d time.Duration, label string) (context.Context, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.closing || i.done {
		return nil, fmt.Errorf("host: call %s: instance is %w", label, ErrClosed)
	}
	i.cc.Arm(ctx, d)
	i.armed = true
	return &i.cc, nil
}

// disarm ends the call armed for ctx and classifies its error (ctxErr),
// saying so when Close cancelled it.
func (i *Instance) disarm(ctx context.Context, label string, err error) error {
	return i.settle(ctx, label, err, true)
}

// settle classifies the error of a call armed for ctx (ctxErr), saying
// so when Close cancelled it, and ends the armed call if end.
func (i *Instance) settle(ctx context.Context, label string, err error, end bool) error {
	err = ctxErr(ctx, label, err)
	i.mu.Lock()
	defer i.mu.Unlock()
	if end && i.armed {
		i.cc.End()
		i.armed = false
	}
	if i.closing && errors.Is(err, ErrCanceled) {
		err = fmt.Errorf("%w: the instance was %w during the call", err, ErrClosed)
	}
	return err
}

// end ends the armed call, if any.
func (i *Instance) end() {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.armed {
		i.cc.End()
		i.armed = false
	}
}

// Close ends the instance and releases its session: queued work is
// finished (cancelling what has not started once ctx is done, or after the
// policy's timeout if ctx has no deadline). A call in progress, on another
// goroutine, is cancelled first and Close waits for it to return (it ends
// with ErrCanceled and ErrClosed), so nothing is released under a running
// guest. Closing twice does nothing.
//
// Called from one of the embedder's host functions during a call of the
// instance itself, Close cannot wait for that call: it cancels it and
// returns nil, and the instance is released as the call returns (the call
// ends with ErrCanceled and ErrClosed).
func (i *Instance) Close(ctx context.Context) error {
	i.mu.Lock()
	i.closing = true
	if i.armed {
		i.cc.Cancel(context.Canceled, context.Canceled)
	}
	i.mu.Unlock()
	if i.s.s.InHostFunc() {
		return nil
	}
	i.callMu.Lock()
	defer i.callMu.Unlock()
	return i.finish(ctx, false)
}

// finish releases the session, then the engine's instance, once; the
// caller holds callMu. After a trap or timeout (abort), queued work not
// yet started is cancelled; otherwise it is finished first, by ctx's
// deadline (a run's own: the policy's Timeout bounds the whole run) or
// within the policy's timeout.
func (i *Instance) finish(ctx context.Context, abort bool) error {
	i.mu.Lock()
	if i.done {
		i.mu.Unlock()
		return nil
	}
	i.done = true
	i.mu.Unlock()
	i.cc.Release() // no call follows: its timer may serve another instance
	defer i.p.forget(i)
	if i.s.s.Idle() { // nothing to wait for: no deadline to bound the waits
		return errors.Join(i.s.s.Release(ctx), i.inst.Close(context.WithoutCancel(ctx)))
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = sandbox.WithPolicyTimeout(ctx, i.p.policy.Timeout)
		defer cancel()
	}
	if abort {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		cancel()
	}
	return errors.Join(i.s.s.Release(ctx), i.inst.Close(context.WithoutCancel(ctx)))
}
