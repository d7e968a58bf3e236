package sandbox_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
)

// Saturation mode and overflow status of ABI v1.3 section 15.

func init() {
	sat, infNan := uint64(acl.OverflowSaturation), uint64(acl.OverflowInfNan)
	orderCases["aclrtSetDeviceSatMode"] = map[string]orderCase{
		"feature": {run: func(h *harness) acl.Error {
			b := sim.New(sim.WithChip(sim.Ascend950))
			h.T.Cleanup(func() { b.Close() })
			h2 := newHarness(h.T, host.Policy{}, host.WithBackend(b))
			h.peer = h2
			require.Equal(h.T, acl.Success, h2.rc("aclrtSetDeviceSatMode", infNan), "the 950 has INF/NAN mode")
			return h2.rc("aclrtSetDeviceSatMode", sat)
		}},
		"mode": {run: func(h *harness) acl.Error {
			require.Equal(h.T, acl.Success, h.rc("aclrtSetDeviceSatMode", sat), "no current device is needed")
			return h.rc("aclrtSetDeviceSatMode", uint64(acl.OverflowUndef))
		}},
	}
	orderCases["aclrtGetDeviceSatMode"] = map[string]orderCase{
		"null": {run: func(h *harness) acl.Error { return h.rc("aclrtGetDeviceSatMode", 0) }},
	}
	orderCases["aclrtSetStreamOverflowSwitch"] = map[string]orderCase{
		"flag":    {run: func(h *harness) acl.Error { return h.rc("aclrtSetStreamOverflowSwitch", 999, 2) }},
		"stream":  {run: func(h *harness) acl.Error { return h.rc("aclrtSetStreamOverflowSwitch", 999, 1) }},
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtSetStreamOverflowSwitch", 0, 1) }},
		"streamctx": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtSetStreamOverflowSwitch", e.s1, 1)
		}},
	}
	orderCases["aclrtGetStreamOverflowSwitch"] = map[string]orderCase{
		"null":    {run: func(h *harness) acl.Error { return h.rc("aclrtGetStreamOverflowSwitch", 999, 0) }},
		"stream":  {run: func(h *harness) acl.Error { return h.rc("aclrtGetStreamOverflowSwitch", 999, outA) }},
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtGetStreamOverflowSwitch", 0, outA) }},
		"streamctx": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtGetStreamOverflowSwitch", e.s1, outA)
		}},
	}
	orderCases["aclrtGetOverflowStatus"] = map[string]orderCase{
		"null":    {run: func(h *harness) acl.Error { return h.rc("aclrtGetOverflowStatus", 0, 8, 999) }},
		"stream":  {run: func(h *harness) acl.Error { return h.rc("aclrtGetOverflowStatus", e2dDst, 8, 999) }},
		"size":    {run: func(h *harness) acl.Error { return h.rc("aclrtGetOverflowStatus", e2dDst, 8, 0) }},
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtGetOverflowStatus", e2dDst, 64, 0) }},
		"streamctx": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtGetOverflowStatus", e2dDst, 64, e.s1)
		}},
		"range": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			require.Equal(h.T, acl.ErrRTParamInvalid, h.rc("aclrtGetOverflowStatus", data, 64, 0), "guest memory")
			require.Equal(h.T, acl.ErrRTParamInvalid, h.rc("aclrtGetOverflowStatus", e.dev+4090, 64, 0), "past the allocation")
			return h.rc("aclrtGetOverflowStatus", e2dDst, 64, e.s)
		}},
		"queue": {policy: host.Policy{MaxQueued: 2}, run: func(h *harness) acl.Error {
			e := setupOrder(h)
			release := h.gate(e.s)
			defer release()
			require.Equal(h.T, acl.Success, h.rc("aclrtGetOverflowStatus", e.dev, 64, e.s))
			return h.rc("aclrtGetOverflowStatus", e.dev, 64, e.s)
		}},
	}
	orderCases["aclrtResetOverflowStatus"] = map[string]orderCase{
		"stream":   {run: func(h *harness) acl.Error { return h.rc("aclrtResetOverflowStatus", 999) }},
		"nostream": {run: func(h *harness) acl.Error { return h.rc("aclrtResetOverflowStatus", 0) }},
		"context": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.noDevice()
			return h.rc("aclrtResetOverflowStatus", e.s)
		}},
		"streamctx": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtResetOverflowStatus", e.s1)
		}},
		"queue": {policy: host.Policy{MaxQueued: 2}, run: func(h *harness) acl.Error {
			e := setupOrder(h)
			release := h.gate(e.s)
			defer release()
			require.Equal(h.T, acl.Success, h.rc("aclrtResetOverflowStatus", e.s))
			return h.rc("aclrtResetOverflowStatus", e.s)
		}},
	}
}

// overflowStatus queues aclrtGetOverflowStatus into st (64 bytes of
// device memory, first filled with 0xEE) on stream s, synchronizes s and
// returns the status word, requiring the other 60 bytes zero.
func (h *harness) overflowStatus(st, s uint64) uint32 {
	h.T.Helper()
	h.OK("aclrtMemset", st, 64, 0xEE, 64)
	h.OK("aclrtGetOverflowStatus", st, 64, s)
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtMemcpy", data2, 64, st, 64, uint64(acl.MemcpyDeviceToHost))
	require.Equal(h.T, make([]byte, 60), h.Mem()[data2+4:data2+64], "the status's other bytes")
	return h.U32(data2)
}

