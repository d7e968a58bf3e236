package sim

import (
	"time"

	"github.com/aclwasm/aclwasm/acl"
)

// epoch is the zero of the simulated devices' clock, which event
// timestamps count from (natively the device's counter since it started).
var epoch = time.Now()

// EventTimestamp implements [acl.Backend]: the microseconds between the
// devices' epoch and the moment the most recent record of e ran, on the
// wall clock or, with the timing model, on its clock. An event never
// recorded gives 507000, as natively (event.cc:1296-1297); a record not
// complete or cancelled 107006 (event.cc:1303-1304). A reset keeps the
// record before it.
func (b *Backend) EventTimestamp(h acl.Event) (uint64, error) {
	e, err := b.event(h)
	if err != nil {
		return 0, err
	}
	e.mu.Lock()
	r := e.current()
	e.mu.Unlock()
	if r == nil {
		return 0, acl.Errorf(acl.ErrRTInternal, "event %d has not been recorded", h)
	}
	select {
	case <-r.done:
	default:
		return 0, acl.Errorf(acl.ErrRTEventTimestampInvalid, "the most recent record of event %d has not completed", h)
	}
	if r.aborted {
		return 0, acl.Errorf(acl.ErrRTEventTimestampInvalid, "the most recent record of event %d was cancelled", h)
	}
	if c := b.clk; c != nil {
		t, ok := c.stamp(r)
		if !ok {
			return 0, acl.Errorf(acl.ErrRTEventTimestampInvalid, "the most recent record of event %d has not completed in modeled time", h)
		}
		return uint64(t / 1e3), nil
	}
	return uint64(r.t.Sub(epoch) / time.Microsecond), nil
}
