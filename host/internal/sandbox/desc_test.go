package sandbox_test

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

func TestDescriptors(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	h.Code(acl.ErrRTFeatureNotSupport, "aclrtGetMemcpyDescSize", 3, outA)
	h.Code(acl.ErrInvalidParam, "aclrtGetMemcpyDescSize", 8, outA)
	h.OK("aclrtGetMemcpyDescSize", 6, outA)
	size := h.U64(outA)
	desc, src, dst := h.Malloc(size), h.Malloc(256), h.Malloc(256)
	want := h.Fill(data, 256, 7)
	h.OK("aclrtMemcpy", src, 256, data, 256, 1)
	h.Code(acl.ErrInvalidParam, "aclrtSetMemcpyDesc", desc, 6, src, dst, 256, outA) // config must be NULL
	h.Code(acl.ErrRTParamInvalid, "aclrtSetMemcpyDesc", data, 6, src, dst, 256, 0)  // desc in guest memory
	h.Code(acl.ErrRTParamInvalid, "aclrtSetMemcpyDesc", desc, 6, src, dst, 257, 0)
	h.OK("aclrtSetMemcpyDesc", desc, 6, src, dst, 256, 0)
	s := h.Stream()
	h.Code(acl.ErrInvalidParam, "aclrtMemcpyAsyncWithDesc", desc, 6, 0) // NULL stream
	h.OK("aclrtMemcpyAsyncWithDesc", desc, 6, s)
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtMemcpy", data2, 256, dst, 256, 2)
	require.Equal(t, want, h.Mem()[data2:data2+256])

	// A copy of the descriptor's bytes works; a tampered one fails when it executes.
	desc2 := h.Malloc(size)
	h.OK("aclrtMemcpy", desc2, size, desc, size, 3)
	h.OK("aclrtMemcpyAsyncWithDesc", desc2, 6, s)
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtMemcpy", data, size, desc, size, 2)
	binary.LittleEndian.PutUint64(h.Mem()[data+16:], src) // retarget dst at src
	h.OK("aclrtMemcpy", desc2, size, data, size, 1)
	h.OK("aclrtMemcpyAsyncWithDesc", desc2, 6, s)
	msg := h.Code(acl.ErrRTParamInvalid, "aclrtSynchronizeStream", s)
	require.Contains(t, msg, "tampered")
	// A descriptor naming freed memory fails when it executes too.
	h.OK("aclrtFree", dst)
	h.OK("aclrtMemcpyAsyncWithDesc", desc, 6, s)
	h.Code(acl.ErrRTParamInvalid, "aclrtSynchronizeStream", s)
	h.OK("aclrtSynchronizeStream", s) // the error was reported once
	st := h.Inst.Session().Stats().Funcs["aclrtMemcpyAsyncWithDesc"]
	require.Equal(t, uint64(5), st.Calls) // one refused at the call: the NULL stream
	require.Equal(t, map[string]uint64{"D2D": 512}, st.Bytes, "bytes count when the two valid descriptors execute")
}

func TestMemcpyWithOffset(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	src, dst, slots := h.Malloc(256), h.Malloc(256), h.Malloc(16)
	want := h.Fill(data, 256, 11)
	h.OK("aclrtMemcpy", src, 256, data, 256, 1)
	h.PutU64s(data2, dst, src)
	h.OK("aclrtMemcpy", slots, 16, data2, 16, 1)
	s := h.Stream()
	h.OK("aclrtMemcpyAsyncWithOffset", slots, 256, 16, slots+8, 64, 32, 6, s)
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtMemcpy", data2, 256, dst, 256, 2)
	require.Equal(t, want[32:96], h.Mem()[data2+16:data2+80])
	h.Code(acl.ErrRTParamInvalid, "aclrtMemcpyAsyncWithOffset", slots, 256, 16, slots+8, 64, 32, 3, s)
	h.Code(acl.ErrRTParamInvalid, "aclrtMemcpyAsyncWithOffset", slots, 256, 256, slots+8, 1, 0, 6, s)
	h.Code(acl.ErrRTParamInvalid, "aclrtMemcpyAsyncWithOffset", data, 256, 0, slots+8, 1, 0, 6, s)
	// A forged base address in a slot fails when the copy executes.
	h.PutU64s(data2, 0xdead_0000_0000)
	h.OK("aclrtMemcpy", slots, 8, data2, 8, 1)
	h.OK("aclrtMemcpyAsyncWithOffset", slots, 256, 0, slots+8, 8, 0, 6, s)
	msg := h.Code(acl.ErrRTParamInvalid, "aclrtSynchronizeStream", s)
	require.Contains(t, msg, "not in guest memory or a live device allocation")
}

