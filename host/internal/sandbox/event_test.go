package sandbox_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
)

// TestSynchronizeEventWithTimeout: a completed record synchronizes within
// any timeout; one held behind a gate times out with 507047 and is waited
// for once the gate opens; an event never recorded returns at once.
func TestSynchronizeEventWithTimeout(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	s, ev := h.Stream(), h.Event()
	h.OK("aclrtSynchronizeEventWithTimeout", ev, 1) // never recorded
	h.OK("aclrtRecordEvent", ev, s)
	h.OK("aclrtSynchronizeEventWithTimeout", ev, ^uint64(0)) // -1: no limit
	release := h.gate(s)
	h.OK("aclrtRecordEvent", ev, s)
	h.Code(acl.ErrRTEventSyncTimeout, "aclrtSynchronizeEventWithTimeout", ev, 20)
	release()
	h.OK("aclrtSynchronizeEventWithTimeout", ev, ^uint64(0))
	h.Code(acl.ErrRTParamInvalid, "aclrtSynchronizeEventWithTimeout", ev, 0)
	h.Code(acl.ErrRTParamInvalid, "aclrtSynchronizeEventWithTimeout", 0, uint64(0xFFFFFFFE)) // -2 before NULL
	h.Code(acl.ErrInvalidParam, "aclrtSynchronizeEventWithTimeout", 0, 0)                    // NULL before 0
	h.Code(acl.ErrRTInvalidHandle, "aclrtSynchronizeEventWithTimeout", s, 0)                 // the handle before 0
}

// TestEventIDAndAvailNum: an event's id is its handle's number, given at
// its first record (507000 before, as natively); the count of available
// events is what the policy still allows the session.
func TestEventIDAndAvailNum(t *testing.T) {
	h := newHarness(t, host.Policy{MaxEvents: 3})
	h.Code(acl.ErrRTContextNull, "aclrtGetEventAvailNum", outB)
	h.OK("aclrtSetDevice", 0)
	h.OK("aclrtGetEventAvailNum", outB)
	require.Equal(t, uint32(3), h.U32(outB))
	a, b := h.Event(), h.Event()
	h.OK("aclrtGetEventAvailNum", outB)
	require.Equal(t, uint32(1), h.U32(outB))
	h.notify() // notifies count apart
	h.OK("aclrtGetEventAvailNum", outB)
	require.Equal(t, uint32(1), h.U32(outB))
	h.Code(acl.ErrRTInternal, "aclrtGetEventId", a, outB)
	h.OK("aclrtRecordEvent", a, 0)
	h.OK("aclrtRecordEvent", b, 0)
	h.OK("aclrtGetEventId", a, outB)
	require.Equal(t, uint32(a), h.U32(outB))
	h.OK("aclrtGetEventId", b, outB)
	require.Equal(t, uint32(b), h.U32(outB))
	h.OK("aclrtDestroyEvent", a)
	h.Code(acl.ErrRTInvalidHandle, "aclrtGetEventId", a, outB)
	h.Code(acl.ErrInvalidParam, "aclrtGetEventId", b, 0)
	h.Code(acl.ErrInvalidParam, "aclrtGetEventAvailNum", 0)
}

// TestEventNewMode: a wait for an event of aclrtCreateEventExWithFlag
// before any record succeeds and queues nothing; the default mode refuses
// it. Once recorded, a new-mode event is waited for as any other. One
// without ACL_EVENT_SYNC has no wait task: a wait gives 207000.
func TestEventNewMode(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	s := h.Stream()
	h.Code(acl.ErrRTFeatureNotSupport, "aclrtStreamWaitEvent", s, h.eventEx(8)) // ACL_EVENT_TIME_LINE
	ev := h.eventEx(1)                                                          // ACL_EVENT_SYNC
	h.Code(acl.ErrRTParamInvalid, "aclrtStreamWaitEvent", s, h.Event())
	h.OK("aclrtStreamWaitEvent", s, ev)
	require.True(t, h.streamReady(s), "nothing was queued")
	release := h.gate(0)
	h.OK("aclrtRecordEvent", ev, 0)
	h.OK("aclrtStreamWaitEvent", s, ev)
	require.False(t, h.streamReady(s), "a wait for a record not complete holds its stream")
	release()
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtDestroyEvent", ev)
}

