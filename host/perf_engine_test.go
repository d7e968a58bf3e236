package host_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// The engine-side goal benchmarks of the performance issue (#14): goal 4
// (Instance.Call of an empty export against a bare Function.Call) and goal
// 7 (instantiating a cached module against a bare instantiation; a pool
// call of a large plugin against a plain call), on the engine the tests
// use; goal 3 on wasmtime is in perf_wasmtime_test.go. Each runs
// its floor and the sandboxed path side by side in every run and reports
// the ratio as a metric whose unit starts with "x-" (see
// perf_test.go and internal/perftable). ns/op is floor and run
// together; ns/call is the sandboxed path alone.

// bareEngine is an engine without the sandbox, configured as the sandbox
// configures it, whose acl.aclrtMemcpy import does nothing.
type bareEngine struct {
	// call instantiates wasm and returns a function calling its export
	// name (looked up once).
	call func(b *testing.B, wasm []byte, name string) func()
	// instantiate compiles wasm and returns a function instantiating and
	// closing it.
	instantiate func(b *testing.B, wasm []byte) func()
}

// bareEngines are the bare engines by name; perf_wasmtime_test.go
// adds wasmtime.
var bareEngines = map[string]bareEngine{"wazero": {call: bareWazeroCall, instantiate: bareWazeroInstantiate}}

// bareWazero returns a runtime configured as the wazero adapter configures
// its own (a timeout must stop a spinning guest), with a no-op acl module.
func bareWazero(b *testing.B) wazero.Runtime {
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCloseOnContextDone(true))
	b.Cleanup(func() { r.Close(ctx) })
	i64, i32 := api.ValueTypeI64, api.ValueTypeI32
	_, err := r.NewHostModuleBuilder("acl").NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(func(_ context.Context, _ api.Module, stack []uint64) { stack[0] = 0 }),
			[]api.ValueType{i64, i64, i64, i64, i32}, []api.ValueType{i32}).
		Export("aclrtMemcpy").Instantiate(ctx)
	require.NoError(b, err)
	return r
}

