package sandbox_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
)

func TestBatch(t *testing.T) {
	h := newHarness(t, host.Policy{})
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

// TestBatchEntriesBudget: queued asynchronous batches hold host memory until
// they run, so the policy bounds their entries; the budget comes back once
// they have run.
func TestBatchEntriesBudget(t *testing.T) {
	h := newHarness(t, host.Policy{MaxBatchEntries: 3})
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
