package host

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
)

// TestSynchronizeEventWithTimeout: a completed record synchronizes within
// any timeout; one held behind a gate times out with 507047 and is waited
// for once the gate opens; an event never recorded returns at once.
func TestSynchronizeEventWithTimeout(t *testing.T) {
	h := newHarness(t, Policy{})
	h.ok("aclrtSetDevice", 0)
	s, ev := h.stream(), h.event()
	h.ok("aclrtSynchronizeEventWithTimeout", ev, 1) // never recorded
	h.ok("aclrtRecordEvent", ev, s)
	h.ok("aclrtSynchronizeEventWithTimeout", ev, ^uint64(0)) // -1: no limit
	release := h.gate(s)
	h.ok("aclrtRecordEvent", ev, s)
	h.code(acl.ErrRTEventSyncTimeout, "aclrtSynchronizeEventWithTimeout", ev, 20)
	release()
	h.ok("aclrtSynchronizeEventWithTimeout", ev, ^uint64(0))
	h.code(acl.ErrRTParamInvalid, "aclrtSynchronizeEventWithTimeout", ev, 0)
	h.code(acl.ErrRTParamInvalid, "aclrtSynchronizeEventWithTimeout", 0, uint64(0xFFFFFFFE)) // -2 before NULL
	h.code(acl.ErrInvalidParam, "aclrtSynchronizeEventWithTimeout", 0, 0)                    // NULL before 0
	h.code(acl.ErrRTInvalidHandle, "aclrtSynchronizeEventWithTimeout", s, 0)                 // the handle before 0
}

// TestEventIDAndAvailNum: an event's id is its handle's number; the count
// of available events is what the policy still allows the session.
func TestEventIDAndAvailNum(t *testing.T) {
	h := newHarness(t, Policy{MaxEvents: 3})
	h.code(acl.ErrRTContextNull, "aclrtGetEventAvailNum", outB)
	h.ok("aclrtSetDevice", 0)
	h.ok("aclrtGetEventAvailNum", outB)
	require.Equal(t, uint32(3), h.u32(outB))
	a, b := h.event(), h.event()
	h.ok("aclrtGetEventAvailNum", outB)
	require.Equal(t, uint32(1), h.u32(outB))
	h.notify() // notifies count apart
	h.ok("aclrtGetEventAvailNum", outB)
	require.Equal(t, uint32(1), h.u32(outB))
	h.ok("aclrtGetEventId", a, outB)
	require.Equal(t, uint32(a), h.u32(outB))
	h.ok("aclrtGetEventId", b, outB)
	require.Equal(t, uint32(b), h.u32(outB))
	h.ok("aclrtDestroyEvent", a)
	h.code(acl.ErrRTInvalidHandle, "aclrtGetEventId", a, outB)
	h.code(acl.ErrInvalidParam, "aclrtGetEventId", b, 0)
	h.code(acl.ErrInvalidParam, "aclrtGetEventAvailNum", 0)
}

// TestEventNewMode: a wait for an event of aclrtCreateEventExWithFlag
// before any record succeeds and queues nothing; the default mode refuses
// it. Once recorded, a new-mode event is waited for as any other.
func TestEventNewMode(t *testing.T) {
	h := newHarness(t, Policy{})
	h.ok("aclrtSetDevice", 0)
	s := h.stream()
	h.ok("aclrtCreateEventExWithFlag", outA, 8) // ACL_EVENT_TIME_LINE
	ev := uint64(h.u32(outA))
	h.code(acl.ErrRTParamInvalid, "aclrtStreamWaitEvent", s, h.event())
	h.ok("aclrtStreamWaitEvent", s, ev)
	require.True(t, h.streamReady(s), "nothing was queued")
	release := h.gate(0)
	h.ok("aclrtRecordEvent", ev, 0)
	h.ok("aclrtStreamWaitEvent", s, ev)
	require.False(t, h.streamReady(s), "a wait for a record not complete holds its stream")
	release()
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtDestroyEvent", ev)
}

// TestCreateEventExWithFlagChecks: the flags the runtime takes and refuses.
func TestCreateEventExWithFlagChecks(t *testing.T) {
	h := newHarness(t, Policy{})
	for _, f := range []uint64{0, 0x10, 0x20, 0x11, 0x41, 0x30, 0x80, 0x81} {
		h.code(acl.ErrRTParamInvalid, "aclrtCreateEventExWithFlag", outA, f)
	}
	h.code(acl.ErrRTFeatureNotSupport, "aclrtCreateEventExWithFlag", outA, 0x40)
	h.code(acl.ErrRTContextNull, "aclrtCreateEventExWithFlag", outA, 1)
	h.ok("aclrtSetDevice", 0)
	for _, f := range []uint64{1, 2, 4, 8, 0xF} {
		h.ok("aclrtCreateEventExWithFlag", outA, f)
	}
}

