// Package half converts the two 16-bit float formats of the device,
// IEEE binary16 (float16) and bfloat16, to and from float32, rounding to
// nearest even as the device's vector units do. The operator library
// (acl/aclnn) and the runtime's reduce (acl.Reduce) share it.
package half

import (
	"math"

	"github.com/x448/float16"
)

// F16 returns the float32 value of the IEEE binary16 bits h (exact).
func F16(h uint16) float32 { return float16.Frombits(h).Float32() }

// ToF16 rounds v to binary16, to nearest even (overflow to infinity, NaN
// stays NaN).
func ToF16(v float32) uint16 { return float16.Fromfloat32(v).Bits() }

// BF16 returns the float32 value of the bfloat16 bits h (exact: bfloat16
// is float32's upper half).
func BF16(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// ToBF16 rounds v to bfloat16, to nearest even; a NaN stays a quiet NaN
// with its sign (rounding its payload could make it infinity).
func ToBF16(v float32) uint16 {
	b := math.Float32bits(v)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16) | 0x40
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}
