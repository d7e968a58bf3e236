//go:build !unix

package testsupport

import "testing"

// HaveCPUTime reports whether CPUTime reads the process's CPU time here:
// there is no getrusage.
const HaveCPUTime = false

// CPUTime is 0: there is no process CPU time to read (HaveCPUTime).
func CPUTime(testing.TB) int64 { return 0 }
