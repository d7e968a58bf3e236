package aclnn

import (
	"encoding/binary"
	"math"

	"github.com/aclwasm/aclwasm/acl"
)

// The data types the simulator computes on: the real types the native
// operators list, less double, complex and the 8-bit floats.
var (
	// floatTypes compute in float32 (double is not offered).
	floatTypes = []acl.DataType{acl.DTFloat, acl.DTFloat16, acl.DTBFloat16}
	// intTypes compute in int64 and wrap to their width.
	intTypes = []acl.DataType{acl.DTInt8, acl.DTUint8, acl.DTInt16, acl.DTInt32, acl.DTInt64}
)

func isFloat(t acl.DataType) bool {
	return t == acl.DTFloat || t == acl.DTFloat16 || t == acl.DTBFloat16 || t == acl.DTDouble
}

func isInt(t acl.DataType) bool {
	switch t {
	case acl.DTInt8, acl.DTUint8, acl.DTInt16, acl.DTUint16, acl.DTInt32, acl.DTUint32, acl.DTInt64, acl.DTUint64:
		return true
	}
	return false
}

func isComplex(t acl.DataType) bool {
	return t == acl.DTComplex32 || t == acl.DTComplex64 || t == acl.DTComplex128
}

// promoteOrder indexes promoteTable. The table is the part of the
// operator base's promotion table (opbase include/nnopbase/opdev/
// data_type_utils.h, kPromoteTypesLookup) over the types the simulator
// computes on; a pair outside it does not promote (DTUndefined).
var promoteOrder = []acl.DataType{
	acl.DTFloat, acl.DTFloat16, acl.DTInt8, acl.DTInt32, acl.DTUint8, acl.DTInt16, acl.DTInt64, acl.DTDouble, acl.DTBool,
	acl.DTBFloat16,
}

var promoteTable = func() [][]acl.DataType {
	const (
		f4 = acl.DTFloat
		f2 = acl.DTFloat16
		i1 = acl.DTInt8
		i4 = acl.DTInt32
		u1 = acl.DTUint8
		i2 = acl.DTInt16
		i8 = acl.DTInt64
		b1 = acl.DTBool
		bf = acl.DTBFloat16
		f8 = acl.DTDouble
	)
	return [][]acl.DataType{
		//      f4  f2  i1  i4  u1  i2  i8  f8  b1  bf
		/*f4*/ {f4, f4, f4, f4, f4, f4, f4, f8, f4, f4},
		/*f2*/ {f4, f2, f2, f2, f2, f2, f2, f8, f2, f4},
		/*i1*/ {f4, f2, i1, i4, i2, i2, i8, f8, i1, bf},
		/*i4*/ {f4, f2, i4, i4, i4, i4, i8, f8, i4, bf},
		/*u1*/ {f4, f2, i2, i4, u1, i2, i8, f8, u1, bf},
		/*i2*/ {f4, f2, i2, i4, i2, i2, i8, f8, i2, bf},
		/*i8*/ {f4, f2, i8, i8, i8, i8, i8, f8, i8, bf},
		/*f8*/ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
		/*b1*/ {f4, f2, i1, i4, u1, i2, i8, f8, b1, bf},
		/*bf*/ {f4, f4, bf, bf, bf, bf, bf, f8, bf, bf},
	}
}()

// promote is the operator base's PromoteType over the simulator's types.
func promote(a, b acl.DataType) acl.DataType {
	if a == b {
		return a
	}
	i, j := indexOf(promoteOrder, a), indexOf(promoteOrder, b)
	if i < 0 || j < 0 {
		return acl.DTUndefined
	}
	return promoteTable[i][j]
}

func indexOf(ts []acl.DataType, t acl.DataType) int {
	for i, x := range ts {
		if x == t {
			return i
		}
	}
	return -1
}

// canCast is the operator base's CanCast (data_type_utils.h): no complex
// to real, no float to integer, nothing but bool to bool.
func canCast(from, to acl.DataType) bool {
	switch {
	case isComplex(from) && !isComplex(to):
		return false
	case isFloat(from) && isInt(to):
		return false
	case from != acl.DTBool && to == acl.DTBool:
		return false
	}
	return true
}

// loadF reads the element at byte offset o of b, of type t, as float32
// (integers convert to nearest, as a Cast does).
func loadF(t acl.DataType, b []byte, o int64) float32 {
	switch t {
	case acl.DTFloat:
		return math.Float32frombits(binary.LittleEndian.Uint32(b[o:]))
	case acl.DTFloat16:
		return f16(binary.LittleEndian.Uint16(b[o:]))
	case acl.DTBFloat16:
		return bf16(binary.LittleEndian.Uint16(b[o:]))
	}
	return float32(loadI(t, b, o))
}

// loadI reads the element at byte offset o of b, of an integer or bool
// type t, as int64.
func loadI(t acl.DataType, b []byte, o int64) int64 {
	switch t {
	case acl.DTInt8:
		return int64(int8(b[o]))
	case acl.DTUint8:
		return int64(b[o])
	case acl.DTBool:
		if b[o] != 0 {
			return 1
		}
		return 0
	case acl.DTInt16:
		return int64(int16(binary.LittleEndian.Uint16(b[o:])))
	case acl.DTInt32:
		return int64(int32(binary.LittleEndian.Uint32(b[o:])))
	case acl.DTInt64:
		return int64(binary.LittleEndian.Uint64(b[o:]))
	}
	panic("aclnn: loadI of " + t.String())
}

