//go:build wasmtime && cgo

package host

import "testing"

// With the second engine built in, the differential target holds it to
// wazero's outcome too.
func init() {
	diffConfigs = append(diffConfigs, diffConfig{"wasmtime/sim", func(testing.TB) []Option { return []Option{WithEngine("wasmtime")} }})
}
