package sim_test

import (
	"bytes"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// TestSyncCopyRacesFree races synchronous copies (which take no reference
// and no backend-wide lock) against Free of their allocation: each copy
// either runs whole on live memory or fails with 107000, and Free returns
// only once no copy touches the memory. Under -race it also checks that
// the lock-free lookup is synchronized.
func TestSyncCopyRacesFree(t *testing.T) {
	b := newSim(t)
	const n = 4096
	src := make([]byte, n)
	for i := range src {
		src[i] = byte(i)
	}
	for range 50 {
		p, err := b.Malloc(0, n, acl.MemMallocHugeFirst)
		require.NoError(t, err)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				out := make([]byte, n)
				for {
					if err := b.Memcpy(t.Context(), acl.Device(p), acl.Host(src, 0), n); err != nil {
						assert.Equal(t, acl.ErrRTParamInvalid, acl.CodeOf(err), "%v", err)
						return
					}
					if err := b.Memcpy(t.Context(), acl.Host(out, 0), acl.Device(p), n); err != nil {
						assert.Equal(t, acl.ErrRTParamInvalid, acl.CodeOf(err), "%v", err)
						return
					}
					if !assert.Equal(t, src, out) {
						return
					}
				}
			})
		}
		require.NoError(t, b.Free(t.Context(), p))
		wg.Wait()
		err = b.Memcpy(t.Context(), acl.Device(p), acl.Host(src, 0), n)
		require.Equal(t, acl.ErrRTParamInvalid, acl.CodeOf(err), "a freed allocation takes no copy")
	}
	f, total, err := b.MemInfo(0, acl.HBMMem)
	require.NoError(t, err)
	require.Equal(t, total, f)
}

// TestSynchronizeRunsSmallCopiesInOrder queues small copies onto one
// destination and synchronizes from several goroutines at once: a
// synchronize may run queued copies itself (stream.steal), and the stream
// must still run them one at a time, in order, and each synchronize must
// see every copy queued before it.
func TestSynchronizeRunsSmallCopiesInOrder(t *testing.T) {
	b := newSim(t)
	st, err := b.CreateStream(0)
	require.NoError(t, err)
	const n, rounds = 64, 300
	src, err := b.Malloc(0, n*rounds, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	dst, err := b.Malloc(0, n, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	img := make([]byte, n*rounds)
	for i := range rounds {
		for k := range n {
			img[i*n+k] = byte(i)
		}
	}
	require.NoError(t, b.Memcpy(t.Context(), acl.Device(src), acl.Host(img, 0), n*rounds))
	out := make([]byte, n)
	for i := range rounds {
		require.NoError(t, b.MemcpyAsync(t.Context(), acl.Device(dst), acl.Device(src+acl.DevPtr(i*n)), n, st))
		if i%10 != 9 {
			continue
		}
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() { assert.NoError(t, b.SynchronizeStream(t.Context(), st, -1)) })
		}
		wg.Wait()
		require.NoError(t, b.Memcpy(t.Context(), acl.Host(out, 0), acl.Device(dst), n))
		require.Equal(t, bytes.Repeat([]byte{byte(i)}, n), out, "after copy %d", i)
	}
	require.NoError(t, b.DestroyStream(t.Context(), st))
}

// TestIdleStreamRunsSmallCopy: a small asynchronous copy onto an idle
// stream has run when MemcpyAsync returns (no hand-off to the worker);
// behind queued work it waits its turn, in stream order.
func TestIdleStreamRunsSmallCopy(t *testing.T) {
	b := newSim(t)
	ctx := t.Context()
	st, err := b.CreateStream(0)
	require.NoError(t, err)
	src, err := b.Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	dst, err := b.Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	require.NoError(t, b.Memset(ctx, acl.Device(src), 7, 64))
	require.NoError(t, b.MemcpyAsync(ctx, acl.Device(dst), acl.Device(src), 64, st))
	status, err := b.StreamQuery(st)
	require.NoError(t, err)
	require.Equal(t, acl.StreamStatusComplete, status, "the copy ran in MemcpyAsync")
	out := make([]byte, 64)
	require.NoError(t, b.Memcpy(ctx, acl.Host(out, 0), acl.Device(dst), 64))
	require.Equal(t, bytes.Repeat([]byte{7}, 64), out)

	// Behind a wait for an event's next record, the copy is queued.
	ev := waitable(t, b, 0)
	require.NoError(t, b.StreamWaitEvent(st, ev))
	require.NoError(t, b.Memset(ctx, acl.Device(src), 9, 64))
	require.NoError(t, b.MemcpyAsync(ctx, acl.Device(dst), acl.Device(src), 64, st))
	status, err = b.StreamQuery(st)
	require.NoError(t, err)
	require.NotEqual(t, acl.StreamStatusComplete, status, "queued behind the wait")
	require.NoError(t, b.Memcpy(ctx, acl.Host(out, 0), acl.Device(dst), 64))
	require.Equal(t, bytes.Repeat([]byte{7}, 64), out, "not run yet")
	other, err := b.CreateStream(0)
	require.NoError(t, err)
	require.NoError(t, b.RecordEvent(ev, other))
	require.NoError(t, b.SynchronizeStream(ctx, st, -1))
	require.NoError(t, b.Memcpy(ctx, acl.Host(out, 0), acl.Device(dst), 64))
	require.Equal(t, bytes.Repeat([]byte{9}, 64), out)
}
