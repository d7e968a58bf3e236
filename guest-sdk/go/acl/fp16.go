package acl

import "math"

// The pure helpers of the native acl_base.h: element types and their sizes,
// and IEEE 754 half precision. They call nothing in the host, so they work
// on every GOOS (the C SDK has the same, aclDataTypeSize and
// aclFloatToFloat16/aclFloat16ToFloat).

// DataType is the native aclDataType: the element type of a tensor or a
// buffer, with the native values.
type DataType int32

// The native aclDataType values.
const (
	DTUndefined    DataType = -1 // ACL_DT_UNDEFINED
	DTFloat        DataType = 0  // ACL_FLOAT
	DTFloat16      DataType = 1  // ACL_FLOAT16
	DTInt8         DataType = 2  // ACL_INT8
	DTInt32        DataType = 3  // ACL_INT32
	DTUint8        DataType = 4  // ACL_UINT8
	DTInt16        DataType = 6  // ACL_INT16
	DTUint16       DataType = 7  // ACL_UINT16
	DTUint32       DataType = 8  // ACL_UINT32
	DTInt64        DataType = 9  // ACL_INT64
	DTUint64       DataType = 10 // ACL_UINT64
	DTDouble       DataType = 11 // ACL_DOUBLE
	DTBool         DataType = 12 // ACL_BOOL
	DTString       DataType = 13 // ACL_STRING
	DTComplex64    DataType = 16 // ACL_COMPLEX64
	DTComplex128   DataType = 17 // ACL_COMPLEX128
	DTBF16         DataType = 27 // ACL_BF16
	DTInt4         DataType = 29 // ACL_INT4
	DTUint1        DataType = 30 // ACL_UINT1
	DTComplex32    DataType = 33 // ACL_COMPLEX32
	DTHiFloat8     DataType = 34 // ACL_HIFLOAT8
	DTFloat8E5M2   DataType = 35 // ACL_FLOAT8_E5M2
	DTFloat8E4M3FN DataType = 36 // ACL_FLOAT8_E4M3FN
	DTFloat8E8M0   DataType = 37 // ACL_FLOAT8_E8M0
	DTFloat6E3M2   DataType = 38 // ACL_FLOAT6_E3M2
	DTFloat6E2M3   DataType = 39 // ACL_FLOAT6_E2M3
	DTFloat4E2M1   DataType = 40 // ACL_FLOAT4_E2M1
	DTFloat4E1M2   DataType = 41 // ACL_FLOAT4_E1M2
)

// Size returns the size in bytes of one element, as the native
// aclDataTypeSize does: 0 for DTString and DTUndefined, 1 for the sub-byte
// DTUint1 and DTInt4, and 8 for a value the native table does not name.
func (t DataType) Size() int {
	switch t {
	case DTString, DTUndefined:
		return 0
	case DTUint1, DTInt4, DTBool, DTInt8, DTUint8, DTHiFloat8, DTFloat8E5M2, DTFloat8E4M3FN, DTFloat8E8M0:
		return 1
	case DTFloat16, DTInt16, DTUint16, DTBF16:
		return 2
	case DTFloat, DTInt32, DTUint32, DTComplex32:
		return 4
	case DTComplex128:
		return 16
	default:
		return 8
	}
}

// Float16 is the native aclFloat16: an IEEE 754 binary16 value as its 16
// bits.
type Float16 uint16

// ToFloat16 converts f to binary16 as the native aclFloatToFloat16 does:
// round to nearest, ties to even; beyond the largest half (65504) to
// infinity, below half the smallest subnormal (2^-25) to a zero of f's sign;
// a NaN stays a NaN (quiet, its top payload bits kept).
func ToFloat16(f float32) Float16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	man := b & 0x7fffff
	if exp == 0xff {
		if man != 0 {
			return Float16(sign | 0x7c00 | 0x200 | uint16(man>>13))
		}
		return Float16(sign | 0x7c00)
	}
	e := exp - 127 + 15 // the half's biased exponent
	if e >= 31 {
		return Float16(sign | 0x7c00)
	}
	var q, rem, half uint32
	if e <= 0 {
		// A subnormal half (or zero): the value in units of 2^-24.
		if e < -10 {
			return Float16(sign)
		}
		m := man | 0x800000
		shift := uint32(14 - e)
		q, rem, half = m>>shift, m&(1<<shift-1), 1<<(shift-1)
	} else {
		q, rem, half = uint32(e)<<10|man>>13, man&0x1fff, 0x1000
	}
	// A carry moves to the next exponent, and past the largest to infinity.
	if rem > half || (rem == half && q&1 != 0) {
		q++
	}
	return Float16(sign | uint16(q))
}

// Float32 converts h to float32 (exactly: every half is a float32), as the
// native aclFloat16ToFloat does.
func (h Float16) Float32() float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp-15+127)<<23 | man<<13)
	case man == 0:
		return math.Float32frombits(sign)
	default:
		// Subnormal: scale the integer significand (exact in float32).
		v := float32(man) * (1.0 / (1 << 24))
		if sign != 0 {
			v = -v
		}
		return v
	}
}
