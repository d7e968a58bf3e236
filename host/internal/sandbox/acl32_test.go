package sandbox_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// The acl32 tests drive the proxy guest importing from module "acl32"
// (ABI section 9): addresses and sizes are i32, out-parameters and array
// elements holding them are 4 bytes, device addresses are window values.

// acl32Pages is the policy's memory limit of most acl32 tests: guest
// memory may grow to 1 MiB, so the window starts at 0x100000.
const (
	acl32Pages = 16
	acl32W     = acl32Pages << 16
)

func newHarness32(t *testing.T, p host.Policy, opts ...host.Option) *harness {
	t.Helper()
	if p.MemoryPages == 0 {
		p.MemoryPages = acl32Pages
	}
	return newHarnessIn(t, abi.Native32, p, opts...)
}

// inWindow requires a to be a device address of the window: at or above W,
// below 2^32 - 2^16, 64-byte aligned.
func inWindow(t *testing.T, a uint64, w uint64) {
	t.Helper()
	require.GreaterOrEqual(t, a, w, "%#x below the window", a)
	require.Less(t, a, uint64(sandbox.WindowEnd), "%#x above the window", a)
	require.Zero(t, a%64, "%#x is not 64-byte aligned", a)
}

// sentinel fills 8 bytes at off with 0xEE, so that a test sees how many
// bytes an out-parameter got.
func (h *harness) sentinel(off uint32) {
	copy(h.Mem()[off:off+8], []byte{0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE})
}

// wrote4 requires that the out-parameter at off got exactly 4 bytes.
func (h *harness) wrote4(off uint32) uint32 {
	h.T.Helper()
	require.Equal(h.T, []byte{0xEE, 0xEE, 0xEE, 0xEE}, h.Mem()[off+4:off+8], "an acl32 out-parameter is 4 bytes")
	return h.U32(off)
}

// TestACL32EveryImportLinks calls every function of the table through its
// acl32 wire form, with all-zero arguments: each is linked with the acl32
// signature on this engine, and none breaks the host (no trap, no
// internal error). The scenario below checks what they do.
func TestACL32EveryImportLinks(t *testing.T) {
	h := newHarness32(t, host.Policy{})
	for _, f := range abi.Funcs {
		args := make([]uint64, len(f.Params))
		res, err := h.Inst.Call(context.Background(), f.Name, args...)
		require.NoError(t, err, f.Name)
		require.NotEqual(t, int32(acl.ErrInternal), int32(uint32(res[0])), "%s: %s", f.Name, h.Inst.Session().LastError())
	}
	require.Len(t, h.Log, len(abi.Funcs))
}

