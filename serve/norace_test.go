//go:build !race

package serve

// raceEnabled: see race_test.go.
const raceEnabled = false