// addF32 runs aclnnAdd(a, b, 1) on the default stream over two
// one-element tensors and returns the result.
func (h *harness) addF32(a, b float32) float32 {
	h.T.Helper()
	_, ta := h.f32Tensor(a)
	_, tb := h.f32Tensor(b)
	out, to := h.f32Tensor(0)
	h.OK("aclnnAddGetWorkspaceSize", ta, tb, h.scalar(1), to, nnWS, nnEx)
	h.OK("aclnnAdd", 0, 0, uint64(h.U32(nnEx)), 0)
	h.OK("aclrtSynchronizeStream", 0)
	return h.deviceF32s(out, 1)[0]
}

// TestOverflowStatus: an operator whose float result is out of range
// sets the session's status, which aclrtGetOverflowStatus writes in
// stream order and aclrtResetOverflowStatus clears; in saturation mode
// the result is the largest finite float instead of Inf. A backend that
// runs no compute (the native backend for now) never overflows.
func TestOverflowStatus(t *testing.T) {
	nnProfiles(t, func(t *testing.T, h *harness) {
		st := h.Malloc(64)
		require.Zero(t, h.overflowStatus(st, 0), "no compute, no overflow")
		h.OK("aclrtGetDeviceSatMode", outA)
		require.Equal(t, uint32(acl.OverflowInfNan), h.U32(outA), "the simulated chips start in INF/NAN mode")
		if h.RT.Backend().Traits().Computer == nil {
			h.OK("aclrtResetOverflowStatus", 0)
			require.Zero(t, h.overflowStatus(st, 0))
			return
		}
		require.Equal(t, float32(3), h.addF32(1, 2))
		require.Zero(t, h.overflowStatus(st, 0), "a finite result")

		require.True(t, math.IsInf(float64(h.addF32(math.MaxFloat32, math.MaxFloat32)), 1), "INF/NAN mode keeps the Inf")
		require.Equal(t, uint32(1), h.overflowStatus(st, 0))
		require.Equal(t, uint32(1), h.overflowStatus(st, h.Stream()), "the status is the session's, not the stream's")
		require.Equal(t, float32(3), h.addF32(1, 2))
		require.Equal(t, uint32(1), h.overflowStatus(st, 0), "sticky until reset")

		// The reset is queued in stream order: behind a held stream, the
		// status stays set until the stream runs it.
		s := h.Stream()
		release := h.gate(s)
		h.OK("aclrtResetOverflowStatus", s)
		require.Equal(t, uint32(1), h.overflowStatus(st, 0), "the reset has not run")
		release()
		h.OK("aclrtSynchronizeStream", s)
		require.Zero(t, h.overflowStatus(st, 0), "reset")

		h.OK("aclrtSetDeviceSatMode", uint64(acl.OverflowSaturation))
		h.OK("aclrtGetDeviceSatMode", outA)
		require.Equal(t, uint32(acl.OverflowSaturation), h.U32(outA))
		require.Equal(t, float32(math.MaxFloat32), h.addF32(math.MaxFloat32, math.MaxFloat32), "saturated")
		require.Equal(t, float32(-math.MaxFloat32), h.addF32(-math.MaxFloat32, -math.MaxFloat32))
		require.Equal(t, uint32(1), h.overflowStatus(st, 0), "a saturated result is an overflow too")
		h.OK("aclrtResetOverflowStatus", 0)
		h.OK("aclrtSynchronizeStream", 0)
		require.Zero(t, h.overflowStatus(st, 0))
	})
}

// TestSatModePerChip: the 950 refuses saturation mode, and a session's
// mode is its own.
func TestSatModePerChip(t *testing.T) {
	b := sim.New(sim.WithChip(sim.Ascend950))
	t.Cleanup(func() { b.Close() })
	h := newHarness(t, host.Policy{}, host.WithBackend(b))
	h.OK("aclrtGetDeviceSatMode", outA)
	require.Equal(t, uint32(acl.OverflowInfNan), h.U32(outA))
	require.Contains(t, h.Code(acl.ErrRTFeatureNotSupport, "aclrtSetDeviceSatMode", uint64(acl.OverflowSaturation)), "does not support")

	a, c := newHarness(t, host.Policy{}), newHarness(t, host.Policy{})
	a.OK("aclrtSetDeviceSatMode", uint64(acl.OverflowSaturation))
	c.OK("aclrtGetDeviceSatMode", outA)
	require.Equal(t, uint32(acl.OverflowInfNan), c.U32(outA), "another session's mode")
}

// TestStreamOverflowSwitch: off until set, per stream, NULL naming the
// current context's default stream.
func TestStreamOverflowSwitch(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	s := h.Stream()
	h.OK("aclrtGetStreamOverflowSwitch", s, outA)
	require.Zero(t, h.U32(outA))
	h.OK("aclrtSetStreamOverflowSwitch", s, 1)
	h.OK("aclrtGetStreamOverflowSwitch", s, outA)
	require.Equal(t, uint32(1), h.U32(outA))
	h.OK("aclrtGetStreamOverflowSwitch", 0, outA)
	require.Zero(t, h.U32(outA), "the default stream's")
	h.OK("aclrtSetStreamOverflowSwitch", 0, 1)
	h.OK("aclrtGetStreamOverflowSwitch", 0, outA)
	require.Equal(t, uint32(1), h.U32(outA))
	h.OK("aclrtSetStreamOverflowSwitch", s, 0)
	h.OK("aclrtGetStreamOverflowSwitch", s, outA)
	require.Zero(t, h.U32(outA))
}
