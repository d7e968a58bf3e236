package sandbox

import (
	"time"

	"github.com/aclwasm/aclwasm/acl"
)

// createEvent is aclrtCreateEvent(event).
func createEvent(c *Call) error {
	s := c.s
	return c.create("events", len(s.events), s.policy.MaxEvents, func(id uint32, phys int32) error {
		h, err := s.b.CreateEvent(phys)
		if err != nil {
			return be(err)
		}
		s.events[id] = &eventRec{h: h, dev: s.dev}
		return nil
	})
}

// destroyEvent is aclrtDestroyEvent(event).
func destroyEvent(c *Call) error {
	h := c.u32(0)
	ev, err := c.event("event", h)
	if err != nil {
		return err
	}
	if err := c.s.b.DestroyEvent(ev.h); err != nil {
		return be(err)
	}
	delete(c.s.events, h)
	return nil
}

// recordEvent is aclrtRecordEvent(event, stream).
func recordEvent(c *Call) error {
	ev, err := c.event("event", c.u32(0)) // null, event
	if err != nil {
		return err
	}
	st, err := c.stream(c.u32(1)) // stream, context, streamctx
	if err != nil {
		return err
	}
	if err := c.enqueue(st); err != nil {
		return err
	}
	if err := c.s.b.RecordEvent(ev.h, st.h); err != nil {
		return be(err)
	}
	ev.recorded, ev.reset = true, false
	return nil
}

// streamWaitEvent is aclrtStreamWaitEvent(stream, event): the ACL layer
// checks the event for NULL, then the runtime the stream handle, then the
// event handle; its error decorator refuses an event without a wait task
// (api_error.cc:1414-1416). Natively a wait is queued only where the
// event's latest record may still be ahead (event.cc:586-631): not for a
// new-mode event never recorded, nor for a record that has completed and
// not been reset since.
func streamWaitEvent(c *Call) error {
	if c.u32(1) == 0 { // null
		return acl.Errorf(acl.ErrInvalidParam, "event is NULL")
	}
	st, err := c.streamHandle(c.u32(0)) // stream
	if err != nil {
		return err
	}
	ev, err := c.event("event", c.u32(1)) // event
	if err != nil {
		return err
	}
	if err := ev.waitTask(c.u32(1), "wait for"); err != nil { // nowait
		return err
	}
	if st, err = c.bindStream(st); err != nil { // context
		return err
	}
	if err := c.streamCtx(st); err != nil { // streamctx
		return err
	}
	if !ev.recorded && ev.newMode { // newmode: nothing to wait for (event_ext.go)
		return nil
	}
	if !ev.recorded { // unrecorded: natively the default event mode refuses such a wait
		return acl.Errorf(acl.ErrRTParamInvalid, "event %d has not been recorded: record it with aclrtRecordEvent before waiting for it", c.u32(1))
	}
	if !ev.reset { // done: a completed record leaves nothing to wait for
		if rs, err := c.s.b.QueryEvent(ev.h); err == nil && rs == acl.EventRecordedStatusComplete {
			return nil
		}
	}
	if err := c.enqueue(st); err != nil {
		return err
	}
	var err2 error
	if c.s.opWait > 0 { // bounded by aclrtSetOpWaitTimeout (optimeout.go)
		err2 = c.s.b.StreamWaitEventTimeout(st.h, ev.h, time.Duration(c.s.opWait)*time.Second)
	} else {
		err2 = c.s.b.StreamWaitEvent(st.h, ev.h)
	}
	if err2 != nil {
		return be(err2)
	}
	c.trackWait(st, ev) // for aclrtQueryEventWaitStatus (qwait.go)
	return nil
}

