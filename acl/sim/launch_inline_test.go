package sim_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
)

// TestComputeInlineHoldsStream: a quick launch with regions run in the
// call holds its stream until it is complete, so that a look at the
// stream meanwhile (Pending, from another goroutine) waits for it and
// finds it done, as it finds an operation of the worker either queued or
// done. One without regions, on a stream where nothing queued waits or
// runs, takes no lock (runFree): the look does not wait for it, and finds
// nothing pending, as before the launch's call. After queued work has
// run, a failure on a stream stopped by failures has been taken by a
// synchronize, and on a default stream too, it is so again.
func TestComputeInlineHoldsStream(t *testing.T) {
	b := newSim(t)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	def, err := b.DefaultStream(0)
	require.NoError(t, err)
	p, err := b.Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	type look struct {
		pending  int
		err      error
		finished bool
	}
	// lookDuring launches a quick kernel on st that looks at st from
	// another goroutine and gives the look until it returns, or wait, to
	// come back before the kernel ends.
	lookDuring := func(st acl.Stream, regions int, wait time.Duration) look {
		seen := make(chan look, 1)
		var finished atomic.Bool
		l := &acl.Launch{Name: "look", Quick: true, Run: func(context.Context, [][]byte) error {
			go func() {
				n, err := b.Pending(st)
				seen <- look{n, err, finished.Load()}
			}()
			select { // room for the goroutine to look now, if it can
			case got := <-seen:
				seen <- got
			case <-time.After(wait):
			}
			finished.Store(true)
			return nil
		}}
		for range regions {
			l.Regions = append(l.Regions, acl.Region{Ptr: p, N: 64})
		}
		require.NoError(t, b.Compute(st, l))
		return <-seen
	}
	require.Equal(t, look{0, nil, true}, lookDuring(s, 1, 50*time.Millisecond), "with regions: the look waited for the launch, and found it complete")
	free := look{0, nil, false}
	require.Equal(t, free, lookDuring(s, 0, 10*time.Second), "without regions: the look did not wait")

	release := gate(t, b, s)
	release()
	require.Eventually(t, func() bool { // no synchronize, which looks again itself
		n, err := b.Pending(s)
		return err == nil && n == 0
	}, 10*time.Second, time.Millisecond)
	require.Equal(t, free, lookDuring(s, 0, 10*time.Second), "after queued work ran")

	require.NoError(t, b.SetStreamFailureMode(s, acl.StopOnFailure))
	require.NoError(t, b.Compute(s, &acl.Launch{Name: "fail", Quick: true, Run: func(context.Context, [][]byte) error { return errors.New("fault") }}))
	var ran atomic.Bool
	require.NoError(t, b.Compute(s, &acl.Launch{Name: "k", Quick: true, Run: func(context.Context, [][]byte) error { ran.Store(true); return nil }}))
	require.False(t, ran.Load(), "a stream stopped by a failure runs no launch, free or not")
	require.ErrorIs(t, b.SynchronizeStream(t.Context(), s, -1), acl.ErrRTAicoreException, "a free launch's failure fails its stream")
	require.Equal(t, free, lookDuring(s, 0, 10*time.Second), "after the synchronize took the failure")
	require.Equal(t, free, lookDuring(def, 0, 10*time.Second), "a default stream")
}

// TestComputeInlineRecordsReused: the launch records that quick launches
// reuse start clean whatever the launch before held: each Run gets one
// slice per region, of its size, and each Done is called once, in the
// call or on the worker, refused launches included.
func TestComputeInlineRecordsReused(t *testing.T) {
	b := newSim(t)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	var ps [6]acl.DevPtr
	for i := range ps {
		p, err := b.Malloc(0, 4096, acl.MemMallocHugeFirst)
		require.NoError(t, err)
		ps[i] = p
	}
	var ran, done atomic.Int32
	launch := func(n int, quick bool) *acl.Launch {
		l := &acl.Launch{Name: "k", Quick: quick, Done: func() { done.Add(1) }}
		for i := range n {
			l.Regions = append(l.Regions, acl.Region{Ptr: ps[i] + acl.DevPtr(i), N: uint64(8 * (i + 1)), Write: i%2 == 0})
		}
		l.Run = func(_ context.Context, mem [][]byte) error {
			if len(mem) != n {
				return acl.Errorf(acl.ErrInternal, "%d regions, %d slices", n, len(mem))
			}
			for i, m := range mem {
				if len(m) != 8*(i+1) {
					return acl.Errorf(acl.ErrInternal, "region %d: %d bytes", i, len(m))
				}
			}
			ran.Add(1)
			return nil
		}
		return l
	}
	want := int32(0)
	for i := range 60 {
		n := []int{3, 0, 6, 1, 0, 5}[i%6] // past the 4 regions held inline too
		require.NoError(t, b.Compute(s, launch(n, i%5 != 0)))
		want++
		if i%7 == 0 { // refused: a region past its allocation
			bad := launch(1, true)
			bad.Regions[0].N = 8192
			require.ErrorIs(t, b.Compute(s, bad), acl.ErrRTParamInvalid)
		}
	}
	require.NoError(t, b.SynchronizeStream(t.Context(), s, -1))
	require.Equal(t, want, ran.Load())
	require.Equal(t, want+9, done.Load(), "every launch done once, the refused ones too")
}