// TestACL32Scenario runs every import of ABI v1 through its acl32 wire
// form and checks what it did in 32-bit terms: 4-byte out-parameters and
// arrays, window addresses, pointer arithmetic, saturation, 0xFFFFFFFF as
// "no failing entry", 4-byte base-address slots.
func TestACL32Scenario(t *testing.T) {
	h := newHarness32(t, host.Policy{DeviceMemory: 8 << 30, PinnedMemory: 1 << 20})
	ctx := context.Background()
	h.OK("aclInit", 0)
	h.OK("aclrtGetVersion", outA, outB, outC)
	require.Equal(t, []uint32{1, 17, 0}, []uint32{h.U32(outA), h.U32(outB), h.U32(outC)})
	h.OK("aclrtGetDeviceCount", outA)
	ndev := h.U32(outA)
	h.OK("aclrtSetDevice", 0)
	h.OK("aclrtGetDevice", outA)
	require.Equal(t, uint32(0), h.U32(outA))

	// Malloc writes a 4-byte window address.
	h.sentinel(outA)
	h.OK("aclrtMalloc", outA, 4096, 0)
	a := uint64(h.wrote4(outA))
	inWindow(t, a, acl32W)
	b := h.Malloc(4096)
	inWindow(t, b, acl32W)
	require.GreaterOrEqual(t, b, a+4096+sandbox.AllocGuard, "a guard gap after each allocation")

	// Copies with 32-bit addresses and sizes; pointer arithmetic inside an
	// allocation.
	want := h.Fill(data, 4096, 1)
	h.OK("aclrtMemcpy", a, 4096, data, 4096, uint64(acl.MemcpyHostToDevice))
	h.OK("aclrtMemcpy", b+100, 200, a+100, 200, uint64(acl.MemcpyDeviceToDevice))
	h.OK("aclrtMemcpy", data2, 200, b+100, 200, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, want[100:300], h.Mem()[data2:data2+200])

	// Guest memory grows up to M (the policy's limit), never into the
	// window: its last bytes and the window's first are distinct memory.
	require.Equal(t, int32(4), h.Call("grow", acl32Pages-4))
	require.Equal(t, int32(-1), h.Call("grow", 1), "the policy's limit")
	h.Fill(acl32W-8, 8, 9)
	h.OK("aclrtMemcpy", a, 8, acl32W-8, 8, uint64(acl.MemcpyHostToDevice))
	h.OK("aclrtMemcpy", data2, 8, a, 8, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, h.Mem()[acl32W-8:acl32W], h.Mem()[data2:data2+8])
	h.Code(acl.ErrRTParamInvalid, "aclrtMemcpy", a, 16, acl32W-8, 16, uint64(acl.MemcpyHostToDevice))
	h.OK("aclrtMemcpy", a, 4096, data, 4096, uint64(acl.MemcpyHostToDevice))

	// A range straddling the end of guest memory, or above the window, is
	// neither guest nor device memory.
	msg := h.Code(acl.ErrRTParamInvalid, "aclrtMemcpy", a, 8, acl32W-4, 8, 1)
	require.Contains(t, msg, "src [0xffffc, +8) is outside guest memory (1048576 bytes)")
	h.OK("aclrtPointerGetAttributes", acl32W-64, outA)
	require.Equal(t, uint32(acl.MemLocationUnregistered), h.U32(outA+4), "guest memory up to W")
	h.Code(acl.ErrRTParamInvalid, "aclrtPointerGetAttributes", sandbox.WindowEnd+16, outA)
	msg = h.Code(acl.ErrRTParamInvalid, "aclrtMemcpy", sandbox.WindowEnd+16, 8, data, 8, 1)
	require.Contains(t, msg, "dst 0xffff0010 is not in guest memory or a live device allocation")

	// Streams, events, async copies, memset.
	s := h.Stream()
	e1, e2 := h.Event(), h.Event()
	h.sentinel(outB)
	h.OK("aclrtHostRegister", data, 4096, 0, outB)
	require.Equal(t, uint32(data), h.wrote4(outB), "devPtr of a registration is 4 bytes")
	h.OK("aclrtRecordEvent", e1, s)
	h.OK("aclrtMemcpyAsync", a, 4096, data, 4096, uint64(acl.MemcpyHostToDevice), s)
	h.OK("aclrtMemcpyAsyncWithCondition", b, 4096, a, 4096, uint64(acl.MemcpyDeviceToDevice), s)
	h.OK("aclrtMemsetAsync", a, 4096, 0x5a, 16, s)
	h.OK("aclrtRecordEvent", e2, s)
	h.OK("aclrtStreamWaitEvent", s, e2)
	h.OK("aclrtSynchronizeEvent", e2)
	h.OK("aclrtQueryEventStatus", e2, outC)
	require.Equal(t, uint32(acl.EventRecordedStatusComplete), h.U32(outC))
	h.OK("aclrtEventElapsedTime", outC, e1, e2)
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtSynchronizeStreamWithTimeout", s, 1000)
	h.OK("aclrtStreamQuery", s, outC)
	require.Equal(t, uint32(acl.StreamStatusComplete), h.U32(outC))
	h.OK("aclrtMemcpy", data2, 32, a, 32, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, append(bytesOf(0x5a, 16), want[16:32]...), h.Mem()[data2:data2+32])
	h.OK("aclrtMemset", b, 4096, 0x11, 8)
	h.OK("aclrtMemcpy", data2, 8, b, 8, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, bytesOf(0x11, 8), h.Mem()[data2:data2+8])
	h.OK("aclrtHostUnregister", data)

	// 2D copies: rows of 16 bytes, 32 apart.
	h.OK("aclrtMemcpy2d", a, 16, data, 32, 16, 4, uint64(acl.MemcpyHostToDevice))
	h.OK("aclrtMemcpy2dAsync", data2, 32, a, 16, 16, 4, uint64(acl.MemcpyDeviceToHost), s)
	h.OK("aclrtSynchronizeStream", s)
	for r := 0; r < 4; r++ {
		require.Equal(t, want[32*r:32*r+16], h.Mem()[data2+32*r:data2+32*r+16], "row %d", r)
	}

	// Pointer attributes of a window address.
	h.OK("aclrtPointerGetAttributes", b+8, outA)
	require.Equal(t, uint32(acl.MemLocationDevice), h.U32(outA+4))

	// GetMemInfo: 4-byte sizes, saturated at 0xFFFFFFFF (the quota is 8 GiB).
	h.sentinel(outA)
	h.sentinel(outB)
	h.OK("aclrtGetMemInfo", 0, outA, outB)
	require.Equal(t, uint32(math.MaxUint32), h.wrote4(outA))
	require.Equal(t, uint32(math.MaxUint32), h.wrote4(outB))

	// Descriptors: a 4-byte size; the descriptor stays opaque bytes.
	h.sentinel(outA)
	h.OK("aclrtGetMemcpyDescSize", 6, outA)
	size := uint64(h.wrote4(outA))
	require.Equal(t, uint64(acl.DescSizeA2), size)
	desc := h.Malloc(size)
	h.OK("aclrtMemset", b, 4096, 0, 4096)
	h.OK("aclrtSetMemcpyDesc", desc, 6, a+64, b+128, 256, 0)
	h.OK("aclrtMemcpyAsyncWithDesc", desc, 6, s)
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtMemcpy", data2, 256, b+128, 256, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, want[64:320], h.Mem()[data2:data2+256])

	// Offset copies: the base-address slots are 4-byte void* in device
	// memory, read as window addresses when the copy runs.
	slots := h.Malloc(8)
	binary.LittleEndian.PutUint32(h.Mem()[data2:], uint32(b))
	binary.LittleEndian.PutUint32(h.Mem()[data2+4:], uint32(a))
	h.OK("aclrtMemcpy", slots, 8, data2, 8, uint64(acl.MemcpyHostToDevice))
	h.OK("aclrtMemcpy", a, 4096, data, 4096, uint64(acl.MemcpyHostToDevice))
	h.OK("aclrtMemset", b, 4096, 0, 4096)
	h.OK("aclrtMemcpyAsyncWithOffset", slots, 4096, 16, slots+4, 64, 32, 6, s)
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtMemcpy", data2, 96, b, 96, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, want[32:96], h.Mem()[data2+16:data2+80])
	// A slot of 4 bytes at the allocation's last 4 bytes is whole.
	h.OK("aclrtMemcpyAsyncWithOffset", slots+4, 4096, 0, slots, 8, 0, 6, s)
	h.OK("aclrtSynchronizeStream", s)
	// A stale slot (freed memory) fails when the copy executes, in 32-bit terms.
	stale := h.Malloc(64)
	h.OK("aclrtFree", stale)
	binary.LittleEndian.PutUint32(h.Mem()[data2:], uint32(stale))
	h.OK("aclrtMemcpy", slots, 4, data2, 4, uint64(acl.MemcpyHostToDevice))
	h.OK("aclrtMemcpyAsyncWithOffset", slots, 4096, 0, slots+4, 8, 0, 6, s)
	msg = h.Code(acl.ErrRTParamInvalid, "aclrtSynchronizeStream", s)
	require.Contains(t, msg, fmt.Sprintf("dstAddr %#x is not in guest memory or a live device allocation", stale))

	// Batches: 4-byte arrays, failIndex 4 bytes, 0xFFFFFFFF for none.
	for _, name := range []string{"aclrtMemcpyBatch", "aclrtMemcpyBatchAsync", "aclrtMemcpyBatchV2", "aclrtMemcpyBatchAsyncV2"} {
		h.OK("aclrtMemset", a, 4096, 0, 4096)
		ba := h.batch32([]uint64{a, a + 64 + 1}, []uint64{data + 128, data}, []uint64{64, 32})
		args := []uint64{ba.Dsts, ba.DestMaxs, ba.Srcs, ba.Sizes, 2, ba.Attrs, ba.Idx, 1}
		hasFail := !strings.HasSuffix(name, "V2")
		if hasFail {
			args = append(args, ba.Fail)
		}
		if strings.Contains(name, "Async") {
			args = append(args, s)
		}
		h.OK(name, args...)
		h.OK("aclrtSynchronizeStream", s)
		if hasFail {
			require.Equal(t, uint32(math.MaxUint32), h.wrote4(uint32(ba.Fail)), name)
		}
		h.OK("aclrtMemcpy", data2, 128, a, 128, uint64(acl.MemcpyDeviceToHost))
		require.Equal(t, want[128:192], h.Mem()[data2:data2+64], name)
		require.Equal(t, want[0:32], h.Mem()[data2+65:data2+97], name)
		if hasFail {
			// Entry 1 crosses the allocation's end: failIndex names it, 4 bytes.
			ba = h.batch32([]uint64{a, a + 4096 - 8}, []uint64{data, data}, []uint64{8, 16})
			args[0], args[1], args[2], args[3], args[8] = ba.Dsts, ba.DestMaxs, ba.Srcs, ba.Sizes, ba.Fail
			msg := h.Code(acl.ErrRTParamInvalid, name, args...)
			require.Equal(t, uint32(1), h.wrote4(uint32(ba.Fail)), name)
			require.Contains(t, msg, fmt.Sprintf("dsts[1] [%#x, +16) crosses the end of the allocation [%#x, %#x)", a+4096-8, a, a+4096))
		}
	}

	// Peers, device synchronize, the error message, the end.
	if ndev >= 2 {
		h.OK("aclrtDeviceCanAccessPeer", outA, 0, 1)
		h.OK("aclrtDeviceEnablePeerAccess", 1, 0)
		h.OK("aclrtDeviceDisablePeerAccess", 1)
	} else {
		h.Code(acl.ErrRTInvalidDeviceID, "aclrtDeviceCanAccessPeer", outA, 0, 1)
		h.Code(acl.ErrRTInvalidDeviceID, "aclrtDeviceEnablePeerAccess", 1, 0)
		h.Code(acl.ErrRTInvalidDeviceID, "aclrtDeviceDisablePeerAccess", 1)
	}
	h.OK("aclrtSynchronizeDevice")
	h.OK("aclrtSynchronizeDeviceWithTimeout", 1000)
	msg = h.Code(acl.ErrRTParamInvalid, "aclrtFree", a+8)
	want32 := fmt.Sprintf("devPtr %#x is inside the allocation at %#x, not its base", a+8, a)
	require.Contains(t, msg, want32)
	n := h.Call("aclGetRecentErrMsg", data2, 512)
	require.Equal(t, msg, string(h.Mem()[data2:data2+uint32(n)]))
	h.OK("aclrtDestroyEvent", e1)
	h.OK("aclrtDestroyEvent", e2)
	h.OK("aclrtDestroyStream", s)
	h.OK("aclrtFree", a)
	h.OK("aclrtFree", b)
	h.OK("aclrtResetDevice", 0)
	h.OK("aclFinalize")

	// Every function of ABI v1 ran through its acl32 form; every address
	// in a message or a trace line is a 32-bit one.
	called := map[string]bool{}
	hex := regexp.MustCompile(`0x[0-9a-f]+`)
	for _, r := range h.Log {
		called[r.Func.Name] = true
		for _, x := range hex.FindAllString(r.String(), -1) {
			v, err := strconv.ParseUint(x[2:], 16, 64)
			require.NoError(t, err)
			require.Less(t, v, uint64(1)<<32, "a wide address in %q", r.String())
		}
	}
	for _, name := range abiV1 {
		require.True(t, called[name], "%s was not called through acl32", name)
	}
	require.Equal(t, abi.Native32, proxytest.Session(h.Inst).Profile())
	_ = ctx
}

