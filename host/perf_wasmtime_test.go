//go:build wasmtime && cgo

package host_test

import (
	"context"
	"testing"

	"github.com/bytecodealliance/wasmtime-go/v39"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

func init() {
	bareEngines["wasmtime"] = bareEngine{call: bareWasmtimeCall, instantiate: bareWasmtimeInstantiate}
}

// bareWasmtime is an engine and linker configured as the wasmtime adapter
// configures its own (epoch interruption), with a no-op acl.aclrtMemcpy.
func bareWasmtime(b *testing.B) (*wasmtime.Engine, *wasmtime.Linker) {
	cfg := wasmtime.NewConfig()
	cfg.SetEpochInterruption(true)
	eng := wasmtime.NewEngineWithConfig(cfg)
	linker := wasmtime.NewLinker(eng)
	i32, i64 := wasmtime.NewValType(wasmtime.KindI32), wasmtime.NewValType(wasmtime.KindI64)
	ty := wasmtime.NewFuncType([]*wasmtime.ValType{i64, i64, i64, i64, i32}, []*wasmtime.ValType{i32})
	require.NoError(b, linker.FuncNew("acl", "aclrtMemcpy", ty, func(*wasmtime.Caller, []wasmtime.Val) ([]wasmtime.Val, *wasmtime.Trap) {
		return []wasmtime.Val{wasmtime.ValI32(0)}, nil
	}))
	b.Cleanup(func() { linker.Close(); eng.Close() })
	return eng, linker
}

func bareWasmtimeCall(b *testing.B, wasm []byte, name string) func() {
	eng, linker := bareWasmtime(b)
	store := wasmtime.NewStore(eng)
	store.SetEpochDeadline(1 << 62)
	mod, err := wasmtime.NewModule(eng, wasm)
	require.NoError(b, err)
	inst, err := linker.Instantiate(store, mod)
	require.NoError(b, err)
	b.Cleanup(store.Close)
	fn := inst.GetFunc(store, name)
	return func() {
		if _, err := fn.Call(store); err != nil {
			b.Fatal(err)
		}
	}
}

func bareWasmtimeInstantiate(b *testing.B, wasm []byte) func() {
	eng, linker := bareWasmtime(b)
	mod, err := wasmtime.NewModule(eng, wasm)
	require.NoError(b, err)
	return func() {
		store := wasmtime.NewStore(eng)
		store.SetEpochDeadline(1 << 62)
		if _, err := linker.Instantiate(store, mod); err != nil {
			b.Fatal(err)
		}
		store.Close()
	}
}

// BenchmarkGoal3WasmtimeAsyncSmall is goal 3 on wasmtime whatever the test
// engine: a 64-byte aclrtMemcpyAsync H2D from registered guest memory and
// aclrtSynchronizeStream, in a guest loop, against a 64-byte synchronous
// aclrtMemcpy in the same loop (x-sync, goal <= 3). Each wait used to
// block the OS thread inside wasmtime's host call, a sleep and a wake-up
// per pair.
func BenchmarkGoal3WasmtimeAsyncSmall(b *testing.B) {
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, host.WithEngine("wasmtime"))
	require.NoError(b, err)
	b.Cleanup(func() { rt.Close(ctx) })
	pl, err := rt.Load(ctx, testsupport.CachedWAT(b, testsupport.ProxyWAT(abi.Wide, 4, goalLoops)), host.Policy{MemoryPages: 4, DeviceMemory: 1 << 30})
	require.NoError(b, err)
	b.Cleanup(func() { pl.Close(ctx) })
	h := newGoalHarness(b, rt, pl, 64)
	st := h.asyncSetup(b, 0x10000, 64)
	f, r := testsupport.Measure(b, 1000, h.syncCopies(b, data, 64, 1000), h.asyncPairs(b, 0x10000, 64, st, 1000))
	b.ReportMetric(r/f, "x-sync")
}