// resetEvent is aclrtResetEvent(event, stream), checked as
// aclrtRecordEvent, except that the runtime refuses events of
// aclrtCreateEventExWithFlag: one without a wait task in its error
// decorator (api_error.cc:1760-1762), any other once it has the current
// context (api_impl.cc:2210-2215). It queues on the stream a reset after
// which a wait waits for the event's next record; the latest record's
// status and timestamp stay (event.cc:764-795).
func resetEvent(c *Call) error {
	ev, err := c.event("event", c.u32(0)) // null, event
	if err != nil {
		return err
	}
	st, err := c.streamHandle(c.u32(1)) // stream
	if err != nil {
		return err
	}
	if err := ev.waitTask(c.u32(0), "reset"); err != nil { // nowait
		return err
	}
	if st, err = c.bindStream(st); err != nil { // context
		return err
	}
	if ev.newMode { // newmode: a 207000 from below the entry point, unrecorded
		return acl.Unrecorded(acl.Errorf(acl.ErrRTFeatureNotSupport, "event %d was created by aclrtCreateEventExWithFlag: natively such an event cannot be reset", c.u32(0)))
	}
	if err := c.streamCtx(st); err != nil { // streamctx
		return err
	}
	if !c.s.b.Supports("aclrtResetEvent") { // feature
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "the %s backend cannot reset events", c.s.b.Name())
	}
	if err := c.enqueue(st); err != nil { // queue
		return err
	}
	if err := c.s.b.ResetEvent(ev.h, st.h); err != nil {
		return be(err)
	}
	ev.reset = true
	return nil
}

// waitTask refuses, as the runtime's error decorator does, to wait for or
// reset an event of aclrtCreateEventExWithFlag that has no wait task
// (acl.EventExWaits): 207000, which the runtime's entry point returns
// without recording it as the last error.
func (ev *eventRec) waitTask(h uint32, what string) error {
	if ev.newMode && !acl.EventExWaits(ev.flag) {
		return acl.Unrecorded(acl.Errorf(acl.ErrRTFeatureNotSupport, "event %d (aclrtCreateEventExWithFlag flag %#x) has no wait task to %s: only one with ACL_EVENT_SYNC has", h, ev.flag, what))
	}
	return nil
}

// synchronizeEvent is aclrtSynchronizeEvent(event).
func synchronizeEvent(c *Call) error {
	ev, err := c.event("event", c.u32(0))
	if err != nil {
		return err
	}
	return be(c.s.b.SynchronizeEvent(c.ctx, ev.h, -1))
}

// queryEventStatus is aclrtQueryEventStatus(event, status).
func queryEventStatus(c *Call) error {
	if c.u32(0) == 0 { // null: the event first, then status
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
	if ev.newMode && !ev.recorded { // newmode: natively "recorded" before any record (event.cc:1193-1198)
		le.PutUint32(out, uint32(acl.EventRecordedStatusComplete))
		return nil
	}
	st, err := c.s.b.QueryEvent(ev.h) // reset: the backend keeps the latest record's status
	if err != nil {
		return be(err)
	}
	le.PutUint32(out, uint32(st))
	return nil
}

// eventElapsedTime is aclrtEventElapsedTime(ms, startEvent, endEvent).
func eventElapsedTime(c *Call) error {
	out, err := c.out(0, 4) // null: ms, startEvent, endEvent, before any handle
	if err != nil {
		return err
	}
	for i, name := range [...]string{1: "startEvent", 2: "endEvent"} {
		if i > 0 && c.u32(i) == 0 {
			return acl.Errorf(acl.ErrInvalidParam, "%s is NULL", name)
		}
	}
	start, err := c.event("startEvent", c.u32(1)) // event
	if err != nil {
		return err
	}
	end, err := c.event("endEvent", c.u32(2))
	if err != nil {
		return err
	}
	ms, err := c.s.b.EventElapsedTime(start.h, end.h)
	if acl.CodeOf(err) == acl.ErrRTInternal {
		// The native runtime's code for an event without a recorder.
		return acl.Errorf(acl.ErrRTInternal, "an event has never been recorded")
	}
	if err != nil {
		return be(err)
	}
	acl.PutFloat32(out, ms)
	return nil
}
