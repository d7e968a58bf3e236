package sandbox

import "github.com/aclwasm/aclwasm/acl"

// createEventExWithFlag is aclrtCreateEventExWithFlag(event, flag): an
// event of the runtime's "new mode", in which a wait before any record
// succeeds without waiting (event.cc:596-599). The ACL layer checks event
// for NULL and passes flag on unchanged; the runtime's error decorator
// checks it (api_error.cc EventCreateEx), then its implementation reads
// the current context. The backend's event is an ordinary one: the
// sandbox applies the mode's rule, in aclrtStreamWaitEvent, and the flags
// (ACL_EVENT_SYNC, ACL_EVENT_CAPTURE_STREAM_PROGRESS, ACL_EVENT_TIME_LINE)
// change nothing else in the sandbox.
func createEventExWithFlag(c *Call) error {
	out, err := c.out(0, 4) // null
	if err != nil {
		return err
	}
	if err := acl.CheckEventExFlag(c.u32(1)); err != nil { // solely, ipc, flag
		if acl.CodeOf(err) == acl.ErrRTFeatureNotSupport {
			return acl.Unrecorded(err) // ipc: natively a 207000 from below the entry point
		}
		return err
	}
	if err := c.needDevice(); err != nil { // context
		return err
	}
	s := c.s
	if held := len(s.events); held >= s.policy.MaxEvents { // count
		return acl.Errorf(acl.ErrRTOverLimit, "the session already holds %d events, the policy's limit", held)
	}
	id, err := s.newHandle()
	if err != nil {
		return err
	}
	h, err := s.b.CreateEvent(s.phys(s.dev))
	if err != nil {
		return be(err)
	}
	s.events[id] = &eventRec{h: h, dev: s.dev, newMode: true, flag: c.u32(1)}
	le.PutUint32(out, id)
	return nil
}

// The event functions of ABI v1.2 section 12 that the sandbox answers over
// the backend's existing event methods.

// synchronizeEventWithTimeout is aclrtSynchronizeEventWithTimeout(event,
// timeout): the ACL layer checks the timeout's range, then the event for
// NULL (event.cpp:188-190); the runtime the handle (api_c.cc:803), then
// refuses a timeout of 0 (api_error.cc:1772-1774). A record not complete
// within timeout milliseconds gives 507047.
func synchronizeEventWithTimeout(c *Call) error {
	ms := c.i32(1)
	if err := acl.CheckTimeoutRange(ms); err != nil { // range
		return acl.Unrecorded(err) // the ACL layer's own 107000
	}
	ev, err := c.event("event", c.u32(0)) // null, event
	if err != nil {
		return err
	}
	if err := acl.CheckTimeoutZero(ms); err != nil { // zero
		return err
	}
	return be(c.s.b.SynchronizeEvent(c.ctx, ev.h, ms)) // expire
}

// eventGetTimestamp is aclrtEventGetTimestamp(event, timestamp): the ACL
// layer checks timestamp, then event, for NULL (event.cpp:217-218); the
// runtime the handle (api_c.cc:866). An event never recorded gives 507000
// (event.cc:1296-1297), a record not complete, cancelled or reset 107006
// (event.cc:1303-1304).
func eventGetTimestamp(c *Call) error {
	out, err := c.out(1, 8) // null: timestamp, then event
	if err != nil {
		return err
	}
	ev, err := c.event("event", c.u32(0)) // null, event
	if err != nil {
		return err
	}
	if err := c.eventTimestamps(); err != nil { // feature
		return err
	}
	ts, err := c.s.b.EventTimestamp(ev.h) // never, timestamp
	switch acl.CodeOf(err) {
	case acl.ErrRTInternal:
		return acl.Errorf(acl.ErrRTInternal, "event %d has never been recorded", c.u32(0))
	case acl.ErrRTEventTimestampInvalid:
		return acl.Errorf(acl.ErrRTEventTimestampInvalid, "event %d has no valid timestamp: its most recent record has not completed, was cancelled, or was reset", c.u32(0))
	}
	if err != nil {
		return be(err)
	}
	le.PutUint64(out, ts)
	return nil
}

// eventTimestamps refuses aclrtEventGetTimestamp, with 207000, on a
// backend whose library lacks it.
func (c *Call) eventTimestamps() error {
	if !c.s.b.Supports("aclrtEventGetTimestamp") {
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "the %s backend has no event timestamps (aclrtEventGetTimestamp)", c.s.b.Name())
	}
	return nil
}

// getEventID is aclrtGetEventId(event, eventId): the ACL layer checks both
// for NULL (event.cpp:359-360), then the runtime the handle (api_c.cc:725).
// An event gets its native id at its first record, so one never recorded
// gives 507000 (event.cc:505-510). The id is the handle's number, unique
// in the session and never reused, as for notifies: a native id would tell
// the guest about the events other sessions hold on the device.
func getEventID(c *Call) error {
	if c.u32(0) == 0 { // null: event, then eventId
		return acl.Errorf(acl.ErrInvalidParam, "event is NULL")
	}
	out, err := c.out(1, 4)
	if err != nil {
		return err
	}
	ev, err := c.event("event", c.u32(0)) // event
	if err != nil {
		return err
	}
	if !ev.recorded { // never
		return acl.Errorf(acl.ErrRTInternal, "event %d has no id yet: an event gets one at its first aclrtRecordEvent", c.u32(0))
	}
	le.PutUint32(out, c.u32(0))
	return nil
}

// getEventAvailNum is aclrtGetEventAvailNum(eventCount): the ACL layer
// checks eventCount for NULL (event.cpp:372), the runtime reads the
// current context (api_impl.cc:1917-1918). The count is the session's
// view: how many more events the policy lets it create (Policy.MaxEvents
// less those it holds), never the device's, which other sessions share.
func getEventAvailNum(c *Call) error {
	out, err := c.out(0, 4) // null
	if err != nil {
		return err
	}
	if err := c.needDevice(); err != nil { // context
		return err
	}
	le.PutUint32(out, uint32(max(c.s.policy.MaxEvents-len(c.s.events), 0)))
	return nil
}
