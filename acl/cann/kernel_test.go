//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// kernelBinary is the stand-in's kernel binary (testdata/standin/kernels.txt).
func kernelBinary(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("testdata/standin/kernels.txt")
	require.NoError(t, err)
	return p
}

// loadedBinaries is how many kernel binaries the stand-in holds.
func (s *standin) loadedBinaries(t *testing.T) int64 {
	t.Helper()
	var f func(out *int64)
	h, err := purego.Dlopen(s.path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	require.NoError(t, err)
	purego.RegisterLibFunc(&f, h, "aclwasmStandinKernelStats")
	var n int64
	f(&n)
	return n
}

// kfunc loads the stand-in's binary on b and returns its function entry;
// the binary is unloaded when the test ends.
func kfuncOf(t *testing.T, b *Backend, entry string) acl.KernelFunc {
	t.Helper()
	bin, err := b.LoadKernelBinary(kernelBinary(t))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.UnloadKernelBinary(bin)) })
	f, err := b.KernelFunction(bin, entry)
	require.NoError(t, err)
	return f
}

func u32le(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

func TestKernelLaunchPacksArguments(t *testing.T) {
	b, s := open(t, full)
	ctx := context.Background()
	add := kfuncOf(t, b, "AddF32")
	const n = 1000
	var x, y [n * 4]byte
	for i := range n {
		binary.LittleEndian.PutUint32(x[4*i:], math.Float32bits(float32(i)))
		binary.LittleEndian.PutUint32(y[4*i:], math.Float32bits(0.5))
	}
	pa, err := b.Malloc(0, n*4, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	pb, err := b.Malloc(0, n*4, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	pc, err := b.Malloc(0, n*4, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	for _, p := range []acl.DevPtr{pa, pb, pc} {
		t.Cleanup(func() { require.NoError(t, b.Free(ctx, p)) })
	}
	require.NoError(t, b.Memcpy(ctx, acl.Device(pa), acl.Host(x[:], 0), n*4))
	require.NoError(t, b.Memcpy(ctx, acl.Device(pb), acl.Host(y[:], 0), n*4))
	st, err := b.CreateStream(0)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.DestroyStream(ctx, st)) })
	s.logReset()
	l := &acl.Launch{
		Name:    "AddF32",
		Regions: []acl.Region{{Ptr: pa, N: n * 4}, {Ptr: pb, N: n * 4}, {Ptr: pc, N: n * 4, Write: true}},
		Kernel: &acl.KernelCall{Func: add, BlockDim: 3, Timeout: 2*time.Second + 1,
			Args: []acl.KernelArg{{Region: 0}, {Region: 1}, {Region: 2}, {Region: -1, Value: u32le(n)}}},
	}
	require.NoError(t, b.LaunchKernel(st, l))
	require.NoError(t, b.SynchronizeStream(ctx, st, -1))
	var out [n * 4]byte
	require.NoError(t, b.Memcpy(ctx, acl.Host(out[:], 0), acl.Device(pc), n*4))
	for i := range n {
		require.Equal(t, float32(i)+0.5, math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:])), "element %d", i)
	}
	le := func(p acl.DevPtr) string {
		return "bytes=" + hexBytes(binary.LittleEndian.AppendUint64(nil, uint64(p)))
	}
	calls := s.calls("aclrtKernelArgsInit", "aclrtKernelArgsAppend", "aclrtKernelArgsFinalize", "aclrtLaunchKernelWithConfig")
	require.Len(t, calls, 7, "%q", calls)
	require.Contains(t, calls[1], "paramSize=8, ")
	require.Contains(t, calls[1], le(pa))
	require.Contains(t, calls[2], le(pb))
	require.Contains(t, calls[3], le(pc))
	require.Contains(t, calls[4], "paramSize=4, ")
	require.Contains(t, calls[4], "bytes=e8030000")
	require.Contains(t, calls[6], "numBlocks=3, ")
	require.Contains(t, calls[6], "timeoutUs=2000001, ", "the timeout rounded up to a microsecond")
	require.Contains(t, calls[6], ") = 0")
}

func hexBytes(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

func TestKernelFaultAtSynchronize(t *testing.T) {
	b, _ := open(t, full)
	ctx := context.Background()
	fault := kfuncOf(t, b, "Fault")
	st, err := b.CreateStream(0)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.DestroyStream(ctx, st)) })
	require.NoError(t, b.LaunchKernel(st, &acl.Launch{Name: "Fault", Kernel: &acl.KernelCall{Func: fault, BlockDim: 2}}))
	require.ErrorIs(t, b.SynchronizeStream(ctx, st, -1), acl.ErrRTAicoreException)
	require.NoError(t, b.SynchronizeStream(ctx, st, -1), "the fault is reported once")
}

