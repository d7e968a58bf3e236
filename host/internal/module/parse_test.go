package module

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUleb: unsigned LEB128 is Go's uvarint; appendUleb writes and uleb
// reads it alike, and uleb refuses what is cut short or too long.
func TestUleb(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 300, 1<<32 - 1, 1 << 32, 1<<63 + 5, ^uint64(0)} {
		b := appendUleb([]byte{0xaa}, v)
		require.Equal(t, binary.AppendUvarint([]byte{0xaa}, v), b, "%d", v)
		got, n := uleb(append(b[1:], 0x0b))
		require.Equal(t, v, got)
		require.Equal(t, len(b)-1, n, "the length read, not the byte after")
	}
	for _, bad := range [][]byte{nil, {0x80}, {0xff, 0xff}, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}} {
		v, n := uleb(bad)
		require.Zero(t, v, "%x", bad)
		require.Zero(t, n, "%x", bad)
	}
}

// TestAppendSleb: signed LEB128 as the spec's examples and the edges of
// each byte's sign bit give it.
func TestAppendSleb(t *testing.T) {
	for _, c := range []struct {
		v    int64
		want []byte
	}{
		{0, []byte{0x00}}, {-1, []byte{0x7f}}, {63, []byte{0x3f}}, {64, []byte{0xc0, 0x00}},
		{-64, []byte{0x40}}, {-65, []byte{0xbf, 0x7f}}, {127, []byte{0xff, 0x00}},
		{-123456, []byte{0xc0, 0xbb, 0x78}}, {1 << 31, []byte{0x80, 0x80, 0x80, 0x80, 0x08}},
	} {
		require.Equal(t, c.want, appendSleb(nil, c.v), "%d", c.v)
	}
}

// TestByteReader: a read past the end marks the reader bad, and every
// read after it gives zero.
func TestByteReader(t *testing.T) {
	r := byteReader{b: []byte{1, 0x85, 0x01, 'a', 'b'}}
	require.Equal(t, byte(1), r.byte())
	require.Equal(t, uint64(133), r.uleb())
	require.Equal(t, []byte("ab"), r.take(2))
	require.True(t, r.done())
	require.False(t, r.bad)
	require.Nil(t, r.take(1))
	require.True(t, r.bad)
	require.Zero(t, r.byte())
	require.Zero(t, r.uleb())

	r = byteReader{b: []byte{0, 5, 1, 7, 9, 1}}
	require.Equal(t, uint64(5), r.limits(), "no maximum")
	require.Equal(t, uint64(7), r.limits(), "the maximum is skipped")
	require.False(t, r.bad)
	r.limits()
	require.True(t, r.bad, "flags without their minimum")
}

// TestSections: sections gives each section's place, and refuses what is
// not a module or has a section running past its end.
func TestSections(t *testing.T) {
	m := []byte(header)
	m = append(m, sec(1, []byte{1, 0x60, 0, 0})...)
	m = append(m, sec(0, append(appendName(nil, "c"), make([]byte, 200)...))...)
	secs, ok := sections(m)
	require.True(t, ok)
	require.Equal(t, []section{{id: 1, at: 8, body: 10, end: 14}, {id: 0, at: 14, body: 17, end: 219}}, secs, "a body of 202 bytes: a size of two")
	empty, ok := sections([]byte(header))
	require.True(t, ok)
	require.Empty(t, empty)
	for _, bad := range [][]byte{nil, []byte("junk but long"), []byte(header + "\x01\x05\x00"), []byte(header + "\x01\x80")} {
		_, ok := sections(bad)
		require.False(t, ok, "%q", bad)
	}
}
