package wazero

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// TestMountedCount: the engine counts its instances with mounts, so that
// the WASI calls of the others (a command run per request) ask no map;
// an instance with a mount is counted from its instantiation, before its
// first call, until its Close.
func TestMountedCount(t *testing.T) {
	ctx := context.Background()
	wasm := testsupport.WAT(t, `(module (memory 1) (func (export "f")))`)
	e, err := New(ctx, engine.Options{})
	require.NoError(t, err)
	defer func() { require.NoError(t, e.Close(ctx)) }()
	eng := e.(*Engine)
	cm, err := e.Compile(ctx, engine.Module{Wasm: wasm})
	require.NoError(t, err)
	defer func() { require.NoError(t, cm.Close(ctx)) }()
	newInst := func(mounts []engine.Mount) (engine.Instance, *nopInvoker) {
		inv := &nopInvoker{}
		inst, err := cm.Instantiate(ctx, engine.Config{Invoker: inv, MemoryLimit: 1 << 16, Mounts: mounts, Files: engine.NewFiles(engine.FileLimits{})})
		require.NoError(t, err)
		return inst, inv
	}
	plain, pinv := newInst(nil)
	require.Zero(t, eng.nmounted.Load())
	mounted, minv := newInst([]engine.Mount{{HostDir: t.TempDir(), GuestDir: "/data"}})
	require.EqualValues(t, 1, eng.nmounted.Load(), "counted before its first call")
	_, ok := eng.mounted.Load(mounted.(*instance).mod)
	require.True(t, ok)
	require.NoError(t, errors.Join(mounted.Close(ctx), minv.Release(ctx)))
	require.Zero(t, eng.nmounted.Load())
	require.NoError(t, errors.Join(plain.Close(ctx), pinv.Release(ctx)))
	require.Zero(t, eng.nmounted.Load())
}
