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
