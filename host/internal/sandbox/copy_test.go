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
	h.ok("aclrtSetDevice", 0)
	a, b := h.malloc(4096), h.malloc(4096)
	want := h.fill(data, 4096, 1)
	h.ok("aclrtMemcpy", a, 4096, data, 4096, uint64(acl.MemcpyHostToDevice))
	h.ok("aclrtMemcpy", b, 4096, a, 4096, uint64(acl.MemcpyDeviceToDevice))
	h.ok("aclrtMemcpy", data2, 4096, b, 4096, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, want, h.mem()[data2:data2+4096])
	st := h.inst.Session().Stats()
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
			h.ok("aclrtSetDevice", 0)
			e := env{dev: h.malloc(4096), small: h.malloc(64)}
			msg := h.code(tc.want, "aclrtMemcpy", tc.args(e)...)
			require.Contains(t, msg, tc.msg)
		})
	}
}

func TestAsyncRules(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.ok("aclrtSetDevice", 0)
	s, ev := h.stream(), h.event()
	a := h.malloc(64)
	h.code(acl.ErrRTFeatureNotSupport, "aclrtMemcpyAsync", data2, 8, data, 8, 0, s)
	h.code(acl.ErrRTInvalidHandle, "aclrtMemcpyAsync", a, 8, data, 8, 1, ev)
	h.code(acl.ErrRTInvalidHandle, "aclrtMemcpyAsync", a, 8, data, 8, 1, 999)
	h.code(acl.ErrRTInvalidHandle, "aclrtRecordEvent", s, s)
	h.code(acl.ErrInvalidParam, "aclrtDestroyStream", 0)
	// Unregistered guest memory: the async copy completes before returning.
	want := h.fill(data, 8, 9)
	h.ok("aclrtMemcpyAsync", a, 8, data, 8, 1, 0)
	h.ok("aclrtMemcpyAsync", data2, 8, a, 8, 2, 0)
	require.Equal(t, want, h.mem()[data2:data2+8])
	h.ok("aclrtSynchronizeDevice")
	h.code(acl.ErrRTParamInvalid, "aclrtSynchronizeStreamWithTimeout", s, uint64(uint32(math.MaxUint32-1)))
	h.code(acl.ErrRTParamInvalid, "aclrtSynchronizeStreamWithTimeout", s, 0) // natively 0 is refused
	h.code(acl.ErrRTParamInvalid, "aclrtSynchronizeDeviceWithTimeout", 0)
	h.ok("aclrtSynchronizeStreamWithTimeout", s, 1)
	h.ok("aclrtSynchronizeDeviceWithTimeout", uint64(math.MaxUint32))
}

func TestMemcpy2D(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.ok("aclrtSetDevice", 0)
	// A 16x8 image with 4x4 tiles: copy the tile at (x=4, y=2) to the device.
	img := h.fill(data, 16*8, 1)
	a := h.malloc(16)
	h.ok("aclrtMemcpy2d", a, 4, data+2*16+4, 16, 4, 4, uint64(acl.MemcpyHostToDevice))
	h.ok("aclrtMemcpy", data2, 16, a, 16, 2)
	for r := 0; r < 4; r++ {
		require.Equal(t, img[(2+r)*16+4:(2+r)*16+8], h.mem()[data2+4*r:data2+4*r+4])
	}
	b := h.malloc(16)
	h.code(acl.ErrRTFeatureNotSupport, "aclrtMemcpy2d", b, 4, a, 4, 4, 4, uint64(acl.MemcpyDeviceToDevice))
	s := h.stream()
	h.ok("aclrtMemcpy2dAsync", b, 4, a, 4, 4, 4, uint64(acl.MemcpyDeviceToDevice), s)
	h.ok("aclrtSynchronizeStream", s)
	h.code(acl.ErrInvalidParam, "aclrtMemcpy2d", a, 3, data, 16, 4, 4, 1)
	h.code(acl.ErrInvalidParam, "aclrtMemcpy2d", a, 4, data, 16, 4, 4, 0)
	h.code(acl.ErrRTParamInvalid, "aclrtMemcpy2d", a, 4, data, 16, 4, acl.Memcpy2DMaxHeight+1, 1)
	h.code(acl.ErrRTParamInvalid, "aclrtMemcpy2d", a, 4, data, 16, 4, 5, 1) // 4*4+4 > 16
	h.code(acl.ErrRTParamInvalid, "aclrtMemcpy2d", a, sizeMax/2, data, 16, 4, 4, 1)
	h.ok("aclrtMemcpy2d", 0, 0, 0, 0, 0, 4, 99)
}
