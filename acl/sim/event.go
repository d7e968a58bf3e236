package sim

import (
	"context"
	"sync"
	"time"

	"github.com/aclwasm/aclwasm/acl"
)

// event holds its most recent record. Each RecordEvent makes a new record,
// so a wait captured before a later record keeps waiting for its own.
type event struct {
	h     acl.Event
	mu    sync.Mutex
	last  *record       // nil until the first RecordEvent; a reset record after ResetEvent
	first *record       // the record the next RecordEvent will use, when waits made while the event had no record wait for it; else nil
	gone  chan struct{} // closed by DestroyEvent: waits on the event end
	once  sync.Once
}

// record is one RecordEvent. The worker fills t, err and aborted before it
// closes done; after that err is guarded by event.mu.
type record struct {
	done    chan struct{}
	t       time.Time
	err     error   // the recording stream's pending error when the record ran
	aborted bool    // the record was dropped with its stream's queued work
	reset   bool    // a ResetEvent, not a record: waits queued after it wait for the next record
	prev    *record // for a reset: the record before it, which still decides the event's state
	v       *vop    // the record in the timing model, once queued; guarded by clock.mu
}

// current returns the record that decides the event's state: the most
// recent record. A reset does not change it: natively Event::Reset only
// marks the event reset (event.cc:764-795), so queries, synchronizes,
// timestamps and elapsed times answer as before it, and only a wait queued
// after it waits for the next record (next). nil means the event was never
// recorded. e.mu must be held.
func (e *event) current() *record {
	if r := e.last; r != nil && r.reset {
		return r.prev
	}
	return e.last
}

// next returns the record a wait made now waits for: the most recent one,
// or, for an event never recorded or reset, the next one. e.mu must be held.
func (e *event) next() *record {
	if r := e.last; r != nil && !r.reset {
		return r
	}
	if e.first == nil {
		e.first = &record{done: make(chan struct{})}
	}
	return e.first
}

func (e *event) destroy() { e.once.Do(func() { close(e.gone) }) }

// event returns the live event h, or 107017.
func (b *Backend) event(h acl.Event) (*event, error) {
	e := b.events.get(uint64(h))
	switch {
	case b.shut.Load():
		return nil, errClosed()
	case e == nil:
		return nil, acl.Errorf(acl.ErrRTInvalidHandle, "event %d is not a live event", h)
	}
	return e, nil
}

// CreateEvent implements [acl.Backend]. dev must exist; the event may be
// recorded on a stream of any device, so it does not keep it.
func (b *Backend) CreateEvent(dev int32) (acl.Event, error) {
	if _, err := b.device(dev); err != nil {
		return 0, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return 0, errClosed()
	}
	e := &event{h: acl.Event(b.nextH.Add(1)), first: &record{done: make(chan struct{})}, gone: make(chan struct{})}
	b.events.put(uint64(e.h), e)
	return e.h, nil
}

// DestroyEvent implements [acl.Backend]. Streams waiting for the event go on,
// and SynchronizeEvent calls blocked on it return 107017. A queued record
// of it still runs, to no effect.
func (b *Backend) DestroyEvent(h acl.Event) error {
	e, err := remove(b, &b.events, uint64(h), "event")
	if err != nil {
		return err
	}
	e.destroy()
	return nil
}

// RecordEvent implements [acl.Backend]. The event and the stream may belong
// to different devices.
func (b *Backend) RecordEvent(eh acl.Event, sh acl.Stream) error {
	e, err := b.event(eh)
	if err != nil {
		return err
	}
	s, err := b.stream(sh)
	if err != nil {
		return err
	}
	// Hold e.mu from here to the push so that concurrent records take
	// effect in the order they are queued.
	e.mu.Lock()
	defer e.mu.Unlock()
	r := e.first
	if r == nil {
		r = &record{done: make(chan struct{})}
	}
	o := op{
		work: opFunc(func(s *stream) error {
			s.mu.Lock()
			r.err = s.err
			s.mu.Unlock()
			r.t = time.Now()
			return nil
		}),
		done:   func() { close(r.done) },
		record: true,
		cancel: func() {
			r.err = acl.Errorf(acl.ErrRTStreamAbort, "the record of event %d was cancelled with the work of stream %d", eh, sh)
			r.aborted = true
			r.t = time.Now()
			close(r.done)
		},
	}
	if b.clk != nil {
		o.v = &vop{kind: vRecord, rec: r}
	}
	if err := s.pushNow(o); err != nil {
		return err
	}
	e.last, e.first = r, nil
	return nil
}

