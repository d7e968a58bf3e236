package acl

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestScanOverflow(t *testing.T) {
	f32 := func(vs ...float32) []byte {
		b := make([]byte, 4*len(vs))
		for i, v := range vs {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		}
		return b
	}
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())

	b := f32(1, 2, 3)
	require.False(t, ScanOverflow(DTFloat, b, true))
	require.Equal(t, f32(1, 2, 3), b, "finite values are left alone")

	b = f32(1, inf, -inf, nan)
	require.True(t, ScanOverflow(DTFloat, b, false))
	require.True(t, math.IsInf(float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4:]))), 1), "INF/NAN mode keeps the values")
	require.True(t, ScanOverflow(DTFloat, b, true))
	require.Equal(t, f32(1, math.MaxFloat32, -math.MaxFloat32, 0), b)
	require.False(t, ScanOverflow(DTFloat, b, true), "saturated values are finite")

	h := []byte{0x00, 0x7C, 0x00, 0xFC, 0x01, 0x7E, 0x00, 0x3C} // +Inf, -Inf, NaN, 1 (float16)
	require.True(t, ScanOverflow(DTFloat16, h, true))
	require.Equal(t, []byte{0xFF, 0x7B, 0xFF, 0xFB, 0x00, 0x00, 0x00, 0x3C}, h)
	bf := []byte{0x80, 0xFF, 0xC0, 0x7F} // -Inf, NaN (bfloat16)
	require.True(t, ScanOverflow(DTBFloat16, bf, true))
	require.Equal(t, []byte{0x7F, 0xFF, 0x00, 0x00}, bf)

	d := make([]byte, 8)
	binary.LittleEndian.PutUint64(d, math.Float64bits(math.Inf(-1)))
	require.True(t, ScanOverflow(DTDouble, d, true))
	require.Equal(t, -math.MaxFloat64, math.Float64frombits(binary.LittleEndian.Uint64(d)))

	require.False(t, ScanOverflow(DTInt32, []byte{0xFF, 0xFF, 0x7F, 0x7F}, true), "integers never overflow here")
}

func TestSatModes(t *testing.T) {
	for _, c := range []struct {
		soc         string
		sat, infNan bool
		start       FloatOverflowMode
	}{
		{"Ascend910B1", true, true, OverflowInfNan},
		{"Ascend910_9391", true, true, OverflowInfNan},
		{"Ascend950PR_9579", false, true, OverflowInfNan},
		{"Ascend310P3", true, false, OverflowSaturation},
	} {
		sat, inf, start := SatModes(c.soc)
		require.Equal(t, []any{c.sat, c.infNan, c.start}, []any{sat, inf, start}, c.soc)
	}
	require.Equal(t, "ACL_RT_OVERFLOW_MODE_INFNAN", OverflowInfNan.String())
	require.Equal(t, "aclrtFloatOverflowMode(7)", FloatOverflowMode(7).String())
}
