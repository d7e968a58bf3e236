package sim_test

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
)

// TestConcurrentUse runs independent programs on many goroutines at once,
// each with its own streams, memory and events, and checks their results;
// under -race it also checks the simulator's own synchronization.
func TestConcurrentUse(t *testing.T) {
	b := newSim(t, sim.WithMemory(256<<20), sim.WithChip(sim.AtlasA3))
	const workers, rounds, n = 8, 20, 4096
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			if err := program(t.Context(), b, int32(w%2), byte(w), rounds, n); err != nil {
				errs <- fmt.Errorf("worker %d: %w", w, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for dev := range int32(2) {
		f, total, err := b.MemInfo(dev, acl.HBMMem)
		require.NoError(t, err)
		require.Equal(t, total, f, "every worker freed what it allocated")
	}
}

// program moves data host -> A -> B (other device) -> C -> host on two
// streams ordered by an event, and checks what comes back.
func program(ctx context.Context, b *sim.Backend, dev int32, seed byte, rounds, n int) error {
	peer := 1 - dev
	s1, err := b.CreateStream(dev)
	if err != nil {
		return err
	}
	s2, err := b.CreateStream(peer)
	if err != nil {
		return err
	}
	ev, err := b.CreateEvent(dev)
	if err != nil {
		return err
	}
	a, err := b.Malloc(dev, uint64(n), acl.MemMallocHugeFirst)
	if err != nil {
		return err
	}
	bb, err := b.Malloc(peer, uint64(n), acl.MemMallocHugeFirst)
	if err != nil {
		return err
	}
	in, out := make([]byte, n), make([]byte, n)
	pin, err := b.HostRegister(in, acl.HostRegisterMapped)
	if err != nil {
		return err
	}
	for r := range rounds {
		for i := range in {
			in[i] = seed + byte(r) + byte(i)
		}
		steps := []error{
			b.MemcpyAsync(ctx, acl.Device(a), acl.Host(in, pin), uint64(n), s1),
			b.RecordEvent(ev, s1),
			b.StreamWaitEvent(s2, ev),
			b.MemcpyAsync(ctx, acl.Device(bb), acl.Device(a), uint64(n), s2),
			b.MemsetAsync(ctx, acl.Device(a), 0, uint64(n/2), s2),
			b.MemcpyBatchAsync(ctx, []acl.Copy{
				{Dst: acl.Host(out[:n/2], 0), Src: acl.Device(bb), N: uint64(n / 2)},
				{Dst: acl.Host(out[n/2:], 0), Src: acl.Device(bb + acl.DevPtr(n/2)), N: uint64(n / 2)},
			}, s2),
			b.SynchronizeStream(ctx, s2, -1),
		}
		for i, err := range steps {
			if err != nil {
				return fmt.Errorf("round %d step %d: %w", r, i, err)
			}
		}
		if !bytes.Equal(in, out) {
			return fmt.Errorf("round %d: data differs", r)
		}
		// A synchronous reader racing the queue sees whole operations.
		probe := make([]byte, n)
		if err := b.Memcpy(ctx, acl.Host(probe, 0), acl.Device(a), uint64(n)); err != nil {
			return err
		}
	}
	if err := b.HostUnregister(ctx, pin); err != nil {
		return err
	}
	for _, p := range []acl.DevPtr{a, bb} {
		if err := b.Free(ctx, p); err != nil {
			return err
		}
	}
	if err := b.DestroyEvent(ev); err != nil {
		return err
	}
	for _, s := range []acl.Stream{s1, s2} {
		if err := b.DestroyStream(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// TestSyncCopiesSeeWholeOperations races synchronous copies against queued
// memsets of the same allocation: each copy sees one memset's bytes, never
// a mix, because both take the allocation's data lock.
func TestSyncCopiesSeeWholeOperations(t *testing.T) {
	b := newSim(t)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	const n = 1 << 16
	p, err := b.Malloc(0, n, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	for v := range 200 {
		require.NoError(t, b.MemsetAsync(t.Context(), acl.Device(p), byte(v), n, s))
	}
	out := make([]byte, n)
	for range 100 {
		require.NoError(t, b.Memcpy(t.Context(), acl.Host(out, 0), acl.Device(p), n))
		require.Equal(t, bytes.Repeat(out[:1], n), out, "a torn read")
	}
	require.NoError(t, b.SynchronizeStream(t.Context(), s, -1))
}

// TestStreamChurn creates and destroys streams and events while others use
// them, and frees memory that queued work still holds.
func TestStreamChurn(t *testing.T) {
	b := newSim(t)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			ctx := context.Background()
			for range 50 {
				s, err := b.CreateStream(int32(w % 2))
				if err != nil {
					t.Error(err)
					return
				}
				p, err := b.Malloc(int32(w%2), 1<<12, acl.MemMallocHugeFirst)
				if err != nil {
					t.Error(err)
					return
				}
				e, _ := b.CreateEvent(0)
				_ = b.MemsetAsync(ctx, acl.Device(p), 1, 1<<12, s)
				_ = b.RecordEvent(e, s)
				_ = b.DestroyEvent(e)
				if err := b.Free(ctx, p); err != nil {
					t.Error(err)
				}
				if err := b.DestroyStream(ctx, s); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	f, total, err := b.MemInfo(0, acl.HBMMem)
	require.NoError(t, err)
	require.Equal(t, total, f)
}
