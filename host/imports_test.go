package host

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

const sizeMax = math.MaxUint64

func TestMemcpyRoundTrip(t *testing.T) {
	h := newHarness(t, Policy{})
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
			h := newHarness(t, Policy{})
			h.ok("aclrtSetDevice", 0)
			e := env{dev: h.malloc(4096), small: h.malloc(64)}
			msg := h.code(tc.want, "aclrtMemcpy", tc.args(e)...)
			require.Contains(t, msg, tc.msg)
		})
	}
}

func TestNoDeviceGives107002(t *testing.T) {
	h := newHarness(t, Policy{})
	h.code(acl.ErrRTContextNull, "aclrtMemcpy", data2, 8, data, 8, 0)
	h.code(acl.ErrRTContextNull, "aclrtMalloc", outA, 8, 0)
	h.code(acl.ErrRTContextNull, "aclrtCreateStream", outA)
	h.code(acl.ErrRTInvalidDeviceID, "aclrtSetDevice", 7)
}

func TestFreedAddressIsGone(t *testing.T) {
	h := newHarness(t, Policy{})
	h.ok("aclrtSetDevice", 0)
	a := h.malloc(256)
	h.code(acl.ErrRTParamInvalid, "aclrtFree", a+8) // interior
	h.ok("aclrtFree", a)
	h.code(acl.ErrRTParamInvalid, "aclrtFree", a)
	h.code(acl.ErrRTParamInvalid, "aclrtMemcpy", a, 8, data, 8, 1)
	b := h.malloc(256)
	require.NotEqual(t, a, b, "addresses are never reused")
	h.code(acl.ErrInvalidParam, "aclrtFree", 0)
	h.code(acl.ErrRTParamInvalid, "aclrtFree", data) // guest memory
}

func TestOutParamOutsideGuestMemory(t *testing.T) {
	h := newHarness(t, Policy{})
	h.ok("aclrtSetDevice", 0)
	end := uint64(len(h.mem()))
	h.code(acl.ErrInvalidParam, "aclrtMalloc", end-4, 64, 0)
	h.code(acl.ErrInvalidParam, "aclrtMalloc", 0, 64, 0)
	h.code(acl.ErrInvalidParam, "aclrtCreateStream", end)
	h.code(acl.ErrInvalidParam, "aclrtGetDeviceCount", end-3)
	h.code(acl.ErrInvalidParam, "aclrtGetVersion", outA, outB, end)
	// Nothing was allocated by the failed calls.
	allocs, streams := h.inst.s.s.Holdings()
	require.Zero(t, allocs)
	require.Zero(t, streams)
}

func TestAsyncCopiesAndEvents(t *testing.T) {
	h := newHarness(t, Policy{})
	h.ok("aclrtSetDevice", 0)
	s := h.stream()
	e1, e2 := h.event(), h.event()
	a := h.malloc(1 << 16)
	// Pinned guest memory: copies run truly asynchronously.
	h.ok("aclrtHostRegister", data, 1<<16, 0, outB)
	require.Equal(t, uint64(data), h.u64(outB))
	want := h.fill(data, 1<<16, 3)
	h.ok("aclrtRecordEvent", e1, s)
	h.ok("aclrtMemcpyAsync", a, 1<<16, data, 1<<16, uint64(acl.MemcpyHostToDevice), s)
	h.ok("aclrtSynchronizeStream", s)                  // guest memory is set at call time, not in stream order
	h.ok("aclrtMemsetAsync", data, 1<<16, 0, 1<<16, s) // so the H2D must have run first
	h.ok("aclrtMemcpyAsync", data, 1<<16, a, 1<<16, uint64(acl.MemcpyDeviceToHost), s)
	h.ok("aclrtRecordEvent", e2, s)
	h.ok("aclrtSynchronizeEvent", e2)
	h.ok("aclrtQueryEventStatus", e2, outC)
	require.Equal(t, uint32(acl.EventRecordedStatusComplete), h.u32(outC))
	require.Equal(t, want, h.mem()[data:data+1<<16])
	h.ok("aclrtEventElapsedTime", outC, e1, e2)
	require.GreaterOrEqual(t, math.Float32frombits(h.u32(outC)), float32(0))
	// The record of e2 completing does not mean the stream's worker is done
	// with it: query after a synchronize, which does.
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtStreamQuery", s, outC)
	require.Equal(t, uint32(acl.StreamStatusComplete), h.u32(outC))
	h.ok("aclrtHostUnregister", data)
	h.code(acl.ErrHostMemoryNotRegistered, "aclrtHostUnregister", data)
	h.ok("aclrtDestroyEvent", e1)
	h.ok("aclrtDestroyStream", s)
}

