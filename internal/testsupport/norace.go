//go:build !race

package testsupport

// Race: see race.go.
const Race = false