// TestCreateEventExWithFlagChecks: the flags the runtime takes and refuses.
func TestCreateEventExWithFlagChecks(t *testing.T) {
	h := newHarness(t, host.Policy{})
	for _, f := range []uint64{0, 0x10, 0x20, 0x11, 0x41, 0x30, 0x80, 0x81} {
		h.Code(acl.ErrRTParamInvalid, "aclrtCreateEventExWithFlag", outA, f)
	}
	h.Code(acl.ErrRTFeatureNotSupport, "aclrtCreateEventExWithFlag", outA, 0x40)
	h.Code(acl.ErrRTContextNull, "aclrtCreateEventExWithFlag", outA, 1)
	h.OK("aclrtSetDevice", 0)
	for _, f := range []uint64{1, 2, 4, 8, 0xF} {
		h.OK("aclrtCreateEventExWithFlag", outA, f)
	}
}

// TestEventGetTimestamp: a completed record has a timestamp, later
// records later ones; an event never recorded gives 507000, one whose
// record has not completed 107006; a reset keeps the timestamp.
func TestEventGetTimestamp(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	s, ev := h.Stream(), h.Event()
	h.Code(acl.ErrRTInternal, "aclrtEventGetTimestamp", ev, outB)
	h.OK("aclrtRecordEvent", ev, s)
	h.OK("aclrtSynchronizeEvent", ev)
	h.OK("aclrtEventGetTimestamp", ev, outB)
	first := h.U64(outB)
	release := h.gate(s)
	h.OK("aclrtRecordEvent", ev, s)
	h.Code(acl.ErrRTEventTimestampInvalid, "aclrtEventGetTimestamp", ev, outB)
	release()
	h.OK("aclrtSynchronizeEvent", ev)
	h.OK("aclrtEventGetTimestamp", ev, outB)
	require.GreaterOrEqual(t, h.U64(outB), first)
	second := h.U64(outB)
	h.OK("aclrtResetEvent", ev, s)
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtEventGetTimestamp", ev, outB) // as natively, a reset keeps the record's timestamp
	require.Equal(t, second, h.U64(outB))
	h.Code(acl.ErrInvalidParam, "aclrtEventGetTimestamp", ev, 0)
	h.Code(acl.ErrInvalidParam, "aclrtEventGetTimestamp", 0, outB)
	h.Code(acl.ErrRTInvalidHandle, "aclrtEventGetTimestamp", s, outB)
}

// noTimestamps is a backend over a library without aclrtEventGetTimestamp.
type noTimestamps struct{ acl.Backend }

// Supports implements acl.Backend.
func (b noTimestamps) Supports(fn string) bool {
	return fn != "aclrtEventGetTimestamp" && b.Backend.Supports(fn)
}

