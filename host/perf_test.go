package host_test

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// The goal benchmarks of the performance issue (#14): each runs the
// sandboxed path and its floor in the same run, on the engine the tests use
// (ACLWASM_TEST_ENGINE), and reports one ratio as a metric whose unit
// starts with "x-". scripts/perf-table.sh runs them on both engines and
// prints the README's performance table (internal/perftable holds the
// goals' targets). Every guest loops inside wasm, so a figure is the cost
// of the host call, not of entering the guest from Go.

// goalLoops are the guest loops of the goal benchmarks, over the proxy
// guest's imports. memcpy_loop (testsupport.MemcpyLoopWAT) is the synchronous copy.
const goalLoops = testsupport.MemcpyLoopWAT + `  (func (export "async_loop") (param $dst i64) (param $src i64) (param $n i64) (param $kind i32) (param $stream i32) (param $iters i32) (result i32) (local $r i32)
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
` + testsupport.MemcpyLoopWAT + ")\n"

// floorEngines builds, per engine, a bare runtime of that engine (the
// sandbox's engine settings, no sandbox) whose aclrtMemcpy import does
// nothing, instantiates wasm on it and returns its exports' caller. The
// wasmtime one is added by perf_floor_wasmtime_test.go.
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

// noopImport returns the floor of one host call: n iterations of the same
// guest loop over a no-op import of aclrtMemcpy's signature, on the bare
// engine.
func noopImport(b *testing.B) func(n int) {
	mk, ok := floorEngines[testsupport.Engine()]
	if !ok {
		b.Fatalf("no floor for engine %q (wasmtime needs -tags wasmtime)", testsupport.Engine())
	}
	call := mk(b, testsupport.CachedWAT(b, floorWAT))
	return func(n int) {
		testsupport.Loops(b, n, 1000, func(k int) uint64 { return call("memcpy_loop", 0x100, 0x200, 64, 1, uint64(k)) })
	}
}

// copyFloor returns n copies of size bytes by copy() between two slices.
func copyFloor(size int) func(n int) {
	src, dst := make([]byte, size), make([]byte, size)
	for i := range src {
		src[i] = byte(i)
	}
	copy(dst, src)
	return func(n int) {
		for range n {
			copy(dst, src)
		}
	}
}

// goalHarness is the proxy guest with goalLoops, on device 0, with a
// device allocation at dev.
type goalHarness struct {
	*proxytest.Harness
	dev uint64
}

func newGoalHarness(b *testing.B, rt *host.Runtime, pl *host.Plugin, devBytes uint64) *goalHarness {
	ctx := context.Background()
	inst, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(b, err)
	b.Cleanup(func() { inst.Close(ctx) })
	h := &goalHarness{Harness: &proxytest.Harness{Inst: inst, RT: rt}}
	require.Zero(b, uint32(h.Result(b, "aclrtSetDevice", 0)))
	require.Zero(b, uint32(h.Result(b, "aclrtMalloc", outA, devBytes, 0)))
	h.dev = h.U64(outA)
	// Commit every page of guest memory: untouched pages read as the
	// kernel's zero page and would flatter the copies.
	mem := h.Mem()
	for i := range mem {
		mem[i] = byte(i)
	}
	return h
}

func goalPlugin(b *testing.B, pages int) (*host.Runtime, *host.Plugin) {
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, host.WithEngine(testsupport.Engine()))
	require.NoError(b, err)
	b.Cleanup(func() { rt.Close(ctx) })
	pl, err := rt.Load(ctx, testsupport.CachedWAT(b, testsupport.ProxyWAT(abi.Wide, pages, goalLoops)), host.Policy{MemoryPages: uint32(pages), DeviceMemory: 1 << 30, MaxCallBytes: 1 << 40})
	require.NoError(b, err)
	b.Cleanup(func() { pl.Close(ctx) })
	return rt, pl
}

