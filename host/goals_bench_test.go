package host

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/aclwasm/aclwasm/acl"
)

// The goal benchmarks of the performance issue (#14): each runs the
// sandboxed path and its floor in the same run, on the engine the tests use
// (ACLWASM_TEST_ENGINE), and reports one ratio as a metric whose unit
// starts with "x-". scripts/perf-table.sh runs them on both engines and
// prints the README's performance table (internal/perftable holds the
// goals' targets). Every guest loops inside wasm, so a figure is the cost
// of the host call, not of entering the guest from Go.

// goalLoops are the guest loops of the goal benchmarks, over the proxy
// guest's imports. memcpy_loop (loopWAT) is the synchronous copy.
const goalLoops = loopWAT + `  (func (export "async_loop") (param $dst i64) (param $src i64) (param $n i64) (param $kind i32) (param $stream i32) (param $iters i32) (result i32) (local $r i32)
    (block $done (loop $l
      (local.set $r (call $aclrtMemcpyAsync (local.get $dst) (local.get $n) (local.get $src) (local.get $n) (local.get $kind) (local.get $stream)))
      (br_if $done (local.get $r))
      (local.set $r (call $aclrtSynchronizeStream (local.get $stream)))
      (br_if $done (local.get $r))
      (local.set $iters (i32.sub (local.get $iters) (i32.const 1)))
      (br_if $l (local.get $iters))))
    (local.get $r))
  (func (export "batch_loop") (param $dsts i32) (param $srcs i32) (param $sizes i32) (param $num i64) (param $attrs i32) (param $idx i32) (param $fail i32) (param $iters i32) (result i32) (local $r i32)
    (block $done (loop $l
      (local.set $r (call $aclrtMemcpyBatch (local.get $dsts) (local.get $sizes) (local.get $srcs) (local.get $sizes) (local.get $num) (local.get $attrs) (local.get $idx) (i64.const 1) (local.get $fail)))
      (br_if $done (local.get $r))
      (local.set $iters (i32.sub (local.get $iters) (i32.const 1)))
      (br_if $l (local.get $iters))))
    (local.get $r))
  (func (export "copies_loop") (param $dsts i32) (param $srcs i32) (param $sizes i32) (param $num i32) (param $kind i32) (param $iters i32) (result i32) (local $r i32) (local $i i32) (local $n i64)
    (block $done (loop $l
      (local.set $i (i32.const 0))
      (loop $each
        (local.set $n (i64.load (i32.add (local.get $sizes) (i32.shl (local.get $i) (i32.const 3)))))
        (local.set $r (call $aclrtMemcpy
          (i64.load (i32.add (local.get $dsts) (i32.shl (local.get $i) (i32.const 3)))) (local.get $n)
          (i64.load (i32.add (local.get $srcs) (i32.shl (local.get $i) (i32.const 3)))) (local.get $n)
          (local.get $kind)))
        (br_if $done (local.get $r))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $each (i32.lt_u (local.get $i) (local.get $num))))
      (local.set $iters (i32.sub (local.get $iters) (i32.const 1)))
      (br_if $l (local.get $iters))))
    (local.get $r))
`

// floorWAT is the floor's guest: memcpy_loop over an "acl" "aclrtMemcpy"
// import of the ABI's signature, which the floor engine implements as a
// no-op.
const floorWAT = `(module
  (import "acl" "aclrtMemcpy" (func $aclrtMemcpy (param i64 i64 i64 i64 i32) (result i32)))
  (memory (export "memory") 1)
` + loopWAT + ")\n"

// floorEngines builds, per engine, a bare runtime of that engine (the
// sandbox's engine settings, no sandbox) whose aclrtMemcpy import does
// nothing, instantiates wasm on it and returns its exports' caller. The
// wasmtime one is added by goals_floor_wasmtime_test.go.
var floorEngines = map[string]func(b *testing.B, wasm []byte) func(name string, args ...uint64) uint64{
	"wazero": wazeroFloor,
}

func wazeroFloor(b *testing.B, wasm []byte) func(name string, args ...uint64) uint64 {
	ctx := context.Background()
	// As newWazero configures it, so that only the import differs.
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCloseOnContextDone(true))
	b.Cleanup(func() { r.Close(ctx) })
	i64, i32 := api.ValueTypeI64, api.ValueTypeI32
	_, err := r.NewHostModuleBuilder("acl").NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(func(_ context.Context, _ api.Module, stack []uint64) { stack[0] = 0 }),
			[]api.ValueType{i64, i64, i64, i64, i32}, []api.ValueType{i32}).
		Export("aclrtMemcpy").Instantiate(ctx)
	require.NoError(b, err)
	mod, err := r.Instantiate(ctx, wasm)
	require.NoError(b, err)
	return func(name string, args ...uint64) uint64 {
		res, err := mod.ExportedFunction(name).Call(ctx, args...)
		if err != nil {
			b.Fatal(err)
		}
		return res[0]
	}
}

