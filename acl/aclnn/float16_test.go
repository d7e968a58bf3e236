package aclnn

import (
	"math"
	"math/big"
	"testing"
)

// nearest rounds v to a binary format of p significand bits and emin,
// emax exponents, to nearest even, with big.Float as the independent
// reference (it rounds once, exactly).
func nearest(v float64, prec uint, emin, emax int) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) || v == 0 {
		return v
	}
	e := math.Ilogb(v)
	p := int(prec)
	if e < emin { // subnormal: fewer significand bits
		p -= emin - e
	}
	if p <= 0 {
		// Below half the smallest subnormal rounds to zero; exactly
		// half rounds to even (zero); above rounds up.
		tiny := math.Ldexp(1, emin-int(prec)+1)
		if math.Abs(v) > tiny/2 && p == 0 {
			return math.Copysign(tiny, v)
		}
		return math.Copysign(0, v)
	}
	r, _ := new(big.Float).SetMode(big.ToNearestEven).SetPrec(uint(p)).SetFloat64(v).Float64()
	if math.Abs(r) >= math.Ldexp(2-math.Ldexp(1, 1-int(prec)), emax)+math.Ldexp(1, emax-int(prec)) {
		return math.Copysign(math.Inf(1), v)
	}
	return r
}

// TestF16Exhaustive converts every half to float32 and back, and checks
// the value against the format's definition.
func TestF16Exhaustive(t *testing.T) {
	for h := range 1 << 16 {
		v := f16(uint16(h))
		exp, frac := h>>10&0x1f, h&0x3ff
		var want float64
		switch {
		case exp == 0x1f && frac != 0:
			if !math.IsNaN(float64(v)) {
				t.Fatalf("%#04x: %v, want NaN", h, v)
			}
			if toF16(v)&0x7c00 != 0x7c00 || toF16(v)&0x3ff == 0 {
				t.Fatalf("%#04x: NaN round trip gives %#04x", h, toF16(v))
			}
			continue
		case exp == 0x1f:
			want = math.Inf(1)
		case exp == 0:
			want = math.Ldexp(float64(frac), -24)
		default:
			want = math.Ldexp(float64(frac|0x400), exp-25)
		}
		if h&0x8000 != 0 {
			want = -want
		}
		if float64(v) != want || math.Signbit(float64(v)) != (h&0x8000 != 0) {
			t.Fatalf("%#04x: %v, want %v", h, v, want)
		}
		if back := toF16(v); back != uint16(h) {
			t.Fatalf("%#04x: round trip gives %#04x", h, back)
		}
	}
}

// TestF16Rounding rounds float32 values between every pair of adjacent
// halves (the midpoint, just below, just above) and compares with a
// reference rounding.
func TestF16Rounding(t *testing.T) {
	for h := range 0x7c00 {
		lo := float64(f16(uint16(h)))
		hi := float64(f16(uint16(h + 1)))
		if h+1 == 0x7c00 {
			hi = 65536 // the rounding boundary to infinity's neighbour
		}
		mid := (lo + hi) / 2
		for _, v32 := range []float32{float32(mid), math.Nextafter32(float32(mid), 0), math.Nextafter32(float32(mid), math.MaxFloat32)} {
			for _, s := range []float32{1, -1} {
				v := s * v32
				want := nearest(float64(v), 11, -14, 15)
				if got := float64(f16(toF16(v))); got != want && !(math.IsInf(want, 0) && math.IsInf(got, 0)) {
					t.Fatalf("toF16(%v) = %v, want %v", v, got, want)
				}
			}
		}
	}
}

// TestBF16Exhaustive checks every bfloat16 against float32's upper half,
// and the rounding of values between adjacent ones.
func TestBF16Exhaustive(t *testing.T) {
	for h := range 1 << 16 {
		v := bf16(uint16(h))
		if math.Float32bits(v) != uint32(h)<<16 {
			t.Fatalf("%#04x: %v", h, v)
		}
		if math.IsNaN(float64(v)) {
			if r := toBF16(v); r&0x7f80 != 0x7f80 || r&0x7f == 0 || r&0x8000 != uint16(h)&0x8000 {
				t.Fatalf("%#04x: NaN gives %#04x", h, r)
			}
			continue
		}
		if r := toBF16(v); r != uint16(h) {
			t.Fatalf("%#04x: round trip gives %#04x", h, r)
		}
		if h&0x7fff >= 0x7f80 {
			continue
		}
		// Every float32 strictly between h and h+1 (in magnitude).
		base := uint32(h) << 16
		for _, low := range []uint32{1, 0x7fff, 0x8000, 0x8001, 0xffff} {
			v := math.Float32frombits(base | low)
			want := nearest(float64(v), 8, -126, 127)
			got := float64(bf16(toBF16(v)))
			if got != want && !(math.IsInf(want, 0) && math.IsInf(got, 0)) {
				t.Fatalf("toBF16(%v) (%#08x) = %v, want %v", v, base|low, got, want)
			}
		}
	}
}
