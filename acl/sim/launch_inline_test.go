package sim_test

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// TestComputeInlineHoldsStream: a quick launch run in the call holds its
// stream until it is complete, so that a look at the stream meanwhile
// (Pending, from another goroutine) waits for it and finds it done, as
// it finds an operation of the worker either queued or done.
func TestComputeInlineHoldsStream(t *testing.T) {
	b := newSim(t)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	type look struct {
		pending  int
		err      error
		finished bool
	}
	seen := make(chan look, 1)
	var finished atomic.Bool
	require.NoError(t, b.Compute(s, &acl.Launch{Name: "look", Quick: true, Run: func(context.Context, [][]byte) error {
		go func() {
			n, err := b.Pending(s)
			seen <- look{n, err, finished.Load()}
		}()
		for range 100 { // room for the goroutine to look now, if it could
			runtime.Gosched()
		}
		finished.Store(true)
		return nil
	}}))
	require.Equal(t, look{0, nil, true}, <-seen, "the look waited for the launch, and found it complete")
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