func bareWazeroCall(b *testing.B, wasm []byte, name string) func() {
	ctx := context.Background()
	mod, err := bareWazero(b).Instantiate(ctx, wasm)
	require.NoError(b, err)
	fn := mod.ExportedFunction(name)
	return func() {
		if _, err := fn.Call(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func bareWazeroInstantiate(b *testing.B, wasm []byte) func() {
	ctx := context.Background()
	r := bareWazero(b)
	cm, err := r.CompileModule(ctx, wasm)
	require.NoError(b, err)
	cfg := wazero.NewModuleConfig().WithName("")
	return func() {
		mod, err := r.InstantiateModule(ctx, cm, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if err := mod.Close(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// sideBySide runs floor and run b.N times each, alternating in rounds of
// round, so that a load on the machine weighs on both alike (as measure
// does), and reports floor's time per operation as floor-ns/op, run's as
// ns/call, and their ratio as unit.
func sideBySide(b *testing.B, unit string, round int, floor, run func()) {
	b.ResetTimer() // not the setup
	var tf, tr time.Duration
	for done := 0; done < b.N; done += round {
		k := min(round, b.N-done)
		t := time.Now()
		for range k {
			floor()
		}
		t1 := time.Now()
		for range k {
			run()
		}
		tr += time.Since(t1)
		tf += t1.Sub(t)
	}
	f, r := float64(tf.Nanoseconds())/float64(b.N), float64(tr.Nanoseconds())/float64(b.N)
	b.ReportMetric(f, "floor-ns/op")
	b.ReportMetric(r, "ns/call")
	b.ReportMetric(r/f, unit)
}

func egBare(b *testing.B) bareEngine {
	e, ok := bareEngines[testsupport.Engine()]
	if !ok {
		b.Fatalf("no bare %s engine in this build (wasmtime needs -tags wasmtime)", testsupport.Engine())
	}
	return e
}

func egRuntime(b *testing.B) *host.Runtime {
	rt, err := host.NewRuntime(context.Background(), host.WithEngine(testsupport.Engine()))
	require.NoError(b, err)
	b.Cleanup(func() { rt.Close(context.Background()) })
	return rt
}

func egPlugin(b *testing.B, rt *host.Runtime, wasm []byte) *host.Plugin {
	pl, err := rt.Load(context.Background(), wasm, host.Policy{})
	require.NoError(b, err)
	b.Cleanup(func() { pl.Close(context.Background()) })
	return pl
}

// BenchmarkGoal4Call is goal 4: Instance.Call of an empty export against
// the bare engine's call of the same export, looked up once (x-bare, goal
// <= 2), with its allocations per call (goal 0).
func BenchmarkGoal4Call(b *testing.B) {
	ctx := context.Background()
	wasm := testsupport.WAT(b, testsupport.SmallWAT)
	floor := egBare(b).call(b, wasm, "empty")
	inst, err := egPlugin(b, egRuntime(b), wasm).Instantiate(ctx, host.Config{})
	require.NoError(b, err)
	defer inst.Close(ctx)
	call := func() {
		if _, err := inst.Call(ctx, "empty"); err != nil {
			b.Fatal(err)
		}
	}
	sideBySide(b, "x-bare", 1000, floor, call)
	b.ReportMetric(testsupport.AllocsPer(1000, func(n int) {
		for range n {
			call()
		}
	}), "allocs/call")
}

// BenchmarkGoal7Instantiate is goal 7's first half: instantiating and
// closing a cached small module (Plugin.Instantiate, Instance.Close: a
// session, its guest memory, the engine's instance) against the bare
// engine instantiating and closing the same compiled module (x-bare, goal
// <= 1.5).
func BenchmarkGoal7Instantiate(b *testing.B) {
	ctx := context.Background()
	wasm := testsupport.WAT(b, testsupport.SmallWAT)
	floor := egBare(b).instantiate(b, wasm)
	pl := egPlugin(b, egRuntime(b), wasm)
	sideBySide(b, "x-bare", 10, floor, func() {
		inst, err := pl.Instantiate(ctx, host.Config{})
		if err != nil {
			b.Fatal(err)
		}
		if err := inst.Close(ctx); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkGoal7Pool is goal 7's second half: a call of a large Go plugin
// (guest-sdk/go/examples/reactor, 2.4 MB) through a Pool that reuses its
// instance, against the same call on an Instance held by the caller
// (x-call, goal about 1: a call, not an instantiation); x-instantiate is
// the pool call against instantiating, calling and closing the plugin
// (each measured a few times only: an instantiation costs milliseconds).
func BenchmarkGoal7Pool(b *testing.B) {
	ctx := context.Background()
	wasm, err := os.ReadFile("../build/wasm/go-reactor.wasm")
	require.NoError(b, err, "the Go reactor guest is built by: bash scripts/build-guests.sh go")
	pl := egPlugin(b, egRuntime(b), wasm)
	call := func(i *host.Instance) {
		res, err := i.Call(ctx, "roundtrip", 64)
		if err != nil || res[0] != 0 {
			b.Fatalf("roundtrip = %v, %v", res, err)
		}
	}
	fresh := func() {
		inst, err := pl.Instantiate(ctx, host.Config{})
		if err != nil {
			b.Fatal(err)
		}
		call(inst)
		if err := inst.Close(ctx); err != nil {
			b.Fatal(err)
		}
	}
	const fresher = 3 // a few instantiations: each costs milliseconds
	t := time.Now()
	for range fresher {
		fresh()
	}
	inst := time.Since(t).Nanoseconds() / fresher
	held, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(b, err)
	defer held.Close(ctx)
	call(held) // as the pool's instance below, called once before
	pool, err := pl.NewPool(host.PoolConfig{Size: 1})
	require.NoError(b, err)
	defer pool.Close(ctx)
	_, err = pool.Call(ctx, "roundtrip", 64) // the pool's instance, made once
	require.NoError(b, err)
	sideBySide(b, "x-call", 100, func() { call(held) }, func() {
		res, err := pool.Call(ctx, "roundtrip", 64)
		if err != nil || res[0] != 0 {
			b.Fatalf("roundtrip = %v, %v", res, err)
		}
	})
	var pooled time.Duration
	t = time.Now()
	for range fresher * 10 {
		if _, err := pool.Call(ctx, "roundtrip", 64); err != nil {
			b.Fatal(err)
		}
	}
	pooled = time.Since(t) / (fresher * 10)
	b.ReportMetric(float64(pooled)/float64(inst), "x-instantiate")
}
