package sim_test

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
)

var _ acl.Computer = (*sim.Backend)(nil)

// addF32 is a launch that adds two float32 buffers of n elements into a
// third, as an operator would.
func addF32(x, y, z acl.DevPtr, n uint64) *acl.Launch {
	return &acl.Launch{
		Name:    "add",
		Regions: []acl.Region{{Ptr: x, N: 4 * n}, {Ptr: y, N: 4 * n}, {Ptr: z, N: 4 * n, Write: true}},
		Run: func(_ context.Context, m [][]byte) error {
			for i := uint64(0); i < n; i++ {
				a := math.Float32frombits(binary.LittleEndian.Uint32(m[0][4*i:]))
				b := math.Float32frombits(binary.LittleEndian.Uint32(m[1][4*i:]))
				binary.LittleEndian.PutUint32(m[2][4*i:], math.Float32bits(a+b))
			}
			return nil
		},
	}
}

func f32s(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func TestComputeRunsInStreamOrder(t *testing.T) {
	b := sim.New()
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	ctx := t.Context()
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	p, err := b.Malloc(0, 36, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	// Three tensors in one allocation, the third written: the launch
	// locks the allocation once.
	x, y, z := p, p+12, p+24
	require.NoError(t, b.Memcpy(ctx, acl.Device(x), acl.Host(f32s(1, 2, 3), 0), 12))
	release := gate(t, b, s)
	// y is written by a queued device-to-device copy the launch must follow.
	require.NoError(t, b.Memcpy(ctx, acl.Device(z), acl.Host(f32s(10, 20, 30), 0), 12))
	require.NoError(t, b.MemcpyAsync(ctx, acl.Device(y), acl.Device(z), 12, s))
	require.NoError(t, b.Compute(s, addF32(x, y, z, 3)))
	n, err := b.Pending(s)
	require.NoError(t, err)
	require.Equal(t, 3, n, "the launch is queued behind the gate and the copy")
	release()
	require.NoError(t, b.SynchronizeStream(ctx, s, -1))
	out := make([]byte, 12)
	require.NoError(t, b.Memcpy(ctx, acl.Host(out, 0), acl.Device(z), 12))
	require.Equal(t, f32s(11, 22, 33), out)
}

func TestComputeRefusesBadRegions(t *testing.T) {
	b := sim.New()
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	p, err := b.Malloc(0, 16, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	for name, l := range map[string]*acl.Launch{
		"past the end": addF32(p, p, p+4, 4),
		"null":         addF32(0, p, p, 1),
		"unknown":      addF32(p, p+1<<40, p, 1),
	} {
		err := b.Compute(s, l)
		require.ErrorIs(t, err, acl.ErrRTParamInvalid, name)
	}
	require.ErrorIs(t, b.Compute(s, &acl.Launch{Name: "nothing"}), acl.ErrInvalidParam)
	n, err := b.Pending(s)
	require.NoError(t, err)
	require.Zero(t, n, "nothing was queued")
	// A refused launch holds nothing: the allocation frees at once.
	require.NoError(t, b.Free(t.Context(), p))
}

func TestComputeFailuresFailTheStream(t *testing.T) {
	b := sim.New()
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	p, err := b.Malloc(0, 16, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	// Each as a quick launch too, which runs in the call on the idle
	// stream: it fails the stream the same way.
	for _, quick := range []bool{false, true} {
		run := func(f func(context.Context, [][]byte) error) *acl.Launch {
			return &acl.Launch{Name: "k", Regions: []acl.Region{{Ptr: p, N: 16, Write: true}}, Run: f, Quick: quick}
		}
		for _, tc := range []struct {
			name string
			l    *acl.Launch
			code acl.Error
		}{
			{"panic", run(func(context.Context, [][]byte) error { panic("boom") }), acl.ErrRTAicoreException},
			{"plain error", run(func(context.Context, [][]byte) error { return errors.New("bad") }), acl.ErrRTAicoreException},
			{"coded error", run(func(context.Context, [][]byte) error { return acl.Errorf(acl.ErrNNRuntime, "x") }), acl.ErrNNRuntime},
			{"check", &acl.Launch{Name: "k", Regions: []acl.Region{{Ptr: p, N: 1}}, Check: func() error {
				return acl.Errorf(acl.ErrRTParamInvalid, "freed")
			}, Run: func(_ context.Context, m [][]byte) error { m[0][0] = 1; return nil }, Quick: quick}, acl.ErrRTParamInvalid},
		} {
			require.NoError(t, b.Compute(s, tc.l), tc.name)
			err := b.SynchronizeStream(t.Context(), s, -1)
			require.ErrorIs(t, err, tc.code, "%s, quick %v", tc.name, quick)
			require.NoError(t, b.SynchronizeStream(t.Context(), s, -1), "%s: a synchronize clears it", tc.name)
		}
	}
	out := make([]byte, 1)
	require.NoError(t, b.Memcpy(t.Context(), acl.Host(out, 0), acl.Device(p), 1))
	require.Zero(t, out[0], "a launch whose check failed touched nothing")
}

func TestComputeHoldsItsMemoryAndStopsWhenCancelled(t *testing.T) {
	b := sim.New()
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	p, err := b.Malloc(0, 8, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	started := make(chan struct{})
	stopped := make(chan error, 1)
	require.NoError(t, b.Compute(s, &acl.Launch{Name: "long", Regions: []acl.Region{{Ptr: p, N: 8, Write: true}},
		Run: func(ctx context.Context, _ [][]byte) error {
			close(started)
			<-ctx.Done()
			stopped <- ctx.Err()
			return ctx.Err()
		}}))
	<-started
	freed := goErr(func() error { return b.Free(t.Context(), p) })
	notYet(t, freed, "Free of memory a running launch holds")
	require.NoError(t, b.DestroyStreamForce(s))
	require.ErrorIs(t, <-stopped, context.Canceled)
	require.NoError(t, <-freed)
}

// inCompute reports whether a launch runs in the Compute call that
// queued it, on the test's own goroutine: not on a stream's worker, and
// not on the test's goroutine synchronizing the stream, which may run a
// quick launch it waits for before the worker does (stream.steal).
func inCompute(test string) bool {
	buf := make([]byte, 16<<10)
	st := string(buf[:runtime.Stack(buf, false)])
	return strings.Contains(st, "sim_test."+test+"(") && // its own frame, not a closure's
		strings.Contains(st, "sim.(*Backend).Compute(")
}

// TestComputeQuickRunsInline: a quick launch of at most 64 KiB on an idle
// stream runs in the call, done when Compute returns, without waking the
// stream's worker; behind queued work, with more bytes, not quick, or on
// a stopped stream it is the worker's (or fails without effect), in
// stream order as before.
func TestComputeQuickRunsInline(t *testing.T) {
	b := newSim(t)
	ctx := t.Context()
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	p, err := b.Malloc(0, 128<<10, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	var inline, ran atomic.Int32
	launch := func(n uint64, quick bool) *acl.Launch {
		return &acl.Launch{Name: "inc", Quick: quick, Regions: []acl.Region{{Ptr: p, N: n, Write: true}},
			Run: func(_ context.Context, m [][]byte) error {
				if inCompute("TestComputeQuickRunsInline") {
					inline.Add(1)
				}
				ran.Add(1)
				m[0][0]++
				return nil
			}}
	}
	byte0 := func() byte {
		out := make([]byte, 1)
		require.NoError(t, b.Memcpy(ctx, acl.Host(out, 0), acl.Device(p), 1))
		return out[0]
	}
	require.NoError(t, b.LaunchHostFunc(s, func() error { return nil })) // the worker has started and waits again
	require.NoError(t, b.SynchronizeStream(ctx, s, -1))
	wakes := sim.Wakes(b, s)
	for range 50 {
		require.NoError(t, b.Compute(s, launch(64<<10, true)))
		runtime.Gosched() // a worker woken for nothing runs now, and counts
	}
	require.Equal(t, int32(50), inline.Load(), "quick launches on an idle stream run in the call")
	require.Equal(t, byte(50), byte0(), "done when Compute returns")
	require.Equal(t, wakes, sim.Wakes(b, s), "worker wake-ups for launches run inline")

	inline.Store(0)
	release := gate(t, b, s)
	require.NoError(t, b.Compute(s, launch(8, true))) // behind the gate
	require.Equal(t, byte(50), byte0(), "queued behind the gate")
	release()
	require.NoError(t, b.SynchronizeStream(ctx, s, -1))
	require.Zero(t, inline.Load(), "behind queued work: not in the call")
	// Each on an idle stream again.
	require.NoError(t, b.Compute(s, launch(64<<10+1, true)))
	require.NoError(t, b.SynchronizeStream(ctx, s, -1))
	require.Zero(t, inline.Load(), "past 64 KiB: not in the call")
	require.NoError(t, b.Compute(s, launch(8, false)))
	require.NoError(t, b.SynchronizeStream(ctx, s, -1))
	require.Zero(t, inline.Load(), "not quick: not in the call")
	require.Equal(t, byte(53), byte0())

	// On a stream stopped by a failure, a quick launch fails without
	// effect, as any operation there.
	require.NoError(t, b.SetStreamFailureMode(s, acl.StopOnFailure))
	require.NoError(t, b.Compute(s, &acl.Launch{Name: "fail", Quick: true, Run: func(context.Context, [][]byte) error { return errors.New("fault") }}))
	ran.Store(0)
	require.NoError(t, b.Compute(s, launch(8, true)))
	require.ErrorIs(t, b.SynchronizeStream(ctx, s, -1), acl.ErrRTAicoreException)
	require.Zero(t, ran.Load(), "a stopped stream's launch did not run")
	require.Equal(t, byte(53), byte0())
}

// TestComputeDone: a launch's Done is called once, when the simulator is
// done with it: after it ran (in the call or on the worker), when it is
// dropped by a forced destruction, or when its regions are refused.
func TestComputeDone(t *testing.T) {
	b := newSim(t)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	p, err := b.Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	var done atomic.Int32
	launch := func(n uint64, quick bool) *acl.Launch {
		return &acl.Launch{Name: "k", Quick: quick, Regions: []acl.Region{{Ptr: p, N: n}},
			Run:  func(context.Context, [][]byte) error { return nil },
			Done: func() { done.Add(1) }}
	}
	require.NoError(t, b.Compute(s, launch(8, true)))
	require.Equal(t, int32(1), done.Load(), "run in the call")
	require.NoError(t, b.Compute(s, launch(8, false)))
	require.NoError(t, b.SynchronizeStream(t.Context(), s, -1))
	require.Equal(t, int32(2), done.Load(), "run on the worker")
	require.ErrorIs(t, b.Compute(s, launch(128, true)), acl.ErrRTParamInvalid)
	require.Equal(t, int32(3), done.Load(), "refused")
	started := make(chan struct{})
	require.NoError(t, b.Compute(s, &acl.Launch{Name: "wait", Run: func(ctx context.Context, _ [][]byte) error {
		close(started)
		<-ctx.Done() // until the forced destruction
		return ctx.Err()
	}}))
	<-started
	require.NoError(t, b.Compute(s, launch(8, true)))
	require.Equal(t, int32(3), done.Load(), "queued")
	require.NoError(t, b.DestroyStreamForce(s))
	require.Equal(t, int32(4), done.Load(), "dropped")
}
