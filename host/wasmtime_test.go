//go:build wasmtime && cgo

package host

import (
	"context"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// fuelWAT counts down from its argument.
const fuelWAT = `(module
  (func (export "count") (param $n i32)
    (loop $l
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br_if $l (local.get $n)))))
`

func TestFuel(t *testing.T) {
	rt := newRuntimeOn(t, "wasmtime", WithFuel(100_000))
	pl := load(t, rt, testsupport.WAT(t, fuelWAT), Policy{})
	inst, err := pl.Instantiate(context.Background(), Config{})
	require.NoError(t, err)
	// Each call gets the whole budget: three calls of 10000 iterations
	// pass where one of 30000 does not.
	for range 3 {
		_, err = inst.Call(context.Background(), "count", 10_000)
		require.NoError(t, err)
	}
	_, err = inst.Call(context.Background(), "count", 1_000_000)
	require.ErrorIs(t, err, ErrTrap)
	require.ErrorContains(t, err, "out of fuel")
	require.NoError(t, inst.Close(context.Background()))
}

func newRuntimeOn(t *testing.T, engine string, opts ...Option) *Runtime {
	t.Helper()
	rt, err := NewRuntime(context.Background(), append([]Option{WithEngine(engine)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(context.Background())) })
	return rt
}

// TestEpochsStopOnlyTheirOwnGuest: one call's timeout advances the engine's
// epoch for every store, and must stop only the guest whose context ended.
func TestEpochsStopOnlyTheirOwnGuest(t *testing.T) {
	rt := newRuntimeOn(t, "wasmtime")
	wasm := testsupport.Proxy(abi.Wide, 1)
	long := load(t, rt, wasm, Policy{Timeout: 800 * time.Millisecond})
	short := load(t, rt, wasm, Policy{Timeout: 20 * time.Millisecond})
	ctx := context.Background()
	var wg sync.WaitGroup
	wg.Add(1)
	var longErr error
	var longTook time.Duration
	go func() {
		defer wg.Done()
		inst, err := long.Instantiate(ctx, Config{})
		if err != nil {
			longErr = err
			return
		}
		start := time.Now()
		_, longErr = inst.Call(ctx, "spin")
		longTook = time.Since(start)
	}()
	for range 10 {
		inst, err := short.Instantiate(ctx, Config{})
		require.NoError(t, err)
		_, err = inst.Call(ctx, "spin")
		require.ErrorIs(t, err, ErrTimeout)
	}
	wg.Wait()
	require.ErrorIs(t, longErr, ErrTimeout)
	require.GreaterOrEqual(t, longTook, 750*time.Millisecond, "the long call ran to its own timeout")
}

// diffEngines are the engines a test compares.
var diffEngines = []string{"wazero", "wasmtime"}

// TestMemoryNeverMoves: growing the guest's memory keeps its base, on both
// engines, so views kept by async copies stay valid.
func TestMemoryNeverMoves(t *testing.T) {
	for _, e := range diffEngines {
		t.Run(e, func(t *testing.T) {
			rt := newRuntimeOn(t, e)
			pl := load(t, rt, testsupport.Proxy(abi.Wide, 1), Policy{MemoryPages: 4096})
			inst, err := pl.Instantiate(context.Background(), Config{})
			require.NoError(t, err)
			defer inst.Close(context.Background())
			base := unsafe.Pointer(&inst.inst.Memory()[0])
			for _, n := range []uint64{1, 100, 2000, 1994} {
				res, err := inst.Call(context.Background(), "grow", n)
				require.NoError(t, err)
				require.NotEqual(t, uint64(0xffffffff), res[0])
				mem := inst.inst.Memory()
				require.Equal(t, base, unsafe.Pointer(&mem[0]), "after growing by %d pages", n)
				mem[len(mem)-1] = 1
			}
			require.Equal(t, 4096<<16, len(inst.inst.Memory()))
			res, err := inst.Call(context.Background(), "grow", 1)
			require.NoError(t, err)
			require.Equal(t, uint64(0xffffffff), res[0])
		})
	}
}

func TestWasmtimeSignature(t *testing.T) {
	rt := newRuntimeOn(t, "wasmtime")
	wat := `(module (import "acl" "aclrtMemcpy" (func (param f32 f64 v128 i32 externref) (result funcref))))`
	_, err := rt.Load(context.Background(), testsupport.WAT(t, wat), Policy{})
	require.ErrorContains(t, err, "has signature (f32, f64, v128, i32, externref) -> funcref, ABI v1 expects")
}

// TestWasmtimeCallerMemory: a host call sees its own store's memory at its
// current size, though each thread remembers the memory it served last:
// stores come and go (a closed store's index names the next one, with a
// memory of another size) and memories grow between host calls.
func TestWasmtimeCallerMemory(t *testing.T) {
	ctx := context.Background()
	rt, err := NewRuntime(ctx, WithEngine("wasmtime"))
	require.NoError(t, err)
	defer rt.Close(ctx)
	load := func(pages int) *Plugin {
		pl, err := rt.Load(ctx, testsupport.WAT(t, testsupport.ProxyWAT(abi.Wide, pages, "")), Policy{MemoryPages: 8})
		require.NoError(t, err)
		t.Cleanup(func() { pl.Close(ctx) })
		return pl
	}
	small, big := load(1), load(3)
	count := func(inst *Instance, at uint64) uint32 {
		res, err := inst.Call(ctx, "aclrtGetDeviceCount", at)
		require.NoError(t, err)
		return uint32(res[0])
	}
	for range 20 {
		a, err := small.Instantiate(ctx, Config{})
		require.NoError(t, err)
		require.Zero(t, count(a, 8))
		require.NotZero(t, count(a, 0x10000), "past a 1-page memory")
		require.NoError(t, a.Close(ctx))

		b, err := big.Instantiate(ctx, Config{})
		require.NoError(t, err)
		require.Zero(t, count(b, 0x20000+8), "inside a 3-page memory")
		require.NotZero(t, count(b, 0x30000))
		res, err := b.Call(ctx, "grow", 1)
		require.NoError(t, err)
		require.Equal(t, uint64(3), res[0])
		require.Zero(t, count(b, 0x30000+8), "the grown page")
		require.NoError(t, b.Close(ctx))
	}
}