// TestComputeNoRegionsClosed: a launch without regions, which holds no
// memory, is refused by a closed simulator as any other.
func TestComputeNoRegionsClosed(t *testing.T) {
	b := newSim(t)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	var ran atomic.Int32
	l := func() *acl.Launch {
		return &acl.Launch{Name: "k", Quick: true, Run: func(context.Context, [][]byte) error { ran.Add(1); return nil }}
	}
	require.NoError(t, b.Compute(s, l()))
	require.NoError(t, b.Close())
	require.ErrorIs(t, b.Compute(s, l()), acl.ErrRTContextNull)
	require.Equal(t, int32(1), ran.Load())
}

// TestComputeInCall: a quick launch that runs in its call, with regions or
// without, is marked InCall before its Check, Run and Done see it; one
// queued behind other work, or not quick, is not; Run's context is never
// done in its call. A panic in one run in the call fails the stream as on
// the worker, which goes on.
func TestComputeInCall(t *testing.T) {
	b := newSim(t)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	p, err := b.Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	type seen struct{ check, run, done bool }
	launch := func(quick bool, regions int, got *seen) *acl.Launch {
		l := &acl.Launch{Name: "k", Quick: quick}
		for range regions {
			l.Regions = append(l.Regions, acl.Region{Ptr: p, N: 64})
		}
		l.Check = func() error { got.check = l.InCall; return nil }
		// In its call, Run's context is never done (acl.Launch.InCall).
		l.Run = func(ctx context.Context, _ [][]byte) error { got.run = l.InCall && ctx.Done() == nil; return nil }
		l.Done = func() { got.done = l.InCall }
		return l
	}
	for _, regions := range []int{0, 1} {
		var got seen
		require.NoError(t, b.Compute(s, launch(true, regions, &got)))
		require.Equal(t, seen{true, true, true}, got, "quick, idle stream, %d regions: ran in the call", regions)
		got = seen{}
		require.NoError(t, b.Compute(s, launch(false, regions, &got)))
		require.NoError(t, b.SynchronizeStream(t.Context(), s, -1))
		require.Equal(t, seen{}, got, "not quick: on the worker")
	}
	release := make(chan struct{})
	require.NoError(t, b.Compute(s, &acl.Launch{Name: "block", Run: func(context.Context, [][]byte) error { <-release; return nil }}))
	got := seen{true, true, true}
	require.NoError(t, b.Compute(s, launch(true, 0, &got)))
	close(release)
	require.NoError(t, b.SynchronizeStream(t.Context(), s, -1))
	require.Equal(t, seen{}, got, "queued behind other work: on the worker")

	require.NoError(t, b.Compute(s, &acl.Launch{Name: "bug", Quick: true, Run: func(context.Context, [][]byte) error { panic("kernel bug") }}))
	err = b.SynchronizeStream(t.Context(), s, -1)
	require.ErrorIs(t, err, acl.ErrRTAicoreException)
	require.ErrorContains(t, err, "bug failed on the device: it panicked: kernel bug")
	var again seen
	require.NoError(t, b.Compute(s, launch(true, 0, &again)))
	require.Equal(t, seen{true, true, true}, again, "the stream goes on")
}

// TestComputeCheckHostBug: a panic in a launch's Check (the caller's
// recheck, a host bug) fails its stream with ACL_ERROR_INTERNAL_ERROR and
// a host bug's message, not as a device fault of its kernel, wherever it
// runs: in the call (quick, with regions or without: Check and Run under
// one guard), or on the worker; Run is not called, and the stream goes
// on. A launch whose Run recovers its own panics (acl.Launch.Recovers)
// keeps the guard of its Check.
func TestComputeCheckHostBug(t *testing.T) {
	b := newSim(t)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	p, err := b.Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	for _, c := range []struct {
		quick, recovers bool
		regions         int
	}{{true, false, 0}, {true, false, 1}, {false, false, 0}, {false, false, 1}, {true, true, 0}, {false, true, 0}} {
		l := &acl.Launch{Name: "k", Quick: c.quick, Recovers: c.recovers, Check: func() error { panic("the check's bug") },
			Run: func(context.Context, [][]byte) error { panic("ran after its check panicked") }}
		for range c.regions {
			l.Regions = append(l.Regions, acl.Region{Ptr: p, N: 64, Write: true})
		}
		require.NoError(t, b.Compute(s, l))
		err = b.SynchronizeStream(t.Context(), s, -1)
		require.ErrorIs(t, err, acl.ErrInternal, "%+v", c)
		require.ErrorContains(t, err, "host bug: k: the launch's check panicked: the check's bug", "%+v", c)
		var ran bool
		require.NoError(t, b.Compute(s, &acl.Launch{Name: "after", Quick: c.quick, Regions: l.Regions,
			Run: func(context.Context, [][]byte) error { ran = true; return nil }}))
		require.NoError(t, b.SynchronizeStream(t.Context(), s, -1), "%+v", c)
		require.True(t, ran, "%+v: the stream goes on", c)
	}
}

