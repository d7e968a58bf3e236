package sandbox_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
)

func TestFreedAddressIsGone(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	a := h.Malloc(256)
	h.Code(acl.ErrRTParamInvalid, "aclrtFree", a+8) // interior
	h.OK("aclrtFree", a)
	h.Code(acl.ErrRTParamInvalid, "aclrtFree", a)
	h.Code(acl.ErrRTParamInvalid, "aclrtMemcpy", a, 8, data, 8, 1)
	b := h.Malloc(256)
	require.NotEqual(t, a, b, "addresses are never reused")
	h.Code(acl.ErrInvalidParam, "aclrtFree", 0)
	h.Code(acl.ErrRTParamInvalid, "aclrtFree", data) // guest memory
}

func TestOutParamOutsideGuestMemory(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	end := uint64(len(h.Mem()))
	h.Code(acl.ErrInvalidParam, "aclrtMalloc", end-4, 64, 0)
	h.Code(acl.ErrInvalidParam, "aclrtMalloc", 0, 64, 0)
	h.Code(acl.ErrInvalidParam, "aclrtCreateStream", end)
	h.Code(acl.ErrInvalidParam, "aclrtGetDeviceCount", end-3)
	h.Code(acl.ErrInvalidParam, "aclrtGetVersion", outA, outB, end)
	// Nothing was allocated by the failed calls.
	allocs, streams := proxytest.Session(h.Inst).Holdings()
	require.Zero(t, allocs)
	require.Zero(t, streams)
}

func TestMemset(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	a := h.Malloc(64)
	h.OK("aclrtMemset", a, 64, 0x1234, 64) // low byte only
	h.OK("aclrtMemcpy", data, 64, a, 64, 2)
	require.Equal(t, bytes.Repeat([]byte{0x34}, 64), h.Mem()[data:data+64])
	h.Fill(data, 64, 1)
	h.OK("aclrtMemset", data, 64, 0x77, 64) // unregistered guest memory: set at call time
	require.Equal(t, bytes.Repeat([]byte{0x77}, 64), h.Mem()[data:data+64])
	h.Code(acl.ErrRTParamInvalid, "aclrtMemset", a, 8, 0, 9)
	h.OK("aclrtMemset", 0, 0, 0, 0)
	h.Code(acl.ErrInvalidParam, "aclrtMemset", 0, 8, 0, 8)
	h.OK("aclrtHostRegister", data, 64, 0, outB)
	h.OK("aclrtMemset", data, 64, 0xff, 64)
	require.Equal(t, bytes.Repeat([]byte{0xff}, 64), h.Mem()[data:data+64])
	h.OK("aclrtHostRegister", data2, 64, uint64(acl.HostRegisterReadOnly), outB)
	h.Code(acl.ErrRTParamInvalid, "aclrtMemset", data2, 64, 0, 64)
	h.Code(acl.ErrRTParamInvalid, "aclrtMemcpy", data2, 64, a, 64, 2)
	h.OK("aclrtMemcpy", a, 64, data2, 64, 1) // a read-only range is a valid source
	// A write that starts in a writable range and runs into a read-only one.
	h.OK("aclrtHostRegister", data2-64, 64, 0, outB)
	b := h.Malloc(128)
	h.Code(acl.ErrRTParamInvalid, "aclrtMemcpy", data2-64, 128, b, 128, 2)
}

func TestHostRegisterOrder(t *testing.T) {
	h := newHarness(t, host.Policy{PinnedMemory: 8192, MaxRegistrations: 2})
	h.Code(acl.ErrRTContextNull, "aclrtHostRegister", data, 64, 0, outB)
	h.OK("aclrtSetDevice", 0)
	h.Code(acl.ErrInvalidParam, "aclrtHostRegister", 0, 64, 0, outB)
	h.Code(acl.ErrInvalidParam, "aclrtHostRegister", data, 0, 0, outB)
	h.Code(acl.ErrInvalidParam, "aclrtHostRegister", data, 64, 0, 0)
	h.Code(acl.ErrRTFeatureNotSupport, "aclrtHostRegister", data, 64, 3, outB)
	h.Code(acl.ErrRTParamInvalid, "aclrtHostRegister", 1<<32, 64, 0, outB)
	h.Code(acl.ErrRTParamInvalid, "aclrtHostRegister", uint64(len(h.Mem()))-8, 64, 0, outB)
	h.OK("aclrtHostRegister", data, 64, 0, outB)
	h.Code(acl.ErrHostMemoryAlreadyRegistered, "aclrtHostRegister", data+32, 64, 0, outB)
	h.Code(acl.ErrRTMemoryAllocation, "aclrtHostRegister", data2, 8192, 0, outB)
	h.OK("aclrtHostRegister", data2, 64, 0, outB)
	h.Code(acl.ErrRTOverLimit, "aclrtHostRegister", data2+4096, 64, 0, outB)
	h.Code(acl.ErrHostMemoryNotRegistered, "aclrtHostUnregister", data+8)
}

