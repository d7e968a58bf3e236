package sandbox

import (
	"sync/atomic"

	"github.com/aclwasm/aclwasm/acl"
)

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
