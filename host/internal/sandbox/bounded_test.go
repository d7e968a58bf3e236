package sandbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
)

// Issue 9, bug 3: timeouts bound every host call, and a call's cost is
// bounded by Policy.MaxCallBytes in the first place.

const (
	bigEntry = 64 << 20 // one batch entry: 64 MiB of guest memory at bigSrc
	bigSrc   = 4 << 20  // above the batch arrays at 0x20000
)

// bigHarness is a harness whose guest memory holds bigEntry bytes at bigSrc,
// with the per-call budget lifted so that only a timeout bounds a call.
// The policy's timeout is generous, for the setup on a loaded machine; the
// calls under test get a short deadline of their own (timed).
func bigHarness(t *testing.T) *harness {
	h := newHarness(t, host.Policy{Timeout: time.Minute, MaxCallBytes: 1 << 62, MemoryPages: 2048})
	pages := (bigSrc + bigEntry + 65535) / 65536
	require.NotEqual(t, int32(-1), h.Call("grow", uint64(pages-4)), "grow the guest memory")
	h.OK("aclrtSetDevice", 0)
	return h
}

// repeat lays out a batch of n entries that each copy bigEntry bytes from
// bigSrc to dst.
func (h *harness) repeat(n int, dst uint64) proxytest.BatchArgs {
	dsts, srcs, sizes := make([]uint64, n), make([]uint64, n), make([]uint64, n)
	for i := range n {
		dsts[i], srcs[i], sizes[i] = dst, bigSrc, bigEntry
	}
	return h.Batch(dsts, srcs, sizes, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
}

// timed calls the export name with a deadline of a second and fails the
// test if it has not returned within a minute (a watchdog): a call the
// deadline should have stopped would otherwise run for many minutes (the
// copies below move terabytes). A deadline ends the instance: its session
// is released before Call returns.
func (h *harness) timed(name string, args ...uint64) error {
	h.T.Helper()
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err := h.Inst.Call(ctx, name, args...)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		h.T.Fatalf("%s (and the release) still running a minute after its deadline", name)
		return nil
	}
}

