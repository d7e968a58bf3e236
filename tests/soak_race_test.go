//go:build race

package tests

// raceEnabled: the race detector allows 8128 goroutines and slows
// everything down, so the soak runs fewer sessions by default.
const raceEnabled = true
