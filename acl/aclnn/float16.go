package aclnn

import "github.com/aclwasm/aclwasm/acl/internal/half"

// The half-precision formats compute in float32 and round back to nearest
// even, as the device's vector units do for elementwise work; the
// conversions are package half's, shared with the runtime's reduce.

// f16 returns the float32 value of the IEEE binary16 bits h (exact).
func f16(h uint16) float32 { return half.F16(h) }

// toF16 rounds v to binary16, to nearest even.
func toF16(v float32) uint16 { return half.ToF16(v) }

// bf16 returns the float32 value of the bfloat16 bits h (exact).
func bf16(h uint16) float32 { return half.BF16(h) }

// toBF16 rounds v to bfloat16, to nearest even; a NaN stays a quiet NaN.
func toBF16(v float32) uint16 { return half.ToBF16(v) }
