package module

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSkipImmediates: each instruction's immediates are read to their end
// (the byte after them, 0xee here, is left), and the instructions of the
// proposals both engines leave off are refused.
func TestSkipImmediates(t *testing.T) {
	for _, c := range []struct {
		name string
		ins  []byte // the opcode, then its immediates
	}{
		{"nop", []byte{0x01}},
		{"block with a type index", []byte{0x02, 0x81, 0x01}},
		{"br_table", []byte{0x0e, 2, 0, 0x81, 0x01, 1}},
		{"call_indirect", []byte{0x11, 3, 0}},
		{"return_call", []byte{0x12, 0x85, 0x02}},
		{"select t*", []byte{0x1c, 2, 0x7f, 0x63, 0x70}},
		{"local.tee", []byte{0x22, 0x90, 0x4e}},
		{"i64.load, multi-memory", []byte{0x29, 0x43, 1, 0x80, 0x01}},
		{"i32.store", []byte{0x36, 2, 0}},
		{"i64.const", []byte{0x42, 0xff, 0xff, 0xff, 0xff, 0x0f}},
		{"f32.const", []byte{0x43, 0xee, 0xee, 0xee, 0xee}},
		{"f64.const", []byte{0x44, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b}},
		{"ref.null", []byte{0xd0, 0x70}},
		{"i32.add", []byte{0x6a}},
		{"trunc_sat", []byte{0xfc, 7}},
		{"memory.fill", []byte{0xfc, 11, 0}},
		{"table.copy", []byte{0xfc, 14, 1, 2}},
		{"v128.load", []byte{0xfd, 0, 4, 0x10}},
		{"v128.const", []byte{0xfd, 12, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}},
		{"extract_lane", []byte{0xfd, 21, 15}},
		{"load_lane", []byte{0xfd, 84, 0, 0, 3}},
		{"i32x4.add", []byte{0xfd, 0xae, 0x01}},
	} {
		r := byteReader{b: append(append([]byte(nil), c.ins[1:]...), 0xee)}
		require.True(t, skipImmediates(&r, c.ins[0]), c.name)
		require.Equal(t, []byte{0xee}, r.b, c.name)
	}
	for _, c := range []struct {
		name string
		ins  []byte
	}{
		{"try_table", []byte{0x1f, 0x40, 0}},
		{"throw", []byte{0x08, 0}},
		{"call_ref", []byte{0x14, 0}},
		{"GC", []byte{0xfb, 0}},
		{"threads", []byte{0xfe, 0}},
		{"0xfc past table.fill", []byte{0xfc, 18}},
		{"relaxed SIMD", []byte{0xfd, 0x80, 0x02}},
		{"immediates cut short", []byte{0x0e, 5, 0}},
		{"no immediates at all", []byte{0x41}},
	} {
		r := byteReader{b: c.ins[1:]}
		require.False(t, skipImmediates(&r, c.ins[0]), c.name)
	}
}

// TestSkipValType: a value type is one byte, a (ref null? ht) two with
// its heap type.
func TestSkipValType(t *testing.T) {
	r := byteReader{b: []byte{0x7f, 0x63, 0x81, 0x01, 0x64, 0x70, 0xee}}
	for range 3 {
		skipValType(&r)
	}
	require.Equal(t, []byte{0xee}, r.b)
	require.False(t, r.bad)
}
