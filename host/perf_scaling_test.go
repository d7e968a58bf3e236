package host_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// The goal benchmarks of large copies across sessions and of large
// asynchronous copies (the second performance issue, #25): each measures
// the sandboxed path against copy() of the same bytes in the same run (see
// measure in perf_test.go).

// scalingSrc is where the scaling sessions' guests keep the bytes they copy.
const scalingSrc = 0x10000

// BenchmarkGoal9Scaling1MiB (goal 9): g sessions of one runtime, each on
// its own goroutine, copying 1 MiB of their guest memory to their device
// memory with synchronous aclrtMemcpy in guest loops, against g goroutines
// each doing copy() from the same guest memory (the engine's mapping of
// it) to a buffer of the kind the simulator's device memory is. x-copy:
// the sessions' throughput over the goroutines' (goal: >= 0.9). x-heap, a
// reference: the same over g goroutines copying between two Go buffers of
// their own, since guest memory is the engine's mapping, not Go's heap.
func BenchmarkGoal9Scaling1MiB(b *testing.B) {
	for _, g := range []int{2, 4, 16, 64} {
		b.Run(fmt.Sprintf("sessions=%d", g), func(b *testing.B) { benchScalingCopy(b, g, 1<<20, 8) })
	}
}

func benchScalingCopy(b *testing.B, g int, size uint64, iters int) {
	rt, pl := goalPlugin(b, int((scalingSrc+size)>>16)+1)
	hs := make([]*goalHarness, g)
	bufs, heap := make([][2][]byte, g), make([][2][]byte, g)
	for i := range hs {
		hs[i] = newGoalHarness(b, rt, pl, size)
		// dst: Go memory, as the simulator allocates device memory.
		bufs[i] = [2][]byte{make([]byte, size), hs[i].Mem()[scalingSrc : scalingSrc+size]}
		copy(bufs[i][0], bufs[i][1])
		heap[i] = [2][]byte{make([]byte, size), make([]byte, size)}
		copy(heap[i][0], bufs[i][1])
		copy(heap[i][1], heap[i][0])
	}
	per := g * iters // copies per operation
	copies := func(bufs [][2][]byte) func(n int) {
		return func(n int) {
			spread(g, n*per, 1, func(i, k int) {
				for range k {
					copy(bufs[i][0], bufs[i][1])
				}
			})
		}
	}
	run := func(n int) {
		n *= per
		spread(g, n, iters, func(i, k int) {
			h := hs[i]
			res, err := h.Inst.Call(context.Background(), "memcpy_loop", h.dev, scalingSrc, size, 1, uint64(k))
			if err != nil || res[0] != 0 {
				b.Errorf("memcpy_loop = %v, %v", res, err)
			}
		})
	}
	// The reference first: measure resets the timer, and b.N is chosen
	// for the second.
	hf, hr := testsupport.Measure(b, 1, copies(heap), run)
	f, r := testsupport.Measure(b, 1, copies(bufs), run)
	b.ReportMetric(f/r, "x-copy")
	b.ReportMetric(hf/hr, "x-heap")
}

// spread runs n units of work on g goroutines, goroutine i taking them in
// steps of at most step, work(i, k) doing k units.
func spread(g, n, step int, work func(i, k int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for i := range g {
		wg.Go(func() {
			for {
				k := int(next.Add(int64(step))) - step
				if k >= n {
					return
				}
				work(i, min(step, n-k))
			}
		})
	}
	wg.Wait()
}

// BenchmarkGoal10Large64MiB (goal 10): 64 MiB from device memory to
// registered guest memory, by aclrtMemcpyAsync followed by
// aclrtSynchronizeStream (async), and by aclrtMemcpy (sync), against
// copy() of 64 MiB. x-copy: the throughput over copy()'s between two Go
// buffers (goal: >= 0.95). x-guest, a reference: the same over copy() from
// a Go buffer into the guest's memory, which is the engine's mapping and
// may cost more to write than Go's heap.
func BenchmarkGoal10Large64MiB(b *testing.B) {
	const size = 64 << 20
	const dst = 0x10000
	h := newGoal(b, int((dst+size)>>16)+1, size)
	// Write the device memory: pages never written read as the kernel's
	// zero page, which stays in the caches and would flatter the copies.
	require.Zero(b, uint32(h.Result(b, "aclrtMemcpy", h.dev, size, dst, size, 1)))
	st := h.asyncSetup(b, dst, size)
	into := h.Mem()[dst : dst+size]
	from := make([]byte, size)
	copy(from, into)
	guest := func(n int) {
		for range n {
			copy(into, from)
		}
	}
	bench := func(b *testing.B, run func(n int)) {
		gf, gr := testsupport.Measure(b, 1, guest, run) // the reference first: see benchScalingCopy
		f, r := testsupport.Measure(b, 1, copyFloor(size), run)
		b.ReportMetric(f/r, "x-copy")
		b.ReportMetric(gf/gr, "x-guest")
	}
	b.Run("async", func(b *testing.B) { bench(b, h.asyncPairsKind(b, dst, h.dev, size, 2, st, 4)) })
	b.Run("sync", func(b *testing.B) {
		bench(b, func(n int) {
			testsupport.Loops(b, n, 4, func(k int) uint64 { return h.Result(b, "memcpy_loop", dst, h.dev, size, 2, uint64(k)) })
		})
	})
}
