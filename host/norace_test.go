//go:build !race

package host_test

// raceEnabled: see race_test.go.
const raceEnabled = false
