package acltest

import (
	"context"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

var eventTests = []test{
	{"BadEventHandles", func(e *env) {
		s := e.stream(0)
		good := e.event(0)
		require.NoError(e, e.b.RecordEvent(good, s))
		e.sync(s)
		destroyed := e.event(0)
		require.NoError(e, e.b.DestroyEvent(destroyed))
		handles := map[string]acl.Event{
			"destroyed":    destroyed,
			"never issued": acl.Event(1 << 40),
			"a stream's":   acl.Event(s),
			"max":          ^acl.Event(0),
		}
		calls := map[string]func(ev acl.Event) error{
			"DestroyEvent":      e.b.DestroyEvent,
			"RecordEvent":       func(ev acl.Event) error { return e.b.RecordEvent(ev, s) },
			"StreamWaitEvent":   func(ev acl.Event) error { return e.b.StreamWaitEvent(s, ev) },
			"SynchronizeEvent":  func(ev acl.Event) error { return e.b.SynchronizeEvent(e.ctx, ev, -1) },
			"QueryEvent":        func(ev acl.Event) error { _, err := e.b.QueryEvent(ev); return err },
			"EventElapsedTime0": func(ev acl.Event) error { _, err := e.b.EventElapsedTime(ev, good); return err },
			"EventElapsedTime1": func(ev acl.Event) error { _, err := e.b.EventElapsedTime(good, ev); return err },
		}
		for hn, h := range handles {
			for cn, call := range calls {
				code(e, call(h), acl.ErrRTInvalidHandle, "%s on a %s event", cn, hn)
			}
		}
		n, err := e.b.Pending(s)
		require.NoError(e, err)
		require.Zero(e, n, "calls with bad events must queue nothing")
	}},

	{"RecordAndSynchronize", func(e *env) {
		s := e.stream(0)
		ev := e.event(0)
		p := e.malloc(0, 4096)
		release := e.gate(s)
		require.NoError(e, e.b.MemsetAsync(e.ctx, acl.Device(p), 2, 4096, s))
		require.NoError(e, e.b.RecordEvent(ev, s))
		st, err := e.b.QueryEvent(ev)
		require.NoError(e, err)
		require.Equal(e, acl.EventRecordedStatusNotReady, st)
		done := goErr(func() error { return e.b.SynchronizeEvent(context.Background(), ev, -1) })
		e.notYet(done, "SynchronizeEvent")
		release()
		require.NoError(e, e.recv(done, "SynchronizeEvent"))
		st, err = e.b.QueryEvent(ev)
		require.NoError(e, err)
		require.Equal(e, acl.EventRecordedStatusComplete, st)
		require.Equal(e, filled(4096, 2), e.get(p, 4096), "work before the record must be complete")
	}},

	{"EventErrorReportedOnce", func(e *env) {
		// A synchronize of an event recorded after a failed operation
		// reports the failure once, as the stream's synchronize does; the
		// stream's own report is separate.
		s := e.stream(0)
		ev := e.event(0)
		fail := acl.Errorf(acl.ErrRTParamInvalid, "host function failed on purpose")
		require.NoError(e, e.b.LaunchHostFunc(s, func() error { return fail }))
		require.NoError(e, e.b.RecordEvent(ev, s))
		code(e, e.b.SynchronizeEvent(e.ctx, ev, -1), acl.ErrRTParamInvalid)
		require.NoError(e, e.b.SynchronizeEvent(e.ctx, ev, -1), "an event reports an error once")
		require.NoError(e, e.b.SynchronizeEvent(e.ctx, ev, 1), "an event reports an error once")
		code(e, e.b.SynchronizeStream(e.ctx, s, -1), acl.ErrRTParamInvalid)
		require.NoError(e, e.b.SynchronizeStream(e.ctx, s, -1))
	}},

	{"EventTimeoutsAndContext", func(e *env) {
		s := e.stream(0)
		ev := e.event(0)
		release := e.gate(s)
		require.NoError(e, e.b.RecordEvent(ev, s))
		for _, ms := range []int32{1, 5} {
			codeIn(e, e.b.SynchronizeEvent(e.ctx, ev, ms), acl.ErrRTEventSyncTimeout, acl.ErrRTStreamSyncTimeout)
		}
		code(e, e.b.SynchronizeEvent(e.ctx, ev, 0), acl.ErrRTParamInvalid, "timeout 0 (api_error.cc:1772-1774)")
		ctx, cancel := context.WithCancel(e.ctx)
		cancel()
		require.ErrorIs(e, e.b.SynchronizeEvent(ctx, ev, -1), context.Canceled)
		ctx, cancel = context.WithCancel(e.ctx)
		done := goErr(func() error { return e.b.SynchronizeEvent(ctx, ev, -1) })
		e.notYet(done, "SynchronizeEvent")
		cancel()
		require.ErrorIs(e, e.recv(done, "a cancelled SynchronizeEvent"), context.Canceled)
		release()
		require.NoError(e, e.b.SynchronizeEvent(e.ctx, ev, hangWaitMs))
		require.NoError(e, e.b.SynchronizeEvent(e.ctx, ev, 1))
		code(e, e.b.SynchronizeEvent(e.ctx, ev, 0), acl.ErrRTParamInvalid, "a complete event, 0 ms")
	}},

	{"ElapsedTime", func(e *env) {
		s := e.stream(0)
		start, end, never := e.event(0), e.event(0), e.event(0)
		require.NoError(e, e.b.RecordEvent(start, s))
		require.NoError(e, e.b.LaunchHostFunc(s, func() error { time.Sleep(5 * time.Millisecond); return nil }))
		require.NoError(e, e.b.RecordEvent(end, s))
		require.NoError(e, e.b.SynchronizeEvent(e.ctx, end, -1))
		ms, err := e.b.EventElapsedTime(start, end)
		require.NoError(e, err)
		require.GreaterOrEqual(e, ms, float32(4.9), "a 5 ms sleep lies between the records")
		self, err := e.b.EventElapsedTime(start, start)
		require.NoError(e, err)
		require.Zero(e, self)

		_, err = e.b.EventElapsedTime(start, never)
		code(e, err, acl.ErrRTInternal, "an event never recorded has no recorder")
		_, err = e.b.EventElapsedTime(never, start)
		code(e, err, acl.ErrRTInternal, "a start event never recorded")
		release := e.gate(s)
		require.NoError(e, e.b.RecordEvent(end, s))
		_, err = e.b.EventElapsedTime(start, end)
		codeIn(e, err, acl.ErrRTEventNotComplete, acl.ErrRTEventTimestampInvalid)
		release()
		e.sync(s)
	}},

	{"StreamWaitEvent", func(e *env) {
		s1, s2 := e.stream(0), e.stream(0)
		ev := e.event(0)
		x, y := e.malloc(0, 1024), e.malloc(0, 1024)
		release := e.gate(s1)
		require.NoError(e, e.b.MemsetAsync(e.ctx, acl.Device(x), 1, 1024, s1))
		require.NoError(e, e.b.RecordEvent(ev, s1))
		require.NoError(e, e.b.StreamWaitEvent(s2, ev))
		require.NoError(e, e.b.MemcpyAsync(e.ctx, acl.Device(y), acl.Device(x), 1024, s2))
		n, err := e.b.Pending(s2)
		require.NoError(e, err)
		require.Equal(e, 2, n, "the wait and the copy")
		st, err := e.b.StreamQuery(s2)
		require.NoError(e, err)
		require.Equal(e, acl.StreamStatusNotReady, st)
		require.Equal(e, make([]byte, 1024), e.get(y, 1024), "the copy must wait for the event")
		release()
		e.sync(s2)
		require.Equal(e, filled(1024, 1), e.get(y, 1024))
	}},

	{"StreamWaitEventNeverRecorded", func(e *env) {
		// Natively (the default event mode) a wait for an event never
		// recorded is refused, and nothing is queued.
		s1, s2 := e.stream(0), e.stream(0)
		ev := e.event(0)
		code(e, e.b.StreamWaitEvent(s2, ev), acl.ErrRTParamInvalid, "an event never recorded")
		code(e, e.b.StreamWaitEventTimeout(s2, ev, hangWait), acl.ErrRTParamInvalid, "with a limit too")
		n, err := e.b.Pending(s2)
		require.NoError(e, err)
		require.Zero(e, n, "nothing queued")
		// Reset after a record: a wait is queued, for the next record.
		p := e.malloc(0, 64)
		require.NoError(e, e.b.RecordEvent(ev, s1))
		require.NoError(e, e.b.ResetEvent(ev, s1))
		e.sync(s1)
		require.NoError(e, e.b.StreamWaitEvent(s2, ev))
		require.NoError(e, e.b.MemsetAsync(e.ctx, acl.Device(p), 7, 64, s2))
		require.Equal(e, acl.StreamStatusNotReady, e.query(s2), "s2 waits for a record")
		require.NoError(e, e.b.LaunchHostFunc(s1, func() error { return nil }))
		e.sync(s1)
		require.Equal(e, acl.StreamStatusNotReady, e.query(s2), "s2 still waits for a record")
		require.Equal(e, make([]byte, 64), e.get(p, 64))
		require.NoError(e, e.b.RecordEvent(ev, s1))
		e.sync(s2)
		require.Equal(e, filled(64, 7), e.get(p, 64))
	}},

	{"StreamWaitEventUsesTheRecordAtCall", func(e *env) {
		s1, s2, s3, s4 := e.stream(0), e.stream(0), e.stream(0), e.stream(0)
		ev := e.event(0)
		code(e, e.b.StreamWaitEvent(s2, ev), acl.ErrRTParamInvalid, "an event never recorded")
		require.NoError(e, e.b.RecordEvent(ev, s1))
		e.sync(s1)
		open2 := e.gate(s2) // the wait below runs only after the later record
		require.NoError(e, e.b.StreamWaitEvent(s2, ev))
		open3 := e.gate(s3)
		require.NoError(e, e.b.RecordEvent(ev, s3)) // a later record, held back
		open2()
		ctx, cancel := context.WithTimeout(e.ctx, hangWait)
		defer cancel()
		require.NoError(e, e.b.SynchronizeStream(ctx, s2, -1), "s2 must not wait for a record made after its wait")
		require.NoError(e, e.b.StreamWaitEvent(s4, ev))
		st, err := e.b.StreamQuery(s4)
		require.NoError(e, err)
		require.Equal(e, acl.StreamStatusNotReady, st, "s4 waits for the held-back record")
		open3()
		e.sync(s4)
	}},

	{"DestroyEventReleasesWaits", func(e *env) {
		s1, s2 := e.stream(0), e.stream(0)
		ev := e.event(0)
		release := e.gate(s1)
		defer release()
		require.NoError(e, e.b.RecordEvent(ev, s1))
		require.NoError(e, e.b.StreamWaitEvent(s2, ev))
		blocked := goErr(func() error { return e.b.SynchronizeEvent(context.Background(), ev, -1) })
		e.notYet(blocked, "SynchronizeEvent")
		require.NoError(e, e.b.DestroyEvent(ev))
		e.recv(blocked, "SynchronizeEvent on a destroyed event")
		ctx, cancel := context.WithTimeout(e.ctx, hangWait)
		defer cancel()
		require.NoError(e, e.b.SynchronizeStream(ctx, s2, -1), "a wait on a destroyed event must end")
		_, err := e.b.QueryEvent(ev)
		code(e, err, acl.ErrRTInvalidHandle)
	}},

	{"EventsAcrossDevices", func(e *env) {
		e.twoDevices()
		s0, s1 := e.stream(0), e.stream(1)
		ev := e.event(0)
		p, err := e.b.Malloc(1, 64, acl.MemMallocHugeFirst)
		require.NoError(e, err)
		var ran bool
		release := e.gate(s0)
		require.NoError(e, e.b.LaunchHostFunc(s0, func() error { ran = true; return nil }))
		require.NoError(e, e.b.RecordEvent(ev, s0))
		require.NoError(e, e.b.StreamWaitEvent(s1, ev))
		require.NoError(e, e.b.LaunchHostFunc(s1, func() error {
			if !ran {
				return acl.Errorf(acl.ErrInternal, "device 1 ran before the event recorded on device 0")
			}
			return nil
		}))
		require.NoError(e, e.b.MemsetAsync(e.ctx, acl.Device(p), 4, 64, s1))
		release()
		e.sync(s1)
		require.Equal(e, filled(64, 4), e.get(p, 64))
	}},

	{"ResetEvent", func(e *env) {
		s, w := e.stream(0), e.stream(0)
		ev := e.event(0)
		require.NoError(e, e.b.RecordEvent(ev, s))
		e.sync(s)
		st, err := e.b.QueryEvent(ev)
		require.NoError(e, err)
		require.Equal(e, acl.EventRecordedStatusComplete, st)

		t0, terr := e.b.EventTimestamp(ev)
		require.NoError(e, e.b.ResetEvent(ev, s))
		e.sync(s)
		st, err = e.b.QueryEvent(ev)
		require.NoError(e, err)
		require.Equal(e, acl.EventRecordedStatusComplete, st, "a reset keeps the status of the record before it, as natively")
		if terr == nil { // a backend without timestamps answers 207000 both times
			t1, err := e.b.EventTimestamp(ev)
			require.NoError(e, err, "a reset keeps the timestamp of the record before it, as natively")
			require.Equal(e, t0, t1)
		}

		// A wait queued after the reset waits for the next record.
		require.NoError(e, e.b.StreamWaitEvent(w, ev))
		done := goErr(func() error { return e.b.SynchronizeStream(e.ctx, w, -1) })
		e.notYet(done, "SynchronizeStream of a stream waiting for a reset event")
		require.NoError(e, e.b.RecordEvent(ev, s))
		require.NoError(e, e.recv(done, "SynchronizeStream"))

		code(e, e.b.ResetEvent(acl.Event(1<<40), s), acl.ErrRTInvalidHandle, "an event never issued")
	}},

	{"StreamWaitEventTimeout", func(e *env) {
		s := e.stream(0)
		ev := e.event(0)
		p := e.malloc(0, 64)
		// Recorded, then reset: a wait is for the next record. It ends after
		// its limit with 107019, and the stream goes on.
		require.NoError(e, e.b.RecordEvent(ev, s))
		require.NoError(e, e.b.ResetEvent(ev, s))
		e.sync(s)
		require.NoError(e, e.b.StreamWaitEventTimeout(s, ev, 20*time.Millisecond))
		require.NoError(e, e.b.MemsetAsync(e.ctx, acl.Device(p), 7, 64, s))
		done := goErr(func() error { return e.b.SynchronizeStream(e.ctx, s, -1) })
		code(e, e.recv(done, "SynchronizeStream after a wait that timed out"), acl.ErrRTWaitTimeout)
		require.Equal(e, filled(64, 7), e.get(p, 64), "the work after the failed wait ran")
		e.sync(s)

		// 0 is no limit: the wait ends with the record.
		require.NoError(e, e.b.StreamWaitEventTimeout(s, ev, 0))
		done = goErr(func() error { return e.b.SynchronizeStream(e.ctx, s, -1) })
		e.notYet(done, "SynchronizeStream of a stream waiting without a limit")
		o := e.stream(0)
		require.NoError(e, e.b.RecordEvent(ev, o))
		require.NoError(e, e.recv(done, "SynchronizeStream"))
	}},
}
