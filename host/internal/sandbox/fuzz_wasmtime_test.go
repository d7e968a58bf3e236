//go:build wasmtime && cgo

package sandbox_test

import (
	"testing"

	"github.com/aclwasm/aclwasm/host"
)

// With the second engine built in, the differential target holds it to
// wazero's outcome too.
func init() {
	diffConfigs = append(diffConfigs, diffConfig{"wasmtime/sim", func(testing.TB) []host.Option { return []host.Option{host.WithEngine("wasmtime")} }})
}