// abiV1 names the functions of ABI v1 (section 5), which the acl32
// scenario covers one by one.
var abiV1 = []string{
	"aclrtMemcpy", "aclrtMemcpyAsync", "aclrtMemcpyAsyncWithCondition", "aclrtMemcpyBatch", "aclrtMemcpyBatchAsync",
	"aclrtMemcpyBatchV2", "aclrtMemcpyBatchAsyncV2", "aclrtMemcpy2d", "aclrtMemcpy2dAsync", "aclrtGetMemcpyDescSize",
	"aclrtSetMemcpyDesc", "aclrtMemcpyAsyncWithDesc", "aclrtMemcpyAsyncWithOffset", "aclrtMemset", "aclrtMemsetAsync",
	"aclInit", "aclFinalize", "aclrtGetVersion", "aclrtSetDevice", "aclrtResetDevice", "aclrtGetDevice",
	"aclrtGetDeviceCount", "aclrtSynchronizeDevice", "aclrtSynchronizeDeviceWithTimeout", "aclrtDeviceCanAccessPeer",
	"aclrtDeviceEnablePeerAccess", "aclrtDeviceDisablePeerAccess", "aclrtGetMemInfo", "aclrtMalloc", "aclrtFree",
	"aclrtHostRegister", "aclrtHostUnregister", "aclrtPointerGetAttributes", "aclrtCreateStream", "aclrtDestroyStream",
	"aclrtSynchronizeStream", "aclrtSynchronizeStreamWithTimeout", "aclrtStreamQuery", "aclrtCreateEvent",
	"aclrtDestroyEvent", "aclrtRecordEvent", "aclrtStreamWaitEvent", "aclrtSynchronizeEvent", "aclrtQueryEventStatus",
	"aclrtEventElapsedTime", "aclGetRecentErrMsg",
}