func newGoal(b *testing.B, pages int, devBytes uint64) *goalHarness {
	rt, pl := goalPlugin(b, pages)
	return newGoalHarness(b, rt, pl, devBytes)
}

// syncCopies returns n synchronous H2D copies of size bytes from the
// guest's src, in guest loops of iters.
func (h *goalHarness) syncCopies(b *testing.B, src, size uint64, iters int) func(n int) {
	return func(n int) {
		testsupport.Loops(b, n, iters, func(k int) uint64 { return h.Result(b, "memcpy_loop", h.dev, src, size, 1, uint64(k)) })
	}
}

// BenchmarkGoal1SmallCopy (goal 1): a validated 64-byte aclrtMemcpy H2D from
// a guest loop against a no-op import of the same signature. x-floor: the
// sandboxed time per call over the no-op's (goal: <= 1.5 on wazero, <= 1.2
// on wasmtime); allocs/call: heap allocations per copy (goal: 0).
func BenchmarkGoal1SmallCopy(b *testing.B) {
	h := newGoal(b, 4, 64)
	run := h.syncCopies(b, data, 64, 1000)
	f, r := testsupport.Measure(b, 1000, noopImport(b), run)
	b.ReportMetric(r/f, "x-floor")
	b.ReportMetric(testsupport.AllocsPer(1, func(int) { run(10000) })/10000, "allocs/call")
}

// BenchmarkGoal2Copy4KiB (goal 2): a 4 KiB synchronous aclrtMemcpy H2D
// against the no-op import plus a copy() of 4 KiB. x-floor: sandboxed over
// that sum (goal: <= 1.5).
func BenchmarkGoal2Copy4KiB(b *testing.B) {
	const size = 4 << 10
	h := newGoal(b, 4, size)
	noop, cp := noopImport(b), copyFloor(size)
	f, r := testsupport.Measure(b, 1000, func(n int) { noop(n); cp(n) }, h.syncCopies(b, data, size, 1000))
	b.ReportMetric(r/f, "x-floor")
}

// asyncSetup registers size bytes of guest memory at src, so that the
// copies are queued rather than run by the caller, and creates a stream.
func (h *goalHarness) asyncSetup(b *testing.B, src, size uint64) (stream uint64) {
	require.Zero(b, uint32(h.Result(b, "aclrtHostRegister", src, size, 0, outB)))
	require.Zero(b, uint32(h.Result(b, "aclrtCreateStream", outC)))
	return uint64(h.U32(outC))
}

// asyncPairs returns n pairs of aclrtMemcpyAsync H2D of size bytes from src
// to the harness's device memory and aclrtSynchronizeStream on st, in
// guest loops of iters.
func (h *goalHarness) asyncPairs(b *testing.B, src, size, st uint64, iters int) func(n int) {
	return h.asyncPairsKind(b, h.dev, src, size, 1, st, iters)
}

// asyncPairsKind is asyncPairs from src to dst with the kind given.
func (h *goalHarness) asyncPairsKind(b *testing.B, dst, src, size, kind, st uint64, iters int) func(n int) {
	return func(n int) {
		testsupport.Loops(b, n, iters, func(k int) uint64 { return h.Result(b, "async_loop", dst, src, size, kind, st, uint64(k)) })
	}
}

// BenchmarkGoal3AsyncLarge (goal 3): a 1 MiB aclrtMemcpyAsync H2D from
// registered guest memory followed by aclrtSynchronizeStream, against
// copy() of 1 MiB. x-copy: its throughput over copy()'s (goal: >= 0.9).
// The guest runs 256 pairs per call: each Instance.Call on wazero starts
// the engine's context watcher goroutine (goal 4), whose scheduling,
// measured with go tool trace -pprof=sched, delayed the calling goroutine
// by about 10% of 16 pairs' time; a guest that moves data loops longer
// than that, and goal 4 measures the call on its own.
func BenchmarkGoal3AsyncLarge(b *testing.B) {
	const size = 1 << 20
	h := newGoal(b, 32, size)
	st := h.asyncSetup(b, 0x10000, size)
	f, r := testsupport.Measure(b, 256, copyFloor(size), h.asyncPairs(b, 0x10000, size, st, 256))
	b.ReportMetric(f/r, "x-copy")
}

