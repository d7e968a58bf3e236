//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"context"
	"math"
	"time"

	"github.com/aclwasm/aclwasm/acl"
)

// event is a native event.
type event struct {
	held
	// The stream and operation number of the event's latest record.
	recStream *stream
	recSeq    uint64
	// hostErr is the error of a host function queued before the latest
	// record, which a synchronize of the event reports as natively it would
	// report a failed operation queued before the record.
	hostErr error
}

func (b *Backend) eventLocked(h acl.Event) (*event, error) { return holdLocked(b.events, h, "event") }

func (b *Backend) unrefEvent(e *event) { b.unhold(&e.held) }

// CreateEvent implements [acl.Backend] with aclrtCreateEvent in dev's context.
func (b *Backend) CreateEvent(dev int32) (acl.Event, error) {
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.exit()
	var native uintptr
	if err := b.call(dev, "aclrtCreateEvent", func() int32 { return b.api.aclrtCreateEvent(&native) }); err != nil {
		return 0, err
	}
	h := acl.Event(b.nextH.Add(1))
	b.mu.Lock()
	b.events[h] = &event{held: held{dev: dev, native: native}}
	b.mu.Unlock()
	return h, nil
}

// DestroyEvent implements [acl.Backend] with aclrtDestroyEvent, once the
// calls using the event have returned (waits on it give up within a slice).
func (b *Backend) DestroyEvent(h acl.Event) error {
	return destroyHeld(b, b.events, h, "event", "aclrtDestroyEvent", func(native uintptr) int32 { return b.api.aclrtDestroyEvent(native) })
}

// onEventAndStream runs f with the event eh and the stream sh, both held
// (and the backend entered) for the duration: the frame RecordEvent and
// StreamWaitEvent share.
func (b *Backend) onEventAndStream(eh acl.Event, sh acl.Stream, f func(e *event, s *stream) error) error {
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	b.mu.Lock()
	e, err := b.eventLocked(eh)
	b.mu.Unlock()
	if err != nil {
		return err
	}
	defer b.unrefEvent(e)
	s, _, err := b.acquire(sh)
	if err != nil {
		return err
	}
	defer b.done(s, nil)
	return f(e, s)
}

// RecordEvent implements [acl.Backend] with aclrtRecordEvent.
func (b *Backend) RecordEvent(eh acl.Event, sh acl.Stream) error {
	return b.onEventAndStream(eh, sh, func(e *event, s *stream) error {
		var seq uint64
		err := b.submit(s, nil, false, "aclrtRecordEvent", func(st uintptr) int32 {
			seq = s.seq + 1 // submit holds s.mu: the record's number is the next one
			return b.api.aclrtRecordEvent(e.native, st)
		})
		if err != nil {
			return err
		}
		// One critical section, locked in the order of hostFuncFailed's: a
		// host function queued before the record that fails meanwhile either
		// has its error held by now or finds the record.
		b.mu.Lock()
		s.use.Lock()
		e.hostErr, e.recStream, e.recSeq = s.asyncErr, s, seq
		s.use.Unlock()
		b.mu.Unlock()
		return nil
	})
}

// StreamWaitEvent implements [acl.Backend] with aclrtStreamWaitEvent.
func (b *Backend) StreamWaitEvent(sh acl.Stream, eh acl.Event) error {
	return b.onEventAndStream(eh, sh, func(e *event, s *stream) error {
		return b.submit(s, nil, false, "aclrtStreamWaitEvent", func(st uintptr) int32 { return b.api.aclrtStreamWaitEvent(st, e.native) })
	})
}

// eventPoll is the longest sleep between aclrtQueryEventStatus calls when
// the library has no aclrtSynchronizeEventWithTimeout.
const eventPoll = 5 * time.Millisecond

