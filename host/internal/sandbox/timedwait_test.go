package sandbox_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
)

// aclrtStreamWaitEventWithTimeout (ABI v1.3 section 15).

func init() {
	const fn = "aclrtStreamWaitEventWithTimeout"
	orderCases[fn] = map[string]orderCase{
		"timeout": {run: func(h *harness) acl.Error { return h.rc(fn, 999, 0, 1<<32-1) }}, // bad stream, NULL event too
		"stream":  {run: func(h *harness) acl.Error { return h.rc(fn, 999, 0, 10) }},      // NULL event too
		"event": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc(fn, e.s1, e.s, 10)
		}},
		"null": {run: func(h *harness) acl.Error {
			setupOrder(h)
			h.noDevice()
			return h.rc(fn, 0, 0, 10) // before the device is looked at
		}},
		"nowait": {run: func(h *harness) acl.Error {
			setupOrder(h)
			ev := h.eventEx(8) // ACL_EVENT_TIME_LINE alone
			h.noDevice()
			return h.rc(fn, 0, ev, 10)
		}},
		"context": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.noDevice()
			return h.rc(fn, 0, e.ev, 10)
		}},
		"streamctx": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc(fn, e.s1, e.ev, 10) // never recorded too
		}},
		"newmode": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc(fn, e.s, h.eventEx(1), 10)
		}},
		"unrecorded": {run: func(h *harness) acl.Error {
			b := bareHarness(h) // before the backend's timed waits are asked for
			return b.rc(fn, 0, b.Event(), 10)
		}},
		"done": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.OK("aclrtRecordEvent", e.ev, e.s)
			h.OK("aclrtSynchronizeStream", e.s)
			other := h.Stream()
			release := h.gate(other)
			defer release()
			code := h.rc(fn, other, e.ev, 10)
			require.Equal(h.T, acl.EventWaitStatusComplete, h.waitStatus(e.ev), "a wait on a completed record queues nothing")
			return code
		}},
		"feature": {run: func(h *harness) acl.Error {
			b := bareHarness(h)
			s := b.Stream()
			release := b.gate(s)
			defer release()
			ev := b.Event()
			b.OK("aclrtRecordEvent", ev, s) // pending: a wait for it is queued
			require.Equal(h.T, acl.Success, b.rc(fn, 0, ev, 0), "no limit: the plain wait")
			return b.rc(fn, 0, ev, 10)
		}},
		"queue": {policy: host.Policy{MaxQueued: 1}, run: func(h *harness) acl.Error {
			e := setupOrder(h)
			ev := h.Event() // reset after its record: a wait is queued
			h.OK("aclrtRecordEvent", ev, 0)
			h.OK("aclrtSynchronizeStream", 0)
			h.OK("aclrtResetEvent", ev, 0)
			h.OK("aclrtSynchronizeStream", 0)
			release := h.gate(e.s)
			defer release()
			return h.rc(fn, e.s, ev, 10)
		}},
		"expire": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			ev := h.Waitable() // never recorded again: the wait can only expire
			s := h.Stream()
			h.OK(fn, s, ev, 1)
			return h.rc("aclrtSynchronizeStream", s)
		}},
	}
}

// TestStreamWaitEventWithTimeout: a timed wait ends when the event's
// record runs, and the work behind it runs too; one that expires fails
// its stream once, and the stream goes on. Both profiles.
func TestStreamWaitEventWithTimeout(t *testing.T) {
	for _, prof := range abi.Profiles {
		t.Run(prof.Module(), func(t *testing.T) {
			h := newHarnessIn(t, prof, host.Policy{})
			h.OK("aclrtSetDevice", 0)
			ev, w := h.Waitable(), h.Stream()
			dev := h.Malloc(64)
			want := h.Fill(data, 64, 7)
			h.OK("aclrtHostRegister", data, 64, 0, outB)
			h.OK("aclrtStreamWaitEventWithTimeout", w, ev, 60_000) // a generous limit: the record comes first
			h.OK("aclrtMemcpyAsync", dev, 64, data, 64, 1, w)
			require.False(t, h.streamReady(w), "the wait holds its stream until the record")
			h.OK("aclrtRecordEvent", ev, 0)
			h.OK("aclrtSynchronizeStream", w)
			h.OK("aclrtMemcpy", data2, 64, dev, 64, 2)
			require.Equal(t, want, h.Mem()[data2:data2+64])

			ev2 := h.Waitable()
			h.OK("aclrtStreamWaitEventWithTimeout", w, ev2, 1)
			h.Code(acl.ErrRTWaitTimeout, "aclrtSynchronizeStream", w)
			h.OK("aclrtMemsetAsync", dev, 64, 1, 64, w)
			h.OK("aclrtSynchronizeStream", w) // the error was reported once
		})
	}
}
