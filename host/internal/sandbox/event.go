package sandbox

import (
	"sync/atomic"
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
		s.addEvent(id, &eventRec{h: h, dev: s.dev})
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
	return c.waitEvent(c.u32(0), c.u32(1), -1)
}

// streamWaitEventWithTimeout is aclrtStreamWaitEventWithTimeout(stream,
// event, timeout): the ACL layer refuses a negative timeout itself
// (event.cpp:448), then the call takes aclrtStreamWaitEvent's path
// (api_c_stream.cc:389-411), except that a NULL event passes the handle
// checks and the decorator refuses it with 107000 (api_error.cc:1400). A
// wait still blocked after timeout milliseconds fails its stream with
// 107019; 0 waits without a limit (the chip profiles' CUSTOM wait
// timeouts pass the value on).
func streamWaitEventWithTimeout(c *Call) error {
	t := c.i32(2)
	if t < 0 { // timeout
		return acl.Unrecorded(acl.Errorf(acl.ErrRTParamInvalid, "timeout %d is negative: it is in milliseconds, [0, INT_MAX]", t))
	}
	return c.waitEvent(c.u32(0), c.u32(1), t)
}

// waitEvent queues on stream sh a wait for event eh's latest record:
// timeoutMs -1 is aclrtStreamWaitEvent's wait, bounded by the session's
// aclrtSetOpWaitTimeout; 0 waits without a limit; more bounds the wait to
// that many milliseconds.
func (c *Call) waitEvent(sh, eh uint32, timeoutMs int32) error {
	st, err := c.streamHandle(sh) // stream
	if err != nil {
		return err
	}
	if eh == 0 { // null (aclrtStreamWaitEventWithTimeout)
		return acl.Errorf(acl.ErrRTParamInvalid, "event is NULL")
	}
	ev, err := c.event("event", eh) // event
	if err != nil {
		return err
	}
	if err := ev.waitTask(eh, "wait for"); err != nil { // nowait
		return err
	}
	if st, err = c.bindStream(st); err != nil { // context
		return err
	}
	if err := c.streamCtx(st); err != nil { // streamctx
		return err
	}
	if !ev.recorded && ev.newMode { // newmode: nothing to wait for (createEventExWithFlag)
		return nil
	}
	if !ev.recorded { // unrecorded: natively the default event mode refuses such a wait
		return acl.Errorf(acl.ErrRTParamInvalid, "event %d has not been recorded: record it with aclrtRecordEvent before waiting for it", eh)
	}
	if !ev.reset { // done: a completed record leaves nothing to wait for
		if rs, err := c.s.b.QueryEvent(ev.h); err == nil && rs == acl.EventRecordedStatusComplete {
			return nil
		}
	}
	limit := time.Duration(timeoutMs) * time.Millisecond
	if timeoutMs < 0 {
		limit = time.Duration(c.s.opWait) * time.Second // bounded by aclrtSetOpWaitTimeout (optimeout.go)
	}
	if timeoutMs > 0 && !c.s.b.Supports("aclrtStreamWaitEventWithTimeout") { // feature
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "the %s backend has no timed event waits", c.s.b.Name())
	}
	if err := c.enqueue(st); err != nil { // queue
		return err
	}
	var err2 error
	if limit > 0 {
		err2 = c.s.b.StreamWaitEventTimeout(st.h, ev.h, limit) // expire: at the stream's next synchronize
	} else {
		err2 = c.s.b.StreamWaitEvent(st.h, ev.h)
	}
	if err2 != nil {
		return be(err2)
	}
	c.trackWait(st, ev) // for aclrtQueryEventWaitStatus
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
	s.addEvent(id, &eventRec{h: h, dev: s.dev, newMode: true, flag: c.u32(1)})
	le.PutUint32(out, id)
	return nil
}

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

// Event wait status (ABI v1.2 section 12).
//
// Natively the runtime keeps, per event, the wait tasks queued on it and
// not yet recycled (event.cc:266-276, waitTaskMap_), and
// aclrtQueryEventWaitStatus reports COMPLETE when none is left
// (event.cc:1216-1245). The sandbox knows every wait it queued, so it
// keeps the same list itself, with no backend method: each wait queued by
// aclrtStreamWaitEvent is followed on its stream by a backend OnComplete
// mark that sets its done flag once the wait has run. A mark is dropped
// when the work before it is cancelled (a forced destruction, a failed or
// stopped stream), so a wait whose mark has not run also counts as
// finished once its stream is gone or has nothing pending: natively a
// cancelled wait task is recycled too. No backend method is needed: the
// answer concerns only waits this session queued, which it sees queued and
// run, so it is the same over every backend, with no native call.