// noopImport measures the floor of one host call: the same guest loop over
// a no-op import of aclrtMemcpy's signature, on the bare engine. It returns
// ns per call.
func noopImport(b *testing.B) float64 {
	mk, ok := floorEngines[testEngine]
	if !ok {
		b.Fatalf("no floor for engine %q (wasmtime needs -tags wasmtime)", testEngine)
	}
	var per float64
	b.Run("floor-import", func(b *testing.B) {
		call := mk(b, wat2wasm(b, floorWAT))
		per = loopCalls(b, 1000, func(iters int) uint64 { return call("memcpy_loop", 0x100, 0x200, 64, 1, uint64(iters)) })
	})
	return per
}

// loopCalls runs b.N guest iterations in calls of at most iters, each
// call(k) running k of them, and returns ns per iteration.
func loopCalls(b *testing.B, iters int, call func(k int) uint64) float64 {
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += iters {
		if r := call(min(iters, b.N-done)); r != 0 {
			b.Fatalf("guest loop = %d", r)
		}
	}
	return float64(b.Elapsed().Nanoseconds()) / float64(b.N)
}

// copyFloor measures Go's copy() of n bytes between two slices, ns per copy.
func copyFloor(b *testing.B, n int) float64 {
	var per float64
	b.Run("floor-copy", func(b *testing.B) {
		src, dst := make([]byte, n), make([]byte, n)
		for i := range src {
			src[i] = byte(i)
		}
		copy(dst, src)
		b.SetBytes(int64(n))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			copy(dst, src)
		}
		per = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	return per
}

// goalHarness is the proxy guest with goalLoops, on device 0, with pages of
// guest memory and a device allocation of devBytes at dev.
type goalHarness struct {
	*harness
	dev uint64
}

func newGoalHarness(b *testing.B, rt *Runtime, pl *Plugin, devBytes uint64) *goalHarness {
	ctx := context.Background()
	inst, err := pl.Instantiate(ctx, Config{})
	require.NoError(b, err)
	b.Cleanup(func() { inst.Close(ctx) })
	h := &goalHarness{harness: &harness{inst: inst, rt: rt}}
	require.Zero(b, uint32(h.bcall(b, "aclrtSetDevice", 0)))
	require.Zero(b, uint32(h.bcall(b, "aclrtMalloc", outA, devBytes, 0)))
	h.dev = h.u64(outA)
	// Commit every page of guest memory: untouched pages read as the
	// kernel's zero page and would flatter the copies.
	mem := h.mem()
	for i := range mem {
		mem[i] = byte(i)
	}
	return h
}

func goalPlugin(b *testing.B, pages int) (*Runtime, *Plugin) {
	ctx := context.Background()
	rt, err := NewRuntime(ctx, WithEngine(testEngine))
	require.NoError(b, err)
	b.Cleanup(func() { rt.Close(ctx) })
	pl, err := rt.Load(ctx, wat2wasm(b, proxyWAT(pages, goalLoops)), Policy{MemoryPages: uint32(pages), DeviceMemory: 1 << 30, MaxCallBytes: 1 << 40})
	require.NoError(b, err)
	b.Cleanup(func() { pl.Close(ctx) })
	return rt, pl
}

func newGoal(b *testing.B, pages int, devBytes uint64) *goalHarness {
	rt, pl := goalPlugin(b, pages)
	return newGoalHarness(b, rt, pl, devBytes)
}

// syncCopies runs b.N synchronous H2D copies of n bytes from the guest's
// src, in guest loops of iters, and returns ns per copy.
func (h *goalHarness) syncCopies(b *testing.B, src, n uint64, iters int) float64 {
	return loopCalls(b, iters, func(k int) uint64 { return h.bcall(b, "memcpy_loop", h.dev, src, n, 1, uint64(k)) })
}

// BenchmarkGoal1SmallCopy (goal 1): a validated 64-byte aclrtMemcpy H2D from
// a guest loop against a no-op import of the same signature. x-floor: the
// sandboxed time per call over the no-op's (goal: <= 1.5 on wazero, <= 1.2
// on wasmtime). allocs/op is per call.
func BenchmarkGoal1SmallCopy(b *testing.B) {
	floor := noopImport(b)
	b.Run("sandbox", func(b *testing.B) {
		h := newGoal(b, 4, 64)
		per := h.syncCopies(b, data, 64, 1000)
		b.ReportMetric(per/floor, "x-floor")
	})
}

// BenchmarkGoal2Copy4KiB (goal 2): a 4 KiB synchronous aclrtMemcpy H2D
// against the no-op import plus a copy() of 4 KiB. x-floor: sandboxed over
// that sum (goal: <= 1.5).
func BenchmarkGoal2Copy4KiB(b *testing.B) {
	const n = 4 << 10
	floor := noopImport(b) + copyFloor(b, n)
	b.Run("sandbox", func(b *testing.B) {
		h := newGoal(b, 4, n)
		b.SetBytes(n)
		per := h.syncCopies(b, data, n, 1000)
		b.ReportMetric(per/floor, "x-floor")
	})
}

// asyncSetup registers n bytes of guest memory at src, so that the copies
// are queued rather than run by the caller, and creates a stream.
func (h *goalHarness) asyncSetup(b *testing.B, src, n uint64) (stream uint64) {
	require.Zero(b, uint32(h.bcall(b, "aclrtHostRegister", src, n, 0, outB)))
	require.Zero(b, uint32(h.bcall(b, "aclrtCreateStream", outC)))
	return uint64(h.u32(outC))
}

// BenchmarkGoal3AsyncLarge (goal 3): a 1 MiB aclrtMemcpyAsync H2D from
// registered guest memory followed by aclrtSynchronizeStream, against
// copy() of 1 MiB. x-copy: its throughput over copy()'s (goal: >= 0.9).
func BenchmarkGoal3AsyncLarge(b *testing.B) {
	const n = 1 << 20
	floor := copyFloor(b, n)
	b.Run("sandbox", func(b *testing.B) {
		h := newGoal(b, 32, n)
		st := h.asyncSetup(b, 0x10000, n)
		b.SetBytes(n)
		per := loopCalls(b, 16, func(k int) uint64 { return h.bcall(b, "async_loop", h.dev, 0x10000, n, 1, st, uint64(k)) })
		b.ReportMetric(floor/per, "x-copy")
	})
}

// BenchmarkGoal3AsyncSmall (goal 3): a 64-byte aclrtMemcpyAsync H2D from
// registered memory plus aclrtSynchronizeStream, against one synchronous
// 64-byte aclrtMemcpy. x-sync: the pair's time over the sync copy's (goal:
// <= 3).
func BenchmarkGoal3AsyncSmall(b *testing.B) {
	h := newGoal(b, 4, 64)
	var sync float64
	b.Run("floor-sync", func(b *testing.B) { sync = h.syncCopies(b, data, 64, 1000) })
	b.Run("sandbox", func(b *testing.B) {
		st := h.asyncSetup(b, 0x10000, 64)
		defer func() { require.Zero(b, uint32(h.bcall(b, "aclrtDestroyStream", st))) }()
		per := loopCalls(b, 1000, func(k int) uint64 { return h.bcall(b, "async_loop", h.dev, 0x10000, 64, 1, st, uint64(k)) })
		require.Zero(b, uint32(h.bcall(b, "aclrtHostUnregister", 0x10000)))
		b.ReportMetric(per/sync, "x-sync")
	})
}

// batchLayout writes the arrays of a batch of num H2D copies of n bytes
// (entry i: guest src+i*n to dev+i*n, all disjoint) at arrays, and returns
// the guest addresses of dsts, srcs, sizes, the one attribute, its index
// and failIndex.
func (h *goalHarness) batchLayout(arrays uint32, src uint64, num int, n uint64) (dsts, srcs, sizes, attrs, idx, fail uint64) {
	dsts, srcs, sizes = uint64(arrays), uint64(arrays)+8*uint64(num), uint64(arrays)+16*uint64(num)
	attrs = uint64(arrays) + 24*uint64(num)
	idx, fail = attrs+acl.MemcpyBatchAttrSize, attrs+acl.MemcpyBatchAttrSize+8
	for i := range num {
		h.putU64s(uint32(dsts)+8*uint32(i), h.dev+uint64(i)*n)
		h.putU64s(uint32(srcs)+8*uint32(i), src+uint64(i)*n)
		h.putU64s(uint32(sizes)+8*uint32(i), n)
	}
	h2d(0).Encode(h.mem()[attrs:])
	h.putU64s(uint32(idx), 0)
	return
}

// benchBatch (goal 5): a synchronous aclrtMemcpyBatch of 1024 H2D entries
// of n bytes against a guest loop of the same 1024 aclrtMemcpy calls.
// x-loop: the loop's time over the batch's (goal: >= 1.2 for 4 KiB, >= 2
// for 64 B); allocs/entry: the batch's allocations per entry (goal: 0).
func benchBatch(b *testing.B, n uint64) {
	const num = 1024
	const arrays = 0x1000
	src := uint64(0x10000)
	pages := int((src+num*n)>>16) + 1
	h := newGoal(b, pages, num*n)
	dsts, srcs, sizes, attrs, idx, fail := h.batchLayout(arrays, src, num, n)
	var loop float64
	b.Run("floor-loop", func(b *testing.B) {
		b.SetBytes(int64(num * n))
		loop = loopCalls(b, 8, func(k int) uint64 { return h.bcall(b, "copies_loop", dsts, srcs, sizes, num, 1, uint64(k)) })
	})
	b.Run("sandbox", func(b *testing.B) {
		b.SetBytes(int64(num * n))
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		per := loopCalls(b, 8, func(k int) uint64 {
			return h.bcall(b, "batch_loop", dsts, srcs, sizes, num, attrs, idx, fail, uint64(k))
		})
		b.StopTimer()
		runtime.ReadMemStats(&m1)
		b.ReportMetric(loop/per, "x-loop")
		b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/float64(b.N)/num, "allocs/entry")
	})
}

