package aclnn

import (
	"math"

	"github.com/x448/float16"
)

// The half-precision formats compute in float32 and round back to nearest
// even, as the device's vector units do for elementwise work.

// f16 returns the float32 value of the IEEE binary16 bits h (exact).
func f16(h uint16) float32 { return float16.Frombits(h).Float32() }

// toF16 rounds v to binary16, to nearest even (overflow to infinity, NaN
// stays NaN).
func toF16(v float32) uint16 { return float16.Fromfloat32(v).Bits() }

// bf16 returns the float32 value of the bfloat16 bits h (exact: bfloat16
// is float32's upper half).
func bf16(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// toBF16 rounds v to bfloat16, to nearest even; a NaN stays a quiet NaN
// with its sign (rounding its payload could make it infinity).
func toBF16(v float32) uint16 {
	b := math.Float32bits(v)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16) | 0x40
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}
