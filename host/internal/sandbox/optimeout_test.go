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
	h.code(acl.ErrRTContextNull, "aclrtGetOpTimeOutInterval", outA)
	h.ok("aclrtSetDevice", 0)
	h.ok("aclrtGetOpTimeOutInterval", outA)
	require.Equal(t, uint64(iv), h.u64(outA))
	h.ok("aclrtGetOpExecuteTimeout", outA)
	require.Equal(t, uint32(254*iv/1000), h.u32(outA), "never set: the most, the hardware's default")
	for _, tc := range []struct{ us, want uint64 }{
		{1, iv}, {iv, iv}, {iv + 1, 2 * iv}, {0, 254 * iv}, {sizeMax, 254 * iv},
	} {
		h.putU64s(outB, 0)
		h.ok("aclrtSetOpExecuteTimeOutV2", tc.us, outB)
		require.Equal(t, tc.want, h.u64(outB), "V2(%d)", tc.us)
		h.ok("aclrtGetOpExecuteTimeout", outA)
		require.Equal(t, uint32(tc.want/1000), h.u32(outA))
	}
	h.ok("aclrtSetOpExecuteTimeOut", 9) // 9 s: 3 intervals
	h.ok("aclrtGetOpExecuteTimeout", outA)
	require.Equal(t, uint32(3*iv/1000), h.u32(outA))
	require.Equal(t, "aclrtSetOpExecuteTimeOutV2: actualTimeout [0x3fffc, +8) is outside guest memory (262144 bytes)",
		h.code(acl.ErrInvalidParam, "aclrtSetOpExecuteTimeOutV2", 1, 0x3fffc))

	// Each session has its own.
	h2 := newHarness(t, host.Policy{})
	h2.ok("aclrtGetOpExecuteTimeout", outA)
	require.Equal(t, uint32(254*iv/1000), h2.u32(outA))
}

// TestOpWaitTimeout: the limit applies to waits queued after it, 0 lifts
// it, and a timed-out wait leaves the stream usable.
func TestOpWaitTimeout(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.ok("aclrtSetDevice", 0)
	s, other, ev := h.stream(), h.stream(), h.waitable()
	p := h.malloc(64)
	h.ok("aclrtSetOpWaitTimeout", 1)
	h.ok("aclrtStreamWaitEvent", s, ev)
	h.ok("aclrtMemset", p, 64, 0, 64)
	h.ok("aclrtMemsetAsync", p, 64, 9, 64, s)
	msg := h.code(acl.ErrRTWaitTimeout, "aclrtSynchronizeStream", s)
	require.Contains(t, msg, "aclrtSynchronizeStream: ")
	h.ok("aclrtMemcpy", data, 64, p, 64, 2)
	require.Equal(t, words(0x09090909, 16), h.mem()[data:data+64], "the work after the failed wait ran")
	h.ok("aclrtSynchronizeStream", s)

	// 0: no limit; the wait ends with the record.
	h.ok("aclrtSetOpWaitTimeout", 0)
	h.ok("aclrtStreamWaitEvent", s, ev)
	h.ok("aclrtRecordEvent", ev, other)
	h.ok("aclrtSynchronizeStream", s)
}
