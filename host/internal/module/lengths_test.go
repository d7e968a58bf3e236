package module

import (
	"slices"
	"testing"

	"github.com/aclwasm/aclwasm/internal/testsupport"
	"github.com/stretchr/testify/require"
)

// lengthBomb is a module of one section id holding body.
func lengthBomb(id byte, body ...byte) []byte {
	return appendSection([]byte("\x00asm\x01\x00\x00\x00"), id, body)
}

// huge is 2^32-1 as an unsigned LEB128.
var huge = []byte{0xff, 0xff, 0xff, 0xff, 0x0f}

func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// TestLengths: each length wazero allocates before reading what it
// declares, declared past the bytes left, is Lengths' problem; modules
// that declare none are not.
func TestLengths(t *testing.T) {
	name := cat([]byte{4}, []byte("name"))
	// The fuzzers' finds, then each length wazero allocates for.
	bombs := slices.Clone(testsupport.DecodeBombs)
	for _, c := range []struct {
		name, want string
		wasm       []byte
	}{
		{"types", "type section: function types 4294967295", lengthBomb(1, huge...)},
		{"parameters", "type section: parameters 4294967295", lengthBomb(1, cat([]byte{1, 0x60}, huge)...)},
		{"results", "type section: results 4294967295", lengthBomb(1, cat([]byte{1, 0x60, 1, 0x7f}, huge)...)},
		{"import name", "import section: name length 4294967295", lengthBomb(2, cat([]byte{1, 1, 'm'}, huge)...)},
		{"functions", "function section: entries 4294967295", lengthBomb(3, huge...)},
		{"globals", "global section: entries 4294967295", lengthBomb(6, huge...)},
		{"export name", "export section: name length 4294967295", lengthBomb(7, cat([]byte{1}, huge)...)},
		{"element indices", "element section: function indices 4294967295", lengthBomb(9, cat([]byte{1, 0, 0x41, 0, 0x0b}, huge)...)},
		{"element expressions", "element section: element expressions 4294967295", lengthBomb(9, cat([]byte{1, 5, 0x70}, huge)...)},
		{"body size", "code section: body size 4294967295", lengthBomb(10, cat([]byte{1}, huge)...)},
		{"locals", "code section: local declarations 4294967295", lengthBomb(10, cat([]byte{1, 6}, huge, []byte{0x0b})...)},
		{"data", "data section: data length 4294967295", lengthBomb(11, cat([]byte{1, 1}, huge)...)},
		{"active data", "data section: data length 4294967295", lengthBomb(11, cat([]byte{1, 0, 0x41, 0, 0x0b}, huge)...)},
		{"custom size", "custom section: size 4294967295, more than the 0 bytes left in the module", cat([]byte("\x00asm\x01\x00\x00\x00\x00"), huge)},
		{"function names", "custom section: function names 4294967295", lengthBomb(0, cat(name, []byte{1, 5}, huge)...)},
		{"local names", "custom section: local names 4294967295", lengthBomb(0, cat(name, []byte{2, 7, 1, 0}, huge)...)},
		{"custom name", "custom section: name length 4294967295", lengthBomb(0, huge...)},
	} {
		bombs = append(bombs, testsupport.Bomb{Name: c.name, Problem: c.want, Wasm: c.wasm})
	}
	for _, c := range bombs {
		t.Run(c.Name, func(t *testing.T) {
			probs := Lengths(c.Wasm)
			require.Len(t, probs, 1)
			require.Contains(t, probs[0], c.Problem)
		})
	}
	for _, wasm := range [][]byte{
		wat2wasm(t, `(module (memory 1) (data (i32.const 0) "abc") (data "d") (table 2 funcref) (elem (i32.const 0) $f $f) (elem funcref (ref.func $f))
		  (global i32 (i32.const 1)) (func $f (export "f") (param i32 i64) (result i32) (local i32 f64 f64) (local.get 0)))`),
		namedModule(evilName, []string{"a", evilName}),
		lengthBomb(4, 0),       // no table
		lengthBomb(1, 1, 0x60), // one type, cut short: the engine's to refuse
		[]byte("\x00asm"),
	} {
		require.Empty(t, Lengths(wasm))
	}
}