// SynchronizeEvent implements [acl.Backend] with
// aclrtSynchronizeEventWithTimeout, or, in libraries without it, by polling
// aclrtQueryEventStatus and then calling aclrtSynchronizeEvent once the
// record is complete. After a native success it returns, once, the error
// held for the stream when the event was recorded. An event never recorded
// returns at once.
func (b *Backend) SynchronizeEvent(ctx context.Context, eh acl.Event, timeoutMs int32) error {
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	if err := acl.CheckTimeout(timeoutMs); err != nil {
		return err
	}
	b.mu.Lock()
	e, err := b.eventLocked(eh)
	recorded := e != nil && e.recStream != nil
	b.mu.Unlock()
	if err != nil {
		return err
	}
	defer b.unrefEvent(e)
	if !recorded {
		// Nothing to wait for, as natively; the polling fallback would wait
		// forever, since the runtime reports such an event not ready.
		return nil
	}
	stop := func() error {
		b.mu.Lock()
		defer b.mu.Unlock()
		if e.dying {
			return acl.Errorf(acl.ErrRTInvalidHandle, "the event was destroyed during the wait")
		}
		return nil
	}
	fn := "aclrtSynchronizeEventWithTimeout"
	try := func(ms int32) (int32, error) {
		var rc int32
		err := b.onDevice(e.dev, func() { rc = b.api.aclrtSynchronizeEventWithTimeout(e.native, ms) })
		return rc, err
	}
	if b.api.aclrtSynchronizeEventWithTimeout == nil {
		fn = "aclrtSynchronizeEvent"
		try = func(ms int32) (int32, error) {
			var status uint32
			if err := b.call(e.dev, "aclrtQueryEventStatus", func() int32 { return b.api.aclrtQueryEventStatus(e.native, &status) }); err != nil {
				return 0, err
			}
			if acl.EventRecordedStatus(status) == acl.EventRecordedStatusComplete {
				var rc int32
				err := b.onDevice(e.dev, func() { rc = b.api.aclrtSynchronizeEvent(e.native) })
				return rc, err
			}
			if ms != 0 {
				time.Sleep(min(time.Duration(ms)*time.Millisecond, eventPoll))
			}
			return int32(acl.ErrRTEventSyncTimeout), nil
		}
	}
	rc, err := b.wait(ctx, timeoutMs, acl.ErrRTEventSyncTimeout, stop, try)
	if err != nil {
		return err
	}
	if rc != 0 {
		return nativeErr(rc, fn)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	err = e.hostErr
	e.hostErr = nil // reported once, as acl/sim does
	return err
}

// QueryEvent implements [acl.Backend] with aclrtQueryEventStatus.
func (b *Backend) QueryEvent(eh acl.Event) (acl.EventRecordedStatus, error) {
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.exit()
	b.mu.Lock()
	e, err := b.eventLocked(eh)
	b.mu.Unlock()
	if err != nil {
		return 0, err
	}
	defer b.unrefEvent(e)
	var status uint32
	err = b.call(e.dev, "aclrtQueryEventStatus", func() int32 { return b.api.aclrtQueryEventStatus(e.native, &status) })
	return acl.EventRecordedStatus(status), err
}

// EventElapsedTime implements [acl.Backend] with aclrtEventElapsedTime, in
// the context of start's device.
func (b *Backend) EventElapsedTime(start, end acl.Event) (float32, error) {
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.exit()
	b.mu.Lock()
	s, err := b.eventLocked(start)
	if err != nil {
		b.mu.Unlock()
		return 0, err
	}
	e, err := b.eventLocked(end)
	b.mu.Unlock()
	if err != nil {
		b.unrefEvent(s)
		return 0, err
	}
	defer b.unrefEvent(s)
	defer b.unrefEvent(e)
	var ms float32
	err = b.call(s.dev, "aclrtEventElapsedTime", func() int32 { return b.api.aclrtEventElapsedTime(&ms, s.native, e.native) })
	return ms, err
}

// ResetEvent implements [acl.Backend] with aclrtResetEvent. The event
// then counts as never recorded: a synchronize of it returns at once.
func (b *Backend) ResetEvent(eh acl.Event, sh acl.Stream) error {
	if b.api.aclrtResetEvent == nil {
		return b.missing("aclrtResetEvent")
	}
	return b.onEventAndStream(eh, sh, func(e *event, s *stream) error {
		if err := b.submit(s, nil, false, "aclrtResetEvent", func(st uintptr) int32 { return b.api.aclrtResetEvent(e.native, st) }); err != nil {
			return err
		}
		b.mu.Lock()
		e.hostErr, e.recStream, e.recSeq = nil, nil, 0
		b.mu.Unlock()
		return nil
	})
}

// StreamWaitEventTimeout implements [acl.Backend] with
// aclrtStreamWaitEventWithTimeout, whose limit is in milliseconds: a
// longer timeout is cut to the largest it takes (about 24 days, beyond
// any run's timeout). 0 is aclrtStreamWaitEvent.
func (b *Backend) StreamWaitEventTimeout(sh acl.Stream, eh acl.Event, timeout time.Duration) error {
	if timeout < 0 {
		return acl.Errorf(acl.ErrRTParamInvalid, "wait timeout %v is negative", timeout)
	}
	if timeout == 0 {
		return b.StreamWaitEvent(sh, eh)
	}
	if b.api.aclrtStreamWaitEventWithTimeout == nil {
		return b.missing("aclrtStreamWaitEventWithTimeout")
	}
	ms := int32(min(max((timeout+time.Millisecond-1)/time.Millisecond, 1), math.MaxInt32))
	return b.onEventAndStream(eh, sh, func(e *event, s *stream) error {
		return b.submit(s, nil, false, "aclrtStreamWaitEventWithTimeout", func(st uintptr) int32 {
			return b.api.aclrtStreamWaitEventWithTimeout(st, e.native, ms)
		})
	})
}

// EventTimestamp implements [acl.Backend] with aclrtEventGetTimestamp.
func (b *Backend) EventTimestamp(eh acl.Event) (uint64, error) {
	if b.api.aclrtEventGetTimestamp == nil {
		return 0, b.missing("aclrtEventGetTimestamp")
	}
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.exit()
	b.mu.Lock()
	e, err := b.eventLocked(eh)
	b.mu.Unlock()
	if err != nil {
		return 0, err
	}
	defer b.unrefEvent(e)
	var ts uint64
	err = b.call(e.dev, "aclrtEventGetTimestamp", func() int32 { return b.api.aclrtEventGetTimestamp(e.native, &ts) })
	return ts, err
}
