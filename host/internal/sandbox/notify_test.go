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
	h.T.Helper()
	h.OK("aclrtCreateNotify", outA, 0)
	return uint64(h.U32(outA))
}

// streamReady reports whether aclrtStreamQuery finds s's work complete.
func (h *harness) streamReady(s uint64) bool {
	h.T.Helper()
	h.OK("aclrtStreamQuery", s, outC)
	return acl.StreamStatus(h.U32(outC)) == acl.StreamStatusComplete
}

// TestNotifyRecordReleasesWait: a wait queued before any record holds its
// stream (no 107000, unlike an event) until a record on another stream
// runs; the work queued behind the wait then runs.
func TestNotifyRecordReleasesWait(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	n, w := h.notify(), h.Stream()
	dev := h.Malloc(64)
	want := h.Fill(data, 64, 3)
	h.OK("aclrtHostRegister", data, 64, 0, outB)
	h.OK("aclrtWaitAndResetNotify", n, w, 0)
	h.OK("aclrtMemcpyAsync", dev, 64, data, 64, 1, w)
	require.False(t, h.streamReady(w), "the wait must hold its stream until a record")
	h.OK("aclrtRecordNotify", n, 0)
	h.OK("aclrtSynchronizeStream", w)
	h.OK("aclrtMemcpy", data2, 64, dev, 64, 2)
	require.Equal(t, want, h.Mem()[data2:data2+64])
}

// TestNotifyWaitResets: a wait consumes the record it waited for, so a
// second wait times out; several records before one wait count once.
func TestNotifyWaitResets(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	n, w := h.notify(), h.Stream()
	h.OK("aclrtRecordNotify", n, 0)
	h.OK("aclrtRecordNotify", n, 0)
	h.OK("aclrtSynchronizeStream", 0)
	h.OK("aclrtWaitAndResetNotify", n, w, 0)
	h.OK("aclrtSynchronizeStream", w)
	h.OK("aclrtWaitAndResetNotify", n, w, 20)
	msg := h.Code(acl.ErrRTWaitTimeout, "aclrtSynchronizeStream", w)
	require.NotEmpty(t, msg)
	// The stream goes on with its later work, and the notify still works.
	h.OK("aclrtSynchronizeStream", w)
	h.OK("aclrtRecordNotify", n, 0)
	h.OK("aclrtWaitAndResetNotify", n, w, 0)
	h.OK("aclrtSynchronizeStream", w)
}

// TestNotifyWaitForeverFollowsOpWaitTimeout: UINT32_MAX is the native
// plain wait, which the session's aclrtSetOpWaitTimeout bounds.
func TestNotifyWaitForeverFollowsOpWaitTimeout(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	n, w := h.notify(), h.Stream()
	h.OK("aclrtSetOpWaitTimeout", 1)
	h.OK("aclrtWaitAndResetNotify", n, w, uint64(acl.NotifyWaitForever))
	h.Code(acl.ErrRTWaitTimeout, "aclrtSynchronizeStream", w)
}

// TestNotifyHandles: notifies are a typed handle of their own, never
// reused; a handle of another type is refused both ways with 107017.
func TestNotifyHandles(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	n, s, ev := h.notify(), h.Stream(), h.Event()
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
		require.Contains(t, h.Code(acl.ErrRTInvalidHandle, c.name, c.args...), c.msg, c.name)
	}
	h.Code(acl.ErrInvalidParam, "aclrtDestroyNotify", 0)
	h.OK("aclrtDestroyNotify", n)
	h.Code(acl.ErrRTInvalidHandle, "aclrtDestroyNotify", n)
	h.Code(acl.ErrRTInvalidHandle, "aclrtRecordNotify", n, 0)
	require.NotEqual(t, n, h.notify(), "a handle is never given out twice")
}

// TestNotifyID: a notify's id is its handle's number, unique in the
// session and never reused.
func TestNotifyID(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	a, b := h.notify(), h.notify()
	h.OK("aclrtGetNotifyId", b, outB)
	require.Equal(t, uint32(b), h.U32(outB))
	h.OK("aclrtGetNotifyId", a, outB)
	require.Equal(t, uint32(a), h.U32(outB))
	h.Code(acl.ErrInvalidParam, "aclrtGetNotifyId", a, 0)
	h.Code(acl.ErrInvalidParam, "aclrtGetNotifyId", 0, outB)
}

// TestNotifyCreateChecks: the flag, the current device and the count
// limit (MaxEvents, counted apart from events).
func TestNotifyCreateChecks(t *testing.T) {
	h := newHarness(t, host.Policy{MaxEvents: 2})
	h.Code(acl.ErrInvalidParam, "aclrtCreateNotify", 0, 0)
	require.Contains(t, h.Code(acl.ErrRTParamInvalid, "aclrtCreateNotify", outA, 2), "flag")
	h.Code(acl.ErrRTContextNull, "aclrtCreateNotify", outA, 0)
	h.OK("aclrtSetDevice", 0)
	h.OK("aclrtCreateNotify", outA, uint64(acl.NotifyDeviceUseOnly))
	h.notify()
	h.Code(acl.ErrRTOverLimit, "aclrtCreateNotify", outA, 0)
	h.Event() // events count apart
	h.Event()
}

// TestNotifyReleasedWithDevice: aclrtResetDevice releases the notifies of
// the device (aclrtResetDeviceForce here: the plain reset synchronizes
// first, and a wait nobody records never ends, as natively); the
// session's end releases the rest, waits included.
func TestNotifyReleasedWithDevice(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	n, w := h.notify(), h.Stream()
	h.OK("aclrtWaitAndResetNotify", n, w, 0) // never recorded
	h.OK("aclrtResetDeviceForce", 0)
	h.OK("aclrtSetDevice", 0)
	h.Code(acl.ErrRTInvalidHandle, "aclrtRecordNotify", n, 0)
	// A wait nobody records, left to the session's end (the harness's
	// cleanup closes the instance and requires no error).
	n2, w2 := h.notify(), h.Stream()
	h.OK("aclrtWaitAndResetNotify", n2, w2, 0)
}

// TestNotifyAcl32: the acl32 profile has the same functions.
func TestNotifyAcl32(t *testing.T) {
	h := newHarnessIn(t, abi.Native32, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	n, w := h.notify(), h.Stream()
	h.OK("aclrtRecordNotify", n, w)
	h.OK("aclrtWaitAndResetNotify", n, w, 0)
	h.OK("aclrtSynchronizeStream", w)
	h.OK("aclrtGetNotifyId", n, outB)
	require.Equal(t, uint32(n), h.U32(outB))
}
