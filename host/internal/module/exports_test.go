package module

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHoistStart: the start section goes, its function is exported
// instead (under a name no export has), and the module still validates,
// the new export section in the place of the start section.
func TestHoistStart(t *testing.T) {
	for _, c := range []struct{ name, wat, want string }{
		{"no export section", `(module (global i32 (i32.const 1)) (table 1 funcref) (func $f) (func $s) (start $s) (elem (i32.const 0) $f))`, ExportStart},
		{"export section", `(module (func $s) (start $s) (func (export "f")))`, ExportStart},
		{"name taken", `(module (func $s) (start $s) (func (export "aclwasm:start")) (global (export "aclwasm:start2") i32 (i32.const 0)))`, ExportStart + "3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := wat2wasm(t, c.wat)
			out, name := HoistStart(in)
			require.Equal(t, c.want, name)
			secs, ok := sections(out)
			require.True(t, ok)
			for _, s := range secs {
				require.NotEqual(t, byte(8), s.id, "no start section")
			}
			require.Equal(t, byte(0), exportsOf(t, out)[name], "a function")
			fn, ok := compiled(t, out).ExportedFunctions()[name]
			require.True(t, ok)
			require.Empty(t, fn.ParamTypes())
			require.Len(t, FuncExports(out), len(FuncExports(in))+1)
		})
	}
	for _, same := range [][]byte{
		wat2wasm(t, `(module (func (export "f")))`),
		[]byte(header + "\x08\x02\x00\x00"), // a start section with a byte after its index
		[]byte("junk"),
		nil,
	} {
		out, name := HoistStart(same)
		require.Empty(t, name)
		require.Equal(t, same, out)
	}
}

// TestFuncExports: the functions' exports in the export section's order;
// none of other kinds, none from a module that cannot be read.
func TestFuncExports(t *testing.T) {
	wasm := wat2wasm(t, `(module
  (func (export "b")) (memory (export "memory") 1) (func (export "a"))
  (global (export "g") i32 (i32.const 0)) (export "c" (func 0)))`)
	require.Equal(t, []string{"b", "a", "c"}, FuncExports(wasm))
	require.Empty(t, FuncExports(wat2wasm(t, `(module)`)))
	require.Empty(t, FuncExports([]byte("junk")))
	require.Empty(t, FuncExports([]byte(header+"\x07\x03\x01\x05a")), "an export cut short")
}

// TestAddExport: a module whose export section cannot be read is left as
// it is, without a name.
func TestAddExport(t *testing.T) {
	bad := []byte(header + "\x07\x03\x01\x05a")
	out, name := addExport(bad, 0, 0, "x", len(bad))
	require.Equal(t, bad, out)
	require.Empty(t, name)
	out, name = addExport([]byte("junk"), 0, 0, "x", 4)
	require.Equal(t, []byte("junk"), out)
	require.Empty(t, name)
}

// TestFuncExportType: the type of an exported function, defined or an
// import re-exported, as wasm text writes it; nothing for a name that is
// not a function export, or a module this parser cannot read.
func TestFuncExportType(t *testing.T) {
	wasm := wat2wasm(t, `(module
  (import "env" "f" (func (param i64) (result f32)))
  (global (export "g") i32 (i32.const 0))
  (func (export "d") (param i32 i32))
  (func (export "e") (param f64 v128 externref) (result i32 i64) unreachable)
  (export "r" (func 0)))`)
	for name, want := range map[string]string{"d": "(i32, i32) -> ()", "e": "(f64, v128, externref) -> (i32, i64)", "r": "(i64) -> (f32)"} {
		got, ok := FuncExportType(wasm, name)
		require.True(t, ok, name)
		require.Equal(t, want, got, name)
	}
	for _, name := range []string{"g", "x"} {
		_, ok := FuncExportType(wasm, name)
		require.False(t, ok, name)
	}
	for _, bad := range [][]byte{nil, []byte("junk"), wasm[:len(wasm)-3]} {
		_, ok := FuncExportType(bad, "d")
		require.False(t, ok)
	}
}
