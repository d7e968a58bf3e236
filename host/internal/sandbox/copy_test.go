package sandbox_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
)

func TestMemcpyRoundTrip(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	a, b := h.Malloc(4096), h.Malloc(4096)
	want := h.Fill(data, 4096, 1)
	h.OK("aclrtMemcpy", a, 4096, data, 4096, uint64(acl.MemcpyHostToDevice))
	h.OK("aclrtMemcpy", b, 4096, a, 4096, uint64(acl.MemcpyDeviceToDevice))
	h.OK("aclrtMemcpy", data2, 4096, b, 4096, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, want, h.Mem()[data2:data2+4096])
	st := h.Inst.Session().Stats()
	require.Equal(t, map[string]uint64{"H2D": 4096, "D2D": 4096, "D2H": 4096}, st.Bytes)
	require.Equal(t, uint64(3), st.Funcs["aclrtMemcpy"].Calls)
}

// TestMemcpyChecks asserts the native check order and the sandbox's range
// rules, one row per rule, each on a fresh session.
func TestMemcpyChecks(t *testing.T) {
	type env struct{ dev, small uint64 }
	for _, tc := range []struct {
		name string
		args func(e env) []uint64 // dst, destMax, src, count, kind
		want acl.Error
		msg  string
	}{
		{"count 0 before NULL", func(e env) []uint64 { return []uint64{0, 0, 0, 0, 99} }, acl.Success, ""},
		{"NULL dst", func(e env) []uint64 { return []uint64{0, 8, data, 8, 1} }, acl.ErrInvalidParam, "dst is NULL"},
		{"NULL src", func(e env) []uint64 { return []uint64{e.dev, 8, 0, 8, 1} }, acl.ErrInvalidParam, "src is NULL"},
		{"kind 6", func(e env) []uint64 { return []uint64{e.dev, 8, data, 8, 6} }, acl.ErrInvalidParam, "kind 6"},
		{"kind -1", func(e env) []uint64 { return []uint64{e.dev, 8, data, 8, math.MaxUint32} }, acl.ErrInvalidParam, "kind -1"},
		{"destMax 0", func(e env) []uint64 { return []uint64{e.dev, 0, data, 8, 1} }, acl.ErrRTParamInvalid, "destMax is 0"},
		{"count above destMax", func(e env) []uint64 { return []uint64{e.dev, 8, data, 9, 1} }, acl.ErrRTParamInvalid, "count 9 exceeds destMax 8"},
		{"crosses allocation end", func(e env) []uint64 { return []uint64{e.small + 60, 8, data, 8, 1} }, acl.ErrRTParamInvalid, "crosses the end of the allocation"},
		{"guard gap after allocation", func(e env) []uint64 { return []uint64{e.small + 64, 8, data, 8, 1} }, acl.ErrRTParamInvalid, "not in guest memory or a live device allocation"},
		{"forged address", func(e env) []uint64 { return []uint64{0xdead_0000_0000, 8, data, 8, 1} }, acl.ErrRTParamInvalid, "not in guest memory or a live device allocation"},
		{"src outside guest memory", func(e env) []uint64 { return []uint64{e.dev, 8, 4*65536 - 4, 8, 1} }, acl.ErrRTParamInvalid, "outside guest memory"},
		{"overflowing range", func(e env) []uint64 { return []uint64{e.dev, sizeMax, data, sizeMax - 4, 1} }, acl.ErrRTParamInvalid, "overflows"},
		{"dst == src is a no-op", func(e env) []uint64 { return []uint64{e.dev, 8, e.dev, 8, 3} }, acl.Success, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, host.Policy{})
			h.OK("aclrtSetDevice", 0)
			e := env{dev: h.Malloc(4096), small: h.Malloc(64)}
			msg := h.Code(tc.want, "aclrtMemcpy", tc.args(e)...)
			require.Contains(t, msg, tc.msg)
		})
	}
}

func TestAsyncRules(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	s, ev := h.Stream(), h.Event()
	a := h.Malloc(64)
	h.Code(acl.ErrRTFeatureNotSupport, "aclrtMemcpyAsync", data2, 8, data, 8, 0, s)
	h.Code(acl.ErrRTInvalidHandle, "aclrtMemcpyAsync", a, 8, data, 8, 1, ev)
	h.Code(acl.ErrRTInvalidHandle, "aclrtMemcpyAsync", a, 8, data, 8, 1, 999)
	h.Code(acl.ErrRTInvalidHandle, "aclrtRecordEvent", s, s)
	h.Code(acl.ErrInvalidParam, "aclrtDestroyStream", 0)
	// Unregistered guest memory: the async copy completes before returning.
	want := h.Fill(data, 8, 9)
	h.OK("aclrtMemcpyAsync", a, 8, data, 8, 1, 0)
	h.OK("aclrtMemcpyAsync", data2, 8, a, 8, 2, 0)
	require.Equal(t, want, h.Mem()[data2:data2+8])
	h.OK("aclrtSynchronizeDevice")
	h.Code(acl.ErrRTParamInvalid, "aclrtSynchronizeStreamWithTimeout", s, uint64(uint32(math.MaxUint32-1)))
	h.Code(acl.ErrRTParamInvalid, "aclrtSynchronizeStreamWithTimeout", s, 0) // natively 0 is refused
	h.Code(acl.ErrRTParamInvalid, "aclrtSynchronizeDeviceWithTimeout", 0)
	h.OK("aclrtSynchronizeStreamWithTimeout", s, 1)
	h.OK("aclrtSynchronizeDeviceWithTimeout", uint64(math.MaxUint32))
}

func TestMemcpy2D(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	// A 16x8 image with 4x4 tiles: copy the tile at (x=4, y=2) to the device.
	img := h.Fill(data, 16*8, 1)
	a := h.Malloc(16)
	h.OK("aclrtMemcpy2d", a, 4, data+2*16+4, 16, 4, 4, uint64(acl.MemcpyHostToDevice))
	h.OK("aclrtMemcpy", data2, 16, a, 16, 2)
	for r := 0; r < 4; r++ {
		require.Equal(t, img[(2+r)*16+4:(2+r)*16+8], h.Mem()[data2+4*r:data2+4*r+4])
	}
	b := h.Malloc(16)
	h.Code(acl.ErrRTFeatureNotSupport, "aclrtMemcpy2d", b, 4, a, 4, 4, 4, uint64(acl.MemcpyDeviceToDevice))
	s := h.Stream()
	h.OK("aclrtMemcpy2dAsync", b, 4, a, 4, 4, 4, uint64(acl.MemcpyDeviceToDevice), s)
	h.OK("aclrtSynchronizeStream", s)
	h.Code(acl.ErrInvalidParam, "aclrtMemcpy2d", a, 3, data, 16, 4, 4, 1)
	h.Code(acl.ErrInvalidParam, "aclrtMemcpy2d", a, 4, data, 16, 4, 4, 0)
	h.Code(acl.ErrRTParamInvalid, "aclrtMemcpy2d", a, 4, data, 16, 4, acl.Memcpy2DMaxHeight+1, 1)
	h.Code(acl.ErrRTParamInvalid, "aclrtMemcpy2d", a, 4, data, 16, 4, 5, 1) // 4*4+4 > 16
	h.Code(acl.ErrRTParamInvalid, "aclrtMemcpy2d", a, sizeMax/2, data, 16, 4, 4, 1)
	h.OK("aclrtMemcpy2d", 0, 0, 0, 0, 0, 4, 99)
}
