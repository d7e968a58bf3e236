package module

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestScan: Scan reads every import with its kind and the minimum of
// memory 0, imported or defined, and refuses a binary it cannot read.
func TestScan(t *testing.T) {
	mi, err := Scan(wat2wasm(t, `(module
  (import "acl" "f" (func))
  (import "env" "t" (table 1 funcref))
  (import "env" "m" (memory 3 10))
  (import "env" "g" (global i32)))`))
	require.NoError(t, err)
	require.Equal(t, []Import{{"acl", "f", 0}, {"env", "t", 1}, {"env", "m", 2}, {"env", "g", 3}}, mi.Imports)
	require.Equal(t, []string{"function", "table", "memory", "global"}, []string{mi.Imports[0].KindName(), mi.Imports[1].KindName(), mi.Imports[2].KindName(), mi.Imports[3].KindName()})
	require.Equal(t, "tag", Import{Kind: 4}.KindName())
	require.Equal(t, "unknown import", Import{Kind: 9}.KindName())
	require.True(t, mi.HasMemory)
	require.Equal(t, uint64(3), mi.MinPages)

	mi, err = Scan(wat2wasm(t, `(module (memory 17) (func) (func (local i32 i64)))`))
	require.NoError(t, err)
	require.Empty(t, mi.Imports)
	require.True(t, mi.HasMemory)
	require.Equal(t, uint64(17), mi.MinPages)
	require.Equal(t, 2, mi.Code.Funcs)

	mi, err = Scan(wat2wasm(t, `(module)`))
	require.NoError(t, err)
	require.False(t, mi.HasMemory)

	for _, bad := range [][]byte{nil, []byte("\x00asm\x01"), []byte("\x01asm\x01\x00\x00\x00"),
		[]byte(header + "\x02\x05\x01\x01a"),                // an import section cut short
		[]byte(header + "\x02\x06\x01\x00\x00\x07\x00\x00"), // an import of kind 7
		[]byte(header + "\x0a\x03\x01\x05\x00"),             // a body longer than the section
	} {
		_, err := Scan(bad)
		require.EqualError(t, err, "malformed wasm binary", "%q", bad)
	}
}

// TestCodeStats: each maximum is the largest of any function, with the
// index of the first function that has it; locals saturate instead of
// wrapping around; a body the walk cannot read whole is counted partial.
func TestCodeStats(t *testing.T) {
	body := func(b ...byte) []byte { return append(appendUleb(nil, uint64(len(b))), b...) }
	nested := func(depth int) []byte {
		b := []byte{0}
		b = append(b, bytes.Repeat([]byte{0x02, 0x40}, depth)...)
		return append(b, bytes.Repeat([]byte{0x0b}, depth+1)...)
	}
	var huge []byte // two declarations of 2^63 locals each: past 2^64
	huge = append(huge, 2)
	huge = appendUleb(huge, 1<<63)
	huge = append(huge, 0x7f)
	huge = appendUleb(huge, 1<<63)
	huge = append(huge, 0x7f, 0x0b)
	code := vec(
		body(0, 0x0b),
		body(nested(5)...),
		body(nested(5)...),
		body(0, 0x02, 0x40, 0x41, 0, 0x0e, 2, 0, 0, 0, 0x0b, 0x0b), // br_table of 3 targets
		body(huge...),
		body(0, 0xfb, 0x00, 0x0b), // a GC instruction: the walk stops there
	)
	mi, err := Scan(append([]byte(header), sec(10, code)...))
	require.NoError(t, err)
	c := mi.Code
	require.Equal(t, 6, c.Funcs)
	require.Equal(t, 5, c.MaxDepth)
	require.Equal(t, 1, c.MaxDepthAt, "the first of two")
	require.Equal(t, 3, c.MaxTable)
	require.Equal(t, 3, c.MaxTableAt)
	require.Equal(t, ^uint64(0), c.MaxLocals, "saturated")
	require.Equal(t, 4, c.MaxLocalsAt)
	require.Equal(t, 4, c.MaxBodyAt)
	require.Equal(t, len(huge), c.MaxBody)
	require.Equal(t, 1, c.Partial)
}

// TestWalkCodeBrTable: a br_table's count, a LEB128, is taken as it
// says (past the bytes there are: the targets cannot be read, the engine's
// validation refuses them) and clamped to 2^32.
func TestWalkCodeBrTable(t *testing.T) {
	b := []byte{0x41, 0, 0x0e}
	b = appendUleb(b, 1<<40)
	_, table, whole := walkCode(b)
	require.Equal(t, 1<<32, table)
	require.True(t, whole)
}

// TestWalkCodeImmediates: the walk skips every immediate (made here of
// block and end opcodes, 0x02 and 0x0b, to trip a walk that misreads
// one) of the opcodes of WebAssembly 2.0: the depth it finds is the
// module's.
func TestWalkCodeImmediates(t *testing.T) {
	wasm := wat2wasm(t, `(module
  (memory 1) (table 2 funcref) (data "x") (elem func 0)
  (type $t (func))
  (func (local v128 f32)
    (drop (v128.const i32x4 0x0b0b0b0b 0x02020202 0x0b0b0b0b 0x02020202))
    (drop (i8x16.shuffle 2 11 2 11 2 11 2 11 2 11 2 11 2 11 2 11 (v128.const i64x2 0 0) (v128.const i64x2 0 0)))
    (drop (i32x4.extract_lane 2 (v128.load offset=11 align=2 (i32.const 0x0b0b))))
    (v128.store32_lane offset=2 2 (i32.const 0) (v128.const i64x2 0 0))
    (drop (f64.const 0x1.0b0b0b0b0b0b0p-1000)) (drop (f32.const 0x1.0b0b0bp-100))
    (drop (i64.const 0x0b0b0b0b0b0b0b0b)) (drop (i32.const -11))
    (memory.copy (i32.const 0) (i32.const 0) (i32.const 0))
    (memory.fill (i32.const 0) (i32.const 2) (i32.const 0))
    (memory.init 0 (i32.const 0) (i32.const 0) (i32.const 0)) (data.drop 0)
    (table.init 0 (i32.const 0) (i32.const 0) (i32.const 0)) (elem.drop 0)
    (table.copy (i32.const 0) (i32.const 0) (i32.const 0))
    (drop (table.grow 0 (ref.null func) (i32.const 0))) (drop (table.size 0))
    (drop (select (result f32) (f32.const 0) (f32.const 0) (i32.const 0)))
    (drop (i32.trunc_sat_f32_s (local.get 1)))
    (call_indirect (type $t) (i32.const 0))
    (block (block (block
      (br_table 0 1 2 (i32.const 11))))))
)`)
	mi, err := Scan(wasm)
	require.NoError(t, err)
	require.Zero(t, mi.Code.Partial)
	require.Equal(t, 3, mi.Code.MaxDepth)
	require.Equal(t, 3, mi.Code.MaxTable)
	require.Equal(t, uint64(2), mi.Code.MaxLocals)
}
