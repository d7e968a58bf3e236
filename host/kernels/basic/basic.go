// Package basic is a set of generic device kernels an embedder can
// register (host.WithKernelSet(basic.Set, basic.Kernels()...)): fill,
// scale, axpy, elementwise add and multiply, casts between float16 and
// float32, prefix sum and histogram. Each splits its n elements into
// blockDim contiguous chunks, one per block, as an Ascend C kernel splits
// its data over its cores; the result does not depend on blockDim. All
// are Quick (host.Kernel.Quick): a launch on few bytes runs in the
// guest's call on the simulator.
//
// Their launchers, as a C guest declares them (acl32 profile):
//
//	void FillF32(uint32_t blockDim, void* stream, float* dst, uint32_t n, float value);
//	void ScaleF32(uint32_t blockDim, void* stream, const float* x, float* y, uint32_t n, float alpha);
//	void AxpyF32(uint32_t blockDim, void* stream, const float* x, float* y, uint32_t n, float alpha);
//	void AddF32(uint32_t blockDim, void* stream, const float* a, const float* b, float* c, uint32_t n);
//	void MulF32(uint32_t blockDim, void* stream, const float* a, const float* b, float* c, uint32_t n);
//	void CastF16F32(uint32_t blockDim, void* stream, const aclFloat16* src, float* dst, uint32_t n);
//	void CastF32F16(uint32_t blockDim, void* stream, const float* src, aclFloat16* dst, uint32_t n);
//	void PrefixSumI32(uint32_t blockDim, void* stream, const int32_t* src, int32_t* dst, uint32_t n);
//	void HistogramU8(uint32_t blockDim, void* stream, const uint8_t* src, uint32_t* hist, uint32_t n);
package basic

import (
	"context"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/kernels/internal/half"
)

// Set is the set's name, as a policy grants it (Policy.Kernels,
// aclwasm run --kernels basic).
const Set = "basic"

// Kernels returns the set's kernels.
func Kernels() []host.Kernel {
	return []host.Kernel{
		{
			Name:  "FillF32",
			Quick: true,
			Params: []host.KernelParam{
				host.Buffer("dst", acl.DTFloat, host.Write, "n"),
				host.Scalar("n", acl.DTUint32),
				host.Scalar("value", acl.DTFloat),
			},
			Run: fill,
		},
		{
			Name:  "ScaleF32",
			Quick: true,
			Params: []host.KernelParam{
				host.Buffer("x", acl.DTFloat, host.Read, "n"),
				host.Buffer("y", acl.DTFloat, host.Write, "n"),
				host.Scalar("n", acl.DTUint32),
				host.Scalar("alpha", acl.DTFloat),
			},
			Run: scale,
		},
		{
			Name:  "AxpyF32",
			Quick: true,
			Params: []host.KernelParam{
				host.Buffer("x", acl.DTFloat, host.Read, "n"),
				host.Buffer("y", acl.DTFloat, host.ReadWrite, "n"),
				host.Scalar("n", acl.DTUint32),
				host.Scalar("alpha", acl.DTFloat),
			},
			Run: axpy,
		},
		{
			Name:   "AddF32",
			Quick:  true,
			Params: binaryParams(),
			Run: binary(func(a, b, c []float32) {
				for i := range c {
					c[i] = a[i] + b[i]
				}
			}),
		},
		{
			Name:   "MulF32",
			Quick:  true,
			Params: binaryParams(),
			Run: binary(func(a, b, c []float32) {
				for i := range c {
					c[i] = a[i] * b[i]
				}
			}),
		},
		{
			Name:  "CastF16F32",
			Quick: true,
			Params: []host.KernelParam{
				host.Buffer("src", acl.DTFloat16, host.Read, "n"),
				host.Buffer("dst", acl.DTFloat, host.Write, "n"),
				host.Scalar("n", acl.DTUint32),
			},
			Run: castF16F32,
		},
		{
			Name:  "CastF32F16",
			Quick: true,
			Params: []host.KernelParam{
				host.Buffer("src", acl.DTFloat, host.Read, "n"),
				host.Buffer("dst", acl.DTFloat16, host.Write, "n"),
				host.Scalar("n", acl.DTUint32),
			},
			Run: castF32F16,
		},
		{
			Name:  "PrefixSumI32",
			Quick: true,
			Params: []host.KernelParam{
				host.Buffer("src", acl.DTInt32, host.Read, "n"),
				host.Buffer("dst", acl.DTInt32, host.Write, "n"),
				host.Scalar("n", acl.DTUint32),
			},
			Run: prefixSum,
		},
		{
			Name:  "HistogramU8",
			Quick: true,
			Params: []host.KernelParam{
				host.Buffer("src", acl.DTUint8, host.Read, "n"),
				host.Buffer("hist", acl.DTUint32, host.ReadWrite, "256"),
				host.Scalar("n", acl.DTUint32),
			},
			Run: histogram,
		},
	}
}

