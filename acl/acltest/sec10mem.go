package acltest

import (
	"bytes"
	"encoding/binary"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// sec10memTests cover the optional interfaces of ABI v1.1's 32-bit
// memsets, event resets, op wait timeouts and operator timeout intervals.
var sec10memTests = []test{
	{"MemsetD32", func(e *env) {
		m, ok := e.b.(acl.MemsetD32er)
		if !ok {
			e.Skip("the backend does not implement the optional acl.MemsetD32er")
		}
		p := e.malloc(0, 64)
		require.NoError(e, m.MemsetD32(e.ctx, acl.Device(p+4), 0x11223344, 3))
		want := make([]byte, 64)
		for i := 4; i < 16; i += 4 {
			binary.LittleEndian.PutUint32(want[i:], 0x11223344)
		}
		require.Equal(e, want, e.get(p, 64), "3 words from byte 4, little-endian, nothing else")

		host, pin := e.pinned(32)
		require.NoError(e, m.MemsetD32(e.ctx, acl.Host(host[8:24], pin), 0xdeadbeef, 4))
		require.Equal(e, append(append(make([]byte, 8), bytes.Repeat([]byte{0xef, 0xbe, 0xad, 0xde}, 4)...), make([]byte, 8)...), host)

		code(e, m.MemsetD32(e.ctx, acl.Device(p), 1, 1<<62), acl.ErrRTParamInvalid, "words whose bytes overflow")
		require.Equal(e, want, e.get(p, 64), "a refused memset sets nothing")
	}},

	{"MemsetD32Async", func(e *env) {
		m, ok := e.b.(acl.MemsetD32er)
		if !ok {
			e.Skip("the backend does not implement the optional acl.MemsetD32er")
		}
		s := e.stream(0)
		p := e.malloc(0, 4096)
		release := e.gate(s)
		require.NoError(e, m.MemsetD32Async(e.ctx, acl.Device(p), 0x01020304, 1024, s))
		require.Equal(e, acl.StreamStatusNotReady, e.query(s), "queued behind the gate")
		release()
		e.sync(s)
		require.Equal(e, bytes.Repeat([]byte{4, 3, 2, 1}, 1024), e.get(p, 4096))
		code(e, m.MemsetD32Async(e.ctx, acl.Device(p), 1, 1<<62, s), acl.ErrRTParamInvalid, "words whose bytes overflow")
	}},

	{"ResetEvent", func(e *env) {
		r, ok := e.b.(acl.EventResetter)
		if !ok {
			e.Skip("the backend does not implement the optional acl.EventResetter")
		}
		s, w := e.stream(0), e.stream(0)
		ev := e.event(0)
		require.NoError(e, e.b.RecordEvent(ev, s))
		e.sync(s)
		st, err := e.b.QueryEvent(ev)
		require.NoError(e, err)
		require.Equal(e, acl.EventRecordedStatusComplete, st)

		require.NoError(e, r.ResetEvent(ev, s))
		e.sync(s)
		st, err = e.b.QueryEvent(ev)
		require.NoError(e, err)
		require.Equal(e, acl.EventRecordedStatusNotReady, st, "a reset event reads as never recorded")

		// A wait queued after the reset waits for the next record.
		require.NoError(e, e.b.StreamWaitEvent(w, ev))
		done := goErr(func() error { return e.b.SynchronizeStream(e.ctx, w, -1) })
		e.notYet(done, "SynchronizeStream of a stream waiting for a reset event")
		require.NoError(e, e.b.RecordEvent(ev, s))
		require.NoError(e, e.recv(done, "SynchronizeStream"))

		code(e, r.ResetEvent(acl.Event(1<<40), s), acl.ErrRTInvalidHandle, "an event never issued")
	}},

	{"StreamWaitEventTimeout", func(e *env) {
		tw, ok := e.b.(acl.TimedWaiter)
		if !ok {
			e.Skip("the backend does not implement the optional acl.TimedWaiter")
		}
		r, ok := e.b.(acl.EventResetter)
		if !ok {
			e.Skip("the backend does not implement the optional acl.EventResetter")
		}
		s := e.stream(0)
		ev := e.event(0)
		p := e.malloc(0, 64)
		// Recorded, then reset: a wait is for the next record. It ends after
		// its limit with 107019, and the stream goes on.
		require.NoError(e, e.b.RecordEvent(ev, s))
		require.NoError(e, r.ResetEvent(ev, s))
		e.sync(s)
		require.NoError(e, tw.StreamWaitEventTimeout(s, ev, 20*time.Millisecond))
		require.NoError(e, e.b.MemsetAsync(e.ctx, acl.Device(p), 7, 64, s))
		done := goErr(func() error { return e.b.SynchronizeStream(e.ctx, s, -1) })
		code(e, e.recv(done, "SynchronizeStream after a wait that timed out"), acl.ErrRTWaitTimeout)
		require.Equal(e, filled(64, 7), e.get(p, 64), "the work after the failed wait ran")
		e.sync(s)

		// 0 is no limit: the wait ends with the record.
		require.NoError(e, tw.StreamWaitEventTimeout(s, ev, 0))
		done = goErr(func() error { return e.b.SynchronizeStream(e.ctx, s, -1) })
		e.notYet(done, "SynchronizeStream of a stream waiting without a limit")
		o := e.stream(0)
		require.NoError(e, e.b.RecordEvent(ev, o))
		require.NoError(e, e.recv(done, "SynchronizeStream"))
	}},

	{"OpTimeoutInterval", func(e *env) {
		o, ok := e.b.(acl.OpTimeouts)
		if !ok {
			e.Skip("the backend does not implement the optional acl.OpTimeouts")
		}
		iv, err := o.OpTimeoutInterval()
		require.NoError(e, err)
		require.NotZero(e, iv)
	}},
}
