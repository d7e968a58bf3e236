package sandbox_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
)

// TestDestroyStreamForce: queued work that has not started never runs, its
// bytes are not counted, and the session's budget of batch entries comes
// back.
func TestDestroyStreamForce(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.ok("aclrtSetDevice", 0)
	src := h.malloc(64)
	h.fill(data2, 64, 5)
	h.ok("aclrtMemcpy", src, 64, data2, 64, 1)
	h.ok("aclrtHostRegister", data, 4096, 0, outB)
	s := h.stream()
	h.gate(s)
	h.ok("aclrtMemcpyAsync", data, 64, src, 64, 2, s)
	h.ok("aclrtMemsetAsync", src, 64, 0x77, 64, s)
	h.ok("aclrtDestroyStreamForce", s)
	require.Equal(t, make([]byte, 64), h.mem()[data:data+64], "the queued copy never ran")
	st := h.inst.Session().Stats()
	require.Zero(t, st.Funcs["aclrtMemcpyAsync"].Bytes["D2H"], "its bytes are not counted")
	h.ok("aclrtMemcpy", data, 64, src, 64, 2)
	require.Equal(t, h.mem()[data2:data2+64], h.mem()[data:data+64], "nor did the memset")
	h.code(acl.ErrRTInvalidHandle, "aclrtSynchronizeStream", s)
}

// TestCreateStreamWithConfig: flags without a meaning in the sandbox are
// accepted, and the trace names them.
func TestCreateStreamWithConfig(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.ok("aclrtSetDevice", 0)
	h.ok("aclrtCreateStreamWithConfig", outA, 3, 0x9)
	s := uint64(h.u32(outA))
	h.ok("aclrtMemsetAsync", data, 8, 1, 8, s)
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtDestroyStream", s)
	line := h.log[len(h.log)-4].String()
	require.Contains(t, line, "flag=9 (ACL_STREAM_FAST_LAUNCH|ACL_STREAM_HUGE)")
	require.Contains(t, h.code(acl.ErrRTParamInvalid, "aclrtCreateStreamWithConfig", outA, 0, 0x22),
		"ACL_STREAM_DEVICE_USE_ONLY cannot be combined with other flags")
}

// TestStopOnFailure: with ACL_STOP_ON_FAILURE, after a failed operation the
// stream's later operations fail without effect (their bytes uncounted)
// until a synchronize takes the error; then the stream runs again.
func TestStopOnFailure(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.ok("aclrtSetDevice", 0)
	s, dst := h.stream(), h.malloc(64)
	h.ok("aclrtSetStreamFailureMode", s, 1)
	h.ok("aclrtSetStreamFailureMode", 0, 3) // the default stream: bit 0 counts
	release := h.gate(s)
	h.failOn(s)
	h.ok("aclrtMemsetAsync", dst, 64, 7, 64, s)
	src := h.malloc(64)
	h.ok("aclrtMemcpyAsync", dst, 64, src, 64, 3, s)
	release()
	h.code(acl.ErrRTParamInvalid, "aclrtSynchronizeStream", s)
	h.ok("aclrtMemcpy", data, 64, dst, 64, 2)
	require.Equal(t, make([]byte, 64), h.mem()[data:data+64], "the memset after the failure had no effect")
	require.Zero(t, h.inst.Session().Stats().Funcs["aclrtMemcpyAsync"].Bytes["D2D"], "nor the copy")
	h.ok("aclrtMemsetAsync", dst, 64, 7, 64, s)
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtMemcpy", data, 64, dst, 64, 2)
	require.Equal(t, bytes.Repeat([]byte{7}, 64), h.mem()[data:data+64], "the synchronize took the error: the stream runs again")
	require.Contains(t, h.code(acl.ErrRTFeatureNotSupport, "aclrtSetStreamFailureMode", s, 0), "cannot be changed back")
}

// TestStreamWaitNeverEndingTimesOut: a synchronize with a timeout ends
// while its stream waits for a record that never comes.
func TestStreamWaitNeverEndingTimesOut(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.ok("aclrtSetDevice", 0)
	s, ev := h.stream(), h.event()
	h.ok("aclrtRecordEvent", ev, s)
	h.ok("aclrtSynchronizeStream", s)
	other := h.stream()
	blocker := h.waitable()
	h.ok("aclrtStreamWaitEvent", other, blocker) // waits for the next record, which never comes
	h.ok("aclrtRecordEvent", blocker, other)     // queued behind the wait on the same stream
	h.code(acl.ErrRTStreamSyncTimeout, "aclrtSynchronizeStreamWithTimeout", other, 20)
}