func TestDescriptorStreamBeforeDevice(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.Code(acl.ErrRTInvalidHandle, "aclrtMemcpyAsyncWithDesc", 1<<40, 6, 1)
}

// TestFreeWaitsForQueuedDescriptorCopies: freeing the memory that holds a
// descriptor waits until the queued copy that reads it has run.
func TestFreeWaitsForQueuedDescriptorCopies(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	desc, src, dst := h.Malloc(sandbox.DescSize), h.Malloc(64), h.Malloc(64)
	want := h.Fill(data, 64, 3)
	h.OK("aclrtMemcpy", src, 64, data, 64, 1)
	h.OK("aclrtSetMemcpyDesc", desc, 6, src, dst, 64, 0)
	s, other, gate := h.Stream(), h.Stream(), h.Waitable()
	h.OK("aclrtStreamWaitEvent", s, gate) // s runs the copy only after gate's next record
	h.OK("aclrtMemcpyAsyncWithDesc", desc, 6, s)
	require.Equal(t, 1, proxytest.Session(h.Inst).QueuedOn(desc), "the queued copy holds its descriptor")
	h.OK("aclrtRecordEvent", gate, other)
	h.OK("aclrtFree", desc) // must wait for the copy, not make it fail
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtMemcpy", data2, 64, dst, 64, 2)
	require.Equal(t, want, h.Mem()[data2:data2+64])
}

// TestDescriptorKeyPerSession pins what the MAC's key protects: a session
// draws a key of its own at its first descriptor, none before, and a
// descriptor's bytes carried into another session fail there when they
// execute, though the offsets they name are valid in both.
func TestDescriptorKeyPerSession(t *testing.T) {
	a, b := newHarness(t, host.Policy{}), newHarness(t, host.Policy{})
	sa, sb := proxytest.Session(a.Inst), proxytest.Session(b.Inst)
	for _, h := range []*harness{a, b} {
		h.OK("aclrtSetDevice", 0)
		h.OK("aclrtGetMemcpyDescSize", 6, outA)
	}
	size := a.U64(outA)
	require.False(t, sa.DescKeyDrawn(), "a session without descriptors drew a key")
	descA, srcA, dstA := a.Malloc(size), a.Malloc(256), a.Malloc(256)
	descB, srcB, dstB := b.Malloc(size), b.Malloc(256), b.Malloc(256)
	require.Equal(t, srcA-descA, srcB-descB) // the same layout: the same offsets in both
	require.Equal(t, dstA-descA, dstB-descB)
	a.OK("aclrtSetMemcpyDesc", descA, 6, srcA, dstA, 256, 0)
	require.True(t, sa.DescKeyDrawn())
	require.False(t, sb.DescKeyDrawn())
	a.OK("aclrtMemcpy", data, size, descA, size, 2)
	copy(b.Mem()[data:data+size], a.Mem()[data:data+size])
	b.OK("aclrtMemcpy", descB, size, data, size, 1)
	s := b.Stream()
	b.OK("aclrtMemcpyAsyncWithDesc", descB, 6, s)
	require.Contains(t, b.Code(acl.ErrRTParamInvalid, "aclrtSynchronizeStream", s), "tampered")
	require.True(t, sb.DescKeyDrawn(), "checking a descriptor draws the key")
	// B's own descriptor of the same copy works in B.
	b.OK("aclrtSetMemcpyDesc", descB, 6, srcB, dstB, 256, 0)
	b.OK("aclrtMemcpyAsyncWithDesc", descB, 6, s)
	b.OK("aclrtSynchronizeStream", s)
}
