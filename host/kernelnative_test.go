package host

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
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