// eventEx returns an event of aclrtCreateEventExWithFlag with flag.
func (h *harness) eventEx(flag uint64) uint64 {
	h.T.Helper()
	h.OK("aclrtCreateEventExWithFlag", outA, flag)
	return uint64(h.U32(outA))
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
		h.OK("aclrtRecordEvent", e.ev, e.s)
		h.OK("aclrtSynchronizeStream", e.s)
		other := h.Stream()
		release := h.gate(other) // a wait queued on other could not run yet
		defer release()
		code := h.rc("aclrtStreamWaitEvent", other, e.ev)
		require.Equal(h.T, acl.EventWaitStatusComplete, h.waitStatus(e.ev), "a wait on a completed record queues nothing")
		return code
	}}
	ow["queue"] = orderCase{policy: host.Policy{MaxQueued: 1}, run: func(h *harness) acl.Error {
		e := setupOrder(h)
		ev := h.Event() // reset after its record: a wait is queued
		h.OK("aclrtRecordEvent", ev, 0)
		h.OK("aclrtSynchronizeStream", 0)
		h.OK("aclrtResetEvent", ev, 0)
		h.OK("aclrtSynchronizeStream", 0)
		release := h.gate(e.s)
		defer release()
		return h.rc("aclrtStreamWaitEvent", e.s, ev)
	}}
	oq := orderCases["aclrtQueryEventStatus"]
	oq["newmode"] = orderCase{run: func(h *harness) acl.Error {
		setupOrder(h)
		code := h.rc("aclrtQueryEventStatus", h.eventEx(1), outC)
		require.Equal(h.T, acl.EventRecordedStatusComplete, acl.EventRecordedStatus(h.U32(outC)), "a new-mode event never recorded reads as recorded")
		return code
	}}
	oq["reset"] = orderCase{run: func(h *harness) acl.Error {
		e := setupOrder(h)
		h.OK("aclrtRecordEvent", e.ev, e.s)
		h.OK("aclrtResetEvent", e.ev, e.s)
		h.OK("aclrtSynchronizeStream", e.s)
		code := h.rc("aclrtQueryEventStatus", e.ev, outC)
		require.Equal(h.T, acl.EventRecordedStatusComplete, acl.EventRecordedStatus(h.U32(outC)), "a reset keeps the record's status")
		return code
	}}
	orderCases["aclrtEventElapsedTime"]["timestamp"] = orderCase{run: func(h *harness) acl.Error {
		e := setupOrder(h)
		s := h.Stream()
		release := h.gate(s)
		defer release()
		h.OK("aclrtRecordEvent", e.ev, s)
		h.OK("aclrtDestroyStreamForce", s) // cancels the record
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
				h.OK("aclrtRecordEvent", e.ev, e.s)
				return h.rc("aclrtSynchronizeEventWithTimeout", e.ev, 20)
			}},
		},
		"aclrtGetEventId": {
			"null":  {run: func(h *harness) acl.Error { return h.rc("aclrtGetEventId", setupOrder(h).ev, 0) }},
			"event": {run: func(h *harness) acl.Error { return h.rc("aclrtGetEventId", setupOrder(h).s, outB) }},
			"never": {run: func(h *harness) acl.Error {
				e := setupOrder(h)
				code := h.rc("aclrtGetEventId", e.ev, outB)
				h.OK("aclrtRecordEvent", e.ev, e.s)
				h.OK("aclrtGetEventId", e.ev, outB) // its first record gives it one
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
				h.OK("aclrtSetDevice", 0)
				h.Event()
				return h.rc("aclrtCreateEventExWithFlag", outA, 1)
			}},
		},
		"aclrtEventGetTimestamp": {
			"null":  {run: func(h *harness) acl.Error { return h.rc("aclrtEventGetTimestamp", 0, 0) }},
			"event": {run: func(h *harness) acl.Error { return h.rc("aclrtEventGetTimestamp", setupOrder(h).s, outB) }},
			"feature": {run: func(h *harness) acl.Error {
				s := sim.New()
				h.T.Cleanup(func() { s.Close() })
				b := newHarness(h.T, host.Policy{}, host.WithBackend(noTimestamps{s}))
				b.OK("aclrtSetDevice", 0)
				return b.rc("aclrtEventGetTimestamp", b.Event(), outB) // never recorded either
			}},
			"never": {run: func(h *harness) acl.Error { return h.rc("aclrtEventGetTimestamp", setupOrder(h).ev, outB) }},
			"timestamp": {run: func(h *harness) acl.Error {
				e := setupOrder(h)
				release := h.gate(e.s)
				defer release()
				h.OK("aclrtRecordEvent", e.ev, e.s)
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
	h.T.Helper()
	h.OK("aclrtQueryEventWaitStatus", ev, outB)
	return acl.EventWaitStatus(h.U32(outB))
}

// TestQueryEventWaitStatus: an event no stream waited on is COMPLETE, its
// record pending or not; a wait held behind a gated record is NOT_READY
// until the record runs; a wait cancelled by its stream's forced
// destruction counts as finished; waits on several streams are all
// needed.
func TestQueryEventWaitStatus(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	rec, s, s2, ev := h.Stream(), h.Stream(), h.Stream(), h.Event()
	require.Equal(t, acl.EventWaitStatusComplete, h.waitStatus(ev)) // never waited on

	release := h.gate(rec)
	h.OK("aclrtRecordEvent", ev, rec)
	require.Equal(t, acl.EventWaitStatusComplete, h.waitStatus(ev)) // a record pending, no wait
	h.OK("aclrtStreamWaitEvent", s, ev)
	h.OK("aclrtStreamWaitEvent", s2, ev)
	require.Equal(t, acl.EventWaitStatusNotReady, h.waitStatus(ev))
	require.Equal(t, acl.EventWaitStatusNotReady, h.waitStatus(ev)) // asking changes nothing
	release()
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtSynchronizeStream", s2)
	require.Equal(t, acl.EventWaitStatusComplete, h.waitStatus(ev))

	// A wait on the default stream (0) counts too.
	release = h.gate(rec)
	h.OK("aclrtRecordEvent", ev, rec)
	h.OK("aclrtStreamWaitEvent", 0, ev)
	require.Equal(t, acl.EventWaitStatusNotReady, h.waitStatus(ev))
	release()
	h.OK("aclrtSynchronizeStream", 0)
	require.Equal(t, acl.EventWaitStatusComplete, h.waitStatus(ev))

	// A wait cancelled with its stream's work never runs its mark.
	release = h.gate(rec)
	defer release()
	h.OK("aclrtRecordEvent", ev, rec)
	s3 := h.Stream()
	h.OK("aclrtStreamWaitEvent", s3, ev)
	require.Equal(t, acl.EventWaitStatusNotReady, h.waitStatus(ev))
	h.OK("aclrtDestroyStreamForce", s3)
	require.Equal(t, acl.EventWaitStatusComplete, h.waitStatus(ev))

	// Another event's waits are its own.
	other := h.Event()
	h.OK("aclrtStreamWaitEvent", s, ev)
	require.Equal(t, acl.EventWaitStatusNotReady, h.waitStatus(ev))
	require.Equal(t, acl.EventWaitStatusComplete, h.waitStatus(other))
	release()
	h.OK("aclrtSynchronizeStream", s)
	require.Equal(t, acl.EventWaitStatusComplete, h.waitStatus(ev))

	// Many waits, past the length at which the sandbox prunes its list.
	release = h.gate(rec)
	h.OK("aclrtRecordEvent", ev, rec)
	for range 100 {
		h.OK("aclrtStreamWaitEvent", s, ev)
	}
	require.Equal(t, acl.EventWaitStatusNotReady, h.waitStatus(ev))
	release()
	h.OK("aclrtSynchronizeStream", s)
	require.Equal(t, acl.EventWaitStatusComplete, h.waitStatus(ev))

	// Codes, in the native order; a failed call writes nothing.
	binary.LittleEndian.PutUint32(h.Mem()[outB:], 7)
	h.Code(acl.ErrInvalidParam, "aclrtQueryEventWaitStatus", 0, 0)
	h.Code(acl.ErrInvalidParam, "aclrtQueryEventWaitStatus", ev, 0)
	h.Code(acl.ErrRTInvalidHandle, "aclrtQueryEventWaitStatus", s, outB)
	h.OK("aclrtCreateEventExWithFlag", outA, 1)
	h.Code(acl.ErrRTFeatureNotSupport, "aclrtQueryEventWaitStatus", uint64(h.U32(outA)), outB)
	require.Equal(t, uint32(7), h.U32(outB))
	h.OK("aclrtDestroyEvent", other)
	h.Code(acl.ErrRTInvalidHandle, "aclrtQueryEventWaitStatus", other, outB)

	// No device need be current.
	h.OK("aclrtResetDevice", 0)
	n := newHarness(t, host.Policy{})
	n.Code(acl.ErrRTInvalidHandle, "aclrtQueryEventWaitStatus", 5, outB)
}

func init() {
	orderCases["aclrtQueryEventWaitStatus"] = map[string]orderCase{
		"null":  {run: func(h *harness) acl.Error { return h.rc("aclrtQueryEventWaitStatus", setupOrder(h).ev, 0) }},
		"event": {run: func(h *harness) acl.Error { return h.rc("aclrtQueryEventWaitStatus", setupOrder(h).s, outB) }},
		"newmode": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			h.OK("aclrtCreateEventExWithFlag", outA, 1)
			return h.rc("aclrtQueryEventWaitStatus", uint64(h.U32(outA)), outB)
		}},
	}
}

