package wazero

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// TestInstanceConfigs: instances made from the engine's shared base
// configurations each get their own arguments and environment, and the
// clocks they ask for: wazero's fixed wall clock with DeterministicClocks,
// the host's otherwise, in any order.
func TestInstanceConfigs(t *testing.T) {
	ctx := context.Background()
	wasm := testsupport.WAT(t, `(module
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_sizes_get" (func $env (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock (param i32 i64 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "argc") (result i32) (drop (call $args (i32.const 0) (i32.const 4))) (i32.load (i32.const 0)))
  (func (export "argbytes") (result i32) (drop (call $args (i32.const 0) (i32.const 4))) (i32.load (i32.const 4)))
  (func (export "envc") (result i32) (drop (call $env (i32.const 0) (i32.const 4))) (i32.load (i32.const 0)))
  (func (export "wall") (result i64) (drop (call $clock (i32.const 0) (i64.const 1) (i32.const 8))) (i64.load (i32.const 8))))`)
	e, err := New(ctx, engine.Options{})
	require.NoError(t, err)
	defer func() { require.NoError(t, e.Close(ctx)) }()
	cm, err := e.Compile(ctx, engine.Module{Wasm: wasm})
	require.NoError(t, err)
	defer func() { require.NoError(t, cm.Close(ctx)) }()
	fixed := uint64(time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()) // wazero's fake wall clock
	for _, c := range []struct {
		args, env []string
		det       bool
	}{
		{args: []string{"a", "b", "c"}, env: []string{"K=v"}, det: true},
		{},
		{args: []string{"one"}, env: []string{"A=1", "B=2"}},
		{det: true},
		// The arguments of the last instance are kept with their
		// configuration (baseWithArgs): the same ones with the other
		// clocks, others of the same count, and the first again.
		{args: []string{"one"}, det: true},
		{args: []string{"one"}},
		{args: []string{"three"}},
		{args: []string{"one"}},
	} {
		inv := &nopInvoker{}
		inst, err := cm.Instantiate(ctx, engine.Config{Invoker: inv, MemoryLimit: 1 << 16, Args: c.args, Env: c.env, DeterministicClocks: c.det})
		require.NoError(t, err)
		argc, err := inst.Call(ctx, "argc")
		require.NoError(t, err)
		envc, err := inst.Call(ctx, "envc")
		require.NoError(t, err)
		wall, err := inst.Call(ctx, "wall")
		require.NoError(t, err)
		require.Equal(t, []uint64{uint64(len(c.args))}, argc, "%+v", c)
		size := 0
		for _, a := range c.args {
			size += len(a) + 1
		}
		argbytes, err := inst.Call(ctx, "argbytes")
		require.NoError(t, err)
		require.Equal(t, []uint64{uint64(size)}, argbytes, "%+v", c)
		require.Equal(t, []uint64{uint64(len(c.env))}, envc, "%+v", c)
		if c.det {
			require.Equal(t, fixed, wall[0], "%+v: wazero's clock", c)
		} else {
			require.Greater(t, wall[0], fixed, "%+v: the host's clock", c)
		}
		require.NoError(t, errors.Join(inst.Close(ctx), inv.Release(ctx)))
	}
}
