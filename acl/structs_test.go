package acl

import (
	"bytes"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStructSizes(t *testing.T) {
	require.Equal(t, 8, MemLocationSize)
	require.Equal(t, 32, MemcpyBatchAttrSize)
	require.Equal(t, 28, PtrAttributesSize)
}

// encode writes v with enc into a buffer of size bytes followed by guard
// bytes, checks that the guard is untouched, and returns the size bytes.
func encode(t *testing.T, size int, enc func([]byte)) []byte {
	t.Helper()
	b := bytes.Repeat([]byte{0xAA}, size+8)
	enc(b)
	require.Equal(t, bytes.Repeat([]byte{0xAA}, 8), b[size:], "Encode wrote past the struct")
	return b[:size]
}

func TestMemLocationLayout(t *testing.T) {
	l := MemLocation{ID: 0x04030201, Type: MemLocationHostNUMA}
	b := encode(t, MemLocationSize, l.Encode)
	require.Equal(t, []byte{1, 2, 3, 4, 4, 0, 0, 0}, b, "{u32 id; u32 type}, little-endian")
	require.Equal(t, l, decodeMemLocation(b))
	require.Equal(t, l, decodeMemLocation(append(b, 9, 9)), "bytes after the struct are ignored")
}

func TestMemcpyBatchAttrLayout(t *testing.T) {
	a := MemcpyBatchAttr{
		DstLoc: MemLocation{ID: 1, Type: MemLocationDevice},
		SrcLoc: MemLocation{ID: 0x0a0b0c0d, Type: MemLocationUnregistered},
	}
	for i := range a.Rsv {
		a.Rsv[i] = byte(0xf0 + i)
	}
	b := encode(t, MemcpyBatchAttrSize, a.Encode)
	want := []byte{
		1, 0, 0, 0, 1, 0, 0, 0, // dstLoc
		0x0d, 0x0c, 0x0b, 0x0a, 2, 0, 0, 0, // srcLoc
		0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff,
	}
	require.Equal(t, want, b)
	require.Equal(t, a, DecodeMemcpyBatchAttr(b))
	require.False(t, a.rsvZero())
	for i := range a.Rsv {
		var one MemcpyBatchAttr
		one.Rsv[i] = 1
		require.False(t, one.rsvZero(), "rsv[%d]", i)
	}
	require.True(t, MemcpyBatchAttr{DstLoc: a.DstLoc}.rsvZero())
}

func TestPtrAttributesLayout(t *testing.T) {
	a := PtrAttributes{
		Location: MemLocation{ID: 3, Type: MemLocationDevice},
		PageSize: 2 << 20,
		Rsv:      [4]uint32{0x11223344, 0, 0, 0xffffffff},
	}
	b := encode(t, PtrAttributesSize, a.Encode)
	want := []byte{
		3, 0, 0, 0, 1, 0, 0, 0, // location
		0, 0, 0x20, 0, // pageSize
		0x44, 0x33, 0x22, 0x11, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, // rsv
	}
	require.Equal(t, want, b)
	require.Equal(t, a, DecodePtrAttributes(b))
}

func TestDecodeShortBuffers(t *testing.T) {
	// Callers size buffers from the *Size constants; a short one is a bug
	// that fails at once, before any byte is read or written.
	require.Panics(t, func() { decodeMemLocation(make([]byte, MemLocationSize-1)) })
	require.Panics(t, func() { DecodeMemcpyBatchAttr(make([]byte, MemcpyBatchAttrSize-1)) })
	require.Panics(t, func() { DecodePtrAttributes(make([]byte, PtrAttributesSize-1)) })
	short := make([]byte, PtrAttributesSize-1)
	require.Panics(t, func() { PtrAttributes{PageSize: 1}.Encode(short) })
	require.Equal(t, make([]byte, PtrAttributesSize-1), short, "a failed Encode writes nothing")
}

func TestPutFloat32(t *testing.T) {
	for _, tc := range []struct {
		v    float32
		want []byte
	}{
		{1.5, []byte{0, 0, 0xc0, 0x3f}},
		{0, []byte{0, 0, 0, 0}},
		{-2, []byte{0, 0, 0, 0xc0}},
		{float32(math.Inf(1)), []byte{0, 0, 0x80, 0x7f}},
	} {
		b := make([]byte, 4)
		PutFloat32(b, tc.v)
		require.Equal(t, tc.want, b, "%v", tc.v)
	}
}

// u64sOf packs vs into Words of 8-byte elements.
func u64sOf(vs ...uint64) Words {
	u := make([]byte, 8*len(vs))
	for i, v := range vs {
		le.PutUint64(u[8*i:], v)
	}
	return Words{b: u, width: 8}
}

// u32sOf packs vs into Words of 4-byte elements (each value truncated).
func u32sOf(vs ...uint64) Words {
	u := make([]byte, 4*len(vs))
	for i, v := range vs {
		le.PutUint32(u[4*i:], uint32(v))
	}
	return Words{b: u, width: 4}
}

// batchAttrsOf packs as into a BatchAttrs.
func batchAttrsOf(as ...MemcpyBatchAttr) BatchAttrs {
	b := make(BatchAttrs, MemcpyBatchAttrSize*len(as))
	for i, a := range as {
		a.Encode(b[MemcpyBatchAttrSize*i:])
	}
	return b
}