func TestAsyncCopiesAndEvents(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	s := h.Stream()
	e1, e2 := h.Event(), h.Event()
	a := h.Malloc(1 << 16)
	// Pinned guest memory: copies run truly asynchronously.
	h.OK("aclrtHostRegister", data, 1<<16, 0, outB)
	require.Equal(t, uint64(data), h.U64(outB))
	want := h.Fill(data, 1<<16, 3)
	h.OK("aclrtRecordEvent", e1, s)
	h.OK("aclrtMemcpyAsync", a, 1<<16, data, 1<<16, uint64(acl.MemcpyHostToDevice), s)
	h.OK("aclrtSynchronizeStream", s)                  // guest memory is set at call time, not in stream order
	h.OK("aclrtMemsetAsync", data, 1<<16, 0, 1<<16, s) // so the H2D must have run first
	h.OK("aclrtMemcpyAsync", data, 1<<16, a, 1<<16, uint64(acl.MemcpyDeviceToHost), s)
	h.OK("aclrtRecordEvent", e2, s)
	h.OK("aclrtSynchronizeEvent", e2)
	h.OK("aclrtQueryEventStatus", e2, outC)
	require.Equal(t, uint32(acl.EventRecordedStatusComplete), h.U32(outC))
	require.Equal(t, want, h.Mem()[data:data+1<<16])
	h.OK("aclrtEventElapsedTime", outC, e1, e2)
	require.GreaterOrEqual(t, math.Float32frombits(h.U32(outC)), float32(0))
	// The record of e2 completing does not mean the stream's worker is done
	// with it: query after a synchronize, which does.
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtStreamQuery", s, outC)
	require.Equal(t, uint32(acl.StreamStatusComplete), h.U32(outC))
	h.OK("aclrtHostUnregister", data)
	h.Code(acl.ErrHostMemoryNotRegistered, "aclrtHostUnregister", data)
	h.OK("aclrtDestroyEvent", e1)
	h.OK("aclrtDestroyStream", s)
}

