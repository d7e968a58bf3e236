package sandbox

import (
	"time"

	"github.com/aclwasm/aclwasm/acl"
)

// Notifies (ABI v1.2 section 12) are a fourth handle type, with the rules
// of events: typed handles from the session's numbering, never reused,
// released with the session (or with their device by aclrtResetDevice). A
// notify is a flag in stream order: aclrtRecordNotify sets it,
// aclrtWaitAndResetNotify makes its stream wait until it is set and clears
// it. The session holds at most Policy.MaxEvents of them, counted apart
// from its events.
type notifyRec struct {
	h   acl.Notify
	dev int32
}

// notify resolves a notify handle: 0 gives 100000 (the ACL layer's check),
// unknown, destroyed, and other handle types 107017 (the runtime's).
func (c *Call) notify(h uint32) (*notifyRec, error) {
	if h == 0 {
		return nil, acl.Errorf(acl.ErrInvalidParam, "notify is NULL")
	}
	if n, ok := c.s.notifies[h]; ok {
		return n, nil
	}
	switch {
	case c.s.streams[h] != nil:
		return nil, acl.Errorf(acl.ErrRTInvalidHandle, "notify %d is a stream, not a notify", h)
	case c.s.events[h] != nil:
		return nil, acl.Errorf(acl.ErrRTInvalidHandle, "notify %d is an event, not a notify", h)
	case c.s.ctxOf(h) != nil:
		return nil, acl.Errorf(acl.ErrRTInvalidHandle, "notify %d is a context, not a notify", h)
	}
	return nil, acl.Errorf(acl.ErrRTInvalidHandle, "notify %d is unknown or destroyed: not a notify of this session", h)
}

// isNotify reports whether h is a live notify of the session, for the
// messages of the other handle types' lookups.
func (s *Session) isNotify(h uint32) bool { return s.notifies[h] != nil }

// notifies refuses, with 207000, a call whose native function fn the
// backend lacks (acl.Backend.Supports): before it queues anything.
func (c *Call) notifies(fn string) error {
	if !c.s.b.Supports(fn) {
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "the %s backend has no notifies (%s)", c.s.b.Name(), fn)
	}
	return nil
}

// createNotify is aclrtCreateNotify(notify, flag): the ACL layer checks
// notify for NULL, the runtime the flag, then reads the current device
// (api_c_event.cc:122-130).
func createNotify(c *Call) error {
	out, err := c.out(0, 4) // null
	if err != nil {
		return err
	}
	flag := c.u64(1)
	if err := acl.CheckNotifyFlag(flag); err != nil { // flag
		return err
	}
	if err := c.needDevice(); err != nil { // context
		return acl.Unrecorded(err) // rtGetDevice's code, returned as it is
	}
	if err := c.notifies("aclrtCreateNotify"); err != nil { // feature
		return err
	}
	if held := len(c.s.notifies); held >= c.s.policy.MaxEvents { // count
		return acl.Errorf(acl.ErrRTOverLimit, "the session already holds %d notifies, the policy's limit (MaxEvents)", held)
	}
	id, err := c.s.newHandle()
	if err != nil {
		return err
	}
	h, err := c.s.b.CreateNotify(c.s.phys(c.s.dev), flag)
	if err != nil {
		return be(err)
	}
	if c.s.notifies == nil {
		c.s.notifies = map[uint32]*notifyRec{}
	}
	c.s.notifies[id] = &notifyRec{h: h, dev: c.s.dev}
	le.PutUint32(out, id)
	return nil
}

// destroyNotify is aclrtDestroyNotify(notify): the handle, then the
// runtime's implementation needs a current context (api_impl.cc:4825-4826)
// before it frees the notify.
func destroyNotify(c *Call) error {
	h := c.u32(0)
	n, err := c.notify(h) // null, notify
	if err != nil {
		return err
	}
	if err := c.needDevice(); err != nil { // context: natively checked before the notify is freed
		return err
	}
	if err := c.s.b.DestroyNotify(n.h); err != nil {
		return be(err)
	}
	delete(c.s.notifies, h)
	return nil
}

// recordNotify is aclrtRecordNotify(notify, stream): the notify, then the
// stream, as the runtime's entry validates them (api_c.cc:1978-1979).
func recordNotify(c *Call) error {
	n, err := c.notify(c.u32(0)) // null, notify
	if err != nil {
		return err
	}
	st, err := c.stream(c.u32(1)) // stream, context, streamctx
	if err != nil {
		return err
	}
	if err := c.notifies("aclrtRecordNotify"); err != nil { // feature
		return err
	}
	if err := c.enqueue(st); err != nil { // queue
		return err
	}
	return be(c.s.b.RecordNotify(n.h, st.h))
}

