package module

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// memoryExportCases are MemoryExport's cases: a module, the name memory 0
// is exported under after, and whether the module is left as it is.
var memoryExportCases = []struct {
	name, wat, want string
	same            bool
}{
	{"no export section", `(module (memory 1))`, ExportMemory, false},
	{"export section", `(module (memory 1) (func (export "f")))`, ExportMemory, false},
	{"already exported", `(module (memory (export "mem") 1))`, "mem", true},
	{"name taken", `(module (memory 1) (func (export "memory")) (global (export "aclwasm:memory") i32 (i32.const 0)))`, ExportMemoryHidden + "2", false},
	{"before start, code and data", `(module (memory 1) (func $f) (start $f) (data (i32.const 0) "x"))`, ExportMemory, false},
	{"no memory", `(module (func (export "f")))`, "", true},
}

// testMemoryExport runs MemoryExport's cases, exported checking that an
// engine sees memory 0 under the name given.
func testMemoryExport(t *testing.T, exported func(t *testing.T, wasm []byte, name string)) {
	for _, tc := range memoryExportCases {
		t.Run(tc.name, func(t *testing.T) {
			in := wat2wasm(t, tc.wat)
			out, name := MemoryExport(in)
			require.Equal(t, tc.want, name)
			require.Equal(t, tc.same, string(in) == string(out))
			if name != "" {
				exported(t, out, name)
			}
		})
	}
	for _, bad := range [][]byte{nil, []byte("\x00asm\x01\x00\x00\x00\x07\x05"), []byte("junk")} {
		out, name := MemoryExport(bad)
		require.Equal(t, string(bad), string(out))
		require.Empty(t, name)
	}
}

// TestMemoryExport: memory 0 is exported, under "memory" unless an export
// of another kind has it; the module still validates (wazero).
func TestMemoryExport(t *testing.T) {
	testMemoryExport(t, func(t *testing.T, wasm []byte, name string) {
		t.Helper()
		require.Equal(t, byte(2), exportsOf(t, wasm)[name], "%s is a memory", name)
		_, ok := compiled(t, wasm).ExportedMemories()[name]
		require.True(t, ok, "wazero sees memory %s", name)
	})
}