func TestKernelTimeoutOnDevice(t *testing.T) {
	b, _ := open(t, full)
	ctx := context.Background()
	spin := kfuncOf(t, b, "Spin")
	st, err := b.CreateStream(0)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.DestroyStream(ctx, st)) })
	require.NoError(t, b.LaunchKernel(st, &acl.Launch{Name: "Spin", Kernel: &acl.KernelCall{Func: spin, BlockDim: 1, Timeout: 50 * time.Millisecond}}))
	require.ErrorIs(t, b.SynchronizeStream(ctx, st, -1), acl.ErrRTAicoreTimeout)
}

func TestKernelLoadErrors(t *testing.T) {
	b, s := open(t, full)
	ctx := context.Background()
	_, err := b.LoadKernelBinary(filepath.Join(t.TempDir(), "none"))
	require.ErrorIs(t, err, acl.ErrRTParamInvalid, "a missing file")
	bad := filepath.Join(t.TempDir(), "bad")
	require.NoError(t, os.WriteFile(bad, []byte("\x7fELF"), 0o644))
	_, err = b.LoadKernelBinary(bad)
	require.ErrorIs(t, err, acl.ErrRTParamInvalid, "not a binary of this runtime")

	bin, err := b.LoadKernelBinary(kernelBinary(t))
	require.NoError(t, err)
	require.EqualValues(t, 1, s.loadedBinaries(t))
	_, err = b.KernelFunction(bin, "Nope")
	require.ErrorIs(t, err, acl.ErrRTParamInvalid, "an entry the binary lacks")
	f, err := b.KernelFunction(bin, "Inc")
	require.NoError(t, err)
	require.NoError(t, b.UnloadKernelBinary(bin))
	require.EqualValues(t, 0, s.loadedBinaries(t))
	require.ErrorIs(t, b.UnloadKernelBinary(bin), acl.ErrRTInvalidHandle)
	_, err = b.KernelFunction(bin, "Inc")
	require.ErrorIs(t, err, acl.ErrRTInvalidHandle)

	st, err := b.CreateStream(0)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.DestroyStream(ctx, st)) })
	s.logReset()
	require.ErrorIs(t, b.LaunchKernel(st, &acl.Launch{Name: "Inc", Kernel: &acl.KernelCall{Func: f, BlockDim: 1}}), acl.ErrRTInvalidHandle, "a function of an unloaded binary")
	require.ErrorIs(t, b.LaunchKernel(st, &acl.Launch{Name: "op", Run: func(context.Context, [][]byte) error { return nil }}), acl.ErrInvalidParam, "Go compute")
	// Buffers must lie in live allocations of the stream's device.
	inc := kfuncOf(t, b, "Inc")
	p, err := b.Malloc(1, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Free(ctx, p)) })
	one := []acl.KernelArg{{Region: 0}}
	require.ErrorIs(t, b.LaunchKernel(st, &acl.Launch{Name: "Inc", Regions: []acl.Region{{Ptr: p, N: 4, Write: true}}, Kernel: &acl.KernelCall{Func: inc, BlockDim: 1, Args: one}}),
		acl.ErrRTParamInvalid, "device 1's memory on device 0's stream")
	require.ErrorIs(t, b.LaunchKernel(st, &acl.Launch{Name: "Inc", Regions: []acl.Region{{Ptr: p + 64, N: 4, Write: true}}, Kernel: &acl.KernelCall{Func: inc, BlockDim: 1, Args: one}}),
		acl.ErrRTParamInvalid, "outside any allocation")
	require.ErrorIs(t, b.LaunchKernel(st, &acl.Launch{Name: "Inc", Kernel: &acl.KernelCall{Func: inc, BlockDim: 1, Args: one}}),
		acl.ErrInvalidParam, "an argument naming no region")
	require.Empty(t, s.calls("aclrtKernelArgsInit", "aclrtLaunchKernelWithConfig"), "refused launches make no native call")
}

func TestKernelOldRuntime(t *testing.T) {
	b, _ := open(t, older)
	for _, fn := range kernelAPI {
		require.False(t, b.Supports(fn), fn)
	}
	_, err := b.LoadKernelBinary(kernelBinary(t))
	require.ErrorIs(t, err, acl.ErrRTFeatureNotSupport)
}

func TestKernelCloseUnloads(t *testing.T) {
	s := getStandin(t, full)
	b, err := Open(s.path)
	require.NoError(t, err)
	_, err = b.LoadKernelBinary(kernelBinary(t))
	require.NoError(t, err)
	require.EqualValues(t, 1, s.loadedBinaries(t))
	require.NoError(t, b.Close())
	require.EqualValues(t, 0, s.loadedBinaries(t))
}