func bytesOf(b byte, n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = b
	}
	return out
}

// batch32 lays out an H2D batch with 4-byte arrays (one attribute for
// every entry) and a failIndex holding the sentinel.
func (h *harness) batch32(dsts, srcs, sizes []uint64) proxytest.BatchArgs {
	const base = 0x20000
	n := uint64(len(dsts))
	b := proxytest.BatchArgs{Dsts: base, DestMaxs: base + 4*n, Srcs: base + 8*n, Sizes: base + 12*n, Attrs: base + 16*n}
	b.Idx = b.Attrs + 32
	b.Fail = b.Idx + 8
	h.PutWords(uint32(b.Dsts), dsts...)
	h.PutWords(uint32(b.DestMaxs), sizes...)
	h.PutWords(uint32(b.Srcs), srcs...)
	h.PutWords(uint32(b.Sizes), sizes...)
	proxytest.H2D(0).Encode(h.Mem()[b.Attrs:])
	h.PutWords(uint32(b.Idx), 0)
	h.sentinel(uint32(b.Fail))
	return b
}

// TestACL32Window checks the window rules of ABI section 9 on a window of
// 960 KiB (guest memory may grow to 2^32 - 1 MiB): addresses above guest
// memory, never-used room first (a stale pointer is caught while there is
// any), then freed ranges, the longest freed first, adjacent ones merged
// when needed, and 207001 naming the window when nothing fits.
func TestACL32Window(t *testing.T) {
	const pages = 1<<16 - 16
	const w = uint64(pages) << 16 // 0xfff00000
	const slot = 1 << 16          // 60 KiB plus the 4 KiB guard
	const size = slot - sandbox.AllocGuard
	h := newHarness32(t, host.Policy{MemoryPages: pages})
	h.OK("aclrtSetDevice", 0)
	at := func(k int) uint64 { return w + uint64(k)*slot }

	x0 := h.Malloc(size)
	require.Equal(t, at(0), x0)
	h.OK("aclrtFree", x0)
	var got []uint64
	for k := 1; k < 15; k++ {
		a := h.Malloc(size)
		inWindow(t, a, w)
		got = append(got, a)
		// The freed range is not reused while never-used room is left, so
		// the stale pointer is caught.
		msg := h.Code(acl.ErrRTParamInvalid, "aclrtMemcpy", x0, 8, data, 8, 1)
		require.Contains(t, msg, fmt.Sprintf("dst %#x is not in guest memory or a live device allocation", x0))
	}
	for k, a := range got {
		require.Equal(t, at(k+1), a)
	}
	// The never-used room is gone: the freed range comes back.
	require.Equal(t, x0, h.Malloc(size))

	// The longest freed first.
	h.OK("aclrtFree", at(5))
	h.OK("aclrtFree", at(3))
	require.Equal(t, at(5), h.Malloc(size))
	require.Equal(t, at(3), h.Malloc(size))

	// Full: 207001, naming the window.
	msg := h.Code(acl.ErrRTMemoryAllocation, "aclrtMalloc", outA, 64, 0)
	require.Contains(t, msg, "size 64 does not fit in the device address window [0xfff00000, 0xffff0000) of this acl32 session")
	require.NotContains(t, msg, "0x1000000", "no wide address")

	// Two adjacent freed ranges hold a request neither holds alone.
	h.OK("aclrtFree", at(8))
	h.OK("aclrtFree", at(12))
	h.OK("aclrtFree", at(7))
	require.Equal(t, at(7), h.Malloc(2*slot-sandbox.AllocGuard))
	require.Equal(t, at(12), h.Malloc(size), "the one left")

	// Larger than the window.
	h.Code(acl.ErrRTMemoryAllocation, "aclrtMalloc", outA, 1<<20, 0)
	h.Code(acl.ErrRTMemoryAllocation, "aclrtMalloc", outA, math.MaxUint32, 0)
}

