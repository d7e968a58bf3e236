//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/ebitengine/purego"

	"github.com/aclwasm/aclwasm/acl"
)

// Host functions run as native callbacks: LaunchHostFunc queues
// aclrtLaunchCallback(ACL_CALLBACK_BLOCK) on the stream, so the runtime
// holds the stream until the function returns, and the runtime hands the
// callback to the thread subscribed to the stream (aclrtSubscribeReport),
// which runs it inside aclrtProcessReport. Each stream that has had a host
// function gets its own such thread, a goroutine locked to its OS thread,
// so that a host function that blocks holds back only its own stream.
//
// purego can make a bounded number of C-callable Go functions per process,
// so there is exactly one, hostCallback, and the callback's userData names
// the function to run.

// reportSlice bounds one aclrtProcessReport wait, in milliseconds: how long
// stopping a report thread may take.
const reportSlice = 50

// callbackBlock is ACL_CALLBACK_BLOCK.
const callbackBlock = 1

var (
	callbackOnce sync.Once
	callbackPtr  uintptr
	pthreadSelf  func() uint64
	callbackErr  error

	hostCalls sync.Map // userData (uintptr) -> *hostCall
	nextCall  atomic.Uint64
)

// hostCall is one queued host function.
type hostCall struct {
	b   *Backend
	s   *stream
	seq uint64 // the stream's operation number of the callback
	fn  func() error
	// drop, when set, is called instead of fn when the callback will
	// never run (its stream stopped on a failure or destroyed by force).
	drop func()
}

// dropped calls hc.drop, if any.
func (hc *hostCall) dropped() {
	if hc.drop != nil {
		hc.drop()
	}
}

// initCallbacks makes the process's one C-callable function and finds
// pthread_self, which names the report threads to the runtime.
func initCallbacks() error {
	callbackOnce.Do(func() {
		sym, err := purego.Dlsym(purego.RTLD_DEFAULT, "pthread_self")
		if err != nil {
			callbackErr = fmt.Errorf("cann: cannot find pthread_self: %w", err)
			return
		}
		purego.RegisterFunc(&pthreadSelf, sym)
		callbackPtr = purego.NewCallback(hostCallback)
	})
	return callbackErr
}

// hostCallback is the aclrtCallback of every host function.
func hostCallback(userData uintptr) {
	v, ok := hostCalls.LoadAndDelete(userData)
	if !ok {
		return
	}
	hc := v.(*hostCall)
	if hc.s.stopped() {
		hc.dropped()
		return // ACL_STOP_ON_FAILURE after an error: fails without effect
	}
	if err := hc.run(); err != nil {
		hc.b.hostFuncFailed(hc.s, hc.seq, err)
	}
}

// stopped reports whether s is in ACL_STOP_ON_FAILURE mode with an error
// held for its next synchronize.
func (s *stream) stopped() bool { return s.failStop.Load() && s.held.Load() }

// run calls fn, turning a panic into an error: a panic must not unwind
// through the runtime's C frames, which would kill the process.
func (hc *hostCall) run() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cann: host function panicked: %v", r)
		}
	}()
	return hc.fn()
}

// hostFuncFailed holds err for s's next synchronize and for synchronizes of
// events recorded on s after the function was queued. Both happen in one
// critical section of b.mu, which RecordEvent also holds (then s.use) while
// it reads the stream's held error and publishes the record.
func (b *Backend) hostFuncFailed(s *stream, seq uint64, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s.holdErr(err)
	for _, e := range b.events {
		if e.recStream == s && e.recSeq > seq && e.hostErr == nil {
			e.hostErr = err
		}
	}
}

// reporter is the thread that runs a stream's host functions.
type reporter struct {
	tid  uint64
	stop chan struct{}
	done chan struct{}
	// unsubscribe tells the thread to unsubscribe when it stops; it is
	// false once the stream has been destroyed.
	unsubscribe atomic.Bool
}

// reporterLocked returns s's report thread, starting it on first use.
// Called with s.mu held.
func (b *Backend) reporterLocked(s *stream) (*reporter, error) {
	if s.rep != nil {
		return s.rep, nil
	}
	if err := initCallbacks(); err != nil {
		return nil, err
	}
	r := &reporter{stop: make(chan struct{}), done: make(chan struct{})}
	r.unsubscribe.Store(true)
	started := make(chan error, 1)
	go b.report(s, r, started)
	if err := <-started; err != nil {
		return nil, err
	}
	s.rep = r
	return r, nil
}