func TestHandlesAreNeverReused(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	proxytest.Session(h.Inst).SetNextHandle(math.MaxUint32 - 1)
	require.Equal(t, uint64(math.MaxUint32), h.Event())
	h.Code(acl.ErrRTOverLimit, "aclrtCreateEvent", outA)
	h.Code(acl.ErrRTOverLimit, "aclrtCreateStream", outA)
}

// TestResetEvent: a reset event keeps its record's status, as natively,
// and a wait queued after the reset waits for the next record.
func TestResetEvent(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	s, w, ev := h.Stream(), h.Stream(), h.Event()
	h.OK("aclrtRecordEvent", ev, s)
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtQueryEventStatus", ev, outA)
	require.Equal(t, uint32(acl.EventRecordedStatusComplete), h.U32(outA))
	h.OK("aclrtResetEvent", ev, s)
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtQueryEventStatus", ev, outA)
	require.Equal(t, uint32(acl.EventRecordedStatusComplete), h.U32(outA), "as natively, a reset keeps the record's status")
	h.OK("aclrtSetOpWaitTimeout", 1)
	h.OK("aclrtStreamWaitEvent", w, ev)
	h.Code(acl.ErrRTWaitTimeout, "aclrtSynchronizeStream", w) // the old record does not end it
	h.OK("aclrtStreamWaitEvent", w, ev)
	h.OK("aclrtRecordEvent", ev, s)
	h.OK("aclrtSynchronizeStream", w)
}