// TestACL32EmptyWindow: a policy that lets guest memory fill the 32-bit
// space leaves no window, and every allocation says so.
func TestACL32EmptyWindow(t *testing.T) {
	h := newHarness32(t, host.Policy{MemoryPages: 1 << 16})
	h.OK("aclrtSetDevice", 0)
	msg := h.Code(acl.ErrRTMemoryAllocation, "aclrtMalloc", outA, 64, 0)
	require.Contains(t, msg, "does not fit in the device address window [0xffff0000, 0xffff0000)")
}

// TestACL32Lend: memory the host lends an acl32 guest gets a window
// address, like the guest's own allocations.
func TestACL32Lend(t *testing.T) {
	const pages = 1<<16 - 16
	h := newHarness32(t, host.Policy{MemoryPages: pages})
	p, pat := testsupport.Lent(t, h.RT.Backend(), 4096)
	l, err := h.Inst.Lend(p, 4096, host.LendOptions{})
	require.NoError(t, err)
	inWindow(t, l.Addr(), uint64(pages)<<16)
	h.OK("aclrtSetDevice", 0)
	h.OK("aclrtMemcpy", data, 4096, l.Addr()+16, 4080, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, pat[16:], h.Mem()[data:data+4080])
	own := h.Malloc(64)
	require.NotEqual(t, l.Addr(), own)
	inWindow(t, own, uint64(pages)<<16)

	big, _ := testsupport.Lent(t, h.RT.Backend(), 1<<20)
	_, err = h.Inst.Lend(big, 1<<20, host.LendOptions{})
	require.ErrorContains(t, err, "do not fit in the device address window [0xfff00000, 0xffff0000)")
	require.NoError(t, l.Revoke(context.Background()))
	h.Code(acl.ErrRTParamInvalid, "aclrtMemcpy", data, 8, l.Addr(), 8, uint64(acl.MemcpyDeviceToHost))
}

