package sandbox_test

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

func TestDescriptors(t *testing.T) {
	h := newHarness(t, host.Policy{})
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
	h := newHarness(t, host.Policy{})
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

func TestDescriptorStreamBeforeDevice(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.code(acl.ErrRTInvalidHandle, "aclrtMemcpyAsyncWithDesc", 1<<40, 6, 1)
}

// TestFreeWaitsForQueuedDescriptorCopies: freeing the memory that holds a
// descriptor waits until the queued copy that reads it has run.
func TestFreeWaitsForQueuedDescriptorCopies(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.ok("aclrtSetDevice", 0)
	desc, src, dst := h.malloc(sandbox.DescSize), h.malloc(64), h.malloc(64)
	want := h.fill(data, 64, 3)
	h.ok("aclrtMemcpy", src, 64, data, 64, 1)
	h.ok("aclrtSetMemcpyDesc", desc, 6, src, dst, 64, 0)
	s, other, gate := h.stream(), h.stream(), h.waitable()
	h.ok("aclrtStreamWaitEvent", s, gate) // s runs the copy only after gate's next record
	h.ok("aclrtMemcpyAsyncWithDesc", desc, 6, s)
	require.Equal(t, 1, sessOf(h.inst).QueuedOn(desc), "the queued copy holds its descriptor")
	h.ok("aclrtRecordEvent", gate, other)
	h.ok("aclrtFree", desc) // must wait for the copy, not make it fail
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtMemcpy", data2, 64, dst, 64, 2)
	require.Equal(t, want, h.mem()[data2:data2+64])
}
