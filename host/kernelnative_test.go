package host

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// standinBinaries is how many kernel binaries the stand-in holds; -1 off
// the native backend.
func standinBinaries(t testing.TB) int64 {
	t.Helper()
	lib := testsupport.NativeLib()
	if lib == "" {
		return -1
	}
	h, err := purego.Dlopen(lib, purego.RTLD_NOW|purego.RTLD_LOCAL)
	require.NoError(t, err)
	var stats func(out *int64)
	purego.RegisterLibFunc(&stats, h, "aclwasmStandinKernelStats")
	var n int64
	stats(&n)
	return n
}

// TestKernelNativeLoad checks the binaries of the granted kernels: loaded
// with the plugin on the native backend (each file once), a load that
// fails naming the kernel and leaving nothing loaded, unloaded with the
// plugin; the simulator ignores them.
func TestKernelNativeLoad(t *testing.T) {
	ctx := context.Background()
	missing := filepath.Join(t.TempDir(), "none.o")
	ks := append(testKernels(),
		Kernel{Name: "Bad", Binary: missing, Run: testKernelsSim()[0].Run},
		Kernel{Name: "NoEntry", Binary: standinKernels, Entry: "Nope", Run: testKernelsSim()[0].Run})
	rt, err := NewRuntime(ctx, append(testBackend(t), WithEngine(testEngine), WithKernels(ks...))...)
	require.NoError(t, err)
	defer func() { require.NoError(t, rt.Close(ctx)) }()
	wasm := wat2wasm(t, kernelGuestWAT(abi.Wide))
	base := standinBinaries(t)

	pl, err := rt.Load(ctx, wasm, Policy{Kernels: []string{"Inc", "Fill", "Print"}})
	require.NoError(t, err)
	if base >= 0 {
		require.Equal(t, base+1, standinBinaries(t), "one binary file, loaded once for its two kernels")
	}
	require.NoError(t, pl.Close(ctx))
	if base >= 0 {
		require.Equal(t, base, standinBinaries(t), "unloaded with the plugin")
	}

	for _, c := range []struct {
		grant []string
		want  string
	}{
		{[]string{"Inc", "Bad"}, "host: kernel Bad: loading its binary " + missing + ": "},
		{[]string{"Inc", "NoEntry"}, "host: kernel NoEntry: entry Nope of its binary " + standinKernels + ": "},
	} {
		pl, err := rt.Load(ctx, wasm, Policy{Kernels: c.grant})
		if base < 0 { // the simulator runs the kernels' Go code
			require.NoError(t, err)
			require.NoError(t, pl.Close(ctx))
			continue
		}
		require.ErrorContains(t, err, c.want)
		require.Equal(t, base, standinBinaries(t), "a failed load leaves nothing loaded")
	}
}

func TestKernelEntryWithoutBinary(t *testing.T) {
	_, err := NewRuntime(context.Background(), WithKernels(Kernel{Name: "k", Entry: "e", Run: testKernelsSim()[0].Run}))
	require.ErrorContains(t, err, `kernel "k": Entry "e" without a Binary`)
}

// nativeOnlyKernels declare only a native binary (the stand-in's Inc and
// Fill, under names of their own), as a kernels file does: no Run.
func nativeOnlyKernels() []Kernel {
	return []Kernel{
		{Name: "NInc", Params: []KernelParam{Buffer("x", acl.DTUint32, ReadWrite, "blockDim")}, Binary: standinKernels, Entry: "Inc"},
		{Name: "NFill", Params: []KernelParam{
			Buffer("dst", acl.DTUint8, Write, "n"),
			Scalar("n", acl.DTUint32),
			Scalar("v", acl.DTUint8),
		}, Binary: standinKernels, Entry: "Fill"},
	}
}

// TestKernelNativeOnly: a kernel with only a native binary binds to its
// launchers and is found by the kernel API on every backend; the native
// backend runs it (by its Entry), the simulator refuses each launch with
// 207000 and a message naming the backend, touching nothing.
func TestKernelNativeOnly(t *testing.T) {
	ls := []launcher{{sym: "NInc", params: "i32 i32 i64"}, {sym: "NFill", params: "i32 i32 i64 i32 i32", status: true}}
	h := kernelHarness(t, abi.Wide, Policy{Kernels: []string{"NInc", "NFill"}}, nil, ls, WithKernels(nativeOnlyKernels()...))
	h.ok("aclrtSetDevice", 0)
	x, a := h.malloc(16), h.malloc(16)
	h.ok("aclrtMemset", x, 16, 0, 16)
	h.ok("aclrtMemset", a, 16, 0, 16)
	s := h.stream()
	// The kernel API: the binary holds them, and a function is found.
	h.putStr(kBinName, filepath.Base(standinKernels))
	h.putStr(kFnName, "NInc")
	bin := h.handleOut("aclrtBinaryLoadFromFile", kBinName, 0, outA)
	fn := h.handleOut("aclrtBinaryGetFunction", bin, kFnName, outA)
	args := h.handleOut("aclrtKernelArgsInit", fn, outA)
	require.Zero(t, h.appendArg(args, x, 8))
	h.ok("aclrtKernelArgsFinalize", args)

	if h.binaries() {
		h.kcall("NInc", 2, s, x)
		require.Zero(t, h.kcall("NFill", 1, s, a, 3, 7))
		require.Zero(t, h.rc("aclrtLaunchKernelWithConfig", fn, 1, s, 0, args, 0))
		h.ok("aclrtSynchronizeStream", s)
		h.ok("aclrtMemcpy", outB, 8, x, 8, uint64(acl.MemcpyDeviceToHost))
		require.Equal(t, []byte{2, 0, 0, 0, 1, 0, 0, 0}, h.mem()[outB:outB+8])
		h.ok("aclrtMemcpy", outB, 4, a, 4, uint64(acl.MemcpyDeviceToHost))
		require.Equal(t, []byte{7, 7, 7, 0}, h.mem()[outB:outB+4])
		return
	}
	const msg = "has only a native binary (kernels.txt), no simulator implementation (host.Kernel.Run): the sim backend runs only kernels implemented in Go"
	require.Equal(t, int32(acl.ErrRTFeatureNotSupport), h.kcall("NFill", 1, s, a, 3, 7))
	require.Contains(t, h.recentMsg(), "kernel NFill "+msg)
	require.Equal(t, int(acl.ErrRTFeatureNotSupport), int(h.rc("aclrtLaunchKernelWithConfig", fn, 1, s, 0, args, 0)))
	require.Contains(t, h.recentMsg(), "kernel NInc "+msg)
	h.kcall("NInc", 2, s, x) // void: the stream fails at its synchronize
	h.code(acl.ErrRTFeatureNotSupport, "aclrtSynchronizeStream", s)
	require.Contains(t, h.recentMsg(), "kernel NInc "+msg)
	h.ok("aclrtMemcpy", outB, 16, x, 16, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, make([]byte, 16), h.mem()[outB:outB+16], "nothing touched")
	h.ok("aclrtMemcpy", outB, 16, a, 16, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, make([]byte, 16), h.mem()[outB:outB+16], "nothing touched")

	err := RunKernel(context.Background(), nativeOnlyKernels()[0], 1, make([]byte, 4))
	require.ErrorContains(t, err, "host: kernel NInc has no Run: RunKernel runs the simulator's implementation")
}
