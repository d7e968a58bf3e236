package wazero

import (
	"context"
	"errors"
	"slices"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// reuseWasm counts its calls in a global and in memory, and traps when
// asked to, after a recursion of some frames.
const reuseWasm = `(module
  (memory (export "memory") 1)
  (global $n (mut i32) (i32.const 0))
  (func $deep (param $d i32) (result i32) (local $a i64) (local $b i64)
    (local.set $a (i64.const 0x5a5a5a5a5a5a5a5a)) (local.set $b (local.get $a))
    (if (result i32) (local.get $d)
      (then (i32.add (call $deep (i32.sub (local.get $d) (i32.const 1))) (i32.wrap_i64 (local.get $b))))
      (else (i32.const 0))))
  (func (export "bump") (param $trap i32) (result i32)
    (drop (call $deep (i32.const 50)))
    (if (local.get $trap) (then unreachable))
    (global.set $n (i32.add (global.get $n) (i32.const 1)))
    (i32.store (i32.const 0) (i32.add (i32.load (i32.const 0)) (i32.const 1)))
    (i32.add (global.get $n) (i32.mul (i32.load (i32.const 0)) (i32.const 1000)))))`

// TestFuncReuse: the call engine of a closed instance's export is taken
// over by the next instance of the module (funcreuse.go), and calls the
// new instance's own state (its global and memory, not the closed one's),
// with its stack cleared, after a trap as after a return; one of another
// compilation is refused. If a wazero upgrade changes what rebind
// touches, it takes nothing over and this test fails.
func TestFuncReuse(t *testing.T) {
	ctx := context.Background()
	e, err := New(ctx, engine.Options{})
	require.NoError(t, err)
	defer func() { require.NoError(t, e.Close(ctx)) }()
	wasm := testsupport.WAT(t, reuseWasm)
	cm, err := e.Compile(ctx, engine.Module{Wasm: wasm})
	require.NoError(t, err)
	defer func() { require.NoError(t, cm.Close(ctx)) }()

	type inst struct {
		inv *nopInvoker
		i   *instance
	}
	start := func() inst {
		inv := &nopInvoker{}
		i, err := cm.Instantiate(ctx, engine.Config{Invoker: inv, MemoryLimit: 1 << 16})
		require.NoError(t, err)
		return inst{inv, i.(*instance)}
	}
	stop := func(in inst) { require.NoError(t, errors.Join(in.i.Close(ctx), in.inv.Release(ctx))) }
	bump := func(in inst, trap bool) ([]uint64, error) {
		arg := uint64(0)
		if trap {
			arg = 1
		}
		return in.i.Call(ctx, "bump", arg)
	}

	reused := 0
	for k := range 40 {
		a := start()
		for range 3 {
			got, err := bump(a, false)
			require.NoError(t, err)
			_ = got
		}
		if k%2 == 1 { // a trap ends the last call of some
			_, err := bump(a, true)
			var trap *engine.Trap
			require.ErrorAs(t, err, &trap)
		}
		fa := a.i.first.fn
		stop(a)
		b := start()
		got, err := bump(b, false)
		require.NoError(t, err)
		require.Equal(t, []uint64{1001}, got, "the new instance's own global and memory")
		if b.i.first.fn == fa {
			reused++
		}
		stop(b)
	}
	// The race detector's pools drop a quarter of what they are given.
	require.Greater(t, reused, 10, "call engines taken over")
	require.True(t, layout.l.ok, "wazero's call engine is not what rebind knows")

	// The stack is cleared: a call engine bound to another instance holds
	// nothing of its last call's frames.
	a := start()
	_, err = bump(a, false)
	require.NoError(t, err)
	fn := a.i.first.fn
	stack := *(*[]byte)(unsafe.Add(layout.l.callEngine(fn), layout.l.stack))
	nonzero := func(b byte) bool { return b != 0 }
	require.True(t, slices.ContainsFunc(stack, nonzero), "the call's frames are on its stack")
	stop(a)
	b := start()
	require.True(t, rebind(fn, b.i.mod))
	require.False(t, slices.ContainsFunc(stack, nonzero), "a byte of the last call's frames is left")
	got, err := b.i.Call(ctx, "bump", 0) // b looks bump up anew, fn stays unused
	require.NoError(t, err)
	require.Equal(t, []uint64{1001}, got)

	// Another compilation's call engine is refused.
	other, err := e.Compile(ctx, engine.Module{Wasm: testsupport.WAT(t, `(module (memory 1) (func (export "bump") (param i32) (result i32) (i32.const 7)))`)})
	require.NoError(t, err)
	defer func() { require.NoError(t, other.Close(ctx)) }()
	inv := &nopInvoker{}
	o, err := other.Instantiate(ctx, engine.Config{Invoker: inv, MemoryLimit: 1 << 16})
	require.NoError(t, err)
	require.False(t, rebind(fn, o.(*instance).mod))
	require.NoError(t, errors.Join(o.Close(ctx), inv.Release(ctx)))
	stop(b)
}