// queuedWait is one wait aclrtStreamWaitEvent queued on an event.
type queuedWait struct {
	st   *streamRec
	done atomic.Bool // set by the OnComplete mark behind the wait
}

// eventWaits is what the sandbox knows of the waits queued on one event.
// The guest's goroutine alone reads and changes the list; the marks set
// done from stream workers.
type eventWaits struct {
	waits []*queuedWait
	// prune is the length at which trackWait asks which of the waits
	// whose mark has not run are gone with their stream's work: it
	// doubles with the waits really pending, so that the asking costs a
	// bounded number of Pending calls per wait queued.
	prune int
}

// minPrune is eventWaits.prune at first.
const minPrune = 64

// trackWait records a wait just queued on st for ev, and queues the mark
// that ends it. Finished waits are dropped first, and, once the list is
// long, those cancelled with their stream's work, so that it holds about
// the waits still pending, which the queue limits bound.
func (c *Call) trackWait(st *streamRec, ev *eventRec) {
	s := c.s
	w := &ev.waits
	kept := w.waits[:0]
	for _, q := range w.waits {
		if !q.done.Load() {
			kept = append(kept, q)
		}
	}
	clear(w.waits[len(kept):])
	w.waits = kept
	if len(kept) >= max(w.prune, minPrune) {
		// An error leaves the waits it could not ask about listed.
		_, _ = s.waitsPending(ev)
		w.prune = 2 * len(w.waits)
	}
	q := &queuedWait{st: st}
	if err := s.b.OnComplete(st.h, func() { q.done.Store(true) }); err != nil {
		// A mark refused: the stream is going away, and the wait with it.
		q.done.Store(true)
	}
	w.waits = append(w.waits, q)
}

// queryEventWaitStatus is aclrtQueryEventWaitStatus(event, status): the
// ACL layer checks event, then status, for NULL (event.cpp:160-161); the
// runtime the handle (api_c.cc:840), then refuses with 207000 an event of
// the new mode, aclrtCreateEventExWithFlag's (api_error.cc:1823-1825).
// External and IPC events, which it refuses next, and capture, which it
// refuses after, are out of the sandbox's scope (aclrtCreateEventExWithFlag
// refuses those flags). The runtime reads the current context only to
// report a device fault, so no device need be current.
func queryEventWaitStatus(c *Call) error {
	if c.u32(0) == 0 { // null: event, then status
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
	if ev.newMode { // newmode: a 207000 from below the entry point, unrecorded
		return acl.Unrecorded(acl.Errorf(acl.ErrRTFeatureNotSupport, "event %d was created by aclrtCreateEventExWithFlag: natively the wait status of such an event cannot be queried", c.u32(0)))
	}
	status := acl.EventWaitStatusComplete
	pending, err := c.s.waitsPending(ev)
	if err != nil {
		return be(err)
	}
	if pending {
		status = acl.EventWaitStatusNotReady
	}
	le.PutUint32(out, uint32(status))
	return nil
}

// waitsPending reports whether a wait queued on ev has not finished,
// dropping from its list those that have: their mark ran, or it was
// dropped with the work before it (the stream is gone or has nothing
// pending).
func (s *Session) waitsPending(ev *eventRec) (bool, error) {
	w := &ev.waits
	var live map[*streamRec]bool
	pending := map[*streamRec]int{} // Pending of each stream asked, once
	kept := w.waits[:0]
	var err error
	for _, q := range w.waits {
		if q.done.Load() {
			continue
		}
		if live == nil {
			live = map[*streamRec]bool{}
			for _, st := range s.sessionStreams(-1) { // default streams included
				live[st] = true
			}
		}
		if !live[q.st] {
			continue
		}
		n, asked := pending[q.st]
		if !asked {
			var perr error
			if n, perr = s.b.Pending(q.st.h); perr != nil {
				n = 1 // not known to be finished
				if err == nil {
					err = perr
				}
			}
			pending[q.st] = n
		}
		if n == 0 {
			continue
		}
		kept = append(kept, q)
	}
	clear(w.waits[len(kept):])
	w.waits = kept
	if err != nil {
		return false, err
	}
	return len(kept) > 0, nil
}
