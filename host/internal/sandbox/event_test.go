package sandbox_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
)

// TestSynchronizeEventWithTimeout: a completed record synchronizes within
// any timeout; one held behind a gate times out with 507047 and is waited
// for once the gate opens; an event never recorded returns at once.
func TestSynchronizeEventWithTimeout(t *testing.T) {
	h := newHarness(t, host.Policy{})
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

// TestEventIDAndAvailNum: an event's id is its handle's number, given at
// its first record (507000 before, as natively); the count of available
// events is what the policy still allows the session.
func TestEventIDAndAvailNum(t *testing.T) {
	h := newHarness(t, host.Policy{MaxEvents: 3})
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
	h.code(acl.ErrRTInternal, "aclrtGetEventId", a, outB)
	h.ok("aclrtRecordEvent", a, 0)
	h.ok("aclrtRecordEvent", b, 0)
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
// it. Once recorded, a new-mode event is waited for as any other. One
// without ACL_EVENT_SYNC has no wait task: a wait gives 207000.
func TestEventNewMode(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.ok("aclrtSetDevice", 0)
	s := h.stream()
	h.code(acl.ErrRTFeatureNotSupport, "aclrtStreamWaitEvent", s, h.eventEx(8)) // ACL_EVENT_TIME_LINE
	ev := h.eventEx(1)                                                          // ACL_EVENT_SYNC
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
	h := newHarness(t, host.Policy{})
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
// record has not completed 107006; a reset keeps the timestamp.
func TestEventGetTimestamp(t *testing.T) {
	h := newHarness(t, host.Policy{})
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
	second := h.u64(outB)
	h.ok("aclrtResetEvent", ev, s)
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtEventGetTimestamp", ev, outB) // as natively, a reset keeps the record's timestamp
	require.Equal(t, second, h.u64(outB))
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

// eventEx returns an event of aclrtCreateEventExWithFlag with flag.
func (h *harness) eventEx(flag uint64) uint64 {
	h.t.Helper()
	h.ok("aclrtCreateEventExWithFlag", outA, flag)
	return uint64(h.u32(outA))
}

func init() {
	ow := orderCases["aclrtStreamWaitEvent"]
	ow["newmode"] = orderCase{run: func(h *harness) acl.Error {
		e := setupOrder(h)
		return h.rc("aclrtStreamWaitEvent", e.s, h.eventEx(1))
	}}
	ow["nowait"] = orderCase{run: func(h *harness) acl.Error {
		setupOrder(h)
		ev := h.eventEx(8) // ACL_EVENT_TIME_LINE alone
		h.noDevice()
		return h.rc("aclrtStreamWaitEvent", 0, ev) // before the device is looked at
	}}
	ow["done"] = orderCase{run: func(h *harness) acl.Error {
		e := setupOrder(h)
		h.ok("aclrtRecordEvent", e.ev, e.s)
		h.ok("aclrtSynchronizeStream", e.s)
		other := h.stream()
		release := h.gate(other) // a wait queued on other could not run yet
		defer release()
		code := h.rc("aclrtStreamWaitEvent", other, e.ev)
		require.Equal(h.t, acl.EventWaitStatusComplete, h.waitStatus(e.ev), "a wait on a completed record queues nothing")
		return code
	}}
	ow["queue"] = orderCase{policy: host.Policy{MaxQueued: 1}, run: func(h *harness) acl.Error {
		e := setupOrder(h)
		ev := h.event() // reset after its record: a wait is queued
		h.ok("aclrtRecordEvent", ev, 0)
		h.ok("aclrtSynchronizeStream", 0)
		h.ok("aclrtResetEvent", ev, 0)
		h.ok("aclrtSynchronizeStream", 0)
		release := h.gate(e.s)
		defer release()
		return h.rc("aclrtStreamWaitEvent", e.s, ev)
	}}
	oq := orderCases["aclrtQueryEventStatus"]
	oq["newmode"] = orderCase{run: func(h *harness) acl.Error {
		setupOrder(h)
		code := h.rc("aclrtQueryEventStatus", h.eventEx(1), outC)
		require.Equal(h.t, acl.EventRecordedStatusComplete, acl.EventRecordedStatus(h.u32(outC)), "a new-mode event never recorded reads as recorded")
		return code
	}}
	oq["reset"] = orderCase{run: func(h *harness) acl.Error {
		e := setupOrder(h)
		h.ok("aclrtRecordEvent", e.ev, e.s)
		h.ok("aclrtResetEvent", e.ev, e.s)
		h.ok("aclrtSynchronizeStream", e.s)
		code := h.rc("aclrtQueryEventStatus", e.ev, outC)
		require.Equal(h.t, acl.EventRecordedStatusComplete, acl.EventRecordedStatus(h.u32(outC)), "a reset keeps the record's status")
		return code
	}}
	orderCases["aclrtEventElapsedTime"]["timestamp"] = orderCase{run: func(h *harness) acl.Error {
		e := setupOrder(h)
		s := h.stream()
		release := h.gate(s)
		defer release()
		h.ok("aclrtRecordEvent", e.ev, s)
		h.ok("aclrtDestroyStreamForce", s) // cancels the record
		return h.rc("aclrtEventElapsedTime", outA, e.ev, e.ev)
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
			"never": {run: func(h *harness) acl.Error {
				e := setupOrder(h)
				code := h.rc("aclrtGetEventId", e.ev, outB)
				h.ok("aclrtRecordEvent", e.ev, e.s)
				h.ok("aclrtGetEventId", e.ev, outB) // its first record gives it one
				return code
			}},
		},
		"aclrtCreateEventExWithFlag": {
			"null":   {run: func(h *harness) acl.Error { return h.rc("aclrtCreateEventExWithFlag", 0, 0) }},
			"solely": {run: func(h *harness) acl.Error { return h.rc("aclrtCreateEventExWithFlag", outA, 0x41) }}, // no device either
			"ipc":    {run: func(h *harness) acl.Error { return h.rc("aclrtCreateEventExWithFlag", outA, 0x40) }},
			"flag":   {run: func(h *harness) acl.Error { return h.rc("aclrtCreateEventExWithFlag", outA, 0) }},
			"context": {run: func(h *harness) acl.Error {
				return h.rc("aclrtCreateEventExWithFlag", outA, 1)
			}},
			"count": {policy: host.Policy{MaxEvents: 1}, run: func(h *harness) acl.Error {
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
				b := newHarness(h.t, host.Policy{}, host.WithBackend(noTimestamps{s}))
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

// waitStatus queries ev's wait status and returns it.
func (h *harness) waitStatus(ev uint64) acl.EventWaitStatus {
	h.t.Helper()
	h.ok("aclrtQueryEventWaitStatus", ev, outB)
	return acl.EventWaitStatus(h.u32(outB))
}

// TestQueryEventWaitStatus: an event no stream waited on is COMPLETE, its
// record pending or not; a wait held behind a gated record is NOT_READY
// until the record runs; a wait cancelled by its stream's forced
// destruction counts as finished; waits on several streams are all
// needed.
func TestQueryEventWaitStatus(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.ok("aclrtSetDevice", 0)
	rec, s, s2, ev := h.stream(), h.stream(), h.stream(), h.event()
	require.Equal(t, acl.EventWaitStatusComplete, h.waitStatus(ev)) // never waited on

	release := h.gate(rec)
	h.ok("aclrtRecordEvent", ev, rec)
	require.Equal(t, acl.EventWaitStatusComplete, h.waitStatus(ev)) // a record pending, no wait
	h.ok("aclrtStreamWaitEvent", s, ev)
	h.ok("aclrtStreamWaitEvent", s2, ev)
	require.Equal(t, acl.EventWaitStatusNotReady, h.waitStatus(ev))
	require.Equal(t, acl.EventWaitStatusNotReady, h.waitStatus(ev)) // asking changes nothing
	release()
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtSynchronizeStream", s2)
	require.Equal(t, acl.EventWaitStatusComplete, h.waitStatus(ev))

	// A wait on the default stream (0) counts too.
	release = h.gate(rec)
	h.ok("aclrtRecordEvent", ev, rec)
	h.ok("aclrtStreamWaitEvent", 0, ev)
	require.Equal(t, acl.EventWaitStatusNotReady, h.waitStatus(ev))
	release()
	h.ok("aclrtSynchronizeStream", 0)
	require.Equal(t, acl.EventWaitStatusComplete, h.waitStatus(ev))

	// A wait cancelled with its stream's work never runs its mark.
	release = h.gate(rec)
	defer release()
	h.ok("aclrtRecordEvent", ev, rec)
	s3 := h.stream()
	h.ok("aclrtStreamWaitEvent", s3, ev)
	require.Equal(t, acl.EventWaitStatusNotReady, h.waitStatus(ev))
	h.ok("aclrtDestroyStreamForce", s3)
	require.Equal(t, acl.EventWaitStatusComplete, h.waitStatus(ev))

	// Another event's waits are its own.
	other := h.event()
	h.ok("aclrtStreamWaitEvent", s, ev)
	require.Equal(t, acl.EventWaitStatusNotReady, h.waitStatus(ev))
	require.Equal(t, acl.EventWaitStatusComplete, h.waitStatus(other))
	release()
	h.ok("aclrtSynchronizeStream", s)
	require.Equal(t, acl.EventWaitStatusComplete, h.waitStatus(ev))

	// Many waits, past the length at which the sandbox prunes its list.
	release = h.gate(rec)
	h.ok("aclrtRecordEvent", ev, rec)
	for range 100 {
		h.ok("aclrtStreamWaitEvent", s, ev)
	}
	require.Equal(t, acl.EventWaitStatusNotReady, h.waitStatus(ev))
	release()
	h.ok("aclrtSynchronizeStream", s)
	require.Equal(t, acl.EventWaitStatusComplete, h.waitStatus(ev))

	// Codes, in the native order; a failed call writes nothing.
	binary.LittleEndian.PutUint32(h.mem()[outB:], 7)
	h.code(acl.ErrInvalidParam, "aclrtQueryEventWaitStatus", 0, 0)
	h.code(acl.ErrInvalidParam, "aclrtQueryEventWaitStatus", ev, 0)
	h.code(acl.ErrRTInvalidHandle, "aclrtQueryEventWaitStatus", s, outB)
	h.ok("aclrtCreateEventExWithFlag", outA, 1)
	h.code(acl.ErrRTFeatureNotSupport, "aclrtQueryEventWaitStatus", uint64(h.u32(outA)), outB)
	require.Equal(t, uint32(7), h.u32(outB))
	h.ok("aclrtDestroyEvent", other)
	h.code(acl.ErrRTInvalidHandle, "aclrtQueryEventWaitStatus", other, outB)

	// No device need be current.
	h.ok("aclrtResetDevice", 0)
	n := newHarness(t, host.Policy{})
	n.code(acl.ErrRTInvalidHandle, "aclrtQueryEventWaitStatus", 5, outB)
}

func init() {
	orderCases["aclrtQueryEventWaitStatus"] = map[string]orderCase{
		"null":  {run: func(h *harness) acl.Error { return h.rc("aclrtQueryEventWaitStatus", setupOrder(h).ev, 0) }},
		"event": {run: func(h *harness) acl.Error { return h.rc("aclrtQueryEventWaitStatus", setupOrder(h).s, outB) }},
		"newmode": {run: func(h *harness) acl.Error {
			h.ok("aclrtSetDevice", 0)
			h.ok("aclrtCreateEventExWithFlag", outA, 1)
			return h.rc("aclrtQueryEventWaitStatus", uint64(h.u32(outA)), outB)
		}},
	}
}

func TestAsyncCopiesAndEvents(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.ok("aclrtSetDevice", 0)
	s := h.stream()
	e1, e2 := h.event(), h.event()
	a := h.malloc(1 << 16)
	// Pinned guest memory: copies run truly asynchronously.
	h.ok("aclrtHostRegister", data, 1<<16, 0, outB)
	require.Equal(t, uint64(data), h.u64(outB))
	want := h.fill(data, 1<<16, 3)
	h.ok("aclrtRecordEvent", e1, s)
	h.ok("aclrtMemcpyAsync", a, 1<<16, data, 1<<16, uint64(acl.MemcpyHostToDevice), s)
	h.ok("aclrtSynchronizeStream", s)                  // guest memory is set at call time, not in stream order
	h.ok("aclrtMemsetAsync", data, 1<<16, 0, 1<<16, s) // so the H2D must have run first
	h.ok("aclrtMemcpyAsync", data, 1<<16, a, 1<<16, uint64(acl.MemcpyDeviceToHost), s)
	h.ok("aclrtRecordEvent", e2, s)
	h.ok("aclrtSynchronizeEvent", e2)
	h.ok("aclrtQueryEventStatus", e2, outC)
	require.Equal(t, uint32(acl.EventRecordedStatusComplete), h.u32(outC))
	require.Equal(t, want, h.mem()[data:data+1<<16])
	h.ok("aclrtEventElapsedTime", outC, e1, e2)
	require.GreaterOrEqual(t, math.Float32frombits(h.u32(outC)), float32(0))
	// The record of e2 completing does not mean the stream's worker is done
	// with it: query after a synchronize, which does.
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtStreamQuery", s, outC)
	require.Equal(t, uint32(acl.StreamStatusComplete), h.u32(outC))
	h.ok("aclrtHostUnregister", data)
	h.code(acl.ErrHostMemoryNotRegistered, "aclrtHostUnregister", data)
	h.ok("aclrtDestroyEvent", e1)
	h.ok("aclrtDestroyStream", s)
}

func TestHandlesAreNeverReused(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.ok("aclrtSetDevice", 0)
	sessOf(h.inst).SetNextHandle(math.MaxUint32 - 1)
	require.Equal(t, uint64(math.MaxUint32), h.event())
	h.code(acl.ErrRTOverLimit, "aclrtCreateEvent", outA)
	h.code(acl.ErrRTOverLimit, "aclrtCreateStream", outA)
}

// TestResetEvent: a reset event keeps its record's status, as natively,
// and a wait queued after the reset waits for the next record.
func TestResetEvent(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.ok("aclrtSetDevice", 0)
	s, w, ev := h.stream(), h.stream(), h.event()
	h.ok("aclrtRecordEvent", ev, s)
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtQueryEventStatus", ev, outA)
	require.Equal(t, uint32(acl.EventRecordedStatusComplete), h.u32(outA))
	h.ok("aclrtResetEvent", ev, s)
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtQueryEventStatus", ev, outA)
	require.Equal(t, uint32(acl.EventRecordedStatusComplete), h.u32(outA), "as natively, a reset keeps the record's status")
	h.ok("aclrtSetOpWaitTimeout", 1)
	h.ok("aclrtStreamWaitEvent", w, ev)
	h.code(acl.ErrRTWaitTimeout, "aclrtSynchronizeStream", w) // the old record does not end it
	h.ok("aclrtStreamWaitEvent", w, ev)
	h.ok("aclrtRecordEvent", ev, s)
	h.ok("aclrtSynchronizeStream", w)
}
