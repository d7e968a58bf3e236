package module

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// stackExhausted is engine.StackExhausted: the counter's value after a
// trap of the limit.
const stackExhausted = 0xffffffff

// TestStackCountSkipsLeaves: a function that calls no function of the
// module (imports aside) is left as it is, so a guest's hot loops over
// host calls (the goal benchmarks') pay nothing for the count; a function
// that calls one is counted.
func TestStackCountSkipsLeaves(t *testing.T) {
	raw := wat2wasm(t, `(module
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (func $leaf (export "leaf") (result i32) (call $set (i32.const 0)))
  (func $caller (export "caller") (result i32) (call $leaf)))`)
	out, name, err := BoundStack(raw, 8<<20)
	require.NoError(t, err)
	require.Equal(t, ExportStack, name)
	before, after := codeBodies(t, raw), codeBodies(t, out)
	require.Len(t, after, 2)
	require.Equal(t, before[0], after[0], "the leaf is left as it is")
	require.NotEqual(t, before[1], after[1], "the caller is counted")
}

// instantiate runs wasm on wazero's interpreter.
func instantiate(t *testing.T, wasm []byte) api.Module {
	t.Helper()
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	t.Cleanup(func() { rt.Close(ctx) })
	mod, err := rt.Instantiate(ctx, wasm)
	require.NoError(t, err)
	return mod
}

// TestBoundStackBalanced: every way out of a counted function (falling
// off its end, return, a branch to its outermost label, with zero, one or
// two results) takes its frame off the count: after each call the counter
// is back at zero, and the results are the module's as it is.
func TestBoundStackBalanced(t *testing.T) {
	wasm := wat2wasm(t, `(module
  (func $nop)
  (func (export "fall") (param $x i32) (result i32) (call $nop) (i32.add (local.get $x) (i32.const 1)))
  (func (export "ret") (param $x i32) (result i32) (call $nop)
    (block (loop (if (local.get $x) (then (return (i32.const 2))))))
    (i32.const 3))
  (func (export "br") (param $x i32) (result i32) (call $nop)
    (block (block (drop (br_if 2 (i32.const 4) (local.get $x)))))
    (br 0 (i32.const 5)))
  (func (export "table") (param $x i32) (result i32) (call $nop)
    (block (result i32) (br_table 0 1 (i32.const 6) (local.get $x))))
  (func (export "pair") (param $x i32) (result i32 i32) (call $nop)
    (if (local.get $x) (then (return (i32.const 8) (i32.const 9))))
    (i32.const 10) (i32.const 11))
  (func (export "none") (param $x i32) (call $nop) (if (local.get $x) (then return))))`)
	out, name, err := BoundStack(wasm, 1<<16)
	require.NoError(t, err)
	ctx := context.Background()
	raw, mod := instantiate(t, wasm), instantiate(t, out)
	counter := mod.ExportedGlobal(name)
	require.NotNil(t, counter, "the counter is exported")
	for _, fn := range []string{"fall", "ret", "br", "table", "pair", "none"} {
		for _, arg := range []uint64{0, 1, 5} {
			want, err := raw.ExportedFunction(fn).Call(ctx, arg)
			require.NoError(t, err)
			got, err := mod.ExportedFunction(fn).Call(ctx, arg)
			require.NoError(t, err, "%s(%d)", fn, arg)
			require.Equal(t, want, got, "%s(%d)", fn, arg)
			require.Zero(t, counter.Get(), "%s(%d): the count is back at zero", fn, arg)
		}
	}
}

// TestBoundStackLimit: a recursion traps once its frames would pass the
// limit, leaving the counter at engine.StackExhausted; a shallower one
// runs, and the frames it counts are frameCost's.
func TestBoundStackLimit(t *testing.T) {
	wasm := wat2wasm(t, `(module
  (func $depth (export "depth") (param $n i32) (result i32)
    (if (result i32) (local.get $n)
      (then (i32.add (i32.const 1) (call $depth (i32.sub (local.get $n) (i32.const 1)))))
      (else (i32.const 0)))))`)
	body := codeBodies(t, wasm)[0]
	cost := frameCost(1, 0, len(body)-1, 1<<20) // one parameter, no locals, the code after the declarations
	const limit = 1 << 14
	out, name, err := BoundStack(wasm, limit)
	require.NoError(t, err)
	ctx := context.Background()
	mod := instantiate(t, out)
	counter := mod.ExportedGlobal(name)
	fits := uint64(limit / cost)
	got, err := mod.ExportedFunction("depth").Call(ctx, fits-1) // fits frames: n, n-1, ..., 0
	require.NoError(t, err)
	require.Equal(t, fits-1, got[0])
	require.Zero(t, counter.Get())
	_, err = mod.ExportedFunction("depth").Call(ctx, fits)
	require.ErrorContains(t, err, "unreachable")
	require.Equal(t, uint64(stackExhausted), counter.Get())
}

// TestBoundStackRefuses: an instruction the rewrite does not know is an
// error naming it; a module without code, or not a module, is returned as
// is.
func TestBoundStackRefuses(t *testing.T) {
	tryTable := []byte(header)
	tryTable = append(tryTable, sec(1, vec([]byte{0x60, 0, 0}))...)
	tryTable = append(tryTable, sec(3, vec([]byte{0}))...)
	tryTable = append(tryTable, sec(10, vec(append([]byte{6}, 0, 0x1f, 0x40, 0, 0x0b, 0x0b)))...)
	_, _, err := BoundStack(tryTable, 1<<16)
	require.EqualError(t, err, "stack limit: function 0: instruction 0x1f at byte 1 is not one the stack limit can instrument")

	noCode := wat2wasm(t, `(module (memory 1))`)
	out, name, err := BoundStack(noCode, 1<<16)
	require.NoError(t, err)
	require.Empty(t, name)
	require.Equal(t, noCode, out)
	out, name, err = BoundStack([]byte("junk"), 1<<16)
	require.NoError(t, err)
	require.Empty(t, name)
	require.Equal(t, []byte("junk"), out)

	badType := append([]byte(header), sec(1, vec([]byte{0x5f, 0, 0}))...)
	_, _, err = BoundStack(badType, 1<<16)
	require.ErrorIs(t, err, errStackRead)
}
