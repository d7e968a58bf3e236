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

// TestScanOverflowWords checks the word-at-a-time detection against each
// element's own test, for each float type, at every position of a special
// value among finite ones (the largest finite values included), over
// lengths that end mid-word and mid-element and starts that are not
// aligned.
func TestScanOverflowWords(t *testing.T) {
	type kind struct {
		t        DataType
		size     int
		finite   []uint64 // bit patterns of finite values, the extremes included
		special  []uint64 // Inf and NaN patterns
		isFinite func(uint64) bool
	}
	kinds := []kind{
		{DTFloat16, 2, []uint64{0, 0x8000, 0x3C00, 0x7BFF, 0xFBFF, 0x0001, 0x03FF}, []uint64{0x7C00, 0xFC00, 0x7C01, 0x7E00, 0xFFFF},
			func(v uint64) bool { return v&0x7C00 != 0x7C00 }},
		{DTBFloat16, 2, []uint64{0, 0x8000, 0x3F80, 0x7F7F, 0xFF7F, 0x0001}, []uint64{0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0xFFFF},
			func(v uint64) bool { return v&0x7F80 != 0x7F80 }},
		{DTFloat, 4, []uint64{0, 0x80000000, 0x3F800000, 0x7F7FFFFF, 0xFF7FFFFF, 1}, []uint64{0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFFFFFFF},
			func(v uint64) bool {
				return !math.IsInf(float64(math.Float32frombits(uint32(v))), 0) && !math.IsNaN(float64(math.Float32frombits(uint32(v))))
			}},
		{DTDouble, 8, []uint64{0, 1 << 63, math.Float64bits(1), math.Float64bits(math.MaxFloat64), math.Float64bits(-math.MaxFloat64)},
			[]uint64{math.Float64bits(math.Inf(1)), math.Float64bits(math.Inf(-1)), math.Float64bits(math.NaN()), 0x7FF0000000000001},
			func(v uint64) bool { f := math.Float64frombits(v); return !math.IsInf(f, 0) && !math.IsNaN(f) }},
	}
	put := func(b []byte, size int, v uint64) {
		for i := range size {
			b[i] = byte(v >> (8 * i))
		}
	}
	for _, k := range kinds {
		for _, n := range []int{0, 1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100} {
			for _, off := range []int{0, 1, 2, 3, 4, 8} { // aligned words (0, 8) and not
				buf := make([]byte, off+n*k.size+k.size-1) // a partial element after the whole ones
				b := buf[off:]
				for i := range n {
					put(b[i*k.size:], k.size, k.finite[i%len(k.finite)])
				}
				require.False(t, ScanOverflow(k.t, b, false), "%v: %d finite values at offset %d", k.t, n, off)
				// A partial trailing element is ignored whatever it holds.
				for i := n * k.size; i < len(b); i++ {
					b[i] = 0xFF
				}
				require.False(t, ScanOverflow(k.t, b, false), "%v: %d finite values and a partial NaN", k.t, n)
				for at := range n {
					for _, sp := range k.special {
						require.False(t, k.isFinite(sp))
						put(b[at*k.size:], k.size, sp)
						require.True(t, ScanOverflow(k.t, b, false), "%v: %#x at %d of %d (offset %d)", k.t, sp, at, n, off)
						put(b[at*k.size:], k.size, k.finite[at%len(k.finite)])
					}
				}
			}
		}
	}
}

// BenchmarkScanOverflow is the scan of a 1 M float32 result, all finite:
// what every float operator's launch pays after it ran.
func BenchmarkScanOverflow(b *testing.B) {
	buf := make([]byte, 4<<20)
	for i := 0; i < len(buf); i += 4 {
		binary.LittleEndian.PutUint32(buf[i:], math.Float32bits(float32(i)))
	}
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		if ScanOverflow(DTFloat, buf, true) {
			b.Fatal("a finite result overflowed")
		}
	}
}
