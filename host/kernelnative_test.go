package host_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/testsupport"
	"github.com/aclwasm/aclwasm/internal/testsupport/kerneltest"
)

// TestKernelNativeLoad checks the binaries of the granted kernels: loaded
// with the plugin on the native backend (each file once), a load that
// fails naming the kernel and leaving nothing loaded, unloaded with the
// plugin; the simulator ignores them.
func TestKernelNativeLoad(t *testing.T) {
	ctx := context.Background()
	missing := filepath.Join(t.TempDir(), "none.o")
	ks := []host.Kernel{
		{Name: "Bad", Binary: missing, Run: kerneltest.SimKernels()[0].Run},
		{Name: "NoEntry", Binary: kerneltest.StandinBinary, Entry: "Nope", Run: kerneltest.SimKernels()[0].Run},
	}
	rt := kerneltest.Runtime(t, host.WithKernels(ks...))
	wasm := testsupport.WAT(t, kerneltest.GuestWAT(abi.Wide))
	base := kerneltest.StandinBinaries(t)

	pl, err := rt.Load(ctx, wasm, host.Policy{Kernels: []string{"Inc", "Fill", "Print"}})
	require.NoError(t, err)
	if base >= 0 {
		require.Equal(t, base+1, kerneltest.StandinBinaries(t), "one binary file, loaded once for its two kernels")
	}
	require.NoError(t, pl.Close(ctx))
	if base >= 0 {
		require.Equal(t, base, kerneltest.StandinBinaries(t), "unloaded with the plugin")
	}

	for _, c := range []struct {
		grant []string
		want  string
	}{
		{[]string{"Inc", "Bad"}, "host: kernel Bad: loading its binary " + missing + ": "},
		{[]string{"Inc", "NoEntry"}, "host: kernel NoEntry: entry Nope of its binary " + kerneltest.StandinBinary + ": "},
	} {
		pl, err := rt.Load(ctx, wasm, host.Policy{Kernels: c.grant})
		if base < 0 { // the simulator runs the kernels' Go code
			require.NoError(t, err)
			require.NoError(t, pl.Close(ctx))
			continue
		}
		require.ErrorContains(t, err, c.want)
		require.Equal(t, base, kerneltest.StandinBinaries(t), "a failed load leaves nothing loaded")
	}
}

func TestKernelEntryWithoutBinary(t *testing.T) {
	_, err := host.NewRuntime(context.Background(), host.WithKernels(host.Kernel{Name: "k", Entry: "e", Run: kerneltest.SimKernels()[0].Run}))
	require.ErrorContains(t, err, `kernel "k": Entry "e" without a Binary`)
}
