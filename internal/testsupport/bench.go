package testsupport

import (
	"runtime"
	"testing"
	"time"
)

// Measure runs floor and run over b.N operations each, alternating in
// rounds of at most round operations, and returns the time per operation
// of each: the two are measured side by side, so that a load on the
// machine weighs on both alike (the performance table's ratios are taken
// this way). ns/op is the two together; the metrics ns/call (run) and
// floor-ns/op (floor) are each alone.
func Measure(b *testing.B, round int, floor, run func(n int)) (f, r float64) {
	b.ReportAllocs()
	b.ResetTimer() // the setup before is not an operation
	var tf, tr time.Duration
	for done := 0; done < b.N; done += round {
		k := min(round, b.N-done)
		t := time.Now()
		floor(k)
		t1 := time.Now()
		run(k)
		tr += time.Since(t1)
		tf += t1.Sub(t)
	}
	f, r = float64(tf.Nanoseconds())/float64(b.N), float64(tr.Nanoseconds())/float64(b.N)
	b.ReportMetric(f, "floor-ns/op")
	b.ReportMetric(r, "ns/call")
	return f, r
}

// AllocsPer returns the heap allocations of one run(1), over runs runs.
func AllocsPer(runs int, run func(n int)) float64 {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	run(runs)
	runtime.ReadMemStats(&m1)
	return float64(m1.Mallocs-m0.Mallocs) / float64(runs)
}

// Loops runs n guest iterations in calls of at most iters, call(k) running
// k of them.
func Loops(b *testing.B, n, iters int, call func(k int) uint64) {
	for done := 0; done < n; done += iters {
		if r := call(min(iters, n-done)); r != 0 {
			b.Fatalf("guest loop = %d", r)
		}
	}
}
