//go:build unix

package testsupport

import (
	"syscall"
	"testing"
)

// HaveCPUTime reports whether CPUTime reads the process's CPU time here.
const HaveCPUTime = true

// CPUTime is the process's user and system time so far, in nanoseconds
// (getrusage): what a benchmark reports as its CPU per operation, which a
// loaded machine disturbs less than the wall time.
func CPUTime(tb testing.TB) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