// report is the body of a report thread. It stays locked to its OS thread
// until it ends, so the thread the runtime knows by its id stays this one;
// the thread is then discarded with its native thread state.
func (b *Backend) report(s *stream, r *reporter, started chan<- error) {
	defer close(r.done)
	runtime.LockOSThread()
	r.tid = pthreadSelf()
	err := b.call(s.dev, "aclrtSubscribeReport", func() int32 { return b.api.aclrtSubscribeReport(r.tid, s.native) })
	started <- err
	if err != nil {
		return
	}
	for {
		select {
		case <-r.stop:
			if r.unsubscribe.Load() {
				// Nothing is queued any more: an error here changes nothing.
				_ = b.call(s.dev, "aclrtUnSubscribeReport", func() int32 { return b.api.aclrtUnSubscribeReport(r.tid, s.native) })
			}
			return
		default:
		}
		// A timeout is the normal way of finding nothing to run.
		_ = b.onDevice(s.dev, func() { b.api.aclrtProcessReport(reportSlice) })
	}
}

// stopReporter ends s's report thread, if it has one, unsubscribing it
// unless the stream is already destroyed.
func (s *stream) stopReporter(destroyed bool) {
	s.mu.Lock()
	r := s.rep
	s.rep = nil
	s.mu.Unlock()
	if r == nil {
		return
	}
	r.unsubscribe.Store(!destroyed)
	close(r.stop)
	<-r.done
}

// forgetHostCalls drops the queued host functions that will never run:
// those for which drop reports true.
func forgetHostCalls(drop func(*hostCall) bool) {
	hostCalls.Range(func(k, v any) bool {
		if hc := v.(*hostCall); drop(hc) {
			if _, ok := hostCalls.LoadAndDelete(k); ok {
				hc.dropped()
			}
		}
		return true
	})
}

// LaunchHostFunc implements [acl.Backend] with aclrtLaunchCallback in
// blocking mode: fn runs on the stream's report thread when the stream
// reaches it, and the stream waits for it to return. An error (or panic)
// from fn is held for the stream's next synchronize and for synchronizes of
// events recorded after it. fn may call the backend, but not wait for its
// own stream, which waits for fn.
func (b *Backend) LaunchHostFunc(h acl.Stream, fn func() error) error {
	if fn == nil {
		return acl.Errorf(acl.ErrInvalidParam, "fn is nil")
	}
	return b.launch(h, fn, true)
}

// OnComplete implements [acl.Backend] as LaunchHostFunc does, but Pending
// does not count the callback. It blocks the stream too, so that a
// synchronize that returns has seen fn run (a non-blocking callback may
// run later, or never once its stream is destroyed); the cost is one
// report-thread round trip per mark. A forced destruction of the stream
// drops it with the work before it.
func (b *Backend) OnComplete(h acl.Stream, fn func()) error {
	if fn == nil {
		return acl.Errorf(acl.ErrInvalidParam, "fn is nil")
	}
	return b.launch(h, func() error { fn(); return nil }, false)
}

// launch queues fn as a blocking callback on the stream h, counted by
// Pending if counted. reqs are the memory fn uses: each must be live now,
// and Free and HostUnregister wait for the stream until fn has run.
func (b *Backend) launch(h acl.Stream, fn func() error, counted bool, reqs ...req) error {
	return b.launchDrop(h, fn, nil, counted, reqs...)
}

// launchDrop is launch with drop called if fn will never run (see
// hostCall.drop); when it returns an error, neither is called.
func (b *Backend) launchDrop(h acl.Stream, fn func() error, drop func(), counted bool, reqs ...req) error {
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	s, sides, err := b.acquire(h, reqs...)
	if err != nil {
		return err
	}
	defer b.done(s, sides)
	s.mu.Lock()
	_, err = b.reporterLocked(s)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	id := uintptr(nextCall.Add(1))
	err = b.submitOp(s, sides, false, counted, "aclrtLaunchCallback", func(stream uintptr) int32 {
		// submit holds s.mu: the callback's number is the next one.
		hostCalls.Store(id, &hostCall{b: b, s: s, seq: s.seq + 1, fn: fn, drop: drop})
		return b.api.aclrtLaunchCallback(callbackPtr, id, callbackBlock, stream)
	})
	if err != nil {
		hostCalls.Delete(id)
	}
	return err
}
