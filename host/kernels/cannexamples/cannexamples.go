// Package cannexamples is the set of device kernels the public CANN
// example programs launch, written anew in Go from what their Ascend C
// sources do, so that those programs run in the sandbox unchanged
// (host.WithKernelSet(cannexamples.Set, cannexamples.Kernels()...)):
//
//   - the runtime's kernel_func examples: EasyOP, ErrorOP, LongOP,
//     ShortOP, WriteDo, ReadDo, PrintDo (kernel_ops.h) and AddDo
//     (kernel_add.h), launched through those launchers;
//   - the Ascend C quickstarts: add_custom, the vector add of 8 x 2048
//     halves (launched as add_custom_do, aclrtlaunch_add_custom or
//     through the kernel API), and hello_world (hello_world_do).
//
// A kernel that prints on the device (AscendC::printf) prints to the
// plugin's stdout; ErrorOP faults as its native kernel's trap does
// (ACL_ERROR_RT_AICORE_EXCEPTION at the next synchronize); LongOP
// computes its result at once and declares its native duration to the
// timing model.
package cannexamples

import (
	"context"
	"errors"
	"time"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/kernels/internal/half"
)

// Set is the set's name, as a policy grants it (Policy.Kernels,
// aclwasm run --kernels cann-examples).
const Set = "cann-examples"

// LongOPCost is LongOP's modelled duration: its 10000 x 25000 loop of
// dependent float operations on one AI core, about 2.5 s on a 1 GHz core
// at 10 cycles an iteration.
const LongOPCost = 2500 * time.Millisecond

// Kernels returns the set's kernels.
func Kernels() []host.Kernel {
	perBlock := func(name string, a host.Access) []host.KernelParam {
		return []host.KernelParam{host.Buffer(name, acl.DTUint32, a, "blockDim")}
	}
	return []host.Kernel{
		{Name: "EasyOP", Quick: true, Params: perBlock("x", host.ReadWrite), Run: easyOP},
		{Name: "ErrorOP", Quick: true, Run: errorOP},
		{Name: "LongOP", Params: perBlock("x", host.ReadWrite), Run: longOP, Cost: func(*host.KernelArgs) time.Duration { return LongOPCost }},
		{Name: "ShortOP", Quick: true, Params: perBlock("x", host.ReadWrite), Run: shortOP},
		{
			Name: "WriteDo",
			Params: []host.KernelParam{
				host.Buffer("devPtr", acl.DTInt32, host.Write, "blockDim"),
				host.Scalar("value", acl.DTInt32),
			},
			Run: writeDo,
		},
		{
			Name:   "ReadDo",
			Params: []host.KernelParam{host.Buffer("devPtr", acl.DTInt32, host.Read, "blockDim")},
			Run:    readDo,
		},
		{Name: "PrintDo", Run: printDo},
		{
			Name:  "AddDo",
			Quick: true,
			Params: []host.KernelParam{
				host.Buffer("srcA", acl.DTFloat, host.Read, "totalSize"),
				host.Buffer("srcB", acl.DTFloat, host.Read, "totalSize"),
				host.Buffer("dst", acl.DTFloat, host.Write, "totalSize"),
				host.Scalar("totalSize", acl.DTUint32),
			},
			Run: addDo,
		},
		{
			Name:  "add_custom",
			Quick: true,
			Params: []host.KernelParam{
				host.Buffer("x", acl.DTFloat16, host.Read, "blockDim * 2048"),
				host.Buffer("y", acl.DTFloat16, host.Read, "blockDim * 2048"),
				host.Buffer("z", acl.DTFloat16, host.Write, "blockDim * 2048"),
			},
			Run: addCustom,
			// The binary of the runtime's kernel API example, which a
			// program loads by name (aclrtBinaryLoadFromFile).
			Binary: "ascendc_kernels_simple.o",
		},
		{Name: "hello_world", Run: helloWorld},
	}
}

// easyOP is EasyOPf: x[block_idx] += 1.
func easyOP(_ context.Context, b *host.KernelBlock) error {
	b.Uint32s(0)[b.Index()]++
	return nil
}

// errorOP is ErrorOPf, whose body is a trap instruction: the core raises
// an exception and the stream fails.
func errorOP(context.Context, *host.KernelBlock) error {
	return errors.New("the kernel executed a trap instruction (AI Core exception)")
}

// shortOP is ShortOPf: x[block_idx] *= 2.
func shortOP(_ context.Context, b *host.KernelBlock) error {
	b.Uint32s(0)[b.Index()] *= 2
	return nil
}

// longOP is LongOPf: x[block_idx] += 1 when its long float computation
// ends above 0. The loops iterate float32 maps that reach a fixed point:
// once an iteration leaves the value as it was, the rest are the same, so
// they are skipped, with the native result.
func longOP(ctx context.Context, b *host.KernelBlock) error {
	temp := float32(0)
	for i := 0; i < 10000; i++ {
		if i%64 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		before := temp
		temp += 0.00002
		temp *= 0.02
		for j := 0; j < 25000; j++ {
			prev := temp
			temp = temp*temp - 0.000002
			temp = temp + temp*0.05
			temp = temp*temp + 0.00001
			if temp > 1 {
				temp = 0
			}
			if temp == prev {
				break
			}
		}
		temp -= 0.00003 * temp
		if temp == before {
			break
		}
	}
	if temp > 0 {
		b.Uint32s(0)[b.Index()]++
	}
	return nil
}

// writeDo is DeviceWrite: devPtr[block_idx] = value, printing it.
func writeDo(_ context.Context, b *host.KernelBlock) error {
	v := int32(b.Int(1))
	b.Int32s(0)[b.Index()] = v
	b.Printf("Source data: %d\n", v)
	return nil
}

// readDo is DeviceRead: prints devPtr[block_idx].
func readDo(_ context.Context, b *host.KernelBlock) error {
	b.Printf("Destination data: %d\n", b.Int32s(0)[b.Index()])
	return nil
}

// printDo is KernelPrint.
func printDo(_ context.Context, b *host.KernelBlock) error {
	b.Printf("Hello World\n")
	return nil
}

// helloWorld is the quickstart's hello_world kernel.
func helloWorld(_ context.Context, b *host.KernelBlock) error {
	b.Printf("Hello World!!!\n")
	return nil
}

// addDo is AddKernel: each block adds its totalSize/blockDim elements, in
// 16 tiles of elementsPerBlock/16 (8 tiles, double-buffered): what the
// integer divisions leave over is not computed, as natively.
func addDo(ctx context.Context, b *host.KernelBlock) error {
	a, s, d := b.Float32s(0), b.Float32s(1), b.Float32s(2)
	per := uint32(b.Uint(3)) / b.BlockDim
	tile := per / 8 / 2
	start := b.Index() * per
	for i := start; i < start+16*tile; i++ {
		d[i] = a[i] + s[i]
	}
	return ctx.Err()
}

// addCustom is the quickstart's add_custom: block i adds halves [2048i,
// 2048(i+1)) of x and y into z, in half precision.
func addCustom(_ context.Context, b *host.KernelBlock) error {
	x, y, z := b.Uint16s(0), b.Uint16s(1), b.Uint16s(2)
	lo := int(b.Index()) * 2048
	for i := lo; i < lo+2048; i++ {
		z[i] = addF16(x[i], y[i])
	}
	return nil
}

// addF16 adds two halves as the vector unit does: the float32 sum (exact
// enough that rounding it to half is rounding the exact sum) rounded to
// nearest even.
func addF16(a, b uint16) uint16 { return half.From32(half.To32(a) + half.To32(b)) }
