package wazero

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// recoverInvoker is a session that leaves its panics to the adapter
// (engine.Recoverer): an import called with kind 1 panics with "mine",
// which Recover ends itself (result 7); kind 2 panics with "other", which
// Recover leaves to the adapter; any other kind returns 0.
type recoverInvoker struct {
	zeroInvoker
	recovering int      // Recovering's calls
	calls      int      // Invoke's calls
	early      bool     // Invoke ran before Recovering
	recovered  []any    // what Recover was handed
	stacks     []uint64 // the stack's first value Recover was handed
}

func (v *recoverInvoker) Recovering() { v.recovering++ }

func (v *recoverInvoker) Invoke(_ context.Context, _ int, _ []byte, stack []uint64) {
	v.calls++
	v.early = v.early || v.recovering == 0
	switch stack[4] {
	case 1:
		panic("mine")
	case 2:
		panic("other")
	}
	stack[0] = 0
}

func (v *recoverInvoker) Recover(r any, stack []uint64) bool {
	v.recovered = append(v.recovered, r)
	v.stacks = append(v.stacks, stack[0])
	if r != "mine" {
		return false
	}
	stack[0] = 7
	return true
}

const recoverWAT = `(module
  (import "acl" "aclrtMemcpy" (func $m (param i64 i64 i64 i64 i32) (result i32)))
  (import "acl" "guarded" (func $g (param i64 i64 i64 i64 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "copy") (param $kind i32) (result i32)
    (call $m (i64.const 11) (i64.const 64) (i64.const 0) (i64.const 64) (local.get $kind)))
  (func (export "guarded") (param $kind i32) (result i32)
    (call $g (i64.const 11) (i64.const 64) (i64.const 0) (i64.const 64) (local.get $kind))))`

// TestHostFuncRecover: for a session that is an engine.Recoverer, the
// adapter calls Recovering when it makes the instance, before any host
// call, and hands each panic of a function marked Unguarded to Recover
// with the call's stack: one Recover ends leaves its result to the guest,
// which goes on; one it leaves fails the guest's call with the panic, as
// wazero fails it for any other function (which pays no deferred
// recover) and any other session.
func TestHostFuncRecover(t *testing.T) {
	ctx := context.Background()
	params := []abi.Param{{Type: abi.Addr}, {Type: abi.Size}, {Type: abi.Addr}, {Type: abi.Size}, {Type: abi.I32}}
	e, err := New(ctx, engine.Options{Funcs: []engine.Func{
		{Module: "acl", Name: "aclrtMemcpy", Params: params, Profile: abi.Wide, Unguarded: true},
		{Module: "acl", Name: "guarded", Params: params, Profile: abi.Wide},
	}})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close(ctx)) })
	c, err := e.Compile(ctx, engine.Module{Wasm: testsupport.WAT(t, recoverWAT), Memory: "memory"})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close(ctx)) })
	inv := &recoverInvoker{}
	bind := &engine.Binding{Invoker: inv}
	inst, err := c.Instantiate(ctx, engine.Config{Invoker: inv, Binding: bind, MemoryLimit: 1 << 16})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, inst.Close(ctx)) })
	require.Equal(t, 1, inv.recovering, "Recovering at instantiation")
	cctx := &bindCtx{Context: ctx, b: bind}

	res, err := inst.Call(cctx, "copy", 0)
	require.NoError(t, err)
	require.Equal(t, []uint64{0}, res)
	require.Empty(t, inv.recovered)

	res, err = inst.Call(cctx, "copy", 1)
	require.NoError(t, err, "a panic Recover ends is the call's result")
	require.Equal(t, []uint64{7}, res)
	require.Equal(t, []any{"mine"}, inv.recovered)
	require.Equal(t, []uint64{11}, inv.stacks, "Recover gets the call's stack")

	_, err = inst.Call(cctx, "copy", 2)
	require.ErrorContains(t, err, "other (recovered by wazero)")
	require.Equal(t, []any{"mine", "other"}, inv.recovered)

	_, err = inst.Call(cctx, "guarded", 1)
	require.ErrorContains(t, err, "mine (recovered by wazero)", "a function not marked Unguarded")
	require.Len(t, inv.recovered, 2)

	res, err = inst.Call(cctx, "copy", 0)
	require.NoError(t, err, "the instance goes on")
	require.Equal(t, []uint64{0}, res)
	require.Equal(t, 5, inv.calls)
	require.False(t, inv.early)

	// A session that is no Recoverer: its panic fails the call.
	plain := &panicInvoker{}
	pbind := &engine.Binding{Invoker: plain}
	pinst, err := c.Instantiate(ctx, engine.Config{Invoker: plain, Binding: pbind, MemoryLimit: 1 << 16})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pinst.Close(ctx)) })
	_, err = pinst.Call(&bindCtx{Context: ctx, b: pbind}, "copy", 1)
	require.ErrorContains(t, err, "plain (recovered by wazero)")
}

// panicInvoker is a session whose every import panics, with no Recover.
type panicInvoker struct{ zeroInvoker }

func (panicInvoker) Invoke(context.Context, int, []byte, []uint64) { panic("plain") }
