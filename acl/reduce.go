package acl

import (
	"context"
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/aclwasm/aclwasm/acl/internal/half"
)

// ReduceKind is aclrtReduceKind: how aclrtReduceAsync combines each
// element of its source into its destination.
type ReduceKind int32

// The native aclrtReduceKind values (acl_rt.h: they continue the runtime's
// copy kinds, hence 10).
const (
	ReduceSum   ReduceKind = 10 // ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM
	ReduceMax   ReduceKind = 11 // ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX
	ReduceMin   ReduceKind = 12 // ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN
	ReduceEqual ReduceKind = 13 // ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL
)

var reduceKindNames = []named[ReduceKind]{
	{ReduceSum, "ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM"},
	{ReduceMax, "ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX"},
	{ReduceMin, "ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN"},
	{ReduceEqual, "ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL"},
}

// String returns the native name.
func (k ReduceKind) String() string { return nameOf("aclrtReduceKind", k, reduceKindNames) }

// ErrRTAddrUnaligned is ACL_ERROR_RT_ADDR_UNALIGNED: an address a reduce
// needs aligned to its element size is not.
const ErrRTAddrUnaligned Error = 107008

// MaxReduceSum is the most bytes one SUM reduce may combine: the runtime's
// limit on a device-to-device copy (4 GiB, api_error.cc:2902-2907).
const MaxReduceSum = 4 << 30

// ReduceTypes are the data types aclrtReduceAsync accepts, in the order of
// the ACL layer's map (memory.cpp:43-48); any other gives 100000.
var ReduceTypes = []DataType{DTFloat, DTFloat16, DTInt16, DTInt4, DTInt8, DTInt32, DTBFloat16, DTUint8, DTUint16, DTUint32}

// ReduceAlign returns the alignment the runtime requires of a reduce's
// source and destination addresses for type t (context.cc:1555-1565): 2
// bytes for the 16-bit types, 4 for the 32-bit ones, 1 for the rest.
func ReduceAlign(t DataType) uint64 {
	switch t {
	case DTFloat16, DTInt16, DTUint16, DTBFloat16:
		return 2
	case DTFloat, DTInt32, DTUint32:
		return 4
	}
	return 1
}

// reduceWidth is the bytes of one element of a reduce type; 0 for INT4,
// whose elements are the two nibbles of each byte.
func reduceWidth(t DataType) int {
	switch t {
	case DTInt4:
		return 0
	case DTInt8, DTUint8:
		return 1
	case DTFloat16, DTInt16, DTUint16, DTBFloat16:
		return 2
	}
	return 4
}

// Reduce combines src into dst element by element with kind k (SUM, MAX
// or MIN) for type t, as aclrtReduceAsync does on the device: dst[i] =
// k(dst[i], src[i]). Both hold the same count of bytes; a trailing part
// of an element is left as it is. src is read as it was before any of dst
// changes, so the two may overlap. Floats combine in float32 (the 16-bit
// formats round back to nearest even), MAX and MIN propagate NaN, and
// integer sums wrap around. INT4 holds two signed elements per byte, the
// low nibble first. It stops with ctx's error once ctx is done (the
// stream cancelled, the run's time up), leaving dst partly combined.
func Reduce(ctx context.Context, k ReduceKind, t DataType, dst, src []byte) error {
	if overlaps(dst, src) {
		src = append([]byte(nil), src...)
	}
	w := reduceWidth(t)
	n := len(dst)
	if w > 1 {
		n -= n % w
	}
	le := binary.LittleEndian
	for i := 0; i < n; i += max(w, 1) {
		if err := poll(ctx, i); err != nil {
			return err
		}
		switch t {
		case DTFloat:
			le.PutUint32(dst[i:], math.Float32bits(combineF(k, math.Float32frombits(le.Uint32(dst[i:])), math.Float32frombits(le.Uint32(src[i:])))))
		case DTFloat16:
			le.PutUint16(dst[i:], half.ToF16(combineF(k, half.F16(le.Uint16(dst[i:])), half.F16(le.Uint16(src[i:])))))
		case DTBFloat16:
			le.PutUint16(dst[i:], half.ToBF16(combineF(k, half.BF16(le.Uint16(dst[i:])), half.BF16(le.Uint16(src[i:])))))
		case DTInt32:
			le.PutUint32(dst[i:], uint32(combineI(k, int64(int32(le.Uint32(dst[i:]))), int64(int32(le.Uint32(src[i:]))))))
		case DTUint32:
			le.PutUint32(dst[i:], uint32(combineI(k, int64(le.Uint32(dst[i:])), int64(le.Uint32(src[i:])))))
		case DTInt16:
			le.PutUint16(dst[i:], uint16(combineI(k, int64(int16(le.Uint16(dst[i:]))), int64(int16(le.Uint16(src[i:]))))))
		case DTUint16:
			le.PutUint16(dst[i:], uint16(combineI(k, int64(le.Uint16(dst[i:])), int64(le.Uint16(src[i:])))))
		case DTInt8:
			dst[i] = byte(combineI(k, int64(int8(dst[i])), int64(int8(src[i]))))
		case DTUint8:
			dst[i] = byte(combineI(k, int64(dst[i]), int64(src[i])))
		case DTInt4:
			lo := combineI(k, nibble(dst[i]), nibble(src[i]))
			hi := combineI(k, nibble(dst[i]>>4), nibble(src[i]>>4))
			dst[i] = byte(lo&0xf) | byte(hi&0xf)<<4
		}
	}
	return nil
}

// nibble returns the signed 4-bit value in the low nibble of b.
func nibble(b byte) int64 { return int64(int8(b<<4) >> 4) }

// combineF combines two floats; MAX and MIN of a NaN are NaN (even
// against an infinity, unlike math.Max).
func combineF(k ReduceKind, d, s float32) float32 {
	if k == ReduceSum {
		return d + s
	}
	if d != d || s != s {
		return float32(math.NaN())
	}
	if k == ReduceMax {
		return max(d, s)
	}
	return min(d, s)
}

func combineI(k ReduceKind, d, s int64) int64 {
	switch k {
	case ReduceMax:
		return max(d, s)
	case ReduceMin:
		return min(d, s)
	}
	return d + s
}

// overlaps reports whether a and b share memory.
func overlaps(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	pa, pb := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a))
}

// Reducer is the optional role ([Traits.Reducer]) of a backend that
// serves aclrtReduceAsync itself (the native backend); the sandbox
// computes a reduce as a [Launch] on a [Computer] otherwise. ReduceAsync
// queues on s the combining of count bytes at src into dst with k for
// type t; the caller has applied the native checks and validated both
// ranges.
type Reducer interface {
	ReduceAsync(dst, src DevPtr, count uint64, k ReduceKind, t DataType, s Stream) error
}
