package acltest

import (
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// notify creates a notify on dev.
func (e *env) notify(dev int32) acl.Notify {
	e.Helper()
	n, err := e.b.CreateNotify(dev, acl.NotifyDefault)
	require.NoError(e, err)
	return n
}

// notifyTests are the cases of the notifies of ABI v1.2 section 12.
var notifyTests = []test{
	{"BadNotifyHandles", func(e *env) {
		s := e.stream(0)
		destroyed := e.notify(0)
		require.NoError(e, e.b.DestroyNotify(destroyed))
		handles := map[string]acl.Notify{
			"destroyed":    destroyed,
			"never issued": acl.Notify(1 << 40),
			"a stream's":   acl.Notify(s),
			"max":          ^acl.Notify(0),
		}
		calls := map[string]func(n acl.Notify) error{
			"DestroyNotify":      e.b.DestroyNotify,
			"RecordNotify":       func(n acl.Notify) error { return e.b.RecordNotify(n, s) },
			"WaitAndResetNotify": func(n acl.Notify) error { return e.b.WaitAndResetNotify(n, s, 0) },
		}
		for hn, h := range handles {
			for cn, call := range calls {
				code(e, call(h), acl.ErrRTInvalidHandle, "%s on a %s notify", cn, hn)
			}
		}
		n, err := e.b.Pending(s)
		require.NoError(e, err)
		require.Zero(e, n, "calls with bad notifies must queue nothing")
	}},

	{"NotifyWaitBeforeRecord", func(e *env) {
		w, r := e.stream(0), e.stream(0)
		n := e.notify(0)
		p := e.malloc(0, 4096)
		require.NoError(e, e.b.WaitAndResetNotify(n, w, 0))
		require.NoError(e, e.b.MemsetAsync(e.ctx, acl.Device(p), 7, 4096, w))
		done := goErr(func() error { return e.b.SynchronizeStream(e.ctx, w, -1) })
		e.notYet(done, "SynchronizeStream of a stream waiting for a notify nobody recorded")
		require.Equal(e, acl.StreamStatusNotReady, e.query(w))
		require.NoError(e, e.b.RecordNotify(n, r))
		require.NoError(e, e.recv(done, "SynchronizeStream"))
		require.Equal(e, filled(4096, 7), e.get(p, 4096), "the work behind the wait ran after it")
	}},

	{"NotifyWaitResets", func(e *env) {
		w, r := e.stream(0), e.stream(0)
		n := e.notify(0)
		require.NoError(e, e.b.RecordNotify(n, r))
		require.NoError(e, e.b.RecordNotify(n, r)) // two records set it once
		e.sync(r)
		require.NoError(e, e.b.WaitAndResetNotify(n, w, 0))
		e.sync(w)
		require.NoError(e, e.b.WaitAndResetNotify(n, w, 20*time.Millisecond))
		code(e, e.b.SynchronizeStream(e.ctx, w, -1), acl.ErrRTWaitTimeout, "the second wait: the first reset the notify")
		e.sync(w) // the error was reported once; the stream goes on
		require.NoError(e, e.b.RecordNotify(n, r))
		require.NoError(e, e.b.WaitAndResetNotify(n, w, 0))
		e.sync(w)
	}},

	{"DestroyNotifyReleasesWait", func(e *env) {
		w := e.stream(0)
		n := e.notify(0)
		require.NoError(e, e.b.WaitAndResetNotify(n, w, 0))
		require.NoError(e, e.b.DestroyNotify(n))
		done := goErr(func() error { return e.b.SynchronizeStream(e.ctx, w, -1) })
		require.NoError(e, e.recv(done, "SynchronizeStream after the notify's destruction"))
	}},

	{"NotifyFlag", func(e *env) {
		n, err := e.b.CreateNotify(0, acl.NotifyDeviceUseOnly)
		if !e.lacks(err, acl.DeviceOnlyNotify) {
			require.NoError(e, err)
			require.NoError(e, e.b.DestroyNotify(n))
		}
		_, err = e.b.CreateNotify(0, 2)
		code(e, err, acl.ErrRTParamInvalid, "flag 2")
	}},
}

// eventTimestampTests are the cases of EventTimestamp (ABI v1.2 section 12).
var eventTimestampTests = []test{
	{"EventTimestamp", func(e *env) {
		s := e.stream(0)
		ev := e.event(0)
		_, err := e.b.EventTimestamp(ev)
		code(e, err, acl.ErrRTInternal, "never recorded")
		require.NoError(e, e.b.RecordEvent(ev, s))
		e.sync(s)
		t0, err := e.b.EventTimestamp(ev)
		require.NoError(e, err)
		release := e.gate(s)
		require.NoError(e, e.b.RecordEvent(ev, s))
		_, err = e.b.EventTimestamp(ev)
		code(e, err, acl.ErrRTEventTimestampInvalid, "a record not complete")
		release()
		e.sync(s)
		t1, err := e.b.EventTimestamp(ev)
		require.NoError(e, err)
		require.GreaterOrEqual(e, t1, t0)
		require.NoError(e, e.b.ResetEvent(ev, s))
		e.sync(s)
		t2, err := e.b.EventTimestamp(ev)
		require.NoError(e, err, "a reset keeps the timestamp of the record before it, as natively")
		require.Equal(e, t1, t2)
		_, err = e.b.EventTimestamp(acl.Event(1 << 40))
		code(e, err, acl.ErrRTInvalidHandle, "never issued")
	}},
}