func TestPointerAttributes(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 1)
	a := h.Malloc(64)
	const out = 0x200
	h.OK("aclrtPointerGetAttributes", a+8, out)
	attr := acl.DecodePtrAttributes(h.Mem()[out:])
	require.Equal(t, acl.MemLocation{ID: 1, Type: acl.MemLocationDevice}, attr.Location)
	h.OK("aclrtPointerGetAttributes", data, out)
	require.Equal(t, acl.MemLocationUnregistered, acl.DecodePtrAttributes(h.Mem()[out:]).Location.Type)
	h.OK("aclrtHostRegister", data, 64, 0, outB)
	h.OK("aclrtPointerGetAttributes", data, out)
	require.Equal(t, acl.MemLocationHost, acl.DecodePtrAttributes(h.Mem()[out:]).Location.Type)
	h.Code(acl.ErrRTParamInvalid, "aclrtPointerGetAttributes", a+64, out)
	h.Code(acl.ErrInvalidParam, "aclrtPointerGetAttributes", a, 0)
}

func TestQuotasAndLimits(t *testing.T) {
	h := newHarness(t, host.Policy{DeviceMemory: 1024, MaxAllocations: 3, MaxStreams: 1, MaxEvents: 1})
	h.OK("aclrtSetDevice", 0)
	h.OK("aclrtGetMemInfo", uint64(acl.HBMMem), outB, outC)
	require.Equal(t, []uint64{1024, 1024}, []uint64{h.U64(outB), h.U64(outC)})
	h.Malloc(100) // charged (100+63)/32*32 = 160
	h.OK("aclrtGetMemInfo", uint64(acl.HBMMem), outB, outC)
	require.Equal(t, uint64(1024-160), h.U64(outB))
	msg := h.Code(acl.ErrRTMemoryAllocation, "aclrtMalloc", outA, 1000, 0)
	require.Contains(t, msg, "quota")
	h.Malloc(8)
	h.Malloc(8)
	h.Code(acl.ErrRTOverLimit, "aclrtMalloc", outA, 8, 0)
	h.Stream()
	h.Code(acl.ErrRTOverLimit, "aclrtCreateStream", outA)
	h.Event()
	h.Code(acl.ErrRTOverLimit, "aclrtCreateEvent", outA)
	h.Code(acl.ErrRTInvalidMemoryType, "aclrtGetMemInfo", 99, outB, outC)
}

func TestMemsetD32Messages(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	p := h.Malloc(64)
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
		require.Equal(t, tc.msg, h.Code(tc.code, "aclrtMemsetD32", tc.args...))
	}
	h.OK("aclrtMemsetD32", 0, 64, 1, 0) // count 0: nothing to do, before every check
	// Device memory: the words land, nothing around them changes.
	h.OK("aclrtMemset", p, 64, 0xee, 64)
	h.OK("aclrtMemsetD32", p+4, 60, 0xa1b2c3d4, 3)
	h.OK("aclrtMemcpy", data, 64, p, 64, 2)
	want := append(append([]byte{0xee, 0xee, 0xee, 0xee}, words(0xa1b2c3d4, 3)...), words(0xeeeeeeee, 12)...)
	require.Equal(t, want, h.Mem()[data:data+64])
	// Async, in stream order.
	s := h.Stream()
	h.OK("aclrtMemsetD32Async", p, 64, 5, 16, s)
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtMemcpy", data, 64, p, 64, 2)
	require.Equal(t, words(5, 16), h.Mem()[data:data+64])
}
