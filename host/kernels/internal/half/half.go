// Package half converts IEEE 754 half-precision values, as the kernels of
// the sets compute with them: through x448/float16, the library the
// operator library's conversions use too (acl/internal/half), so the
// kernels and the operators round alike.
package half

import "github.com/x448/float16"

// To32 returns the float32 of IEEE 754 half-precision bits h (exact).
func To32(h uint16) float32 { return float16.Frombits(h).Float32() }

// From32 returns the half-precision bits of f, rounded to nearest even,
// overflow to infinity, NaN kept a NaN, as the device's cast rounds.
func From32(f float32) uint16 { return float16.Fromfloat32(f).Bits() }
