package sandbox

import (
	"context"
	"slices"
	"time"

	"github.com/aclwasm/aclwasm/acl"
)

// Report callbacks (ABI section 12): aclrtSubscribeReport binds a stream
// to the guest's thread, aclrtLaunchCallback queues a guest function on a
// bound stream, and aclrtProcessReport runs the callbacks that are due.
// A single-threaded guest has one thread, so the thread id is only
// recorded (UnSubscribe must name the same one); the callbacks run
// through the dispatcher as aclrtLaunchHostFunc's do, inside
// aclrtProcessReport and inside any blocking wait, but not at the start of
// other host calls (natively only the subscribed thread runs them).

// The native codes of the subscription checks.
const (
	errStreamSubscribe = acl.Error(107011) // ACL_ERROR_RT_STREAM_SUBSCRIBE
	errThreadSubscribe = acl.Error(107012) // ACL_ERROR_RT_THREAD_SUBSCRIBE
	errStreamNoCbReg   = acl.Error(107015) // ACL_ERROR_RT_STREAM_NO_CB_REG
	errReportTimeout   = acl.Error(507012) // ACL_ERROR_RT_REPORT_TIMEOUT
)

// How a stream takes callbacks: natively a stream that aclrtLaunchHostFunc
// used is bound to the runtime's own callback thread, and one that
// aclrtSubscribeReport bound to a user thread takes no host functions.
type subscription struct {
	user     bool   // aclrtSubscribeReport bound it
	threadID uint64 // the thread it was bound to
	runtime  bool   // aclrtLaunchHostFunc used it
}

// sub returns the subscription state of st, made on first use.
func (s *Session) sub(st *streamRec) *subscription {
	cb := s.callbacks()
	if cb.subs == nil {
		cb.subs = map[*streamRec]*subscription{}
	}
	sb := cb.subs[st]
	if sb == nil {
		sb = &subscription{}
		cb.subs[st] = sb
	}
	return sb
}

// reportStream resolves the stream of aclrtSubscribeReport and
// aclrtUnSubscribeReport: the handle (107017), then NULL is the current
// context's default stream (107002 without a device).
func (c *Call) reportStream(i int) (*streamRec, error) {
	st, err := c.streamHandle(c.u32(i)) // stream
	if err != nil {
		return nil, err
	}
	if st == nil {
		return c.bindStream(nil) // context
	}
	return st, nil
}

// subscribeReport is aclrtSubscribeReport(threadId, stream).
func subscribeReport(c *Call) error {
	tid := c.u64(0)
	st, err := c.reportStream(1)
	if err != nil {
		return err
	}
	sb := c.s.sub(st)
	if sb.runtime { // runtime
		return acl.Errorf(errStreamSubscribe, "the stream takes aclrtLaunchHostFunc callbacks, which run on the runtime's own thread: it cannot be bound to a thread too")
	}
	// explicitctx: natively the runtime makes the subscription's event in
	// the current context (api_impl.cc:5206-5207), for an explicit stream too.
	if err := c.needDevice(); err != nil {
		return err
	}
	if sb.user { // subscribed
		return acl.Errorf(errStreamSubscribe, "the stream is already bound to thread %d", sb.threadID)
	}
	for other, o := range c.s.cb.subs { // thread: one thread serves the streams of one device
		if o.user && o.threadID == tid && other.dev != st.dev && slices.Contains(c.s.sessionStreams(other.dev), other) {
			return acl.Errorf(errThreadSubscribe, "thread %d is already bound to a stream of device %d: a thread takes the callbacks of one device's streams", tid, other.dev)
		}
	}
	sb.user, sb.threadID = true, tid
	c.s.cb.subscribed++
	return nil
}

// unSubscribeReport is aclrtUnSubscribeReport(threadId, stream).
func unSubscribeReport(c *Call) error {
	tid := c.u64(0)
	st, err := c.reportStream(1)
	if err != nil {
		return err
	}
	sb := c.s.sub(st)
	if !sb.user { // subscribed
		return acl.Errorf(errStreamSubscribe, "the stream is not bound to a thread (aclrtSubscribeReport)")
	}
	if sb.threadID != tid { // thread
		return acl.Errorf(errThreadSubscribe, "the stream is bound to thread %d, not %d", sb.threadID, tid)
	}
	sb.user, sb.threadID = false, 0
	c.s.cb.subscribed--
	return nil
}

