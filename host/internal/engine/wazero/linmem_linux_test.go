package wazero

import (
	"bytes"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// settle waits until p's scrubber has stopped.
func (p *memPool) settle() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.scrubbing {
		p.wait()
	}
}

// requireZero fails t where a byte of r is not zero.
func requireZero(t *testing.T, r []byte, what string) {
	t.Helper()
	for i := 0; i < len(r); i += pageSize {
		p := r[i:min(i+pageSize, len(r))]
		if !bytes.Equal(p, zeroPage[:len(p)]) {
			t.Fatalf("%s: a byte at %d is not zero", what, i)
		}
	}
}

// TestMemPoolKeepsBurst: the pool keeps the reservations of a burst of
// instances up to poolMax (a server with 64 requests in flight finds 64
// at the next burst), refuses the one past it, and hands them back
// zeroed, scrubbed by its goroutine or by get.
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
	for i := range poolMax {
		r := p.get(size)
		require.NotNil(t, r, "reservation %d", i)
		require.Len(t, r, size)
		requireZero(t, r, "a reservation of the burst")
		unreserve(r)
	}
	require.Nil(t, p.get(size))
	p.settle()
	p.mu.Lock()
	defer p.mu.Unlock()
	require.Zero(t, p.n)
	require.Zero(t, p.resident)
}

// TestMemPoolGetWhileScrubbing: a get right after a put finds the
// reservation, zeroed, whether the scrubber has it done, has it in hand
// (get waits) or has not begun (get scrubs it): the pool never answers
// nil while it holds one of the size.
func TestMemPoolGetWhileScrubbing(t *testing.T) {
	var p memPool
	defer p.close()
	const size = 16 << 20 // mincore over 16 MiB: a scrub long enough to be caught
	r, err := reserve(size)
	require.NoError(t, err)
	var written []int // reading every byte would make all pages resident
	for i := range 200 {
		off := (i * pageSize * 7) % size
		written = append(written, off)
		r[off] = byte(i) | 1
		require.True(t, p.put(r, size))
		r = p.get(size)
		require.NotNil(t, r, "get %d", i)
		require.Len(t, r, size)
		for _, o := range written {
			require.Zero(t, r[o], "get %d: the byte at %d", i, o)
		}
	}
	unreserve(r)
}

// TestMemPoolScrubsSmallInline: a reservation of which the guest touched
// a page or less is scrubbed by put itself: kept at once, zeroed, with no
// goroutine started; after close, refused as any other.
func TestMemPoolScrubsSmallInline(t *testing.T) {
	var p memPool
	const size = 4 << 20
	r, err := reserve(size)
	require.NoError(t, err)
	r[0], r[scrubInline-1] = 1, 1
	require.True(t, p.put(r, scrubInline))
	p.mu.Lock()
	scrubbing, dirty, kept := p.scrubbing, len(p.dirty), len(p.free[size])
	p.mu.Unlock()
	require.False(t, scrubbing, "no goroutine for a page")
	require.Zero(t, dirty)
	require.Equal(t, 1, kept)
	r = p.get(size)
	require.NotNil(t, r)
	require.Zero(t, r[0])
	require.Zero(t, r[scrubInline-1])
	p.close()
	require.False(t, p.put(r, scrubInline))
	unreserve(r)
}

// TestMemPoolCloseDuringInlineScrub: a close while releasing calls scrub
// their small memories themselves leaves nothing counted: each put's
// reservation is unmapped once, by the put when it finds the pool closed.
func TestMemPoolCloseDuringInlineScrub(t *testing.T) {
	const size = 4 << 20
	for trial := range 200 {
		var p memPool
		var wg, started sync.WaitGroup
		for range 8 {
			r, err := reserve(size)
			require.NoError(t, err)
			for i := 0; i < scrubInline; i += pageSize {
				r[i] = 1
			}
			started.Add(1)
			wg.Go(func() {
				started.Done()
				if !p.put(r, scrubInline) {
					unreserve(r)
				}
			})
		}
		started.Wait()
		for range trial % 8 { // close at another moment of the scrubs each time
			runtime.Gosched()
		}
		p.close()
		wg.Wait()
		require.Zero(t, p.n)
		require.Empty(t, p.free)
	}
}

// TestMemPoolCloseWhileScrubbing: close waits for the scrubber and
// unmaps what was still to be scrubbed; a put after close is refused.
func TestMemPoolCloseWhileScrubbing(t *testing.T) {
	var p memPool
	const size = 4 << 20
	for range 32 {
		r, err := reserve(size)
		require.NoError(t, err)
		r[size-1] = 1
		require.True(t, p.put(r, size))
	}
	p.close()
	require.False(t, p.scrubbing)
	require.Zero(t, p.n)
	require.Nil(t, p.get(size))
	r, err := reserve(size)
	require.NoError(t, err)
	require.False(t, p.put(r, size))
	unreserve(r)
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
	const tries = poolResident/scrubInPlace + 1
	for range tries {
		r, err := reserve(size)
		require.NoError(t, err)
		touch(r, scrubInPlace) // cleared in place, left resident
		if !p.put(r, size) {
			unreserve(r)
		}
	}
	p.settle()
	p.mu.Lock()
	kept, resident := len(p.free[size]), p.resident
	p.mu.Unlock()
	if !swapless() {
		t.Log("the system swaps: every scrub went back to the kernel")
		require.Equal(t, tries, kept)
		require.Zero(t, resident)
		return
	}
	require.Equal(t, tries-1, kept, "kept up to the bound")
	require.Equal(t, uint64(poolResident), resident)

	// At the bound, even one whose pages go back to the kernel is
	// refused; once one is taken, it is kept, costing nothing resident.
	r, err := reserve(size)
	require.NoError(t, err)
	touch(r, size)
	require.False(t, p.put(r, size))
	unreserve(p.get(size))
	require.True(t, p.put(r, size))
	p.settle()
	p.mu.Lock()
	defer p.mu.Unlock()
	require.Equal(t, uint64(poolResident-scrubInPlace), p.resident, "more than scrubInPlace resident: back to the kernel")
	require.Equal(t, tries-1, len(p.free[size]))
}