// TestComputeQuickLargeQueued: a quick launch too large to run in its
// call is queued, not run by Compute, even on an idle stream (a
// synchronizing caller may run it, as the worker would); a Force-cancel
// stops it wherever it runs, and the stream's worker or caller goes on.
func TestComputeQuickLargeQueued(t *testing.T) {
	b := newSim(t)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	p, err := b.Malloc(0, 2*sim.SmallAsync, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	started, release := make(chan struct{}), make(chan struct{})
	l := &acl.Launch{Name: "large", Quick: true, Regions: []acl.Region{{Ptr: p, N: 2 * sim.SmallAsync, Write: true}},
		Run: func(context.Context, [][]byte) error {
			close(started)
			<-release
			return nil
		}}
	queued := make(chan error, 1)
	go func() { queued <- b.Compute(s, l) }()
	select {
	case <-time.After(time.Minute):
		t.Fatal("Compute ran the launch in its call")
	case err := <-queued:
		require.NoError(t, err)
	}
	select {
	case <-time.After(time.Minute):
		t.Fatal("the launch never ran")
	case <-started:
	}
	close(release)
	require.NoError(t, b.SynchronizeStream(t.Context(), s, -1))

	for range 20 { // whoever runs it, the synchronizing caller or the worker
		running := make(chan struct{})
		require.NoError(t, b.Compute(s, &acl.Launch{Name: "spin", Quick: true, Regions: []acl.Region{{Ptr: p, N: 2 * sim.SmallAsync}},
			Run: func(ctx context.Context, _ [][]byte) error {
				close(running)
				<-ctx.Done()
				return ctx.Err()
			}}))
		synced := make(chan error, 1)
		go func() { synced <- b.SynchronizeStream(context.Background(), s, -1) }()
		<-running
		require.NoError(t, b.DestroyStreamForce(s))
		select {
		case <-time.After(time.Minute):
			t.Fatal("the cancelled launch never stopped")
		case err := <-synced:
			require.Error(t, err)
		}
		s, err = b.CreateStream(0)
		require.NoError(t, err)
	}
}

// TestComputeFreeConcurrent: quick launches without regions, run in their
// call without the stream's lock (runFree), against another goroutine that
// queues work on the same stream, looks at it, synchronizes it and then
// destroys it: each launch that Compute accepted ran once, and its Done
// was called once; what was queued ran in order; after the destroy the
// launches are refused. Run with -race: the look without the lock reads
// only the stream's published state.
func TestComputeFreeConcurrent(t *testing.T) {
	b := newSim(t)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	var ran atomic.Int64
	var dones []*atomic.Int32 // the accepted launches' Done calls
	stop := make(chan struct{})
	launched := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				launched <- nil
				return
			default:
			}
			n := new(atomic.Int32)
			err := b.Compute(s, &acl.Launch{Name: "k", Quick: true,
				Run:  func(context.Context, [][]byte) error { ran.Add(1); return nil },
				Done: func() { n.Add(1) }})
			if err != nil {
				if n.Load() > 1 {
					err = fmt.Errorf("a refused launch's Done was called %d times", n.Load())
				}
				launched <- err
				return
			}
			dones = append(dones, n)
		}
	}()
	var order []int
	for i := range 200 {
		require.NoError(t, b.LaunchHostFunc(s, func() error { order = append(order, i); return nil }))
		if i%3 == 0 {
			_, err := b.Pending(s)
			require.NoError(t, err)
		}
		if i%10 == 0 {
			require.NoError(t, b.SynchronizeStream(t.Context(), s, -1))
		}
	}
	require.NoError(t, b.SynchronizeStream(t.Context(), s, -1))
	require.Len(t, order, 200)
	for i, v := range order {
		require.Equal(t, i, v, "queued work in order")
	}
	require.NoError(t, b.DestroyStream(t.Context(), s))
	require.ErrorIs(t, <-launched, acl.ErrRTInvalidHandle, "refused once the stream is gone")
	close(stop)
	require.NotEmpty(t, dones)
	require.Equal(t, int64(len(dones)), ran.Load(), "each accepted launch ran")
	for i, n := range dones {
		require.Equal(t, int32(1), n.Load(), "launch %d: its Done was called once", i)
	}
}
