package wazero

import (
	"context"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// zeroInvoker is a session whose every import does nothing and returns 0.
type zeroInvoker struct{}

func (zeroInvoker) Invoke(_ context.Context, _ int, _ []byte, stack []uint64) { stack[0] = 0 }
func (zeroInvoker) Hold(m engine.Releaser)                                    {}
func (zeroInvoker) Release(context.Context) error                             { return nil }

// bindCtx is a call's context as the host's (sandbox.CallCtx) carries the
// binding for the adapter: through Value.
type bindCtx struct {
	context.Context
	b *engine.Binding
}

func (c *bindCtx) Value(key any) any {
	if _, ok := key.(engine.InvokerKey); ok {
		return c.b
	}
	return c.Context.Value(key)
}

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
// loop calling an aclrtMemcpy import that does nothing (zeroInvoker)
// through the adapter's host function, which finds the session and the
// guest's memory, against the same loop on bare wazero with a no-op Go
// import (the goal benchmarks' floor on wazero). x-wazero: the adapter's
// time per call over bare wazero's.
func BenchmarkNoopHostCall(b *testing.B) {
	ctx := context.Background()
	wasm := testsupport.WAT(b, noopWAT)
	f := engine.Func{Module: "acl", Name: "aclrtMemcpy", Params: []abi.Param{{Type: abi.Addr}, {Type: abi.Size}, {Type: abi.Addr}, {Type: abi.Size}, {Type: abi.I32}}, Profile: abi.Wide}
	e, err := New(ctx, engine.Options{Funcs: []engine.Func{f}})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close(ctx)
	c, err := e.Compile(ctx, engine.Module{Wasm: wasm, Memory: "memory"})
	if err != nil {
		b.Fatal(err)
	}
	bind := &engine.Binding{Invoker: zeroInvoker{}}
	inst, err := c.Instantiate(ctx, engine.Config{Invoker: zeroInvoker{}, Binding: bind, MemoryLimit: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer inst.Close(ctx)
	cctx := &bindCtx{Context: ctx, b: bind}

	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCloseOnContextDone(true))
	defer r.Close(ctx)
	i64, i32 := api.ValueTypeI64, api.ValueTypeI32
	if _, err := r.NewHostModuleBuilder("acl").NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(func(_ context.Context, _ api.Module, stack []uint64) { stack[0] = 0 }),
			[]api.ValueType{i64, i64, i64, i64, i32}, []api.ValueType{i32}).
		Export("aclrtMemcpy").Instantiate(ctx); err != nil {
		b.Fatal(err)
	}
	bare, err := r.Instantiate(ctx, wasm)
	if err != nil {
		b.Fatal(err)
	}
	fn := bare.ExportedFunction("loop")
	floor := func(n int) {
		if res, err := fn.Call(ctx, uint64(n)); err != nil || res[0] != 0 {
			b.Fatal(res, err)
		}
	}
	run := func(n int) {
		if res, err := inst.Call(cctx, "loop", uint64(n)); err != nil || res[0] != 0 {
			b.Fatal(res, err)
		}
	}
	fl, rn := testsupport.Measure(b, 1000, func(n int) {
		for done := 0; done < n; done += 1000 {
			floor(min(1000, n-done))
		}
	}, func(n int) {
		for done := 0; done < n; done += 1000 {
			run(min(1000, n-done))
		}
	})
	b.ReportMetric(rn/fl, "x-wazero")
}
