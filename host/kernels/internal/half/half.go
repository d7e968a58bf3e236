// Package half converts IEEE 754 half-precision values, as the kernels of
// the sets compute with them.
package half

import "math"

// To32 returns the float32 of IEEE 754 half-precision bits h (exact).
func To32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf, NaN (the payload kept)
		return math.Float32frombits(sign | 0xff<<23 | man<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
	case man == 0:
		return math.Float32frombits(sign)
	}
	// Subnormal: man * 2^-24, exactly representable in float32.
	f := float32(man) * (1.0 / (1 << 24))
	if sign != 0 {
		f = -f
	}
	return f
}

// From32 returns the half-precision bits of f, rounded to nearest even,
// overflow to infinity, NaN kept quiet, as the device's cast rounds.
func From32(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	man := b & 0x7fffff
	if exp == 0xff {
		if man != 0 {
			return sign | 0x7e00 | uint16(man>>13)
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 { // subnormal or zero in half precision
		if e < -10 {
			return sign
		}
		m := man | 0x800000
		shift := uint32(14 - e)
		half := uint32(1) << (shift - 1)
		r := m >> shift
		rem := m & (1<<shift - 1)
		if rem > half || rem == half && r&1 != 0 {
			r++
		}
		return sign | uint16(r)
	}
	r := uint32(e)<<10 | man>>13
	rem := man & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && r&1 != 0 {
		r++ // may carry into the exponent: to the next binade or Inf, as it should
	}
	return sign | uint16(r)
}