// roundF rounds v to the precision of the float type t (float32 itself
// is exact).
func roundF(t acl.DataType, v float32) float32 {
	switch t {
	case acl.DTFloat16:
		return f16(toF16(v))
	case acl.DTBFloat16:
		return bf16(toBF16(v))
	}
	return v
}

// storeF writes v as a float type t at byte offset o of b, rounding to
// nearest even.
func storeF(t acl.DataType, b []byte, o int64, v float32) {
	switch t {
	case acl.DTFloat:
		binary.LittleEndian.PutUint32(b[o:], math.Float32bits(v))
	case acl.DTFloat16:
		binary.LittleEndian.PutUint16(b[o:], toF16(v))
	case acl.DTBFloat16:
		binary.LittleEndian.PutUint16(b[o:], toBF16(v))
	default:
		panic("aclnn: storeF of " + t.String())
	}
}

// storeI writes v as type t at byte offset o of b: an integer wraps to its
// width, a bool is v != 0, a float rounds to nearest even.
func storeI(t acl.DataType, b []byte, o int64, v int64) {
	switch t {
	case acl.DTInt8, acl.DTUint8:
		b[o] = byte(v)
	case acl.DTBool:
		b[o] = 0
		if v != 0 {
			b[o] = 1
		}
	case acl.DTInt16:
		binary.LittleEndian.PutUint16(b[o:], uint16(v))
	case acl.DTInt32:
		binary.LittleEndian.PutUint32(b[o:], uint32(v))
	case acl.DTInt64:
		binary.LittleEndian.PutUint64(b[o:], uint64(v))
	default:
		storeF(t, b, o, float32(v))
	}
}

// scalarF returns the value of s as float32 (its own type converted to
// nearest).
func scalarF(s *ScalarArg) float32 {
	switch s.Type {
	case acl.DTDouble:
		return float32(math.Float64frombits(binary.LittleEndian.Uint64(s.Bits[:])))
	case acl.DTFloat, acl.DTFloat16, acl.DTBFloat16:
		return loadF(s.Type, s.Bits[:], 0)
	}
	return float32(scalarI(s))
}

// scalarI returns the value of s as int64; a float truncates toward zero
// (saturating, NaN to 0), as the native aclScalar's ToInt does in C.
func scalarI(s *ScalarArg) int64 {
	switch s.Type {
	case acl.DTDouble:
		return truncI(math.Float64frombits(binary.LittleEndian.Uint64(s.Bits[:])))
	case acl.DTFloat, acl.DTFloat16, acl.DTBFloat16:
		return truncI(float64(loadF(s.Type, s.Bits[:], 0)))
	case acl.DTUint16:
		return int64(binary.LittleEndian.Uint16(s.Bits[:]))
	case acl.DTUint32:
		return int64(binary.LittleEndian.Uint32(s.Bits[:]))
	case acl.DTUint64:
		return int64(binary.LittleEndian.Uint64(s.Bits[:]))
	}
	return loadI(s.Type, s.Bits[:], 0)
}

// castFI converts v to the integer or bool type t as the simulator's
// Cast does: a bool is v != 0 (NaN is true); an integer truncates toward
// zero, saturating at the type's range, NaN to 0. (The device's own
// out-of-range conversions are not documented; saturation is what its
// vector conversion instructions describe.)
func castFI(t acl.DataType, v float32) int64 {
	if t == acl.DTBool {
		if v != 0 {
			return 1
		}
		return 0
	}
	lo, hi := intRange(t)
	switch x := float64(v); {
	case math.IsNaN(x):
		return 0
	case x <= float64(lo):
		return lo
	case x >= float64(hi):
		return hi
	default:
		return int64(x)
	}
}

// intRange is the range of the integer type t.
func intRange(t acl.DataType) (int64, int64) {
	switch t {
	case acl.DTInt8:
		return math.MinInt8, math.MaxInt8
	case acl.DTUint8:
		return 0, math.MaxUint8
	case acl.DTInt16:
		return math.MinInt16, math.MaxInt16
	case acl.DTInt32:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// truncI converts v to int64 toward zero, saturating, NaN to 0.
func truncI(v float64) int64 {
	switch {
	case math.IsNaN(v):
		return 0
	case v >= math.MaxInt64:
		return math.MaxInt64
	case v <= math.MinInt64:
		return math.MinInt64
	}
	return int64(v)
}

// scalarTypes are the aclScalar types the simulator reads.
var scalarTypes = []acl.DataType{
	acl.DTFloat, acl.DTFloat16, acl.DTBFloat16, acl.DTDouble, acl.DTInt8, acl.DTUint8, acl.DTInt16, acl.DTUint16,
	acl.DTInt32, acl.DTUint32, acl.DTInt64, acl.DTUint64, acl.DTBool,
}