// BenchmarkGoal3AsyncSmall (goal 3): a 64-byte aclrtMemcpyAsync H2D from
// registered memory plus aclrtSynchronizeStream, against one synchronous
// 64-byte aclrtMemcpy. x-sync: the pair's time over the sync copy's (goal:
// <= 3).
func BenchmarkGoal3AsyncSmall(b *testing.B) {
	h := newGoal(b, 4, 64)
	st := h.asyncSetup(b, 0x10000, 64)
	f, r := testsupport.Measure(b, 1000, h.syncCopies(b, data, 64, 1000), h.asyncPairs(b, 0x10000, 64, st, 1000))
	b.ReportMetric(r/f, "x-sync")
}

// batchLayout writes the arrays of a batch of num H2D copies of size bytes
// (entry i: guest src+i*size to dev+i*size, all disjoint) at arrays, and
// returns the guest addresses of dsts, srcs, sizes, the one attribute, its
// index and failIndex.
func (h *goalHarness) batchLayout(arrays uint32, src uint64, num int, size uint64) (dsts, srcs, sizes, attrs, idx, fail uint64) {
	dsts, srcs, sizes = uint64(arrays), uint64(arrays)+8*uint64(num), uint64(arrays)+16*uint64(num)
	attrs = uint64(arrays) + 24*uint64(num)
	idx, fail = attrs+acl.MemcpyBatchAttrSize, attrs+acl.MemcpyBatchAttrSize+8
	for i := range num {
		h.PutU64s(uint32(dsts)+8*uint32(i), h.dev+uint64(i)*size)
		h.PutU64s(uint32(srcs)+8*uint32(i), src+uint64(i)*size)
		h.PutU64s(uint32(sizes)+8*uint32(i), size)
	}
	proxytest.H2D(0).Encode(h.Mem()[attrs:])
	h.PutU64s(uint32(idx), 0)
	return
}

// benchBatch (goal 5): a synchronous aclrtMemcpyBatch of 1024 H2D entries
// of size bytes against a guest loop of the same 1024 aclrtMemcpy calls.
// x-loop: the loop's time over the batch's (goal: >= 1.2 for 4 KiB, >= 2
// for 64 B); allocs/entry: the batch's allocations per entry (goal: 0).
func benchBatch(b *testing.B, size uint64) {
	const num = 1024
	const arrays = 0x1000
	src := uint64(0x10000)
	h := newGoal(b, int((src+num*size)>>16)+1, num*size)
	dsts, srcs, sizes, attrs, idx, fail := h.batchLayout(arrays, src, num, size)
	loop := func(n int) {
		testsupport.Loops(b, n, 8, func(k int) uint64 { return h.Result(b, "copies_loop", dsts, srcs, sizes, num, 1, uint64(k)) })
	}
	batch := func(n int) {
		testsupport.Loops(b, n, 8, func(k int) uint64 {
			return h.Result(b, "batch_loop", dsts, srcs, sizes, num, attrs, idx, fail, uint64(k))
		})
	}
	f, r := testsupport.Measure(b, 1, loop, batch)
	b.ReportMetric(f/r, "x-loop")
	// 64 batches in one guest call: the call's own allocations aside.
	b.ReportMetric(testsupport.AllocsPer(64, batch)/num, "allocs/entry")
}

func BenchmarkGoal5Batch4KiB(b *testing.B) { benchBatch(b, 4<<10) }
func BenchmarkGoal5Batch64B(b *testing.B)  { benchBatch(b, 64) }

