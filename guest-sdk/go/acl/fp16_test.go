package acl

import (
	"math"
	"sort"
	"testing"
)

// halfValue is the reference value of a binary16 encoding, from its fields.
func halfValue(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	e, m := int(h>>10)&0x1f, float64(h&0x3ff)
	switch {
	case e == 0x1f && m == 0:
		return math.Inf(int(sign))
	case e == 0x1f:
		return math.NaN()
	case e == 0:
		return sign * math.Ldexp(m, -24)
	default:
		return sign * math.Ldexp(1+m/1024, e-15)
	}
}

// nearestHalf is the reference rounding, by search: the nearer of the two
// halves around |x| (65536 standing for the one past the largest), the even
// one on a tie.
func nearestHalf(x float32) uint16 {
	var sign uint16
	if math.Signbit(float64(x)) {
		sign = 0x8000
	}
	a := math.Abs(float64(x))
	lo := uint16(sort.Search(0x7c00, func(i int) bool { return halfValue(uint16(i)) > a }) - 1)
	if halfValue(lo) == a {
		return sign | lo
	}
	next := 65536.0
	if lo < 0x7bff {
		next = halfValue(lo + 1)
	}
	if d, u := a-halfValue(lo), next-a; d < u || (d == u && lo&1 == 0) {
		return sign | lo
	}
	return sign | (lo + 1)
}

func isNaN16(h Float16) bool { return h&0x7c00 == 0x7c00 && h&0x3ff != 0 }

// TestFloat16AllHalves converts every one of the 65536 halves to float32
// against the reference, and back.
func TestFloat16AllHalves(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		f := Float16(h).Float32()
		ref := halfValue(uint16(h))
		if math.IsNaN(ref) {
			if !math.IsNaN(float64(f)) || !isNaN16(ToFloat16(f)) {
				t.Fatalf("NaN %#04x: %v, back %#04x", h, f, ToFloat16(f))
			}
			continue
		}
		if float64(f) != ref || math.Signbit(float64(f)) != math.Signbit(ref) {
			t.Fatalf("Float16(%#04x).Float32() = %v, want %v", h, f, ref)
		}
		if back := ToFloat16(f); back != Float16(h) {
			t.Fatalf("round trip of %#04x gave %#04x", h, back)
		}
	}
}

// TestToFloat16Rounding checks every midpoint between neighbouring halves
// (the ties, which go to the even one) and the floats just around each, and
// the edges: overflow, underflow, infinities and NaN.
func TestToFloat16Rounding(t *testing.T) {
	check := func(x float32) {
		t.Helper()
		if got, want := ToFloat16(x), nearestHalf(x); got != Float16(want) {
			t.Fatalf("ToFloat16(%v = %#08x) = %#04x, want %#04x", x, math.Float32bits(x), got, want)
		}
	}
	for h := 0; h < 0x7bff; h++ {
		m := (float32(halfValue(uint16(h))) + float32(halfValue(uint16(h+1)))) / 2
		for _, x := range []float32{m, math.Float32frombits(math.Float32bits(m) - 1), math.Float32frombits(math.Float32bits(m) + 1)} {
			check(x)
			check(-x)
		}
	}
	for _, b := range []uint32{0x477fe000, 0x477fefff, 0x477ff000, 0x7f7fffff, 0x33000000, 0x33000001,
		0x00000001, 0x387fe000, 0x3f800000, 0x40490fdb, 0x7f800000, 0xff800000} {
		check(math.Float32frombits(b))
	}
	if h := ToFloat16(float32(math.NaN())); !isNaN16(h) {
		t.Fatalf("ToFloat16(NaN) = %#04x", h)
	}
	if h := ToFloat16(math.Float32frombits(0xffc00001)); !isNaN16(h) || h&0x8000 == 0 {
		t.Fatalf("ToFloat16(-NaN) = %#04x, want a negative NaN", h)
	}
}

// TestDataTypeSize checks the native aclDataTypeSize table.
func TestDataTypeSize(t *testing.T) {
	want := map[DataType]int{
		DTUndefined: 0, DTFloat: 4, DTFloat16: 2, DTInt8: 1, DTInt32: 4, DTUint8: 1, DTInt16: 2, DTUint16: 2,
		DTUint32: 4, DTInt64: 8, DTUint64: 8, DTDouble: 8, DTBool: 1, DTString: 0, DTComplex64: 8, DTComplex128: 16,
		DTBF16: 2, DTInt4: 1, DTUint1: 1, DTComplex32: 4, DTHiFloat8: 1, DTFloat8E5M2: 1, DTFloat8E4M3FN: 1,
		DTFloat8E8M0: 1, DTFloat6E3M2: 8, DTFloat6E2M3: 8, DTFloat4E2M1: 8, DTFloat4E1M2: 8, DataType(1000): 8,
	}
	for dt, size := range want {
		if got := dt.Size(); got != size {
			t.Errorf("DataType(%d).Size() = %d, want %d", dt, got, size)
		}
	}
}
