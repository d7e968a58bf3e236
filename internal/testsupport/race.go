//go:build race

package testsupport

// Race reports whether the tests run with the race detector, which
// changes what a test may expect: its sync.Pool drops a quarter of what
// is put back (pooled records are allocated again now and then), it
// allows 8128 goroutines, and it slows everything down.
const Race = true