// ResetEvent implements [acl.Backend]: it queues on s a reset of e.
// The record before it still counts, for queries, synchronizes,
// timestamps and elapsed times, as natively; waits queued from now on
// wait for the next record.
func (b *Backend) ResetEvent(eh acl.Event, sh acl.Stream) error {
	e, err := b.event(eh)
	if err != nil {
		return err
	}
	s, err := b.stream(sh)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	r := &record{done: make(chan struct{}), reset: true, prev: e.last}
	if r.prev != nil && r.prev.reset {
		r.prev = r.prev.prev
	}
	o := op{
		work: opFunc(func(*stream) error { return nil }),
		done: func() { close(r.done) },
		cancel: func() {
			r.aborted = true
			close(r.done)
		},
	}
	if b.clk != nil {
		o.v = &vop{kind: vRecord, rec: r}
	}
	if err := s.pushNow(o); err != nil {
		return err
	}
	e.last = r
	return nil
}

// StreamWaitEvent implements [acl.Backend]. It queues on s a wait for the
// record of e that is the most recent one now; later records do not
// matter. An event never recorded gives 107000, as natively (the runtime's
// default event mode refuses to wait for an event that has no record); for
// one reset after its record, the wait is for the next record. The wait
// ends early if e is destroyed or the work of s is cancelled.
func (b *Backend) StreamWaitEvent(sh acl.Stream, eh acl.Event) error {
	return b.StreamWaitEventTimeout(sh, eh, 0)
}

// StreamWaitEventTimeout implements [acl.Backend]: StreamWaitEvent,
// except that a wait still blocked timeout after it started (0: never)
// ends and fails with ACL_ERROR_RT_WAIT_TIMEOUT (107019), the stream's
// error for its next synchronize.
func (b *Backend) StreamWaitEventTimeout(sh acl.Stream, eh acl.Event, timeout time.Duration) error {
	if timeout < 0 {
		return acl.Errorf(acl.ErrRTParamInvalid, "wait timeout %v is negative", timeout)
	}
	s, err := b.stream(sh)
	if err != nil {
		return err
	}
	e, err := b.event(eh)
	if err != nil {
		return err
	}
	e.mu.Lock()
	if e.last == nil {
		e.mu.Unlock()
		return acl.Errorf(acl.ErrRTParamInvalid, "event %d has not been recorded: record it on a stream before waiting for it", eh)
	}
	r := e.next()
	e.mu.Unlock()
	o := op{work: opFunc(func(s *stream) error {
		var tmo <-chan time.Time
		if timeout > 0 {
			t := time.NewTimer(timeout)
			defer t.Stop()
			tmo = t.C
		}
		select {
		case <-r.done:
		case <-e.gone:
		case <-s.abort:
		case <-tmo:
			return acl.Errorf(acl.ErrRTWaitTimeout, "stream %d: the wait for event %d was not over after the op wait timeout (%v)", sh, eh, timeout)
		}
		return nil
	})}
	if b.clk != nil {
		o.v = &vop{kind: vWait, rec: r, ev: e, tmo: float64(timeout)}
	}
	return s.pushNow(o)
}

