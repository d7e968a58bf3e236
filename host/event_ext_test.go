package host

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
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

func init() {
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
		"aclrtGetEventAvailNum": {
			"null":    {run: func(h *harness) acl.Error { return h.rc("aclrtGetEventAvailNum", 0) }}, // no device either
			"context": {run: func(h *harness) acl.Error { return h.rc("aclrtGetEventAvailNum", outB) }},
		},
	} {
		orderCases[fn] = cases
	}
}
