package sandbox_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
)

// notify creates a notify on the current device (ABI v1.2 section 12).
func (h *harness) notify() uint64 {
	h.t.Helper()
	h.ok("aclrtCreateNotify", outA, 0)
	return uint64(h.u32(outA))
}

// streamReady reports whether aclrtStreamQuery finds s's work complete.
func (h *harness) streamReady(s uint64) bool {
	h.t.Helper()
	h.ok("aclrtStreamQuery", s, outC)
	return acl.StreamStatus(h.u32(outC)) == acl.StreamStatusComplete
}

// TestNotifyRecordReleasesWait: a wait queued before any record holds its
// stream (no 107000, unlike an event) until a record on another stream
// runs; the work queued behind the wait then runs.
func TestNotifyRecordReleasesWait(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.ok("aclrtSetDevice", 0)
	n, w := h.notify(), h.stream()
	dev := h.malloc(64)
	want := h.fill(data, 64, 3)
	h.ok("aclrtHostRegister", data, 64, 0, outB)
	h.ok("aclrtWaitAndResetNotify", n, w, 0)
	h.ok("aclrtMemcpyAsync", dev, 64, data, 64, 1, w)
	require.False(t, h.streamReady(w), "the wait must hold its stream until a record")
	h.ok("aclrtRecordNotify", n, 0)
	h.ok("aclrtSynchronizeStream", w)
	h.ok("aclrtMemcpy", data2, 64, dev, 64, 2)
	require.Equal(t, want, h.mem()[data2:data2+64])
}

// TestNotifyWaitResets: a wait consumes the record it waited for, so a
// second wait times out; several records before one wait count once.
func TestNotifyWaitResets(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.ok("aclrtSetDevice", 0)
	n, w := h.notify(), h.stream()
	h.ok("aclrtRecordNotify", n, 0)
	h.ok("aclrtRecordNotify", n, 0)
	h.ok("aclrtSynchronizeStream", 0)
	h.ok("aclrtWaitAndResetNotify", n, w, 0)
	h.ok("aclrtSynchronizeStream", w)
	h.ok("aclrtWaitAndResetNotify", n, w, 20)
	msg := h.code(acl.ErrRTWaitTimeout, "aclrtSynchronizeStream", w)
	require.NotEmpty(t, msg)
	// The stream goes on with its later work, and the notify still works.
	h.ok("aclrtSynchronizeStream", w)
	h.ok("aclrtRecordNotify", n, 0)
	h.ok("aclrtWaitAndResetNotify", n, w, 0)
	h.ok("aclrtSynchronizeStream", w)
}

// TestNotifyWaitForeverFollowsOpWaitTimeout: UINT32_MAX is the native
// plain wait, which the session's aclrtSetOpWaitTimeout bounds.
func TestNotifyWaitForeverFollowsOpWaitTimeout(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.ok("aclrtSetDevice", 0)
	n, w := h.notify(), h.stream()
	h.ok("aclrtSetOpWaitTimeout", 1)
	h.ok("aclrtWaitAndResetNotify", n, w, uint64(acl.NotifyWaitForever))
	h.code(acl.ErrRTWaitTimeout, "aclrtSynchronizeStream", w)
}

