//go:build wasmtime && cgo

package wasmtime

import (
	"context"
	"testing"
	"time"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/bytecodealliance/wasmtime-go/v39"
)

// noopInvoker is a session whose every import does nothing and returns 0.
type noopInvoker struct{}

func (noopInvoker) Invoke(ctx context.Context, fn int, mem []byte, stack []uint64) { stack[0] = 0 }
func (noopInvoker) Hold(engine.Releaser)                                           {}
func (noopInvoker) Release(context.Context) error                                  { return nil }

const noopWAT = `(module
  (import "acl" "aclrtMemcpy" (func $m (param i64 i64 i64 i64 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "loop") (param $n i32) (result i32) (local $r i32)
    (block $done (loop $l
      (local.set $r (call $m (i64.const 0) (i64.const 64) (i64.const 0) (i64.const 64) (i32.const 1)))
      (br_if $done (local.get $r))
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br_if $l (local.get $n))))
    (local.get $r)))`

// BenchmarkNoopHostCall is the adapter's own cost of a host call: a guest
// loop calling an aclrtMemcpy import that does nothing (noopInvoker)
// through the adapter's unchecked host functions, against the same loop
// on bare wasmtime-go with a no-op import defined by Linker.FuncNew.
// x-wasmtime-go: the adapter's time per call over wasmtime-go's; ns/call:
// the adapter's, the floor below any import of the sandbox on wasmtime
// (the goal benchmarks' floor on wasmtime, host/perf_floor_wasmtime_test.go).
func BenchmarkNoopHostCall(b *testing.B) {
	ctx := context.Background()
	f := engine.Func{Module: "acl", Name: "aclrtMemcpy", Params: []abi.Param{{Type: abi.Addr}, {Type: abi.Size}, {Type: abi.Addr}, {Type: abi.Size}, {Type: abi.I32}}, Profile: abi.Wide}
	e, err := New(ctx, engine.Options{Funcs: []engine.Func{f}})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close(ctx)
	wasm, err := wasmtime.Wat2Wasm(noopWAT)
	if err != nil {
		b.Fatal(err)
	}
	c, err := e.Compile(ctx, engine.Module{Wasm: wasm, Memory: "memory"})
	if err != nil {
		b.Fatal(err)
	}
	inst, err := c.Instantiate(ctx, engine.Config{Invoker: noopInvoker{}, MemoryLimit: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer inst.Close(ctx)

	// The same loop on bare wasmtime-go.
	cfg := wasmtime.NewConfig()
	cfg.SetEpochInterruption(true)
	eng := wasmtime.NewEngineWithConfig(cfg)
	defer eng.Close()
	linker := wasmtime.NewLinker(eng)
	defer linker.Close()
	i32, i64 := wasmtime.NewValType(wasmtime.KindI32), wasmtime.NewValType(wasmtime.KindI64)
	ty := wasmtime.NewFuncType([]*wasmtime.ValType{i64, i64, i64, i64, i32}, []*wasmtime.ValType{i32})
	if err := linker.FuncNew("acl", "aclrtMemcpy", ty, func(*wasmtime.Caller, []wasmtime.Val) ([]wasmtime.Val, *wasmtime.Trap) {
		return []wasmtime.Val{wasmtime.ValI32(0)}, nil
	}); err != nil {
		b.Fatal(err)
	}
	store := wasmtime.NewStore(eng)
	defer store.Close()
	store.SetEpochDeadline(1 << 62)
	mod, err := wasmtime.NewModule(eng, wasm)
	if err != nil {
		b.Fatal(err)
	}
	bare, err := linker.Instantiate(store, mod)
	if err != nil {
		b.Fatal(err)
	}
	loop := bare.GetFunc(store, "loop")

	const n = 1000 // host calls per guest call
	var ours, theirs time.Duration
	b.ResetTimer()
	for range max(b.N/n, 1) { // alternate, so that both see the same machine
		t := time.Now()
		if _, err := inst.Call(ctx, "loop", n); err != nil {
			b.Fatal(err)
		}
		ours += time.Since(t)
		t = time.Now()
		if _, err := loop.Call(store, int32(n)); err != nil {
			b.Fatal(err)
		}
		theirs += time.Since(t)
	}
	b.ReportMetric(float64(ours)/float64(theirs), "x-wasmtime-go")
	b.ReportMetric(float64(ours.Nanoseconds())/float64(max(b.N/n, 1)*n), "ns/call")
}
