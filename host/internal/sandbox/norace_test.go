//go:build !race

package sandbox

// raceEnabled: see race_test.go.
const raceEnabled = false