// TestNotifyHandles: notifies are a typed handle of their own, never
// reused; a handle of another type is refused both ways with 107017.
func TestNotifyHandles(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.ok("aclrtSetDevice", 0)
	n, s, ev := h.notify(), h.stream(), h.event()
	require.NotZero(t, n)
	for _, c := range []struct {
		name string
		args []uint64
		msg  string
	}{
		{"aclrtDestroyEvent", []uint64{n}, "is a notify, not an event"},
		{"aclrtDestroyStream", []uint64{n}, "is a notify, not a stream"},
		{"aclrtSetCurrentContext", []uint64{n}, "is a notify, not a context"},
		{"aclrtDestroyNotify", []uint64{ev}, "is an event, not a notify"},
		{"aclrtRecordNotify", []uint64{s, 0}, "is a stream, not a notify"},
		{"aclrtRecordNotify", []uint64{n, n}, "is a notify, not a stream"},
		{"aclrtWaitAndResetNotify", []uint64{n, ev, 0}, "is an event, not a stream"},
		{"aclrtGetNotifyId", []uint64{999, outB}, "unknown or destroyed"},
	} {
		require.Contains(t, h.code(acl.ErrRTInvalidHandle, c.name, c.args...), c.msg, c.name)
	}
	h.code(acl.ErrInvalidParam, "aclrtDestroyNotify", 0)
	h.ok("aclrtDestroyNotify", n)
	h.code(acl.ErrRTInvalidHandle, "aclrtDestroyNotify", n)
	h.code(acl.ErrRTInvalidHandle, "aclrtRecordNotify", n, 0)
	require.NotEqual(t, n, h.notify(), "a handle is never given out twice")
}

// TestNotifyID: a notify's id is its handle's number, unique in the
// session and never reused.
func TestNotifyID(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.ok("aclrtSetDevice", 0)
	a, b := h.notify(), h.notify()
	h.ok("aclrtGetNotifyId", b, outB)
	require.Equal(t, uint32(b), h.u32(outB))
	h.ok("aclrtGetNotifyId", a, outB)
	require.Equal(t, uint32(a), h.u32(outB))
	h.code(acl.ErrInvalidParam, "aclrtGetNotifyId", a, 0)
	h.code(acl.ErrInvalidParam, "aclrtGetNotifyId", 0, outB)
}

// TestNotifyCreateChecks: the flag, the current device and the count
// limit (MaxEvents, counted apart from events).
func TestNotifyCreateChecks(t *testing.T) {
	h := newHarness(t, host.Policy{MaxEvents: 2})
	h.code(acl.ErrInvalidParam, "aclrtCreateNotify", 0, 0)
	require.Contains(t, h.code(acl.ErrRTParamInvalid, "aclrtCreateNotify", outA, 2), "flag")
	h.code(acl.ErrRTContextNull, "aclrtCreateNotify", outA, 0)
	h.ok("aclrtSetDevice", 0)
	h.ok("aclrtCreateNotify", outA, uint64(acl.NotifyDeviceUseOnly))
	h.notify()
	h.code(acl.ErrRTOverLimit, "aclrtCreateNotify", outA, 0)
	h.event() // events count apart
	h.event()
}

// TestNotifyReleasedWithDevice: aclrtResetDevice releases the notifies of
// the device (aclrtResetDeviceForce here: the plain reset synchronizes
// first, and a wait nobody records never ends, as natively); the
// session's end releases the rest, waits included.
func TestNotifyReleasedWithDevice(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.ok("aclrtSetDevice", 0)
	n, w := h.notify(), h.stream()
	h.ok("aclrtWaitAndResetNotify", n, w, 0) // never recorded
	h.ok("aclrtResetDeviceForce", 0)
	h.ok("aclrtSetDevice", 0)
	h.code(acl.ErrRTInvalidHandle, "aclrtRecordNotify", n, 0)
	// A wait nobody records, left to the session's end (the harness's
	// cleanup closes the instance and requires no error).
	n2, w2 := h.notify(), h.stream()
	h.ok("aclrtWaitAndResetNotify", n2, w2, 0)
}

// TestNotifyAcl32: the acl32 profile has the same functions.
func TestNotifyAcl32(t *testing.T) {
	h := newHarnessIn(t, abi.Native32, host.Policy{})
	h.ok("aclrtSetDevice", 0)
	n, w := h.notify(), h.stream()
	h.ok("aclrtRecordNotify", n, w)
	h.ok("aclrtWaitAndResetNotify", n, w, 0)
	h.ok("aclrtSynchronizeStream", w)
	h.ok("aclrtGetNotifyId", n, outB)
	require.Equal(t, uint32(n), h.u32(outB))
}