// launchCallback is aclrtLaunchCallback(fn, userData, blockType, stream).
func launchCallback(c *Call) error {
	fn, arg, block := c.u32(0), c.u32(1), c.i32(2)
	if block != 0 && block != 1 { // blockType
		return acl.Errorf(acl.ErrInvalidParam, "blockType %d is neither ACL_CALLBACK_NO_BLOCK (0) nor ACL_CALLBACK_BLOCK (1)", block)
	}
	st, err := c.streamHandle(c.u32(3)) // stream
	if err != nil {
		return err
	}
	if fn == 0 { // fn
		return acl.Errorf(acl.ErrRTParamInvalid, "fn is NULL")
	}
	if st != nil && c.s.sub(st).runtime { // runtime
		return acl.Errorf(errStreamSubscribe, "the stream takes aclrtLaunchHostFunc callbacks, which run on the runtime's own thread")
	}
	if st, err = c.bindStream(st); err != nil { // context
		return err
	}
	if err := c.streamCtx(st); err != nil { // streamctx
		return err
	}
	if !c.s.sub(st).user { // subscribed
		return acl.Errorf(errStreamNoCbReg, "the stream is bound to no thread: call aclrtSubscribeReport first")
	}
	return c.queueCallback(st, fn, arg, block == 1, false)
}

// queueCallback queues callback fn(arg) on st: block holds the stream's
// later work until it has run; atCall lets the start of any host call
// run it. Limits.MaxCallbacks bounds the callbacks launched and not yet
// run: the non-blocking ones leave their stream once due, which
// MaxQueued then no longer counts.
func (c *Call) queueCallback(st *streamRec, fn, arg uint32, block, atCall bool) error {
	s := c.s
	if s.cbDispatch == nil { // Load refuses such a module: an embedder's session only
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "the module exports no %s: build it with the SDK option %s", DispatchExport, DispatchOption)
	}
	cb := s.callbacks()
	if cb.pending >= s.policy.MaxCallbacks { // queued
		return acl.Errorf(acl.ErrRTOverLimit, "the session already has %d callbacks launched and not yet run, the policy's limit (MaxCallbacks)", cb.pending)
	}
	if err := c.enqueue(st); err != nil {
		return err
	}
	r := &callbackRec{fn: fn, arg: arg, st: st, atCall: atCall, ran: make(chan struct{})}
	if s.ck != nil {
		r.cover = s.ck.cover(st)
	}
	st.cbQueued.Add(1)
	if err := s.b.LaunchHostFunc(st.h, cb.hold(r, block)); err != nil {
		st.cbQueued.Add(-1)
		st.queued--
		return be(err)
	}
	cb.pending++
	return nil
}

// processReport is aclrtProcessReport(timeout): runs the callbacks due,
// waiting up to timeout ms (-1: without a limit) for one.
func processReport(c *Call) error {
	ms := c.i32(0)
	if ms < -1 || ms == 0 { // timeout
		return acl.Errorf(acl.ErrInvalidParam, "timeout %d is invalid: -1 waits without a limit, a positive value is milliseconds", ms)
	}
	s := c.s
	if s.cb == nil || s.cb.subscribed == 0 { // thread
		return acl.Errorf(errThreadSubscribe, "no stream is bound to this thread (aclrtSubscribeReport)")
	}
	cb := s.cb
	if cb.depth >= s.policy.MaxCallbackDepth { // depth
		return acl.Errorf(acl.ErrRTOverLimit, "called inside callbacks nested %d deep, the policy's limit (MaxCallbackDepth): the callbacks it runs would nest deeper", cb.depth)
	}
	var expire <-chan time.Time
	if ms > 0 {
		t := time.NewTimer(time.Duration(ms) * time.Millisecond)
		defer t.Stop()
		expire = t.C
	}
	for {
		if cb.dueN.Load() > 0 && s.cbDispatch != nil {
			s.dispatchDue(c.ctx)
			cb.rewake()
			return nil
		}
		select {
		case <-cb.wake:
		case <-expire:
			return acl.Errorf(errReportTimeout, "no callback became due within %d ms", ms)
		case <-c.ctx.Done():
			return be(context.Cause(c.ctx))
		}
	}
}
