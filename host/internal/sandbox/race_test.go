//go:build race

package sandbox

// raceEnabled: the race detector's sync.Pool drops a quarter of what is
// put back, so pooled records are allocated again now and then.
const raceEnabled = true
