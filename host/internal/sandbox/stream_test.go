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
	h.OK("aclrtSetDevice", 0)
	src := h.Malloc(64)
	h.Fill(data2, 64, 5)
	h.OK("aclrtMemcpy", src, 64, data2, 64, 1)
	h.OK("aclrtHostRegister", data, 4096, 0, outB)
	s := h.Stream()
	h.gate(s)
	h.OK("aclrtMemcpyAsync", data, 64, src, 64, 2, s)
	h.OK("aclrtMemsetAsync", src, 64, 0x77, 64, s)
	h.OK("aclrtDestroyStreamForce", s)
	require.Equal(t, make([]byte, 64), h.Mem()[data:data+64], "the queued copy never ran")
	st := h.Inst.Session().Stats()
	require.Zero(t, st.Funcs["aclrtMemcpyAsync"].Bytes["D2H"], "its bytes are not counted")
	h.OK("aclrtMemcpy", data, 64, src, 64, 2)
	require.Equal(t, h.Mem()[data2:data2+64], h.Mem()[data:data+64], "nor did the memset")
	h.Code(acl.ErrRTInvalidHandle, "aclrtSynchronizeStream", s)
}

// TestCreateStreamWithConfig: flags without a meaning in the sandbox are
// accepted, and the trace names them.
func TestCreateStreamWithConfig(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	h.OK("aclrtCreateStreamWithConfig", outA, 3, 0x9)
	s := uint64(h.U32(outA))
	h.OK("aclrtMemsetAsync", data, 8, 1, 8, s)
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtDestroyStream", s)
	line := h.Log[len(h.Log)-4].String()
	require.Contains(t, line, "flag=9 (ACL_STREAM_FAST_LAUNCH|ACL_STREAM_HUGE)")
	require.Contains(t, h.Code(acl.ErrRTParamInvalid, "aclrtCreateStreamWithConfig", outA, 0, 0x22),
		"ACL_STREAM_DEVICE_USE_ONLY cannot be combined with other flags")
}

// TestStopOnFailure: with ACL_STOP_ON_FAILURE, after a failed operation the
// stream's later operations fail without effect (their bytes uncounted)
// until a synchronize takes the error; then the stream runs again.
func TestStopOnFailure(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	s, dst := h.Stream(), h.Malloc(64)
	h.OK("aclrtSetStreamFailureMode", s, 1)
	h.OK("aclrtSetStreamFailureMode", 0, 3) // the default stream: bit 0 counts
	release := h.gate(s)
	h.failOn(s)
	h.OK("aclrtMemsetAsync", dst, 64, 7, 64, s)
	src := h.Malloc(64)
	h.OK("aclrtMemcpyAsync", dst, 64, src, 64, 3, s)
	release()
	h.Code(acl.ErrRTParamInvalid, "aclrtSynchronizeStream", s)
	h.OK("aclrtMemcpy", data, 64, dst, 64, 2)
	require.Equal(t, make([]byte, 64), h.Mem()[data:data+64], "the memset after the failure had no effect")
	require.Zero(t, h.Inst.Session().Stats().Funcs["aclrtMemcpyAsync"].Bytes["D2D"], "nor the copy")
	h.OK("aclrtMemsetAsync", dst, 64, 7, 64, s)
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtMemcpy", data, 64, dst, 64, 2)
	require.Equal(t, bytes.Repeat([]byte{7}, 64), h.Mem()[data:data+64], "the synchronize took the error: the stream runs again")
	require.Contains(t, h.Code(acl.ErrRTFeatureNotSupport, "aclrtSetStreamFailureMode", s, 0), "cannot be changed back")
}

// TestStreamWaitNeverEndingTimesOut: a synchronize with a timeout ends
// while its stream waits for a record that never comes.
func TestStreamWaitNeverEndingTimesOut(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	s, ev := h.Stream(), h.Event()
	h.OK("aclrtRecordEvent", ev, s)
	h.OK("aclrtSynchronizeStream", s)
	other := h.Stream()
	blocker := h.Waitable()
	h.OK("aclrtStreamWaitEvent", other, blocker) // waits for the next record, which never comes
	h.OK("aclrtRecordEvent", blocker, other)     // queued behind the wait on the same stream
	h.Code(acl.ErrRTStreamSyncTimeout, "aclrtSynchronizeStreamWithTimeout", other, 20)
}
