package wazero

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// nopInvoker is an engine.Invoker for a module that imports nothing: it
// holds the memory's reference and releases it, as a session would.
type nopInvoker struct{ held []engine.Releaser }

func (n *nopInvoker) Invoke(context.Context, int, []byte, []uint64) { panic("no imports") }
func (n *nopInvoker) Hold(m engine.Releaser)                        { n.held = append(n.held, m) }
func (n *nopInvoker) Release(context.Context) error {
	for _, m := range n.held {
		m.Release()
	}
	n.held = nil
	return nil
}

// TestIdleDropsExports: Idle drops the functions the calls looked up,
// each holding a call engine with its own stack that wazero made at the
// lookup, so an idle instance holds none; the next call looks its export
// up again and runs as before, with the instance's state (a global the
// calls count in) kept.
func TestIdleDropsExports(t *testing.T) {
	ctx := context.Background()
	wasm := testsupport.WAT(t, `(module
  (memory (export "memory") 1)
  (global $n (mut i32) (i32.const 0))
  (func (export "next") (result i32)
    (global.set $n (i32.add (global.get $n) (i32.const 1)))
    (global.get $n))
  (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1))))`)
	e, err := New(ctx, engine.Options{})
	require.NoError(t, err)
	defer func() { require.NoError(t, e.Close(ctx)) }()
	cm, err := e.Compile(ctx, engine.Module{Wasm: wasm})
	require.NoError(t, err)
	defer func() { require.NoError(t, cm.Close(ctx)) }()
	inv := &nopInvoker{}
	ei, err := cm.Instantiate(ctx, engine.Config{Invoker: inv, MemoryLimit: 1 << 16})
	require.NoError(t, err)
	defer func() { require.NoError(t, errors.Join(ei.Close(ctx), inv.Release(ctx))) }()
	inst := ei.(*instance)

	res, err := inst.Call(ctx, "next")
	require.NoError(t, err)
	require.Equal(t, []uint64{1}, res)
	res, err = inst.Call(ctx, "add", 2, 3)
	require.NoError(t, err)
	require.Equal(t, []uint64{5}, res)
	require.Equal(t, 2, cachedExports(inst), "each export called is looked up once and kept while calls come")
	require.NotNil(t, inst.first)
	require.Len(t, inst.funcs, 1, "the first export looked up is kept outside the map")

	inst.Idle()
	require.Zero(t, cachedExports(inst), "an idle instance keeps no export's function (nor its stack)")

	res, err = inst.Call(ctx, "next")
	require.NoError(t, err)
	require.Equal(t, []uint64{2}, res, "the instance's state outlives Idle")
	res, err = inst.Call(ctx, "add", 40, 2)
	require.NoError(t, err)
	require.Equal(t, []uint64{42}, res)
	require.True(t, inst.Has("add"))
	require.False(t, inst.Has("missing"))
}

// cachedExports is how many exports inst keeps looked up.
func cachedExports(inst *instance) int {
	n := len(inst.funcs)
	if inst.first != nil {
		n++
	}
	return n
}