// TestACL32LoadChecks: a module imports from "acl" or "acl32", never both;
// an acl32 import with the wide signature is refused with the acl32 one.
func TestACL32LoadChecks(t *testing.T) {
	rt := proxytest.Runtime(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name, imports string
		want          []string
	}{
		{"both profiles", `(import "acl" "aclrtMalloc" (func (param i32 i64 i32) (result i32)))
  (import "acl32" "aclrtFree" (func (param i32) (result i32)))`,
			[]string{`the module imports from both "acl" (acl.aclrtMalloc) and "acl32" (acl32.aclrtFree): a module uses one profile, the wide one or the native 32-bit layout, never both (ABI section 9)`}},
		{"wide signature under acl32", `(import "acl32" "aclrtMemcpy" (func (param i64 i64 i64 i64 i32) (result i32)))`,
			[]string{"import acl32.aclrtMemcpy has signature (i64, i64, i64, i64, i32) -> i32, ABI v1 expects (i32, i32, i32, i32, i32) -> i32"}},
		{"acl32 signature under acl", `(import "acl" "aclrtMalloc" (func (param i32 i32 i32) (result i32)))`,
			[]string{"import acl.aclrtMalloc has signature (i32, i32, i32) -> i32, ABI v1 expects (i32, i64, i32) -> i32"}},
		{"unknown acl32 name", `(import "acl32" "aclrtMallocHost" (func (param i32 i32) (result i32)))`,
			[]string{"import acl32.aclrtMallocHost is not a function of ABI v1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wasm := testsupport.WAT(t, "(module\n  "+tc.imports+"\n  (memory 1))")
			_, err := rt.Load(ctx, wasm, host.Policy{})
			var le *host.LoadError
			require.ErrorAs(t, err, &le)
			require.ErrorIs(t, err, host.ErrLoad)
			require.Equal(t, tc.want, le.Problems)
		})
	}
	// One profile alone loads.
	pl, err := rt.Load(ctx, testsupport.WAT(t, `(module (import "acl32" "aclrtMalloc" (func (param i32 i32 i32) (result i32))) (memory 1))`), host.Policy{})
	require.NoError(t, err)
	require.NoError(t, pl.Close(ctx))
}