// TestEventGetTimestamp: a completed record has a timestamp, later
// records later ones; an event never recorded gives 507000, one whose
// record has not completed or was reset 107006.
func TestEventGetTimestamp(t *testing.T) {
	h := newHarness(t, Policy{})
	h.ok("aclrtSetDevice", 0)
	s, ev := h.stream(), h.event()
	h.code(acl.ErrRTInternal, "aclrtEventGetTimestamp", ev, outB)
	h.ok("aclrtRecordEvent", ev, s)
	h.ok("aclrtSynchronizeEvent", ev)
	h.ok("aclrtEventGetTimestamp", ev, outB)
	first := h.u64(outB)
	release := h.gate(s)
	h.ok("aclrtRecordEvent", ev, s)
	h.code(acl.ErrRTEventTimestampInvalid, "aclrtEventGetTimestamp", ev, outB)
	release()
	h.ok("aclrtSynchronizeEvent", ev)
	h.ok("aclrtEventGetTimestamp", ev, outB)
	require.GreaterOrEqual(t, h.u64(outB), first)
	h.ok("aclrtResetEvent", ev, s)
	h.ok("aclrtSynchronizeStream", s)
	h.code(acl.ErrRTEventTimestampInvalid, "aclrtEventGetTimestamp", ev, outB)
	h.code(acl.ErrInvalidParam, "aclrtEventGetTimestamp", ev, 0)
	h.code(acl.ErrInvalidParam, "aclrtEventGetTimestamp", 0, outB)
	h.code(acl.ErrRTInvalidHandle, "aclrtEventGetTimestamp", s, outB)
}

// noTimestamps is a backend over a library without aclrtEventGetTimestamp.
type noTimestamps struct{ acl.Backend }

// Supports implements acl.Backend.
func (b noTimestamps) Supports(fn string) bool {
	return fn != "aclrtEventGetTimestamp" && b.Backend.Supports(fn)
}

func init() {
	orderCases["aclrtStreamWaitEvent"]["newmode"] = orderCase{run: func(h *harness) acl.Error {
		e := setupOrder(h)
		h.ok("aclrtCreateEventExWithFlag", outA, 1)
		return h.rc("aclrtStreamWaitEvent", e.s, uint64(h.u32(outA)))
	}}
	for fn, cases := range map[string]map[string]orderCase{
		"aclrtSynchronizeEventWithTimeout": {
			"range": {run: func(h *harness) acl.Error { return h.rc("aclrtSynchronizeEventWithTimeout", 0, uint64(0xFFFFFFFE)) }},
			"null":  {run: func(h *harness) acl.Error { return h.rc("aclrtSynchronizeEventWithTimeout", 0, 0) }},
			"event": {run: func(h *harness) acl.Error { return h.rc("aclrtSynchronizeEventWithTimeout", setupOrder(h).s, 0) }},
			"zero":  {run: func(h *harness) acl.Error { return h.rc("aclrtSynchronizeEventWithTimeout", setupOrder(h).ev, 0) }},
			"expire": {run: func(h *harness) acl.Error {
				e := setupOrder(h)
				release := h.gate(e.s)
				defer release()
				h.ok("aclrtRecordEvent", e.ev, e.s)
				return h.rc("aclrtSynchronizeEventWithTimeout", e.ev, 20)
			}},
		},
		"aclrtGetEventId": {
			"null":  {run: func(h *harness) acl.Error { return h.rc("aclrtGetEventId", setupOrder(h).ev, 0) }},
			"event": {run: func(h *harness) acl.Error { return h.rc("aclrtGetEventId", setupOrder(h).s, outB) }},
		},
		"aclrtCreateEventExWithFlag": {
			"null":   {run: func(h *harness) acl.Error { return h.rc("aclrtCreateEventExWithFlag", 0, 0) }},
			"solely": {run: func(h *harness) acl.Error { return h.rc("aclrtCreateEventExWithFlag", outA, 0x41) }}, // no device either
			"ipc":    {run: func(h *harness) acl.Error { return h.rc("aclrtCreateEventExWithFlag", outA, 0x40) }},
			"flag":   {run: func(h *harness) acl.Error { return h.rc("aclrtCreateEventExWithFlag", outA, 0) }},
			"context": {run: func(h *harness) acl.Error {
				return h.rc("aclrtCreateEventExWithFlag", outA, 1)
			}},
			"count": {policy: Policy{MaxEvents: 1}, run: func(h *harness) acl.Error {
				h.ok("aclrtSetDevice", 0)
				h.event()
				return h.rc("aclrtCreateEventExWithFlag", outA, 1)
			}},
		},
		"aclrtEventGetTimestamp": {
			"null":  {run: func(h *harness) acl.Error { return h.rc("aclrtEventGetTimestamp", 0, 0) }},
			"event": {run: func(h *harness) acl.Error { return h.rc("aclrtEventGetTimestamp", setupOrder(h).s, outB) }},
			"feature": {run: func(h *harness) acl.Error {
				s := sim.New()
				h.t.Cleanup(func() { s.Close() })
				b := newHarness(h.t, Policy{}, WithBackend(noTimestamps{s}))
				b.ok("aclrtSetDevice", 0)
				return b.rc("aclrtEventGetTimestamp", b.event(), outB) // never recorded either
			}},
			"never": {run: func(h *harness) acl.Error { return h.rc("aclrtEventGetTimestamp", setupOrder(h).ev, outB) }},
			"timestamp": {run: func(h *harness) acl.Error {
				e := setupOrder(h)
				release := h.gate(e.s)
				defer release()
				h.ok("aclrtRecordEvent", e.ev, e.s)
				return h.rc("aclrtEventGetTimestamp", e.ev, outB)
			}},
		},
		"aclrtGetEventAvailNum": {
			"null":    {run: func(h *harness) acl.Error { return h.rc("aclrtGetEventAvailNum", 0) }}, // no device either
			"context": {run: func(h *harness) acl.Error { return h.rc("aclrtGetEventAvailNum", outB) }},
		},
	} {
		orderCases[fn] = cases
	}
}
