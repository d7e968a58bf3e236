package module

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// tableLimits returns the limits of each table of wasm's table section.
func tableLimits(t *testing.T, wasm []byte) []table {
	t.Helper()
	secs, ok := sections(wasm)
	require.True(t, ok)
	for _, s := range secs {
		if s.id == 4 {
			tabs, ok := readTables(wasm[s.body:s.end])
			require.True(t, ok)
			return tabs
		}
	}
	return nil
}

// TestBoundTables: every table gets a maximum, the first ones the
// headroom first, none past its own declared maximum; the module still
// validates.
func TestBoundTables(t *testing.T) {
	wasm := wat2wasm(t, `(module (table 10 funcref) (table 5 20 externref) (table 1 2 funcref) (table 0 funcref))`)
	out, probs := BoundTables(wasm, 100)
	require.Empty(t, probs)
	compiled(t, out)
	var got [][2]uint64
	for _, tb := range tableLimits(t, out) {
		require.True(t, tb.hasMax)
		got = append(got, [2]uint64{tb.min, tb.max})
	}
	// 16 at start: table 0, without a maximum of its own, takes all 84 left.
	require.Equal(t, [][2]uint64{{10, 94}, {5, 5}, {1, 1}, {0, 0}}, got)

	out, probs = BoundTables(wat2wasm(t, `(module (table 1 4 funcref) (table 2 funcref))`), 100)
	require.Empty(t, probs)
	got = nil
	for _, tb := range tableLimits(t, out) {
		got = append(got, [2]uint64{tb.min, tb.max})
	}
	require.Equal(t, [][2]uint64{{1, 4}, {2, 96}}, got, "a declared maximum bounds the first table")
}

// TestBoundTablesRefuses: tables that need more than the limit at start
// are a problem; a module without a table section, or with one this
// parser cannot read, is returned as is.
func TestBoundTablesRefuses(t *testing.T) {
	wasm := wat2wasm(t, `(module (table 60 funcref) (table 50 funcref))`)
	_, probs := BoundTables(wasm, 100)
	require.Equal(t, []string{"tables need 110 entries at start, the policy allows 100 (MaxTableEntries)"}, probs)
	_, probs = BoundTables(wasm, 110)
	require.Empty(t, probs, "exactly the limit")

	for _, same := range [][]byte{
		wat2wasm(t, `(module (memory 1))`),
		append([]byte(header), sec(4, []byte{1, 0x70, 4, 1})...), // a 64-bit table's flags
		append([]byte(header), sec(4, []byte{1, 0x7f, 0, 1})...), // not a reference type
		[]byte("junk"),
	} {
		out, probs := BoundTables(same, 100)
		require.Empty(t, probs)
		require.Equal(t, same, out)
	}
}

// TestBoundTablesInitializer: a table of the 0x40 0x00 form keeps its
// reference type and its initializer around the new limits.
func TestBoundTablesInitializer(t *testing.T) {
	init := []byte{0xd0, 0x70, 0x0b} // ref.null func
	body := append([]byte{1, 0x40, 0x00, 0x64, 0x70, 0x00, 3}, init...)
	out, probs := BoundTables(append([]byte(header), sec(4, body)...), 10)
	require.Empty(t, probs)
	tabs := tableLimits(t, out)
	require.Len(t, tabs, 1)
	require.Equal(t, []byte{0x40, 0x00, 0x64, 0x70}, tabs[0].prefix)
	require.Equal(t, init, tabs[0].init)
	require.True(t, tabs[0].hasMax)
	require.Equal(t, [2]uint64{3, 10}, [2]uint64{tabs[0].min, tabs[0].max})
}
