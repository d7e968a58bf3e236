package sandbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
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
	require.NotEqual(t, int32(-1), h.call("grow", uint64(pages-4)), "grow the guest memory")
	h.ok("aclrtSetDevice", 0)
	return h
}

// repeat lays out a batch of n entries that each copy bigEntry bytes from
// bigSrc to dst.
func (h *harness) repeat(n int, dst uint64) batchArgs {
	dsts, srcs, sizes := make([]uint64, n), make([]uint64, n), make([]uint64, n)
	for i := range n {
		dsts[i], srcs[i], sizes[i] = dst, bigSrc, bigEntry
	}
	return h.batch(dsts, srcs, sizes, []acl.MemcpyBatchAttr{h2d(0)}, []uint64{0})
}

// timed calls the export name with a deadline of a second and fails the
// test if it has not returned within a minute (a watchdog): a call the
// deadline should have stopped would otherwise run for many minutes (the
// copies below move terabytes). A deadline ends the instance: its session
// is released before Call returns.
func (h *harness) timed(name string, args ...uint64) error {
	h.t.Helper()
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err := h.inst.Call(ctx, name, args...)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		h.t.Fatalf("%s (and the release) still running a minute after its deadline", name)
		return nil
	}
}

// TestTimeoutStopsSyncBatch: a synchronous batch of 4096 copies of 64 MiB
// (256 GiB) under a 1 s deadline used to run to its end (15 s and more)
// and succeed; it now stops between chunks and the call times out.
func TestTimeoutStopsSyncBatch(t *testing.T) {
	h := bigHarness(t)
	b := h.repeat(acl.BatchSyncMaxCount, h.malloc(bigEntry))
	err := h.timed("aclrtMemcpyBatch", b.dsts, b.destMaxs, b.srcs, b.sizes, acl.BatchSyncMaxCount, b.attrs, b.idx, 1, b.fail)
	require.ErrorIs(t, err, host.ErrCanceled) // timed's own deadline, not the policy's
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

// TestTimeoutStopsRunningAsyncBatch: the session's release after a timeout
// used to wait for a queued batch that had started, to its end; it now
// stops it between chunks. The batch moves 4 TiB: minutes of copying.
func TestTimeoutStopsRunningAsyncBatch(t *testing.T) {
	h := bigHarness(t)
	dst := h.malloc(bigEntry)
	h.ok("aclrtHostRegister", bigSrc, bigEntry, 0, outB)
	st := h.stream()
	const n = 1 << 16
	b := h.repeat(n, dst)
	h.ok("aclrtMemcpyBatchAsync", b.dsts, b.destMaxs, b.srcs, b.sizes, n, b.attrs, b.idx, 1, b.fail, st)
	require.ErrorIs(t, h.timed("aclrtSynchronizeStream", st), context.DeadlineExceeded) // timed's deadline: ErrCanceled
}

// TestMaxCallBytes: one call may move at most Policy.MaxCallBytes bytes,
// batches summed; beyond it 207012, naming the budget, before any effect.
func TestMaxCallBytes(t *testing.T) {
	const budget = 4096
	h := newHarness(t, host.Policy{MaxCallBytes: budget})
	h.ok("aclrtSetDevice", 0)
	d := h.malloc(2 * budget)
	st := h.stream()
	h.ok("aclrtHostRegister", data, 2*budget, 0, outB)
	h.ok("aclrtMemcpy", d, budget, data, budget, 1)
	over := func(name string, args ...uint64) {
		t.Helper()
		msg := h.code(acl.ErrRTOverLimit, name, args...)
		require.Contains(t, msg, "4096 bytes per call (MaxCallBytes)", name)
	}
	over("aclrtMemcpy", d, budget+1, data, budget+1, 1)
	over("aclrtMemcpyAsync", d, budget+1, data, budget+1, 1, st)
	over("aclrtMemset", d, budget+1, 7, budget+1)
	over("aclrtMemsetAsync", d, budget+1, 7, budget+1, st)
	over("aclrtMemcpy2d", d, 1024, data, 1024, 1024, 5, 1)
	over("aclrtMemcpy2dAsync", d, 1024, data, 1024, 1024, 5, 1, st)
	b := h.batch([]uint64{d, d + budget}, []uint64{data, data}, []uint64{budget, 1}, []acl.MemcpyBatchAttr{h2d(0)}, []uint64{0})
	over("aclrtMemcpyBatch", b.dsts, b.destMaxs, b.srcs, b.sizes, 2, b.attrs, b.idx, 1, b.fail)
	require.Equal(t, acl.FailIndexNone, h.u64(uint32(b.fail)), "no entry failed")
	over("aclrtMemcpyBatchAsync", b.dsts, b.destMaxs, b.srcs, b.sizes, 2, b.attrs, b.idx, 1, b.fail, st)
	over("aclrtMemcpyBatchV2", b.dsts, b.destMaxs, b.srcs, b.sizes, 2, b.attrs, b.idx, 1)
	over("aclrtMemcpyBatchAsyncV2", b.dsts, b.destMaxs, b.srcs, b.sizes, 2, b.attrs, b.idx, 1, st)
	h.ok("aclrtSynchronizeStream", st)
	require.Equal(t, uint64(budget), h.inst.Session().Stats().Bytes["H2D"], "only the first copy moved bytes")

	// Sizes that overflow 64 bits when summed are over any budget.
	huge := h.batch([]uint64{d, d}, []uint64{data, data}, []uint64{1 << 63, 1 << 63}, []acl.MemcpyBatchAttr{h2d(0)}, []uint64{0})
	h.code(acl.ErrRTOverLimit, "aclrtMemcpyBatch", huge.dsts, huge.destMaxs, huge.srcs, huge.sizes, 2, huge.attrs, huge.idx, 1, huge.fail)
}

// TestStatsCountOnlyWorkThatRan: bytes are counted when they move. 64
// copies of 1 MiB queued behind a long batch and cancelled by the timeout
// used to be counted as 64 MiB H2D, with the batch's 4 TiB (issue 9,
// bug 10).
func TestStatsCountOnlyWorkThatRan(t *testing.T) {
	h := bigHarness(t)
	dst := h.malloc(bigEntry)
	h.ok("aclrtHostRegister", bigSrc, bigEntry, 0, outB)
	st := h.stream()
	h.ok("aclrtMemcpyAsync", dst, 1<<20, bigSrc, 1<<20, 1, st)
	h.ok("aclrtSynchronizeStream", st)
	require.Equal(t, uint64(1<<20), h.inst.Session().Stats().Bytes["H2D"], "a copy that ran is counted")

	const n = 1 << 16 // 4 TiB: the stream stays busy past the timeout
	b := h.repeat(n, dst)
	h.ok("aclrtMemcpyBatchAsync", b.dsts, b.destMaxs, b.srcs, b.sizes, n, b.attrs, b.idx, 1, b.fail, st)
	for range 64 {
		h.ok("aclrtMemcpyAsync", dst, 1<<20, bigSrc, 1<<20, 1, st)
	}
	h.ok("aclrtMemcpy2dAsync", dst, 1024, bigSrc, 1024, 1024, 1024, 1, st)
	require.ErrorIs(t, h.timed("aclrtSynchronizeStream", st), context.DeadlineExceeded) // timed's deadline: ErrCanceled
	stats := h.inst.Session().Stats()
	require.Equal(t, map[string]uint64{"H2D": 1 << 20}, stats.Bytes, "only the first copy ran")
	require.Equal(t, uint64(65), stats.Funcs["aclrtMemcpyAsync"].Calls)
}

// TestQueueLimitRefuses: a guest that queues asynchronous copies on a
// stream held back by work ahead of them gets 207012 as soon as it is
// over the policy's MaxQueued (the default, equal to the simulator's
// queue depth), never a copy that blocks until the run's timeout.
func TestQueueLimitRefuses(t *testing.T) {
	h := newHarness(t, host.Policy{Timeout: time.Minute, DeviceMemory: 1 << 20})
	limit := sessOf(h.inst).MaxQueued()
	h.ok("aclrtSetDevice", 0)
	src, dst := h.malloc(64), h.malloc(64)
	s := h.stream()
	// Hold the stream back with the host's own work: a host function
	// queued ahead of the guest's copies that waits to be released.
	release := make(chan struct{})
	st, _, err := sessOf(h.inst).Stream(uint32(s))
	require.NoError(t, err)
	require.NoError(t, h.rt.Backend().LaunchHostFunc(st, func() error { <-release; return nil }))
	// The session counts what it queued itself: tell it of the host's.
	require.NoError(t, sessOf(h.inst).Recount(uint32(s)))
	unblocked := false
	defer func() {
		if !unblocked {
			close(release)
		}
	}()
	n := 0
	for ; n < limit+1; n++ {
		res, err := h.inst.Call(context.Background(), "aclrtMemcpyAsync", dst, 64, src, 64, uint64(acl.MemcpyDeviceToDevice), s)
		require.NoError(t, err, "copy %d: the call must not block until the timeout", n+1)
		if res[0] != 0 {
			require.Equal(t, uint64(acl.ErrRTOverLimit), res[0], "copy %d: %s", n+1, h.inst.Session().LastError())
			break
		}
	}
	// The backend counts the host function too: the guest's share of the
	// queue ends one copy short of the limit, or at it.
	require.GreaterOrEqual(t, n, limit-1, "refused early: %s", h.inst.Session().LastError())
	require.Contains(t, h.inst.Session().LastError(), "the policy's limit")
	close(release)
	unblocked = true
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtMemcpyAsync", dst, 64, src, 64, uint64(acl.MemcpyDeviceToDevice), s)
	h.ok("aclrtSynchronizeStream", s)
}
