package wazero

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMemPoolKeepsBurst: the pool keeps the reservations of a burst of
// instances up to poolMax (a server with 64 requests in flight finds 64
// at the next burst), refuses the one past it, and hands them back
// zeroed.
func TestMemPoolKeepsBurst(t *testing.T) {
	var p memPool
	defer p.close()
	const size = 4 * 64 << 10
	for i := range poolMax + 1 {
		r, err := reserve(size)
		require.NoError(t, err)
		r[i%size] = 0xa5
		if !p.put(r, size) {
			require.Equal(t, poolMax, i, "refused before poolMax")
			require.GreaterOrEqual(t, i, 64, "a burst of 64 not kept")
			unreserve(r)
		}
	}
	require.Equal(t, poolMax, p.n)
	for i := range poolMax {
		r := p.get(size)
		require.NotNil(t, r, "reservation %d", i)
		for j, c := range r {
			if c != 0 {
				t.Fatalf("reservation %d: byte %d is %#x", i, j, c)
			}
		}
		unreserve(r)
	}
	require.Nil(t, p.get(size))
	require.Zero(t, p.resident)
}

// TestMemPoolResidentBound: what the kept reservations leave resident
// stays within poolResident; a reservation whose pages went back to the
// kernel costs none.
func TestMemPoolResidentBound(t *testing.T) {
	var p memPool
	defer p.close()
	const size = 2 * scrubInPlace
	touch := func(r []byte, n int) {
		for i := 0; i < n; i += pageSize {
			r[i] = 1
		}
	}
	kept := 0
	for range poolResident/scrubInPlace + 1 {
		r, err := reserve(size)
		require.NoError(t, err)
		touch(r, scrubInPlace) // cleared in place, resident
		if p.put(r, size) {
			kept++
		} else {
			unreserve(r)
		}
	}
	require.LessOrEqual(t, p.resident, uint64(poolResident))
	if !swapless() {
		t.Log("the system swaps: every scrub went back to the kernel")
		require.Equal(t, poolResident/scrubInPlace+1, kept)
		require.Zero(t, p.resident)
		return
	}
	require.Equal(t, poolResident/scrubInPlace, kept, "kept up to the bound")
	require.Equal(t, uint64(poolResident), p.resident)

	// Past the bound, one whose pages go back to the kernel is kept
	// neither: the bound is checked first. Once one is taken, it is.
	r, err := reserve(size)
	require.NoError(t, err)
	touch(r, size)
	require.False(t, p.put(r, size))
	unreserve(p.get(size))
	require.Equal(t, uint64(poolResident-scrubInPlace), p.resident)
	require.True(t, p.put(r, size), "more than scrubInPlace resident: back to the kernel, kept")
	require.Equal(t, uint64(poolResident-scrubInPlace), p.resident)
}