// SynchronizeEvent implements [acl.Backend]. It waits for the most recent
// record of e and returns the error pending on its stream when the record
// ran (an operation queued before it failed), once. An event never recorded
// returns at once. On timeout it returns ACL_ERROR_RT_EVENT_SYNC_TIMEOUT
// (507047), the native code of aclrtSynchronizeEventWithTimeout.
func (b *Backend) SynchronizeEvent(ctx context.Context, eh acl.Event, timeoutMs int32) error {
	if err := acl.CheckTimeout(timeoutMs); err != nil {
		return err
	}
	e, err := b.event(eh)
	if err != nil {
		return err
	}
	e.mu.Lock()
	r := e.current()
	e.mu.Unlock()
	if r == nil {
		return nil
	}
	tmo, stop := timeout(timeoutMs)
	defer stop()
	select {
	case <-r.done:
	case <-e.gone:
	case <-done(ctx):
	case <-tmo:
	}
	select {
	case <-r.done:
		if c := b.clk; c != nil && c.waitRecord(ctx, r, timeoutMs) == expired {
			return acl.Errorf(acl.ErrRTEventSyncTimeout, "event %d: its most recent record did not complete within %d ms of modeled time", eh, timeoutMs)
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		err := r.err
		r.err = nil
		return err
	default:
	}
	select {
	case <-e.gone:
		return acl.Errorf(acl.ErrRTInvalidHandle, "event %d was destroyed while waiting", eh)
	default:
	}
	if err := ctxErr(ctx); err != nil {
		return err
	}
	return acl.Errorf(acl.ErrRTEventSyncTimeout, "event %d: its most recent record did not complete within %d ms", eh, timeoutMs)
}

// QueryEvent implements [acl.Backend]. An event never recorded is NotReady,
// as the native recorded status of a fresh event is.
func (b *Backend) QueryEvent(eh acl.Event) (acl.EventRecordedStatus, error) {
	e, err := b.event(eh)
	if err != nil {
		return acl.EventRecordedStatusNotReady, err
	}
	e.mu.Lock()
	r := e.current()
	e.mu.Unlock()
	if r == nil {
		return acl.EventRecordedStatusNotReady, nil
	}
	select {
	case <-r.done:
	default:
		return acl.EventRecordedStatusNotReady, nil
	}
	if c := b.clk; c != nil && !c.poll(func() bool { return r.v.done() }) {
		return acl.EventRecordedStatusNotReady, nil
	}
	return acl.EventRecordedStatusComplete, nil
}

// EventElapsedTime implements [acl.Backend]: the milliseconds between the
// moments the two most recent records ran on their streams, on the wall
// clock or, with the timing model, on its clock. An event never recorded
// gives 507000, as natively; one whose record was cancelled 107006; a
// record not complete yet 507006. A reset keeps the record before it.
func (b *Backend) EventElapsedTime(start, end acl.Event) (float32, error) {
	var ts [2]time.Time
	var vt [2]float64
	for i, h := range [2]acl.Event{start, end} {
		r, t, err := b.completed(h, acl.ErrRTEventNotComplete)
		if err != nil {
			return 0, err
		}
		ts[i], vt[i] = r.t, t
	}
	if b.clk != nil {
		return float32((vt[1] - vt[0]) / 1e6), nil
	}
	return float32(float64(ts[1].Sub(ts[0])) / float64(time.Millisecond)), nil
}

// completed returns the most recent record of event h (before a reset, if
// any) once it has run, and with the timing model its time on the model's
// clock in nanoseconds. An event never recorded gives 507000 on every chip
// (event.cc:1249-1250, errcode_manage.cc:197); a record not complete gives
// pending (the functions that read a record differ there); a cancelled one
// 107006.
func (b *Backend) completed(h acl.Event, pending acl.Error) (*record, float64, error) {
	e, err := b.event(h)
	if err != nil {
		return nil, 0, err
	}
	e.mu.Lock()
	r := e.current()
	e.mu.Unlock()
	if r == nil {
		return nil, 0, acl.Errorf(acl.ErrRTInternal, "event %d has not been recorded", h)
	}
	select {
	case <-r.done:
	default:
		return nil, 0, acl.Errorf(pending, "the most recent record of event %d has not completed", h)
	}
	if r.aborted {
		return nil, 0, acl.Errorf(acl.ErrRTEventTimestampInvalid, "the most recent record of event %d was cancelled", h)
	}
	var t float64
	if c := b.clk; c != nil {
		var ok bool
		if t, ok = c.stamp(r); !ok {
			return nil, 0, acl.Errorf(pending, "the most recent record of event %d has not completed in modeled time", h)
		}
	}
	return r, t, nil
}

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
	r, t, err := b.completed(h, acl.ErrRTEventTimestampInvalid)
	if err != nil {
		return 0, err
	}
	if b.clk != nil {
		return uint64(t / 1e3), nil
	}
	return uint64(r.t.Sub(epoch) / time.Microsecond), nil
}
