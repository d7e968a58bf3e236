//go:build wasmtime && cgo

package module

import (
	"testing"

	"github.com/bytecodealliance/wasmtime-go/v39"
	"github.com/stretchr/testify/require"
)

// TestMemoryExportWasmtime: wasmtime, which shows an embedder only
// exported memories, sees memory 0 under the name MemoryExport gives.
func TestMemoryExportWasmtime(t *testing.T) {
	testMemoryExport(t, func(t *testing.T, wasm []byte, name string) {
		t.Helper()
		eng := wasmtime.NewEngine()
		defer eng.Close()
		mod, err := wasmtime.NewModule(eng, wasm)
		require.NoError(t, err)
		defer mod.Close()
		for _, ex := range mod.Exports() {
			if ex.Name() == name {
				require.NotNil(t, ex.Type().MemoryType(), "%s is a memory", name)
				return
			}
		}
		t.Fatalf("no export %q", name)
	})
}
