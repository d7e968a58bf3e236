package basic_test

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/kernels/basic"
)

func kernel(t *testing.T, name string) host.Kernel {
	for _, k := range basic.Kernels() {
		if k.Name == name {
			return k
		}
	}
	t.Fatalf("no kernel %s", name)
	return host.Kernel{}
}

func f32s(vs ...float32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

func readF32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func i32s(vs ...int32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
	}
	return b
}

// run runs kernel name for every blockDim from 1 to 7: the sets' results
// do not depend on it.
func run(t *testing.T, name string, fresh func() []any, check func(args []any)) {
	t.Helper()
	for d := uint32(1); d <= 7; d++ {
		args := fresh()
		require.NoError(t, host.RunKernel(context.Background(), kernel(t, name), d, args...), "blockDim %d", d)
		check(args)
	}
}

func TestRegisters(t *testing.T) {
	rt, err := host.NewRuntime(context.Background(), host.WithKernelSet(basic.Set, basic.Kernels()...))
	require.NoError(t, err)
	defer rt.Close(context.Background())
	require.GreaterOrEqual(t, len(rt.Kernels()), 8)
}

func TestFill(t *testing.T) {
	run(t, "FillF32", func() []any { return []any{make([]byte, 4*11), uint32(10), float32(2.5)} }, func(a []any) {
		got := readF32s(a[0].([]byte))
		for i := range 10 {
			require.Equal(t, float32(2.5), got[i])
		}
		require.Zero(t, got[10], "past n: untouched")
	})
}

func TestScaleAxpy(t *testing.T) {
	run(t, "ScaleF32", func() []any { return []any{f32s(1, 2, 3), make([]byte, 12), uint32(3), float32(-2)} }, func(a []any) {
		require.Equal(t, []float32{-2, -4, -6}, readF32s(a[1].([]byte)))
	})
	run(t, "AxpyF32", func() []any { return []any{f32s(1, 2, 3), f32s(10, 10, 10), uint32(3), float32(0.5)} }, func(a []any) {
		require.Equal(t, []float32{10.5, 11, 11.5}, readF32s(a[1].([]byte)))
	})
}

func TestAddMul(t *testing.T) {
	run(t, "AddF32", func() []any { return []any{f32s(1, 2, 3, 4), f32s(0.5, 0.5, 0.5, 0.5), make([]byte, 16), uint32(4)} }, func(a []any) {
		require.Equal(t, []float32{1.5, 2.5, 3.5, 4.5}, readF32s(a[2].([]byte)))
	})
	run(t, "MulF32", func() []any {
		return []any{f32s(1, 2, 3, 4), f32s(2, 2, 2, float32(math.Inf(1))), make([]byte, 16), uint32(4)}
	}, func(a []any) {
		require.Equal(t, []float32{2, 4, 6, float32(math.Inf(1))}, readF32s(a[2].([]byte)))
	})
}

func TestCasts(t *testing.T) {
	// float16 bits: 1.0, -2.0, 65504 (max), the smallest subnormal, +Inf.
	half := []uint16{0x3c00, 0xc000, 0x7bff, 0x0001, 0x7c00}
	src := make([]byte, 2*len(half))
	for i, h := range half {
		binary.LittleEndian.PutUint16(src[2*i:], h)
	}
	want := []float32{1, -2, 65504, float32(math.Ldexp(1, -24)), float32(math.Inf(1))}
	run(t, "CastF16F32", func() []any { return []any{src, make([]byte, 4*len(half)), uint32(len(half))} }, func(a []any) {
		require.Equal(t, want, readF32s(a[1].([]byte)))
	})
	// Back, with rounding to nearest even: 1 + 2^-11 is a tie (to 1.0),
	// 1 + 3*2^-11 rounds up, 65520 overflows to Inf, 2^-25 is a tie to 0.
	in := f32s(1, -2, 65504, float32(math.Ldexp(1, -24)), float32(math.Inf(1)),
		1+float32(math.Ldexp(1, -11)), 1+3*float32(math.Ldexp(1, -11)), 65520, float32(math.Ldexp(1, -25)), float32(math.NaN()))
	run(t, "CastF32F16", func() []any { return []any{in, make([]byte, 20), uint32(10)} }, func(a []any) {
		out := a[1].([]byte)
		got := make([]uint16, 10)
		for i := range got {
			got[i] = binary.LittleEndian.Uint16(out[2*i:])
		}
		require.Equal(t, []uint16{0x3c00, 0xc000, 0x7bff, 0x0001, 0x7c00, 0x3c00, 0x3c02, 0x7c00, 0x0000, 0x7e00}, got)
	})
}

func TestPrefixSum(t *testing.T) {
	run(t, "PrefixSumI32", func() []any { return []any{i32s(1, 2, 3, 4, 5, -15, math.MaxInt32, 1), make([]byte, 32), uint32(8)} }, func(a []any) {
		out := a[1].([]byte)
		got := make([]int32, 8)
		for i := range got {
			got[i] = int32(binary.LittleEndian.Uint32(out[4*i:]))
		}
		require.Equal(t, []int32{1, 3, 6, 10, 15, 0, math.MaxInt32, math.MinInt32}, got, "int32 wraps as the device's adds")
	})
}

func TestHistogram(t *testing.T) {
	src := []byte{0, 1, 1, 255, 255, 255, 7}
	run(t, "HistogramU8", func() []any {
		hist := make([]byte, 1024)
		binary.LittleEndian.PutUint32(hist[4*7:], 10) // launches accumulate
		return []any{src, hist, uint32(len(src))}
	}, func(a []any) {
		hist := a[1].([]byte)
		at := func(i int) uint32 { return binary.LittleEndian.Uint32(hist[4*i:]) }
		require.Equal(t, []uint32{1, 2, 11, 3, 0}, []uint32{at(0), at(1), at(7), at(255), at(2)})
	})
}

func TestRunKernelChecks(t *testing.T) {
	ctx := context.Background()
	require.ErrorContains(t, host.RunKernel(ctx, kernel(t, "FillF32"), 1, make([]byte, 8), uint32(3), float32(1)), "extent n is 12 bytes, the buffer has 8")
	require.ErrorContains(t, host.RunKernel(ctx, kernel(t, "FillF32"), 1, make([]byte, 8), -1, float32(1)), "-1 does not fit a ACL_UINT32")
	require.ErrorContains(t, host.RunKernel(ctx, kernel(t, "FillF32"), 1, make([]byte, 8), uint32(2), 1), "an integer for an ACL_FLOAT")
	require.ErrorContains(t, host.RunKernel(ctx, kernel(t, "FillF32"), 0, make([]byte, 8), uint32(2), float32(1)), "blockDim 0")
}
