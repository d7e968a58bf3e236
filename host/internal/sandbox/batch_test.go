package sandbox_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
)

func TestBatch(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	rows := [3]uint64{h.Malloc(64), h.Malloc(64), h.Malloc(64)}
	want := h.Fill(data, 192, 5)
	b := h.Batch(rows[:], []uint64{data + 128, data, data + 64}, []uint64{64, 64, 64}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
	h.OK("aclrtMemcpyBatch", b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, 3, b.Attrs, b.Idx, 1, b.Fail)
	require.Equal(t, uint64(sizeMax), h.U64(uint32(b.Fail)))
	for i, src := range []int{128, 0, 64} {
		h.OK("aclrtMemcpy", data2, 64, rows[i], 64, 2)
		require.Equal(t, want[src:src+64], h.Mem()[data2:data2+64])
	}

	// One bad entry: nothing is copied and failIndex names it.
	for i := range rows {
		h.OK("aclrtMemset", rows[i], 64, 0, 64)
	}
	b = h.Batch([]uint64{rows[0], rows[1] + 32, rows[2]}, []uint64{data, data, data}, []uint64{64, 64, 64}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
	h.Code(acl.ErrRTParamInvalid, "aclrtMemcpyBatch", b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, 3, b.Attrs, b.Idx, 1, b.Fail)
	require.Equal(t, uint64(1), h.U64(uint32(b.Fail)))
	h.OK("aclrtMemcpy", data2, 64, rows[0], 64, 2)
	require.Equal(t, make([]byte, 64), h.Mem()[data2:data2+64], "entry 0 must not have run")

	// Location mismatch: the attribute says device 1.
	b = h.Batch(rows[:1], []uint64{data}, []uint64{64}, []acl.MemcpyBatchAttr{proxytest.H2D(1)}, []uint64{0})
	h.Code(acl.ErrRTParamInvalid, "aclrtMemcpyBatch", b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, 1, b.Attrs, b.Idx, 1, b.Fail)
	require.Equal(t, uint64(0), h.U64(uint32(b.Fail)))

	// D2D is not a batch direction.
	d2d := acl.MemcpyBatchAttr{DstLoc: acl.MemLocation{Type: acl.MemLocationDevice}, SrcLoc: acl.MemLocation{Type: acl.MemLocationDevice}}
	b = h.Batch(rows[:1], rows[1:2], []uint64{64}, []acl.MemcpyBatchAttr{d2d}, []uint64{0})
	msg := h.Code(acl.ErrRTParamInvalid, "aclrtMemcpyBatch", b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, 1, b.Attrs, b.Idx, 1, b.Fail)
	require.Contains(t, msg, "only H2D and D2H")

	// ACL-layer checks leave failIndex alone; all-zero sizes succeed with SIZE_MAX.
	b = h.Batch(rows[:1], []uint64{data}, []uint64{0}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
	h.OK("aclrtMemcpyBatch", b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, 1, b.Attrs, b.Idx, 1, b.Fail)
	require.Equal(t, uint64(sizeMax), h.U64(uint32(b.Fail)))
	b = h.Batch(rows[:1], []uint64{data}, []uint64{64}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
	h.Code(acl.ErrInvalidParam, "aclrtMemcpyBatch", b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, 1, b.Attrs, b.Idx, 1, 0)
	h.Code(acl.ErrInvalidParam, "aclrtMemcpyBatch", b.Dsts, b.DestMaxs, b.Srcs, 0, 1, b.Attrs, b.Idx, 1, b.Fail)
	h.Code(acl.ErrInvalidParam, "aclrtMemcpyBatch", b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, 0, b.Attrs, b.Idx, 1, b.Fail)
	h.PutU64s(uint32(b.DestMaxs), 63)
	h.Code(acl.ErrInvalidParam, "aclrtMemcpyBatch", b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, 1, b.Attrs, b.Idx, 1, b.Fail)
	require.Equal(t, uint64(12345), h.U64(uint32(b.Fail)))
	h.PutU64s(uint32(b.DestMaxs), 64)
	h.Mem()[b.Attrs+20] = 1 // rsv
	h.Code(acl.ErrInvalidParam, "aclrtMemcpyBatch", b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, 1, b.Attrs, b.Idx, 1, b.Fail)
	h.Mem()[b.Attrs+20] = 0
	h.PutU64s(uint32(b.Idx), 1)
	h.Code(acl.ErrRTParamInvalid, "aclrtMemcpyBatch", b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, 1, b.Attrs, b.Idx, 1, b.Fail)
	require.Equal(t, uint64(sizeMax), h.U64(uint32(b.Fail)))
	h.PutU64s(uint32(b.Idx), 0)
	h.Code(acl.ErrInvalidParam, "aclrtMemcpyBatch", b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, 1<<40, b.Attrs, b.Idx, 1, b.Fail)

	// Async and V2 forms.
	s := h.Stream()
	h.OK("aclrtMemcpyBatchAsync", b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, 1, b.Attrs, b.Idx, 1, b.Fail, s)
	h.OK("aclrtMemcpyBatchV2", b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, 1, b.Attrs, b.Idx, 1)
	h.OK("aclrtMemcpyBatchAsyncV2", b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, 1, b.Attrs, b.Idx, 1, s)
	h.OK("aclrtSynchronizeStream", s)
}

// TestBatchEntriesBudget: queued asynchronous batches hold host memory until
// they run, so the policy bounds their entries; the budget comes back once
// they have run.
func TestBatchEntriesBudget(t *testing.T) {
	h := newHarness(t, host.Policy{MaxBatchEntries: 3})
	h.OK("aclrtSetDevice", 0)
	h.OK("aclrtHostRegister", data, 128, 0, outB) // pinned: the batch is really queued
	rows := []uint64{h.Malloc(64), h.Malloc(64)}
	b := h.Batch(rows, []uint64{data, data + 64}, []uint64{64, 64}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
	s, gate, other := h.Stream(), h.Waitable(), h.Stream()
	h.OK("aclrtStreamWaitEvent", s, gate)
	h.OK("aclrtMemcpyBatchAsync", b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, 2, b.Attrs, b.Idx, 1, b.Fail, s)
	msg := h.Code(acl.ErrRTOverLimit, "aclrtMemcpyBatchAsync", b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, 2, b.Attrs, b.Idx, 1, b.Fail, s)
	require.Contains(t, msg, "more than the policy's 3 entries")
	h.OK("aclrtRecordEvent", gate, other)
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtMemcpyBatchAsync", b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, 2, b.Attrs, b.Idx, 1, b.Fail, s)
	h.OK("aclrtSynchronizeStream", s)
}