func TestAsyncRules(t *testing.T) {
	h := newHarness(t, Policy{})
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

// TestStreamWaitNeverEndingTimesOut: a synchronize with a timeout ends
// while its stream waits for a record that never comes.
func TestStreamWaitNeverEndingTimesOut(t *testing.T) {
	h := newHarness(t, Policy{})
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

func TestMemset(t *testing.T) {
	h := newHarness(t, Policy{})
	h.ok("aclrtSetDevice", 0)
	a := h.malloc(64)
	h.ok("aclrtMemset", a, 64, 0x1234, 64) // low byte only
	h.ok("aclrtMemcpy", data, 64, a, 64, 2)
	require.Equal(t, bytes.Repeat([]byte{0x34}, 64), h.mem()[data:data+64])
	h.fill(data, 64, 1)
	h.ok("aclrtMemset", data, 64, 0x77, 64) // unregistered guest memory: set at call time
	require.Equal(t, bytes.Repeat([]byte{0x77}, 64), h.mem()[data:data+64])
	h.code(acl.ErrRTParamInvalid, "aclrtMemset", a, 8, 0, 9)
	h.ok("aclrtMemset", 0, 0, 0, 0)
	h.code(acl.ErrInvalidParam, "aclrtMemset", 0, 8, 0, 8)
	h.ok("aclrtHostRegister", data, 64, 0, outB)
	h.ok("aclrtMemset", data, 64, 0xff, 64)
	require.Equal(t, bytes.Repeat([]byte{0xff}, 64), h.mem()[data:data+64])
	h.ok("aclrtHostRegister", data2, 64, uint64(acl.HostRegisterReadOnly), outB)
	h.code(acl.ErrRTParamInvalid, "aclrtMemset", data2, 64, 0, 64)
	h.code(acl.ErrRTParamInvalid, "aclrtMemcpy", data2, 64, a, 64, 2)
	h.ok("aclrtMemcpy", a, 64, data2, 64, 1) // a read-only range is a valid source
	// A write that starts in a writable range and runs into a read-only one.
	h.ok("aclrtHostRegister", data2-64, 64, 0, outB)
	b := h.malloc(128)
	h.code(acl.ErrRTParamInvalid, "aclrtMemcpy", data2-64, 128, b, 128, 2)
}

func TestHostRegisterOrder(t *testing.T) {
	h := newHarness(t, Policy{PinnedMemory: 8192, MaxRegistrations: 2})
	h.code(acl.ErrRTContextNull, "aclrtHostRegister", data, 64, 0, outB)
	h.ok("aclrtSetDevice", 0)
	h.code(acl.ErrInvalidParam, "aclrtHostRegister", 0, 64, 0, outB)
	h.code(acl.ErrInvalidParam, "aclrtHostRegister", data, 0, 0, outB)
	h.code(acl.ErrInvalidParam, "aclrtHostRegister", data, 64, 0, 0)
	h.code(acl.ErrRTFeatureNotSupport, "aclrtHostRegister", data, 64, 3, outB)
	h.code(acl.ErrRTParamInvalid, "aclrtHostRegister", 1<<32, 64, 0, outB)
	h.code(acl.ErrRTParamInvalid, "aclrtHostRegister", uint64(len(h.mem()))-8, 64, 0, outB)
	h.ok("aclrtHostRegister", data, 64, 0, outB)
	h.code(acl.ErrHostMemoryAlreadyRegistered, "aclrtHostRegister", data+32, 64, 0, outB)
	h.code(acl.ErrRTMemoryAllocation, "aclrtHostRegister", data2, 8192, 0, outB)
	h.ok("aclrtHostRegister", data2, 64, 0, outB)
	h.code(acl.ErrRTOverLimit, "aclrtHostRegister", data2+4096, 64, 0, outB)
	h.code(acl.ErrHostMemoryNotRegistered, "aclrtHostUnregister", data+8)
}

func TestPointerAttributes(t *testing.T) {
	h := newHarness(t, Policy{})
	h.ok("aclrtSetDevice", 1)
	a := h.malloc(64)
	const out = 0x200
	h.ok("aclrtPointerGetAttributes", a+8, out)
	attr := acl.DecodePtrAttributes(h.mem()[out:])
	require.Equal(t, acl.MemLocation{ID: 1, Type: acl.MemLocationDevice}, attr.Location)
	h.ok("aclrtPointerGetAttributes", data, out)
	require.Equal(t, acl.MemLocationUnregistered, acl.DecodePtrAttributes(h.mem()[out:]).Location.Type)
	h.ok("aclrtHostRegister", data, 64, 0, outB)
	h.ok("aclrtPointerGetAttributes", data, out)
	require.Equal(t, acl.MemLocationHost, acl.DecodePtrAttributes(h.mem()[out:]).Location.Type)
	h.code(acl.ErrRTParamInvalid, "aclrtPointerGetAttributes", a+64, out)
	h.code(acl.ErrInvalidParam, "aclrtPointerGetAttributes", a, 0)
}

func TestQuotasAndLimits(t *testing.T) {
	h := newHarness(t, Policy{DeviceMemory: 1024, MaxAllocations: 3, MaxStreams: 1, MaxEvents: 1})
	h.ok("aclrtSetDevice", 0)
	h.ok("aclrtGetMemInfo", uint64(acl.HBMMem), outB, outC)
	require.Equal(t, []uint64{1024, 1024}, []uint64{h.u64(outB), h.u64(outC)})
	h.malloc(100) // charged (100+63)/32*32 = 160
	h.ok("aclrtGetMemInfo", uint64(acl.HBMMem), outB, outC)
	require.Equal(t, uint64(1024-160), h.u64(outB))
	msg := h.code(acl.ErrRTMemoryAllocation, "aclrtMalloc", outA, 1000, 0)
	require.Contains(t, msg, "quota")
	h.malloc(8)
	h.malloc(8)
	h.code(acl.ErrRTOverLimit, "aclrtMalloc", outA, 8, 0)
	h.stream()
	h.code(acl.ErrRTOverLimit, "aclrtCreateStream", outA)
	h.event()
	h.code(acl.ErrRTOverLimit, "aclrtCreateEvent", outA)
	h.code(acl.ErrRTInvalidMemoryType, "aclrtGetMemInfo", 99, outB, outC)
}

func TestMemcpy2D(t *testing.T) {
	h := newHarness(t, Policy{})
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

// batchArgs lays out a batch in guest memory and returns the pointers.
type batchArgs struct{ dsts, destMaxs, srcs, sizes, attrs, idx, fail uint64 }

// Arrays are laid out as the harness's profile has them: 8-byte elements,
// 4-byte ones in acl32.
func (h *harness) batch(dsts, srcs, sizes []uint64, attrs []acl.MemcpyBatchAttr, idx []uint64) batchArgs {
	const base = 0x20000
	n, w := uint64(len(dsts)), uint64(8)
	if h.prof == abi.Native32 {
		w = 4
	}
	b := batchArgs{dsts: base, destMaxs: base + w*n, srcs: base + 2*w*n, sizes: base + 3*w*n, attrs: base + 4*w*n}
	b.idx = b.attrs + uint64(32*len(attrs))
	b.fail = b.idx + w*uint64(len(idx))
	h.putWords(uint32(b.dsts), dsts...)
	h.putWords(uint32(b.destMaxs), sizes...)
	h.putWords(uint32(b.srcs), srcs...)
	h.putWords(uint32(b.sizes), sizes...)
	for i, a := range attrs {
		a.Encode(h.mem()[b.attrs+uint64(32*i):])
	}
	h.putWords(uint32(b.idx), idx...)
	h.putU64s(uint32(b.fail), 12345)
	return b
}

func h2d(dev uint32) acl.MemcpyBatchAttr {
	return acl.MemcpyBatchAttr{DstLoc: acl.MemLocation{ID: dev, Type: acl.MemLocationDevice}, SrcLoc: acl.MemLocation{Type: acl.MemLocationHost}}
}

func TestBatch(t *testing.T) {
	h := newHarness(t, Policy{})
	h.ok("aclrtSetDevice", 0)
	rows := [3]uint64{h.malloc(64), h.malloc(64), h.malloc(64)}
	want := h.fill(data, 192, 5)
	b := h.batch(rows[:], []uint64{data + 128, data, data + 64}, []uint64{64, 64, 64}, []acl.MemcpyBatchAttr{h2d(0)}, []uint64{0})
	h.ok("aclrtMemcpyBatch", b.dsts, b.destMaxs, b.srcs, b.sizes, 3, b.attrs, b.idx, 1, b.fail)
	require.Equal(t, uint64(sizeMax), h.u64(uint32(b.fail)))
	for i, src := range []int{128, 0, 64} {
		h.ok("aclrtMemcpy", data2, 64, rows[i], 64, 2)
		require.Equal(t, want[src:src+64], h.mem()[data2:data2+64])
	}

	// One bad entry: nothing is copied and failIndex names it.
	for i := range rows {
		h.ok("aclrtMemset", rows[i], 64, 0, 64)
	}
	b = h.batch([]uint64{rows[0], rows[1] + 32, rows[2]}, []uint64{data, data, data}, []uint64{64, 64, 64}, []acl.MemcpyBatchAttr{h2d(0)}, []uint64{0})
	h.code(acl.ErrRTParamInvalid, "aclrtMemcpyBatch", b.dsts, b.destMaxs, b.srcs, b.sizes, 3, b.attrs, b.idx, 1, b.fail)
	require.Equal(t, uint64(1), h.u64(uint32(b.fail)))
	h.ok("aclrtMemcpy", data2, 64, rows[0], 64, 2)
	require.Equal(t, make([]byte, 64), h.mem()[data2:data2+64], "entry 0 must not have run")

	// Location mismatch: the attribute says device 1.
	b = h.batch(rows[:1], []uint64{data}, []uint64{64}, []acl.MemcpyBatchAttr{h2d(1)}, []uint64{0})
	h.code(acl.ErrRTParamInvalid, "aclrtMemcpyBatch", b.dsts, b.destMaxs, b.srcs, b.sizes, 1, b.attrs, b.idx, 1, b.fail)
	require.Equal(t, uint64(0), h.u64(uint32(b.fail)))

	// D2D is not a batch direction.
	d2d := acl.MemcpyBatchAttr{DstLoc: acl.MemLocation{Type: acl.MemLocationDevice}, SrcLoc: acl.MemLocation{Type: acl.MemLocationDevice}}
	b = h.batch(rows[:1], rows[1:2], []uint64{64}, []acl.MemcpyBatchAttr{d2d}, []uint64{0})
	msg := h.code(acl.ErrRTParamInvalid, "aclrtMemcpyBatch", b.dsts, b.destMaxs, b.srcs, b.sizes, 1, b.attrs, b.idx, 1, b.fail)
	require.Contains(t, msg, "only H2D and D2H")

	// ACL-layer checks leave failIndex alone; all-zero sizes succeed with SIZE_MAX.
	b = h.batch(rows[:1], []uint64{data}, []uint64{0}, []acl.MemcpyBatchAttr{h2d(0)}, []uint64{0})
	h.ok("aclrtMemcpyBatch", b.dsts, b.destMaxs, b.srcs, b.sizes, 1, b.attrs, b.idx, 1, b.fail)
	require.Equal(t, uint64(sizeMax), h.u64(uint32(b.fail)))
	b = h.batch(rows[:1], []uint64{data}, []uint64{64}, []acl.MemcpyBatchAttr{h2d(0)}, []uint64{0})
	h.code(acl.ErrInvalidParam, "aclrtMemcpyBatch", b.dsts, b.destMaxs, b.srcs, b.sizes, 1, b.attrs, b.idx, 1, 0)
	h.code(acl.ErrInvalidParam, "aclrtMemcpyBatch", b.dsts, b.destMaxs, b.srcs, 0, 1, b.attrs, b.idx, 1, b.fail)
	h.code(acl.ErrInvalidParam, "aclrtMemcpyBatch", b.dsts, b.destMaxs, b.srcs, b.sizes, 0, b.attrs, b.idx, 1, b.fail)
	h.putU64s(uint32(b.destMaxs), 63)
	h.code(acl.ErrInvalidParam, "aclrtMemcpyBatch", b.dsts, b.destMaxs, b.srcs, b.sizes, 1, b.attrs, b.idx, 1, b.fail)
	require.Equal(t, uint64(12345), h.u64(uint32(b.fail)))
	h.putU64s(uint32(b.destMaxs), 64)
	h.mem()[b.attrs+20] = 1 // rsv
	h.code(acl.ErrInvalidParam, "aclrtMemcpyBatch", b.dsts, b.destMaxs, b.srcs, b.sizes, 1, b.attrs, b.idx, 1, b.fail)
	h.mem()[b.attrs+20] = 0
	h.putU64s(uint32(b.idx), 1)
	h.code(acl.ErrRTParamInvalid, "aclrtMemcpyBatch", b.dsts, b.destMaxs, b.srcs, b.sizes, 1, b.attrs, b.idx, 1, b.fail)
	require.Equal(t, uint64(sizeMax), h.u64(uint32(b.fail)))
	h.putU64s(uint32(b.idx), 0)
	h.code(acl.ErrInvalidParam, "aclrtMemcpyBatch", b.dsts, b.destMaxs, b.srcs, b.sizes, 1<<40, b.attrs, b.idx, 1, b.fail)

	// Async and V2 forms.
	s := h.stream()
	h.ok("aclrtMemcpyBatchAsync", b.dsts, b.destMaxs, b.srcs, b.sizes, 1, b.attrs, b.idx, 1, b.fail, s)
	h.ok("aclrtMemcpyBatchV2", b.dsts, b.destMaxs, b.srcs, b.sizes, 1, b.attrs, b.idx, 1)
	h.ok("aclrtMemcpyBatchAsyncV2", b.dsts, b.destMaxs, b.srcs, b.sizes, 1, b.attrs, b.idx, 1, s)
	h.ok("aclrtSynchronizeStream", s)
}

func TestDescriptors(t *testing.T) {
	h := newHarness(t, Policy{})
	h.ok("aclrtSetDevice", 0)
	h.code(acl.ErrRTFeatureNotSupport, "aclrtGetMemcpyDescSize", 3, outA)
	h.code(acl.ErrInvalidParam, "aclrtGetMemcpyDescSize", 8, outA)
	h.ok("aclrtGetMemcpyDescSize", 6, outA)
	size := h.u64(outA)
	desc, src, dst := h.malloc(size), h.malloc(256), h.malloc(256)
	want := h.fill(data, 256, 7)
	h.ok("aclrtMemcpy", src, 256, data, 256, 1)
	h.code(acl.ErrInvalidParam, "aclrtSetMemcpyDesc", desc, 6, src, dst, 256, outA) // config must be NULL
	h.code(acl.ErrRTParamInvalid, "aclrtSetMemcpyDesc", data, 6, src, dst, 256, 0)  // desc in guest memory
	h.code(acl.ErrRTParamInvalid, "aclrtSetMemcpyDesc", desc, 6, src, dst, 257, 0)
	h.ok("aclrtSetMemcpyDesc", desc, 6, src, dst, 256, 0)
	s := h.stream()
	h.code(acl.ErrInvalidParam, "aclrtMemcpyAsyncWithDesc", desc, 6, 0) // NULL stream
	h.ok("aclrtMemcpyAsyncWithDesc", desc, 6, s)
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtMemcpy", data2, 256, dst, 256, 2)
	require.Equal(t, want, h.mem()[data2:data2+256])

	// A copy of the descriptor's bytes works; a tampered one fails when it executes.
	desc2 := h.malloc(size)
	h.ok("aclrtMemcpy", desc2, size, desc, size, 3)
	h.ok("aclrtMemcpyAsyncWithDesc", desc2, 6, s)
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtMemcpy", data, size, desc, size, 2)
	binary.LittleEndian.PutUint64(h.mem()[data+16:], src) // retarget dst at src
	h.ok("aclrtMemcpy", desc2, size, data, size, 1)
	h.ok("aclrtMemcpyAsyncWithDesc", desc2, 6, s)
	msg := h.code(acl.ErrRTParamInvalid, "aclrtSynchronizeStream", s)
	require.Contains(t, msg, "tampered")
	// A descriptor naming freed memory fails when it executes too.
	h.ok("aclrtFree", dst)
	h.ok("aclrtMemcpyAsyncWithDesc", desc, 6, s)
	h.code(acl.ErrRTParamInvalid, "aclrtSynchronizeStream", s)
	h.ok("aclrtSynchronizeStream", s) // the error was reported once
	st := h.inst.Session().Stats().Funcs["aclrtMemcpyAsyncWithDesc"]
	require.Equal(t, uint64(5), st.Calls) // one refused at the call: the NULL stream
	require.Equal(t, map[string]uint64{"D2D": 512}, st.Bytes, "bytes count when the two valid descriptors execute")
}

func TestMemcpyWithOffset(t *testing.T) {
	h := newHarness(t, Policy{})
	h.ok("aclrtSetDevice", 0)
	src, dst, slots := h.malloc(256), h.malloc(256), h.malloc(16)
	want := h.fill(data, 256, 11)
	h.ok("aclrtMemcpy", src, 256, data, 256, 1)
	h.putU64s(data2, dst, src)
	h.ok("aclrtMemcpy", slots, 16, data2, 16, 1)
	s := h.stream()
	h.ok("aclrtMemcpyAsyncWithOffset", slots, 256, 16, slots+8, 64, 32, 6, s)
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtMemcpy", data2, 256, dst, 256, 2)
	require.Equal(t, want[32:96], h.mem()[data2+16:data2+80])
	h.code(acl.ErrRTParamInvalid, "aclrtMemcpyAsyncWithOffset", slots, 256, 16, slots+8, 64, 32, 3, s)
	h.code(acl.ErrRTParamInvalid, "aclrtMemcpyAsyncWithOffset", slots, 256, 256, slots+8, 1, 0, 6, s)
	h.code(acl.ErrRTParamInvalid, "aclrtMemcpyAsyncWithOffset", data, 256, 0, slots+8, 1, 0, 6, s)
	// A forged base address in a slot fails when the copy executes.
	h.putU64s(data2, 0xdead_0000_0000)
	h.ok("aclrtMemcpy", slots, 8, data2, 8, 1)
	h.ok("aclrtMemcpyAsyncWithOffset", slots, 256, 0, slots+8, 8, 0, 6, s)
	msg := h.code(acl.ErrRTParamInvalid, "aclrtSynchronizeStream", s)
	require.Contains(t, msg, "not in guest memory or a live device allocation")
}

func TestDevicesAndPeers(t *testing.T) {
	h := newHarness(t, Policy{})
	h.ok("aclrtGetDeviceCount", outA)
	require.Equal(t, uint32(2), h.u32(outA))
	h.code(acl.ErrRTContextNull, "aclrtGetDevice", outA)
	h.ok("aclrtSetDevice", 1)
	h.ok("aclrtGetDevice", outA)
	require.Equal(t, uint32(1), h.u32(outA))
	h.ok("aclrtDeviceCanAccessPeer", outA, 0, 1)
	require.Equal(t, uint32(1), h.u32(outA))
	h.code(acl.ErrInvalidParam, "aclrtDeviceCanAccessPeer", outA, 1, 1)
	h.code(acl.ErrFeatureUnsupported, "aclrtDeviceEnablePeerAccess", 0, 1)
	h.code(acl.ErrInvalidParam, "aclrtDeviceEnablePeerAccess", 1, 0)
	b := h.malloc(64)
	h.ok("aclrtSetDevice", 0)
	a := h.malloc(64)
	h.code(acl.ErrRTParamInvalid, "aclrtMemcpy", a, 64, b, 64, 3) // Atlas A2: peer access first
	h.ok("aclrtDeviceEnablePeerAccess", 1, 0)
	h.ok("aclrtMemcpy", a, 64, b, 64, 3)
	h.ok("aclrtDeviceDisablePeerAccess", 1)
	h.code(acl.ErrRTParamInvalid, "aclrtDeviceDisablePeerAccess", 1)
	// Reset releases the device's allocations.
	h.ok("aclrtResetDevice", 0)
	h.code(acl.ErrRTParamInvalid, "aclrtFree", a)
	h.code(acl.ErrRTContextNull, "aclrtMalloc", outA, 8, 0)
}

func TestRuntimeFunctions(t *testing.T) {
	h := newHarness(t, Policy{RefuseInitConfig: true})
	copy(h.mem()[data:], "cfg.json\x00")
	h.code(acl.ErrInvalidFile, "aclInit", data) // refused: not initialized
	h.ok("aclInit", 0)
	h.code(acl.ErrRepeatInitialize, "aclInit", 0)
	h.code(acl.ErrRepeatInitialize, "aclInit", data) // the repeat is checked first
	h.ok("aclrtGetVersion", outA, outB, outC)
	require.Equal(t, []uint32{1, 17, 0}, []uint32{h.u32(outA), h.u32(outB), h.u32(outC)})
	// aclGetRecentErrMsg: length returned, bufLen-1 bytes and a NUL written.
	msg := h.inst.Session().LastError()
	n := h.call("aclGetRecentErrMsg", data2, 8)
	require.Equal(t, int32(len(msg)), n)
	require.Equal(t, msg[:7]+"\x00", string(h.mem()[data2:data2+8]))
	require.Equal(t, int32(len(msg)), h.call("aclGetRecentErrMsg", 0, 0))
	require.Equal(t, int32(len(msg)), h.call("aclGetRecentErrMsg", data2, 8), "a length query or a truncated copy leaves it")
	// As natively, the read that returns it whole clears it.
	require.Equal(t, int32(len(msg)), h.call("aclGetRecentErrMsg", data2, 512))
	require.Equal(t, msg+"\x00", string(h.mem()[data2:data2+uint32(len(msg))+1]))
	require.Zero(t, h.call("aclGetRecentErrMsg", data2, 512), "a second read finds no message")
	require.Zero(t, h.mem()[data2], "and writes an empty string")
	h.ok("aclrtGetVersion", outA, outB, outC)
	require.Zero(t, h.call("aclGetRecentErrMsg", 0, 0), "a successful call leaves none")
	require.Equal(t, msg, h.inst.Session().LastError(), "the embedder's view is not cleared")
	h.code(acl.ErrRepeatInitialize, "aclInit", 0)
	require.Equal(t, int32(len(msg)), h.call("aclGetRecentErrMsg", 0, 0), "the next failure leaves a message again")
	h.ok("aclFinalize")
	h.code(acl.ErrRepeatFinalize, "aclFinalize")
}

func TestTraceRecordsEveryCall(t *testing.T) {
	h := newHarness(t, Policy{})
	h.ok("aclrtSetDevice", 0)
	h.code(acl.ErrInvalidParam, "aclrtMalloc", outA, 0, 0)
	require.Len(t, h.log, 2)
	require.Equal(t, "aclrtSetDevice", h.log[0].Func.Name)
	require.Equal(t, []uint64{0}, h.log[0].Args)
	require.Equal(t, "aclrtMalloc", h.log[1].Func.Name)
	require.Equal(t, acl.ErrInvalidParam, h.log[1].Code)
	require.Equal(t, "aclrtMalloc: size is 0", h.log[1].Msg)
}

func TestHandlesAreNeverReused(t *testing.T) {
	h := newHarness(t, Policy{})
	h.ok("aclrtSetDevice", 0)
	h.inst.s.s.SetNextHandle(math.MaxUint32 - 1)
	require.Equal(t, uint64(math.MaxUint32), h.event())
	h.code(acl.ErrRTOverLimit, "aclrtCreateEvent", outA)
	h.code(acl.ErrRTOverLimit, "aclrtCreateStream", outA)
}

func TestDescriptorStreamBeforeDevice(t *testing.T) {
	h := newHarness(t, Policy{})
	h.code(acl.ErrRTInvalidHandle, "aclrtMemcpyAsyncWithDesc", 1<<40, 6, 1)
}

// TestFreeWaitsForQueuedDescriptorCopies: freeing the memory that holds a
// descriptor waits until the queued copy that reads it has run.
func TestFreeWaitsForQueuedDescriptorCopies(t *testing.T) {
	h := newHarness(t, Policy{})
	h.ok("aclrtSetDevice", 0)
	desc, src, dst := h.malloc(sandbox.DescSize), h.malloc(64), h.malloc(64)
	want := h.fill(data, 64, 3)
	h.ok("aclrtMemcpy", src, 64, data, 64, 1)
	h.ok("aclrtSetMemcpyDesc", desc, 6, src, dst, 64, 0)
	s, other, gate := h.stream(), h.stream(), h.waitable()
	h.ok("aclrtStreamWaitEvent", s, gate) // s runs the copy only after gate's next record
	h.ok("aclrtMemcpyAsyncWithDesc", desc, 6, s)
	require.Equal(t, 1, h.inst.s.s.QueuedOn(desc), "the queued copy holds its descriptor")
	h.ok("aclrtRecordEvent", gate, other)
	h.ok("aclrtFree", desc) // must wait for the copy, not make it fail
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtMemcpy", data2, 64, dst, 64, 2)
	require.Equal(t, want, h.mem()[data2:data2+64])
}

// TestBackendMessagesStayInside: a backend's refusal reaches the guest with
// its native code and the host's own words: no physical device ids, backend
// handles or other sessions' usage.
func TestBackendMessagesStayInside(t *testing.T) {
	b := sim.New(sim.WithMemory(1 << 20))
	t.Cleanup(func() { b.Close() })
	h := newHarness(t, Policy{Devices: []int32{1, 0}, DeviceMemory: 4 << 20}, WithBackend(b))
	h.ok("aclrtSetDevice", 0)
	msg := h.code(acl.ErrRTMemoryAllocation, "aclrtMalloc", outA, 2<<20, 0)
	require.Equal(t, "aclrtMalloc: the device is out of memory", msg)
	h.event() // a backend handle that is not the guest's
	e1, e2 := h.event(), h.event()
	msg = h.code(acl.ErrRTInternal, "aclrtEventElapsedTime", outA, e1, e2)
	require.Equal(t, "aclrtEventElapsedTime: an event has never been recorded", msg)
	s := h.stream()
	h.ok("aclrtRecordEvent", e1, s)
	h.ok("aclrtSynchronizeStream", s)
	h.gate(s)
	h.ok("aclrtRecordEvent", e2, s)
	h.ok("aclrtDestroyStreamForce", s) // cancels e2's record
	msg = h.code(acl.ErrRTEventTimestampInvalid, "aclrtEventElapsedTime", outA, e1, e2)
	require.Equal(t, "aclrtEventElapsedTime: an event has no valid timestamp (its record was cancelled)", msg)
}

// TestBatchEntriesBudget: queued asynchronous batches hold host memory until
// they run, so the policy bounds their entries; the budget comes back once
// they have run.
func TestBatchEntriesBudget(t *testing.T) {
	h := newHarness(t, Policy{MaxBatchEntries: 3})
	h.ok("aclrtSetDevice", 0)
	h.ok("aclrtHostRegister", data, 128, 0, outB) // pinned: the batch is really queued
	rows := []uint64{h.malloc(64), h.malloc(64)}
	b := h.batch(rows, []uint64{data, data + 64}, []uint64{64, 64}, []acl.MemcpyBatchAttr{h2d(0)}, []uint64{0})
	s, gate, other := h.stream(), h.waitable(), h.stream()
	h.ok("aclrtStreamWaitEvent", s, gate)
	h.ok("aclrtMemcpyBatchAsync", b.dsts, b.destMaxs, b.srcs, b.sizes, 2, b.attrs, b.idx, 1, b.fail, s)
	msg := h.code(acl.ErrRTOverLimit, "aclrtMemcpyBatchAsync", b.dsts, b.destMaxs, b.srcs, b.sizes, 2, b.attrs, b.idx, 1, b.fail, s)
	require.Contains(t, msg, "more than the policy's 3 entries")
	h.ok("aclrtRecordEvent", gate, other)
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtMemcpyBatchAsync", b.dsts, b.destMaxs, b.srcs, b.sizes, 2, b.attrs, b.idx, 1, b.fail, s)
	h.ok("aclrtSynchronizeStream", s)
}

func TestMemsetD32Messages(t *testing.T) {
	h := newHarness(t, Policy{})
	h.ok("aclrtSetDevice", 0)
	p := h.malloc(64)
	for _, tc := range []struct {
		code acl.Error
		args []uint64
		msg  string
	}{
		{acl.ErrInvalidParam, []uint64{0, 64, 1, 1}, "aclrtMemsetD32: ptr is NULL"},
		{acl.ErrInvalidParam, []uint64{p + 2, 64, 1, 1}, "aclrtMemsetD32: ptr 0x" + hexs(p+2) + " is not 4-byte aligned"},
		{acl.ErrInvalidParam, []uint64{p, 64, 1, 17}, "aclrtMemsetD32: count 17 words are 68 bytes, more than memSize 64"},
		{acl.ErrInvalidParam, []uint64{p, sizeMax, 1, 1 << 62}, "aclrtMemsetD32: count 4611686018427387904 words of 4 bytes overflow a byte count (memSize 18446744073709551615)"},
		{acl.ErrInvalidParam, []uint64{data2, 64, 1, 1}, "aclrtMemsetD32: ptr 0x9000 is guest memory that is not registered: only memory from aclrtMalloc or aclrtMallocHost (aclrtHostRegister) can be set"},
		{acl.ErrRTParamInvalid, []uint64{0xdead_0000_0000, 64, 1, 1}, "aclrtMemsetD32: ptr 0xdead00000000 is not in guest memory or a live device allocation of this session"},
		{acl.ErrRTParamInvalid, []uint64{p + 4, 64, 1, 16}, "aclrtMemsetD32: ptr [0x" + hexs(p+4) + ", +64) crosses the end of the allocation [0x" + hexs(p) + ", 0x" + hexs(p+64) + ")"},
	} {
		require.Equal(t, tc.msg, h.code(tc.code, "aclrtMemsetD32", tc.args...))
	}
	h.ok("aclrtMemsetD32", 0, 64, 1, 0) // count 0: nothing to do, before every check
	// Device memory: the words land, nothing around them changes.
	h.ok("aclrtMemset", p, 64, 0xee, 64)
	h.ok("aclrtMemsetD32", p+4, 60, 0xa1b2c3d4, 3)
	h.ok("aclrtMemcpy", data, 64, p, 64, 2)
	want := append(append([]byte{0xee, 0xee, 0xee, 0xee}, words(0xa1b2c3d4, 3)...), words(0xeeeeeeee, 12)...)
	require.Equal(t, want, h.mem()[data:data+64])
	// Async, in stream order.
	s := h.stream()
	h.ok("aclrtMemsetD32Async", p, 64, 5, 16, s)
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtMemcpy", data, 64, p, 64, 2)
	require.Equal(t, words(5, 16), h.mem()[data:data+64])
}

// TestOpTimeouts: the execute timeout is kept per session in whole
// intervals and reported; the interval is the backend's.
func TestOpTimeouts(t *testing.T) {
	const iv = 4294967 // acl/sim's and the stand-in's interval, µs
	h := newHarness(t, Policy{})
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
	h2 := newHarness(t, Policy{})
	h2.ok("aclrtGetOpExecuteTimeout", outA)
	require.Equal(t, uint32(254*iv/1000), h2.u32(outA))
}

// TestOpWaitTimeout: the limit applies to waits queued after it, 0 lifts
// it, and a timed-out wait leaves the stream usable.
func TestOpWaitTimeout(t *testing.T) {
	h := newHarness(t, Policy{})
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

// TestResetEvent: a reset event keeps its record's status, as natively,
// and a wait queued after the reset waits for the next record.
func TestResetEvent(t *testing.T) {
	h := newHarness(t, Policy{})
	h.ok("aclrtSetDevice", 0)
	s, w, ev := h.stream(), h.stream(), h.event()
	h.ok("aclrtRecordEvent", ev, s)
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtQueryEventStatus", ev, outA)
	require.Equal(t, uint32(acl.EventRecordedStatusComplete), h.u32(outA))
	h.ok("aclrtResetEvent", ev, s)
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtQueryEventStatus", ev, outA)
	require.Equal(t, uint32(acl.EventRecordedStatusComplete), h.u32(outA), "as natively, a reset keeps the record's status")
	h.ok("aclrtSetOpWaitTimeout", 1)
	h.ok("aclrtStreamWaitEvent", w, ev)
	h.code(acl.ErrRTWaitTimeout, "aclrtSynchronizeStream", w) // the old record does not end it
	h.ok("aclrtStreamWaitEvent", w, ev)
	h.ok("aclrtRecordEvent", ev, s)
	h.ok("aclrtSynchronizeStream", w)
}

// TestInitConfigPath: aclInit with a path succeeds without opening a file
// (the trace says it was ignored) unless the policy refuses it (100003);
// the deprecated AllowInitConfig changes nothing.
func TestInitConfigPath(t *testing.T) {
	h := newHarness(t, Policy{RefuseInitConfig: true})
	copy(h.mem()[data:], "./acl.json\x00")
	require.Equal(t, `aclInit: configPath "./acl.json" cannot be read: the sandbox grants no filesystem and the policy refuses configuration files (RefuseInitConfig); pass NULL or ""`,
		h.code(acl.ErrInvalidFile, "aclInit", data))
	copy(h.mem()[data2:], strings.Repeat("p", 4096))
	require.Equal(t, "aclInit: configPath at 0x9000 is longer than 4095 bytes: no NUL within 4096 bytes",
		h.code(acl.ErrInvalidParam, "aclInit", data2))
	copy(h.mem()[data2:], "\x00")
	h.ok("aclInit", data2) // "" is NULL

	for _, p := range []Policy{{}, {AllowInitConfig: true}} {
		a := newHarness(t, p)
		copy(a.mem()[data:], "/nonexistent/acl.json\x00")
		a.ok("aclInit", data)
		last := a.log[len(a.log)-1]
		require.Equal(t, `configPath "/nonexistent/acl.json" ignored: the sandbox opens no file`, last.Msg)
		require.Contains(t, last.String(), `aclInit(configPath=0x1000) = 0 (configPath "/nonexistent/acl.json" ignored: the sandbox opens no file)`)
		a.code(acl.ErrRepeatInitialize, "aclInit", data)
	}
}