// waitAndResetNotify is aclrtWaitAndResetNotify(notify, stream, timeout):
// timeout in milliseconds, 0 without a limit. UINT32_MAX is the runtime's
// plain wait (api_c_event.cc:151-152), bounded by the session's
// aclrtSetOpWaitTimeout as natively on chips whose notify waits follow it
// (api_c.cc:2000-2002).
func waitAndResetNotify(c *Call) error {
	n, err := c.notify(c.u32(0)) // null, notify
	if err != nil {
		return err
	}
	st, err := c.stream(c.u32(1)) // stream, context, streamctx
	if err != nil {
		return err
	}
	if err := c.notifies("aclrtWaitAndResetNotify"); err != nil { // feature
		return err
	}
	if err := c.enqueue(st); err != nil { // queue
		return err
	}
	timeout := time.Duration(c.u32(2)) * time.Millisecond
	if c.u32(2) == acl.NotifyWaitForever {
		timeout = time.Duration(c.s.opWait) * time.Second
	}
	return be(c.s.b.WaitAndResetNotify(n.h, st.h, timeout)) // expire: at the stream's next synchronize
}

// getNotifyID is aclrtGetNotifyId(notify, notifyId): the ACL layer checks
// both for NULL, then the runtime the handle (notify.cpp:74-77), then its
// implementation the current context (api_impl.cc:4948-4949). The id is
// the handle's number, unique in the session and never reused: a native
// id would tell the guest about the notifies other sessions hold on the
// device.
func getNotifyID(c *Call) error {
	if c.u32(0) == 0 { // null: notify, then notifyId
		return acl.Errorf(acl.ErrInvalidParam, "notify is NULL")
	}
	out, err := c.out(1, 4)
	if err != nil {
		return err
	}
	if _, err := c.notify(c.u32(0)); err != nil { // notify
		return err
	}
	if err := c.needDevice(); err != nil { // context
		return err
	}
	le.PutUint32(out, c.u32(0))
	return nil
}

// destroyNotifies destroys the session's notifies on guest device dev
// (every device when dev < 0). Destroying a notify releases the waits on
// it, as destroying an event does.
func (s *Session) destroyNotifies(dev int32) (errs []error) {
	for h, n := range s.notifies {
		if dev < 0 || n.dev == dev {
			errs = append(errs, s.b.DestroyNotify(n.h))
			delete(s.notifies, h)
		}
	}
	return errs
}

// notifyBatchReset is aclrtNotifyBatchReset(notifies, num): the ACL layer
// checks the array for NULL, the runtime num (taken as a uint32_t, 0
// refused: api_c_event.cc:163-165), then resets the notifies one by one,
// each after its handle, a NULL entry (the decorator's 107000) and, for
// the first, the current context (api_impl.cc:4858-4859). Natively a reset
// is a task on the current context's default stream that the call waits
// for; the sandbox waits for that stream first, then clears every notify.
// Unlike natively, an entry that fails leaves the ones before it as they
// were: every entry is checked before any is reset.
func notifyBatchReset(c *Call) error {
	if c.u32(0) == 0 { // null
		return acl.Errorf(acl.ErrInvalidParam, "notifies is NULL")
	}
	num := uint32(c.u64(1)) // the runtime's uint32_t
	if num == 0 {           // num
		return acl.Errorf(acl.ErrRTParamInvalid, "num %d is not in (0, %d]: the runtime takes it as a uint32_t", c.u64(1), uint32(1<<32-1))
	}
	arr, err := c.guest("notifies", c.u32(0), 4*uint64(num)) // range
	if err != nil {
		return err
	}
	if err := c.notifies("aclrtNotifyBatchReset"); err != nil { // feature
		return err
	}
	entry := func(i uint32) (*notifyRec, error) {
		h := le.Uint32(arr[4*i:])
		if h == 0 { // nullentry: the runtime's decorator, after the handle check
			return nil, acl.Errorf(acl.ErrRTParamInvalid, "notifies[%d] is NULL", i)
		}
		n, err := c.notify(h) // notify, later
		if err != nil {
			return nil, acl.Errorf(acl.CodeOf(err), "notifies[%d]: %s (no notify was reset)", i, acl.MessageOf(err))
		}
		return n, nil
	}
	for i := range num {
		if _, err := entry(i); err != nil {
			return err
		}
		if i == 0 {
			if err := c.needDevice(); err != nil { // context
				return err
			}
		}
	}
	def, err := c.s.defaultStream()
	if err != nil {
		return err
	}
	if err := c.s.b.SynchronizeStream(c.ctx, def.h, -1); err != nil { // stream: its failure, nothing reset
		return be(err)
	}
	for i := range num { // reset
		n, _ := entry(i)
		if err := c.s.b.ResetNotify(n.h); err != nil {
			return be(err)
		}
	}
	return nil
}
