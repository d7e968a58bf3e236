package module

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// TestUnwrapCommandExport: an export that is wasm-ld's command wrapper
// (ctors; the function; dtors) is pointed at the function; any other body
// is left as it is.
func TestUnwrapCommandExport(t *testing.T) {
	const mod = `(module
  (import "x" "y" (func $imp))
  (func $ctors) (func $dtors)
  (func $inner (param i32 i32))
  (func $wrapper (param i32 i32) call $ctors local.get 0 local.get 1 call $inner call $dtors)
  (func $other (param i32 i32) local.get 1 local.get 0 call $inner)
  (export "other" (func $other))
  (export "d" (func $wrapper))
  (export "e" (func $other)))`
	wasm := testsupport.WAT(t, mod)
	out := UnwrapCommandExport(wasm, "d")
	require.NotEqual(t, wasm, out)
	got := map[string]uint64{}
	secs, ok := sections(out)
	require.True(t, ok)
	for _, s := range secs {
		if s.id == 7 {
			require.True(t, exportNames(out[s.body:s.end], func(n string, _ byte, idx uint64) { got[n] = idx }))
		}
	}
	require.Equal(t, map[string]uint64{"other": 5, "d": 3, "e": 5}, got, "d names $inner (index 3: one import first)")
	require.Equal(t, wasm, UnwrapCommandExport(wasm, "e"), "not a wrapper")
	require.Equal(t, wasm, UnwrapCommandExport(wasm, "missing"))
	require.Equal(t, []byte("junk"), UnwrapCommandExport([]byte("junk"), "d"))
}