func BenchmarkGoal5Batch4KiB(b *testing.B) { benchBatch(b, 4<<10) }
func BenchmarkGoal5Batch64B(b *testing.B)  { benchBatch(b, 64) }

// benchScaling (goal 6): synchronous H2D copies of n bytes by one session,
// then by 64 sessions of one runtime at once, each in its own guest loop of
// iters copies. x-one: the 64 sessions' throughput per core (over
// min(64, GOMAXPROCS) cores) over one session's (goal: >= 0.95).
// x-copy-one is the same ratio for copy() on 64 goroutines with buffers of
// their own against one: how the machine itself scales (64 sessions' data
// does not fit in the caches one session's does).
func benchScaling(b *testing.B, n uint64, iters int) {
	const sessions = 64
	cores := min(sessions, runtime.GOMAXPROCS(0))
	var copyOne float64
	b.Run("floor-copy-one", func(b *testing.B) {
		b.SetBytes(int64(n))
		copyOne = parallelCopies(b, 1, n)
	})
	b.Run("floor-copy-many", func(b *testing.B) {
		b.SetBytes(int64(n))
		per := parallelCopies(b, sessions, n)
		b.ReportMetric(copyOne/(per*float64(cores)), "x-copy-one")
	})
	pages := int((0x10000+n)>>16) + 1
	rt, pl := goalPlugin(b, pages)
	hs := make([]*goalHarness, sessions)
	for i := range hs {
		hs[i] = newGoalHarness(b, rt, pl, n)
	}
	var one float64
	b.Run("floor-one", func(b *testing.B) {
		b.SetBytes(int64(n))
		one = hs[0].syncCopies(b, 0x10000, n, iters)
	})
	b.Run("sandbox", func(b *testing.B) {
		b.SetBytes(int64(n))
		b.ReportAllocs()
		var next atomic.Int64
		var wg sync.WaitGroup
		b.ResetTimer()
		for _, h := range hs {
			wg.Go(func() {
				for {
					k := int(next.Add(int64(iters))) - iters
					if k >= b.N {
						return
					}
					res, err := h.inst.Call(context.Background(), "memcpy_loop", h.dev, 0x10000, n, 1, uint64(min(iters, b.N-k)))
					if err != nil || res[0] != 0 {
						b.Errorf("memcpy_loop = %v, %v", res, err)
						return
					}
				}
			})
		}
		wg.Wait()
		per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		b.ReportMetric(one/(per*float64(cores)), "x-one")
	})
}

// parallelCopies runs b.N copy() calls of n bytes on g goroutines, each
// between buffers of its own, and returns ns per copy.
func parallelCopies(b *testing.B, g int, n uint64) float64 {
	bufs := make([][2][]byte, g)
	for i := range bufs {
		bufs[i] = [2][]byte{make([]byte, n), make([]byte, n)}
		for k := range bufs[i][1] {
			bufs[i][1][k] = byte(k)
		}
		copy(bufs[i][0], bufs[i][1])
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for _, buf := range bufs {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				copy(buf[0], buf[1])
			}
		})
	}
	wg.Wait()
	return float64(b.Elapsed().Nanoseconds()) / float64(b.N)
}

func BenchmarkGoal6Scaling1MiB(b *testing.B) { benchScaling(b, 1<<20, 8) }
func BenchmarkGoal6Scaling64B(b *testing.B)  { benchScaling(b, 64, 1000) }
