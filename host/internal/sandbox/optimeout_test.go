package sandbox_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
)

// TestOpTimeouts: the execute timeout is kept per session in whole
// intervals and reported; the interval is the backend's.
func TestOpTimeouts(t *testing.T) {
	const iv = 4294967 // acl/sim's and the stand-in's interval, µs
	h := newHarness(t, host.Policy{})
	h.Code(acl.ErrRTContextNull, "aclrtGetOpTimeOutInterval", outA)
	h.OK("aclrtSetDevice", 0)
	h.OK("aclrtGetOpTimeOutInterval", outA)
	require.Equal(t, uint64(iv), h.U64(outA))
	h.OK("aclrtGetOpExecuteTimeout", outA)
	require.Equal(t, uint32(254*iv/1000), h.U32(outA), "never set: the most, the hardware's default")
	for _, tc := range []struct{ us, want uint64 }{
		{1, iv}, {iv, iv}, {iv + 1, 2 * iv}, {0, 254 * iv}, {sizeMax, 254 * iv},
	} {
		h.PutU64s(outB, 0)
		h.OK("aclrtSetOpExecuteTimeOutV2", tc.us, outB)
		require.Equal(t, tc.want, h.U64(outB), "V2(%d)", tc.us)
		h.OK("aclrtGetOpExecuteTimeout", outA)
		require.Equal(t, uint32(tc.want/1000), h.U32(outA))
	}
	h.OK("aclrtSetOpExecuteTimeOut", 9) // 9 s: 3 intervals
	h.OK("aclrtGetOpExecuteTimeout", outA)
	require.Equal(t, uint32(3*iv/1000), h.U32(outA))
	require.Equal(t, "aclrtSetOpExecuteTimeOutV2: actualTimeout [0x3fffc, +8) is outside guest memory (262144 bytes)",
		h.Code(acl.ErrInvalidParam, "aclrtSetOpExecuteTimeOutV2", 1, 0x3fffc))

	// Each session has its own.
	h2 := newHarness(t, host.Policy{})
	h2.OK("aclrtGetOpExecuteTimeout", outA)
	require.Equal(t, uint32(254*iv/1000), h2.U32(outA))
}

// TestOpWaitTimeout: the limit applies to waits queued after it, 0 lifts
// it, and a timed-out wait leaves the stream usable.
func TestOpWaitTimeout(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	s, other, ev := h.Stream(), h.Stream(), h.Waitable()
	p := h.Malloc(64)
	h.OK("aclrtSetOpWaitTimeout", 1)
	h.OK("aclrtStreamWaitEvent", s, ev)
	h.OK("aclrtMemset", p, 64, 0, 64)
	h.OK("aclrtMemsetAsync", p, 64, 9, 64, s)
	msg := h.Code(acl.ErrRTWaitTimeout, "aclrtSynchronizeStream", s)
	require.Contains(t, msg, "aclrtSynchronizeStream: ")
	h.OK("aclrtMemcpy", data, 64, p, 64, 2)
	require.Equal(t, words(0x09090909, 16), h.Mem()[data:data+64], "the work after the failed wait ran")
	h.OK("aclrtSynchronizeStream", s)

	// 0: no limit; the wait ends with the record.
	h.OK("aclrtSetOpWaitTimeout", 0)
	h.OK("aclrtStreamWaitEvent", s, ev)
	h.OK("aclrtRecordEvent", ev, other)
	h.OK("aclrtSynchronizeStream", s)
}