// TestTimeoutStopsSyncBatch: a synchronous batch of 4096 copies of 64 MiB
// (256 GiB) under a 1 s deadline used to run to its end (15 s and more)
// and succeed; it now stops between chunks and the call times out.
func TestTimeoutStopsSyncBatch(t *testing.T) {
	h := bigHarness(t)
	b := h.repeat(acl.BatchSyncMaxCount, h.Malloc(bigEntry))
	err := h.timed("aclrtMemcpyBatch", b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, acl.BatchSyncMaxCount, b.Attrs, b.Idx, 1, b.Fail)
	require.ErrorIs(t, err, host.ErrCanceled) // timed's own deadline, not the policy's
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

// TestTimeoutStopsRunningAsyncBatch: the session's release after a timeout
// used to wait for a queued batch that had started, to its end; it now
// stops it between chunks. The batch moves 4 TiB: minutes of copying.
func TestTimeoutStopsRunningAsyncBatch(t *testing.T) {
	h := bigHarness(t)
	dst := h.Malloc(bigEntry)
	h.OK("aclrtHostRegister", bigSrc, bigEntry, 0, outB)
	st := h.Stream()
	const n = 1 << 16
	b := h.repeat(n, dst)
	h.OK("aclrtMemcpyBatchAsync", b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, n, b.Attrs, b.Idx, 1, b.Fail, st)
	require.ErrorIs(t, h.timed("aclrtSynchronizeStream", st), context.DeadlineExceeded) // timed's deadline: ErrCanceled
}

// TestMaxCallBytes: one call may move at most Policy.MaxCallBytes bytes,
// batches summed; beyond it 207012, naming the budget, before any effect.
func TestMaxCallBytes(t *testing.T) {
	const budget = 4096
	h := newHarness(t, host.Policy{MaxCallBytes: budget})
	h.OK("aclrtSetDevice", 0)
	d := h.Malloc(2 * budget)
	st := h.Stream()
	h.OK("aclrtHostRegister", data, 2*budget, 0, outB)
	h.OK("aclrtMemcpy", d, budget, data, budget, 1)
	over := func(name string, args ...uint64) {
		t.Helper()
		msg := h.Code(acl.ErrRTOverLimit, name, args...)
		require.Contains(t, msg, "4096 bytes per call (MaxCallBytes)", name)
	}
	over("aclrtMemcpy", d, budget+1, data, budget+1, 1)
	over("aclrtMemcpyAsync", d, budget+1, data, budget+1, 1, st)
	over("aclrtMemset", d, budget+1, 7, budget+1)
	over("aclrtMemsetAsync", d, budget+1, 7, budget+1, st)
	over("aclrtMemcpy2d", d, 1024, data, 1024, 1024, 5, 1)
	over("aclrtMemcpy2dAsync", d, 1024, data, 1024, 1024, 5, 1, st)
	b := h.Batch([]uint64{d, d + budget}, []uint64{data, data}, []uint64{budget, 1}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
	over("aclrtMemcpyBatch", b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, 2, b.Attrs, b.Idx, 1, b.Fail)
	require.Equal(t, acl.FailIndexNone, h.U64(uint32(b.Fail)), "no entry failed")
	over("aclrtMemcpyBatchAsync", b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, 2, b.Attrs, b.Idx, 1, b.Fail, st)
	over("aclrtMemcpyBatchV2", b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, 2, b.Attrs, b.Idx, 1)
	over("aclrtMemcpyBatchAsyncV2", b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, 2, b.Attrs, b.Idx, 1, st)
	h.OK("aclrtSynchronizeStream", st)
	require.Equal(t, uint64(budget), h.Inst.Session().Stats().Bytes["H2D"], "only the first copy moved bytes")

	// Sizes that overflow 64 bits when summed are over any budget.
	huge := h.Batch([]uint64{d, d}, []uint64{data, data}, []uint64{1 << 63, 1 << 63}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
	h.Code(acl.ErrRTOverLimit, "aclrtMemcpyBatch", huge.Dsts, huge.DestMaxs, huge.Srcs, huge.Sizes, 2, huge.Attrs, huge.Idx, 1, huge.Fail)
}

// TestStatsCountOnlyWorkThatRan: bytes are counted when they move. 64
// copies of 1 MiB queued behind a long batch and cancelled by the timeout
// used to be counted as 64 MiB H2D, with the batch's 4 TiB (issue 9,
// bug 10).
func TestStatsCountOnlyWorkThatRan(t *testing.T) {
	h := bigHarness(t)
	dst := h.Malloc(bigEntry)
	h.OK("aclrtHostRegister", bigSrc, bigEntry, 0, outB)
	st := h.Stream()
	h.OK("aclrtMemcpyAsync", dst, 1<<20, bigSrc, 1<<20, 1, st)
	h.OK("aclrtSynchronizeStream", st)
	require.Equal(t, uint64(1<<20), h.Inst.Session().Stats().Bytes["H2D"], "a copy that ran is counted")

	const n = 1 << 16 // 4 TiB: the stream stays busy past the timeout
	b := h.repeat(n, dst)
	h.OK("aclrtMemcpyBatchAsync", b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, n, b.Attrs, b.Idx, 1, b.Fail, st)
	for range 64 {
		h.OK("aclrtMemcpyAsync", dst, 1<<20, bigSrc, 1<<20, 1, st)
	}
	h.OK("aclrtMemcpy2dAsync", dst, 1024, bigSrc, 1024, 1024, 1024, 1, st)
	require.ErrorIs(t, h.timed("aclrtSynchronizeStream", st), context.DeadlineExceeded) // timed's deadline: ErrCanceled
	stats := h.Inst.Session().Stats()
	require.Equal(t, map[string]uint64{"H2D": 1 << 20}, stats.Bytes, "only the first copy ran")
	require.Equal(t, uint64(65), stats.Funcs["aclrtMemcpyAsync"].Calls)
}

// TestQueueLimitRefuses: a guest that queues asynchronous copies on a
// stream held back by work ahead of them gets 207012 as soon as it is
// over the policy's MaxQueued (the default, equal to the simulator's
// queue depth), never a copy that blocks until the run's timeout.
func TestQueueLimitRefuses(t *testing.T) {
	h := newHarness(t, host.Policy{Timeout: time.Minute, DeviceMemory: 1 << 20})
	limit := proxytest.Session(h.Inst).MaxQueued()
	h.OK("aclrtSetDevice", 0)
	src, dst := h.Malloc(64), h.Malloc(64)
	s := h.Stream()
	// Hold the stream back with the host's own work: a host function
	// queued ahead of the guest's copies that waits to be released.
	release := make(chan struct{})
	st, _, err := proxytest.Session(h.Inst).Stream(uint32(s))
	require.NoError(t, err)
	require.NoError(t, h.RT.Backend().LaunchHostFunc(st, func() error { <-release; return nil }))
	// The session counts what it queued itself: tell it of the host's.
	require.NoError(t, proxytest.Session(h.Inst).Recount(uint32(s)))
	unblocked := false
	defer func() {
		if !unblocked {
			close(release)
		}
	}()
	n := 0
	for ; n < limit+1; n++ {
		res, err := h.Inst.Call(context.Background(), "aclrtMemcpyAsync", dst, 64, src, 64, uint64(acl.MemcpyDeviceToDevice), s)
		require.NoError(t, err, "copy %d: the call must not block until the timeout", n+1)
		if res[0] != 0 {
			require.Equal(t, uint64(acl.ErrRTOverLimit), res[0], "copy %d: %s", n+1, h.Inst.Session().LastError())
			break
		}
	}
	// The backend counts the host function too: the guest's share of the
	// queue ends one copy short of the limit, or at it.
	require.GreaterOrEqual(t, n, limit-1, "refused early: %s", h.Inst.Session().LastError())
	require.Contains(t, h.Inst.Session().LastError(), "the policy's limit")
	close(release)
	unblocked = true
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtMemcpyAsync", dst, 64, src, 64, uint64(acl.MemcpyDeviceToDevice), s)
	h.OK("aclrtSynchronizeStream", s)
}
