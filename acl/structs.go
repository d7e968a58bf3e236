package acl

import (
	"encoding/binary"
	"math"
)

// Sizes of the native structs in guest (and native LP64) memory.
const (
	MemLocationSize     = 8  // aclrtMemLocation
	MemcpyBatchAttrSize = 32 // aclrtMemcpyBatchAttr
	PtrAttributesSize   = 28 // aclrtPtrAttributes
)

var le = binary.LittleEndian

// MemLocation is aclrtMemLocation {uint32 id; uint32 type}: a device id (or
// NUMA id) and a location type.
type MemLocation struct {
	ID   uint32
	Type MemLocationType
}

// decodeMemLocation reads an aclrtMemLocation from the first 8 bytes of b.
func decodeMemLocation(b []byte) MemLocation {
	_ = b[MemLocationSize-1]
	return MemLocation{ID: le.Uint32(b), Type: MemLocationType(le.Uint32(b[4:]))}
}

// Encode writes l into the first 8 bytes of b.
func (l MemLocation) Encode(b []byte) {
	_ = b[MemLocationSize-1]
	le.PutUint32(b, l.ID)
	le.PutUint32(b[4:], uint32(l.Type))
}

// MemcpyBatchAttr is aclrtMemcpyBatchAttr: where the destination and the
// source of the batch entries it applies to must be. Rsv must be all zero.
type MemcpyBatchAttr struct {
	DstLoc MemLocation
	SrcLoc MemLocation
	Rsv    [16]byte
}

// DecodeMemcpyBatchAttr reads an aclrtMemcpyBatchAttr from the first 32 bytes of b.
func DecodeMemcpyBatchAttr(b []byte) MemcpyBatchAttr {
	_ = b[MemcpyBatchAttrSize-1]
	a := MemcpyBatchAttr{DstLoc: decodeMemLocation(b), SrcLoc: decodeMemLocation(b[8:])}
	copy(a.Rsv[:], b[16:32])
	return a
}

// Encode writes a into the first 32 bytes of b.
func (a MemcpyBatchAttr) Encode(b []byte) {
	_ = b[MemcpyBatchAttrSize-1]
	a.DstLoc.Encode(b)
	a.SrcLoc.Encode(b[8:])
	copy(b[16:32], a.Rsv[:])
}

// rsvZero reports whether the reserved bytes are all zero, as the runtime requires.
func (a MemcpyBatchAttr) rsvZero() bool { return a.Rsv == [16]byte{} }

// PtrAttributes is aclrtPtrAttributes: where an address lives and its page size.
type PtrAttributes struct {
	Location MemLocation
	PageSize uint32
	Rsv      [4]uint32
}

// DecodePtrAttributes reads an aclrtPtrAttributes from the first 28 bytes of b.
func DecodePtrAttributes(b []byte) PtrAttributes {
	_ = b[PtrAttributesSize-1]
	a := PtrAttributes{Location: decodeMemLocation(b), PageSize: le.Uint32(b[8:])}
	for i := range a.Rsv {
		a.Rsv[i] = le.Uint32(b[12+4*i:])
	}
	return a
}

// Encode writes a into the first 28 bytes of b.
func (a PtrAttributes) Encode(b []byte) {
	_ = b[PtrAttributesSize-1]
	a.Location.Encode(b)
	le.PutUint32(b[8:], a.PageSize)
	for i, v := range a.Rsv {
		le.PutUint32(b[12+4*i:], v)
	}
}

// PutFloat32 writes v as 4 bytes IEEE-754 little-endian, as an out-parameter float.
func PutFloat32(b []byte, v float32) { le.PutUint32(b, math.Float32bits(v)) }

// Words is a packed array of little-endian unsigned values, 8 bytes each
// (the wide profile's size_t and pointer arrays, and uint64_t ones) or 4
// bytes each (size_t and void* on wasm32, the acl32 profile): a view of a
// guest's memory, read in place, so that checking a batch costs no copy.
type Words struct {
	b     []byte
	width int // 8 or 4
}

// WordsOf returns the view of b as width-byte elements (8 or 4); a partial
// element at the end is not part of it.
func WordsOf(b []byte, width int) Words {
	if width != 4 {
		width = 8
	}
	return Words{b: b, width: width}
}

// Len returns the number of elements.
func (u Words) Len() int {
	if u.width == 4 {
		return len(u.b) / 4
	}
	return len(u.b) / 8
}

// At returns element i.
func (u Words) At(i int) uint64 {
	if u.width == 4 {
		return uint64(le.Uint32(u.b[4*i:]))
	}
	return le.Uint64(u.b[8*i:])
}

// BatchAttrs is a packed array of aclrtMemcpyBatchAttr, read in place.
type BatchAttrs []byte

// Len returns the number of attributes.
func (b BatchAttrs) Len() int { return len(b) / MemcpyBatchAttrSize }

// At returns attribute i.
func (b BatchAttrs) At(i int) MemcpyBatchAttr {
	return DecodeMemcpyBatchAttr(b[MemcpyBatchAttrSize*i:])
}