// FuzzImports32 is FuzzImports through module acl32: arbitrary call
// sequences on a fresh session never hit a host bug, and the session
// releases everything.
func FuzzImports32(f *testing.F) {
	f.Add([]byte{0, 18, 0, 0, 0, 0, 0, 0, 0, 0, 28, 1, 16, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte("\x12\x00\x1c\x01\x10\x00\x00\x00\x20\x00\x00\x00\x00\x00\x21\x02\x10\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Add(make([]byte, 64))
	e := newFuzzEnvIn(f, abi.Native32, fuzzPolicy, append(proxytest.Backend(f), host.WithEngine(testEngine)))
	f.Fuzz(func(t *testing.T, data []byte) { e.play(t, data, fuzzAll) })
}

// FuzzDifferential32 is FuzzDifferential through module acl32, on a
// prepared session (4-byte batch arrays and offset slots): every
// configuration of this build gives the same outcome.
func FuzzDifferential32(f *testing.F) {
	f.Add(make([]byte, 64))
	f.Add([]byte("\x03\x40\x41\x05\x42\x43\x10\x00\x80\x81\x82\x83\x84\x85\x86\x87\x88\x89\x8a\x01\x0c\x44\x45\x46\x47\x48\x49\x4a\x4b"))
	cfgs := slices.Clone(diffConfigs)
	if lib := os.Getenv("ACLWASM_TEST_ACL_LIB"); lib != "" {
		cfgs = append(cfgs, diffConfig{"wazero/cann", func(tb testing.TB) []host.Option { return append(proxytest.Backend(tb), host.WithEngine("wazero")) }})
	}
	if len(cfgs) == 1 {
		cfgs = append(cfgs, cfgs[0])
	}
	var envs []*fuzzEnv
	for _, c := range cfgs {
		envs = append(envs, newFuzzEnvIn(f, abi.Native32, diffPolicy, c.opts(f)))
	}
	fam := fuzzFamily{funcs: diffFuncs(), prepare: true, untimed: true}
	f.Fuzz(func(t *testing.T, data []byte) {
		first := envs[0].play(t, data, fam)
		for i, e := range envs[1:] {
			requireSameFuzzOutcome(t, [2]string{cfgs[0].name, cfgs[i+1].name}, first, e.play(t, data, fam))
		}
	})
}

// TestACL32Section10 checks the section 10 imports whose acl32 wire form
// differs from the wide one: 32-bit addresses and sizes
// (aclrtMemsetD32[Async]), and uint64_t values that stay i64 and 8 bytes
// (aclrtSetOpExecuteTimeOutV2, aclrtGetOpTimeOutInterval).
func TestACL32Section10(t *testing.T) {
	h := newHarness32(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	a := h.Malloc(64)
	h.OK("aclrtMemsetD32", a, 64, 0x04030201, 16)
	h.OK("aclrtMemcpy", data2, 64, a, 64, uint64(acl.MemcpyDeviceToHost))
	for i := uint32(0); i < 16; i++ {
		require.Equal(t, uint32(0x04030201), h.U32(data2+4*i))
	}
	s := h.Stream()
	h.OK("aclrtMemsetD32Async", a+32, 32, 0xAABBCCDD, 8, s)
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtMemcpy", data2, 64, a, 64, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, uint32(0x04030201), h.U32(data2+28))
	require.Equal(t, uint32(0xAABBCCDD), h.U32(data2+32))
	msg := h.Code(acl.ErrRTParamInvalid, "aclrtMemsetD32", a+60, 8, 0, 2)
	require.Contains(t, msg, fmt.Sprintf("%#x", a+60), "a 32-bit address in the message")

	// uint64_t out-parameters are 8 bytes in acl32 too.
	h.PutU64s(outA, ^uint64(0))
	h.OK("aclrtSetOpExecuteTimeOutV2", 0, outA) // 0: the most the hardware takes
	most := h.U64(outA)
	require.NotEqual(t, ^uint64(0), most, "8 bytes written")
	// 2^32 + 1 s in microseconds is above the most, so it gives the most;
	// cut to 32 bits it would be 1 s.
	h.OK("aclrtSetOpExecuteTimeOutV2", 1<<32+1e6, outA)
	require.Equal(t, most, h.U64(outA), "the i64 timeout was cut to 32 bits")
	h.PutU64s(outB, ^uint64(0))
	h.OK("aclrtGetOpTimeOutInterval", outB)
	require.NotEqual(t, uint32(0xFFFFFFFF), h.U32(outB+4), "8 bytes written")
}

// TestMemsetD32AndOutParamsACL32: in the native layout the uint64_t out-parameters stay
// 8 bytes, and aclrtMemsetD32 takes window addresses and 32-bit sizes.
func TestMemsetD32AndOutParamsACL32(t *testing.T) {
	h := newHarness32(t, host.Policy{})
	h.sentinel(outA)
	h.sentinel(outA + 8)
	h.OK("aclrtSetDevice", 0)
	h.OK("aclrtGetOpTimeOutInterval", outA)
	require.Equal(t, uint64(4294967), h.U64(outA), "8 bytes in both profiles")
	require.Equal(t, []byte{0xEE, 0xEE, 0xEE, 0xEE}, h.Mem()[outA+8:outA+12])
	h.OK("aclrtSetOpExecuteTimeOutV2", 1, outA)
	require.Equal(t, uint64(4294967), h.U64(outA))
	h.sentinel(outA)
	h.OK("aclrtGetOpExecuteTimeout", outA)
	require.Equal(t, uint32(4294), h.wrote4(outA))

	h.OK("aclrtSetDevice", 0)
	h.sentinel(outA)
	h.OK("aclrtMalloc", outA, 64, 0)
	p := uint64(h.wrote4(outA))
	inWindow(t, p, acl32W)
	h.OK("aclrtMemsetD32", p, 64, 0x0badf00d, 16)
	h.OK("aclrtMemcpy", data, 64, p, 64, 2)
	require.Equal(t, words(0x0badf00d, 16), h.Mem()[data:data+64])
	msg := h.Code(acl.ErrRTParamInvalid, "aclrtMemsetD32", p+4, 64, 1, 16)
	require.Equal(t, "aclrtMemsetD32: ptr [0x"+hexs(p+4)+", +64) crosses the end of the allocation [0x"+hexs(p)+", 0x"+hexs(p+64)+")", msg, "window addresses, as the guest sees them")
}
