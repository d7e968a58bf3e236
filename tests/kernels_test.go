package tests

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/kernels/basic"
	"github.com/aclwasm/aclwasm/host/kernels/cannexamples"
)

// The native-style programs of tests/native/kernels launch kernels the
// host registers through their launchers, built with the SDK's include
// path and the one link flag the guest SDK documents for them
// (-Wl,--allow-undefined), and run with the sets the CLI links.
func TestKernelPrograms(t *testing.T) {
	ctx := context.Background()
	b := sim.New()
	t.Cleanup(func() { b.Close() })
	rt, err := host.NewRuntime(ctx, host.WithBackend(b), host.WithEngine(engine),
		host.WithKernelSet(basic.Set, basic.Kernels()...),
		host.WithKernelSet(cannexamples.Set, cannexamples.Kernels()...))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "kernels"), 0o755)) // buildNative keeps the source's directory
	load := func(t *testing.T, src string, p host.Policy) *host.Plugin {
		t.Helper()
		pl, err := rt.Load(ctx, buildNative(t, dir, src, "-Wl,--allow-undefined"), testCompile(p))
		require.NoError(t, err, src)
		t.Cleanup(func() { require.NoError(t, pl.Close(ctx)) })
		return pl
	}

	t.Run("cann-examples", func(t *testing.T) {
		o := mustRun(t, load(t, "kernels/kernels.cpp", host.Policy{Kernels: []string{cannexamples.Set}}), "kernels")
		require.Equal(t, ""+
			"Source data: 42\nSource data: 42\nSource data: 42\nSource data: 42\n"+
			"Destination data: 42\nDestination data: 42\nDestination data: 42\nDestination data: 42\n"+
			"sum of written values: 168\n"+
			"x: 3 3 3 3\n"+
			"Hello World\nHello World\n"+
			"AddDo: 0 of 4096 wrong\n"+
			"overrun: 107000\n"+
			"ErrorOP: 507015\n"+
			"after the fault: 0\n"+
			"done\n", o.stdout)
	})
	t.Run("basic", func(t *testing.T) {
		o := mustRun(t, load(t, "kernels/basic.c", host.Policy{Kernels: []string{basic.Set}}), "basic")
		require.Equal(t, "mul then casts: 16 16\nprefix sum: 1 3 500500\nhistogram: 200 200 0\noverrun: 107000\ndone\n", o.stdout)
	})
	t.Run("kernel API", func(t *testing.T) {
		o := mustRun(t, load(t, "kernels/api.c", host.Policy{Kernels: []string{cannexamples.Set}}), "api")
		require.Equal(t, ""+
			"add_custom: 0 of 16384 wrong\n"+
			"LoadFromData: 207000\n"+
			"unapproved binary: 107000\n"+
			"kernel of another binary: 107000\n"+
			"placeholder: 207000\n"+
			"one element short: 107000\n"+
			"blockDim 0: 100000\n"+
			"after unload: 107017\n"+
			"done\n", o.stdout)
	})
	t.Run("ungranted", func(t *testing.T) {
		_, err := rt.Load(ctx, buildNative(t, dir, "kernels/kernels.cpp", "-Wl,--allow-undefined"), testCompile(host.Policy{Kernels: []string{basic.Set}}))
		var le *host.LoadError
		require.ErrorAs(t, err, &le)
		require.Contains(t, err.Error(), "import env._Z6EasyOPjPvPj is undefined: no kernel EasyOP for its launcher: it is not granted to the plugin")
	})
}
