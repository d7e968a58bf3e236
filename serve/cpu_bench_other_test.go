//go:build !unix

package serve

import "testing"

// haveCPUTime: no getrusage here, so the benchmarks report no CPU time.
const haveCPUTime = false

// cpuTime is 0: there is no process CPU time to read (haveCPUTime).
func cpuTime(testing.TB) int64 { return 0 }