// benchScaling (goal 6): synchronous H2D copies of size bytes by one
// session, then by 64 sessions of one runtime at once, each in its own
// guest loop of iters copies; an operation is 64*iters copies, so that
// every session has its share. x-one: the 64 sessions' throughput per core
// (over min(64, GOMAXPROCS) cores) over one session's (goal: >= 0.95).
// x-copy-one is the same ratio for copy() on 64 goroutines with buffers of
// their own against one: how the machine itself scales (64 sessions' data
// does not stay in the caches one session's does).
func benchScaling(b *testing.B, size uint64, iters int) {
	const sessions = 64
	cores := float64(min(sessions, runtime.GOMAXPROCS(0)))
	per := sessions * iters // copies per operation
	rt, pl := goalPlugin(b, int((0x10000+size)>>16)+1)
	hs := make([]*goalHarness, sessions)
	for i := range hs {
		hs[i] = newGoalHarness(b, rt, pl, size)
	}
	// The machine's own scaling, measured the same way (first: measure
	// resets the benchmark's timer, and the sessions' figures are the ones
	// b.N is chosen for).
	c1, cn := parallelCopies(1, size), parallelCopies(sessions, size)
	cf, cr := testsupport.Measure(b, 1, func(n int) { c1(n * per) }, func(n int) { cn(n * per) })
	one := hs[0].syncCopies(b, 0x10000, size, iters)
	f, r := testsupport.Measure(b, 1, func(n int) { one(n * per) }, func(n int) {
		n *= per
		var next atomic.Int64
		var wg sync.WaitGroup
		for _, h := range hs {
			wg.Go(func() {
				for {
					k := int(next.Add(int64(iters))) - iters
					if k >= n {
						return
					}
					res, err := h.Inst.Call(context.Background(), "memcpy_loop", h.dev, 0x10000, size, 1, uint64(min(iters, n-k)))
					if err != nil || res[0] != 0 {
						b.Errorf("memcpy_loop = %v, %v", res, err)
						return
					}
				}
			})
		}
		wg.Wait()
	})
	b.ReportMetric(f, "floor-ns/op")
	b.ReportMetric(r, "ns/call")
	b.ReportMetric(f/(r*cores), "x-one")
	b.ReportMetric(cf/(cr*cores), "x-copy-one")
}

// parallelCopies returns n copy() calls of size bytes spread over g
// goroutines, each copying between buffers of its own.
func parallelCopies(g int, size uint64) func(n int) {
	bufs := make([][2][]byte, g)
	for i := range bufs {
		bufs[i] = [2][]byte{make([]byte, size), make([]byte, size)}
		for k := range bufs[i][1] {
			bufs[i][1][k] = byte(k)
		}
		copy(bufs[i][0], bufs[i][1])
	}
	return func(n int) {
		var next atomic.Int64
		var wg sync.WaitGroup
		for _, buf := range bufs {
			wg.Go(func() {
				for next.Add(1) <= int64(n) {
					copy(buf[0], buf[1])
				}
			})
		}
		wg.Wait()
	}
}

func BenchmarkGoal6Scaling1MiB(b *testing.B) { benchScaling(b, 1<<20, 8) }
func BenchmarkGoal6Scaling64B(b *testing.B)  { benchScaling(b, 64, 1000) }

// BenchmarkGoal8SmallCopyD2D (goal 8): a validated 64-byte aclrtMemcpy
// between two places of one device allocation, from a guest loop, against
// the no-op import. x-floor: the sandboxed time per call over the no-op's
// (goal: <= 1.5). Both sides are device memory: both are looked up in the
// session's allocations and in the backend's.
func BenchmarkGoal8SmallCopyD2D(b *testing.B) {
	h := newGoal(b, 4, 8<<10)
	run := func(n int) {
		testsupport.Loops(b, n, 1000, func(k int) uint64 { return h.Result(b, "memcpy_loop", h.dev, h.dev+4<<10, 64, 3, uint64(k)) })
	}
	f, r := testsupport.Measure(b, 1000, noopImport(b), run)
	b.ReportMetric(r/f, "x-floor")
}