// chunk returns block b's part [lo, hi) of n elements.
func chunk(b *host.KernelBlock, n int) (lo, hi int) {
	d, i := int(b.BlockDim), int(b.Index())
	return n * i / d, n * (i + 1) / d
}

// stride is how many elements a kernel handles between two looks at its
// context, so that a timeout stops a long launch promptly.
const stride = 1 << 16

// each runs f over [lo, hi) in strides, returning ctx's error if it ends.
func each(ctx context.Context, lo, hi int, f func(lo, hi int)) error {
	for lo < hi {
		if err := ctx.Err(); err != nil {
			return err
		}
		end := min(hi, lo+stride)
		f(lo, end)
		lo = end
	}
	return nil
}

func fill(ctx context.Context, b *host.KernelBlock) error {
	dst, v := b.Float32s(0), float32(b.Float(2))
	lo, hi := chunk(b, len(dst))
	return each(ctx, lo, hi, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dst[i] = v
		}
	})
}

func scale(ctx context.Context, b *host.KernelBlock) error {
	x, y, alpha := b.Float32s(0), b.Float32s(1), float32(b.Float(3))
	lo, hi := chunk(b, len(y))
	return each(ctx, lo, hi, func(lo, hi int) {
		x, y := x[lo:hi], y[lo:hi]
		for i := range y {
			y[i] = alpha * x[i]
		}
	})
}

func axpy(ctx context.Context, b *host.KernelBlock) error {
	x, y, alpha := b.Float32s(0), b.Float32s(1), float32(b.Float(3))
	lo, hi := chunk(b, len(y))
	return each(ctx, lo, hi, func(lo, hi int) {
		x, y := x[lo:hi], y[lo:hi]
		for i := range y {
			y[i] += alpha * x[i]
		}
	})
}

func binaryParams() []host.KernelParam {
	return []host.KernelParam{
		host.Buffer("a", acl.DTFloat, host.Read, "n"),
		host.Buffer("b", acl.DTFloat, host.Read, "n"),
		host.Buffer("c", acl.DTFloat, host.Write, "n"),
		host.Scalar("n", acl.DTUint32),
	}
}

// binary is an elementwise kernel of loop, which runs over one stride of
// the three buffers at a time: a loop of its own, with no call per
// element, as fast as the same loop in plain Go.
func binary(loop func(a, b, c []float32)) func(context.Context, *host.KernelBlock) error {
	return func(ctx context.Context, k *host.KernelBlock) error {
		a, b, c := k.Float32s(0), k.Float32s(1), k.Float32s(2)
		lo, hi := chunk(k, len(c))
		return each(ctx, lo, hi, func(lo, hi int) {
			loop(a[lo:hi:hi], b[lo:hi:hi], c[lo:hi:hi])
		})
	}
}

func castF16F32(ctx context.Context, b *host.KernelBlock) error {
	src, dst := b.Uint16s(0), b.Float32s(1)
	lo, hi := chunk(b, len(dst))
	return each(ctx, lo, hi, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dst[i] = half.To32(src[i])
		}
	})
}

func castF32F16(ctx context.Context, b *host.KernelBlock) error {
	src, dst := b.Float32s(0), b.Uint16s(1)
	lo, hi := chunk(b, len(dst))
	return each(ctx, lo, hi, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dst[i] = half.From32(src[i])
		}
	})
}

// prefixSum is the inclusive scan dst[i] = src[0] + ... + src[i], int32
// wrapping as the device's adds do: each block sums the chunks before its
// own, then scans its chunk.
func prefixSum(ctx context.Context, b *host.KernelBlock) error {
	src, dst := b.Int32s(0), b.Int32s(1)
	lo, hi := chunk(b, len(dst))
	var acc int32
	if err := each(ctx, 0, lo, func(l, h int) {
		for _, v := range src[l:h] {
			acc += v
		}
	}); err != nil {
		return err
	}
	return each(ctx, lo, hi, func(l, h int) {
		for i := l; i < h; i++ {
			acc += src[i]
			dst[i] = acc
		}
	})
}

// histogram adds the count of each byte value of src to hist (256
// uint32 bins, not cleared first, so that launches accumulate).
func histogram(ctx context.Context, b *host.KernelBlock) error {
	src, hist := b.Bytes(0), b.Uint32s(1)
	lo, hi := chunk(b, len(src))
	var local [256]uint32
	if err := each(ctx, lo, hi, func(l, h int) {
		for _, v := range src[l:h] {
			local[v]++
		}
	}); err != nil {
		return err
	}
	for i, c := range local {
		hist[i] += c
	}
	return nil
}
