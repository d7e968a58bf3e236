package cannexamples_test

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/kernels/cannexamples"
)

func kernel(t *testing.T, name string) host.Kernel {
	for _, k := range cannexamples.Kernels() {
		if k.Name == name {
			return k
		}
	}
	t.Fatalf("no kernel %s", name)
	return host.Kernel{}
}

func u32s(b []byte) []uint32 {
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

func TestPerBlockKernels(t *testing.T) {
	ctx := context.Background()
	x := make([]byte, 4*5)
	binary.LittleEndian.PutUint32(x[16:], 9) // past blockDim 4: untouched
	require.NoError(t, host.RunKernel(ctx, kernel(t, "EasyOP"), 4, x))
	require.NoError(t, host.RunKernel(ctx, kernel(t, "ShortOP"), 4, x))
	require.NoError(t, host.RunKernel(ctx, kernel(t, "LongOP"), 4, x))
	require.Equal(t, []uint32{3, 3, 3, 3, 9}, u32s(x))
	d := make([]byte, 4*3)
	require.NoError(t, host.RunKernel(ctx, kernel(t, "WriteDo"), 3, d, int32(-7)))
	require.Equal(t, []uint32{uint32(0xfffffff9), 0xfffffff9, 0xfffffff9}, u32s(d))
	require.NoError(t, host.RunKernel(ctx, kernel(t, "ReadDo"), 3, d))
	require.NoError(t, host.RunKernel(ctx, kernel(t, "PrintDo"), 3))
	require.NoError(t, host.RunKernel(ctx, kernel(t, "hello_world"), 1))
}

func TestErrorOPFaults(t *testing.T) {
	err := host.RunKernel(context.Background(), kernel(t, "ErrorOP"), 1)
	require.Equal(t, acl.ErrRTAicoreException, acl.CodeOf(err))
	require.ErrorContains(t, err, "kernel ErrorOP failed on the device: block 0 of 1: the kernel executed a trap instruction")
}

func TestLongOPCost(t *testing.T) {
	k := kernel(t, "LongOP")
	require.NotNil(t, k.Cost)
	require.Equal(t, cannexamples.LongOPCost, k.Cost(&host.KernelArgs{BlockDim: 8}))
}

func TestAddDo(t *testing.T) {
	// 100 elements over 3 blocks: 33 each, tiles of 33/16 = 2, so each
	// block adds its first 32 elements, as the native kernel does.
	const n = 100
	a, b, c := make([]byte, 4*n), make([]byte, 4*n), make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(a[4*i:], math.Float32bits(float32(i)))
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(1))
	}
	require.NoError(t, host.RunKernel(context.Background(), kernel(t, "AddDo"), 3, a, b, c, uint32(n)))
	for i := range n {
		got := math.Float32frombits(binary.LittleEndian.Uint32(c[4*i:]))
		if i%33 < 32 && i < 99 {
			require.Equal(t, float32(i)+1, got, "element %d", i)
		} else {
			require.Zero(t, got, "element %d is left over natively", i)
		}
	}
}

func TestAddCustom(t *testing.T) {
	const n = 2 * 2048
	x, y, z := make([]byte, 2*n), make([]byte, 2*n), make([]byte, 2*n)
	for i := range n {
		binary.LittleEndian.PutUint16(x[2*i:], 0x3c00) // 1.0
		binary.LittleEndian.PutUint16(y[2*i:], 0x4000) // 2.0
	}
	require.NoError(t, host.RunKernel(context.Background(), kernel(t, "add_custom"), 2, x, y, z))
	for i := range n {
		require.Equal(t, uint16(0x4200), binary.LittleEndian.Uint16(z[2*i:]), "3.0 at %d", i)
	}
	require.ErrorContains(t, host.RunKernel(context.Background(), kernel(t, "add_custom"), 3, x, y, z), "extent blockDim * 2048 is 12288 bytes, the buffer has 8192")
}
