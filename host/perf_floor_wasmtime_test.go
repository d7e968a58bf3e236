//go:build wasmtime && cgo

package host_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/host/internal/engine/wasmtime"
)

func init() { floorEngines["wasmtime"] = wasmtimeFloor }

// noopInvoker is a session whose every import does nothing and returns 0.
type noopInvoker struct{}

func (noopInvoker) Invoke(_ context.Context, _ int, _ []byte, stack []uint64) { stack[0] = 0 }
func (noopInvoker) Hold(engine.Releaser)                                      {}
func (noopInvoker) Release(context.Context) error                             { return nil }

// wasmtimeFloor is wazeroFloor on wasmtime: the cheapest Go import of
// aclrtMemcpy's signature wasmtime offers, a function defined with the C
// API's wasmtime_linker_define_func_unchecked whose callback enters Go and
// returns 0. wasmtime-go does not expose that form (its Linker.FuncNew
// boxes every value and takes two process-wide locks, about 8x the cost:
// BenchmarkNoopHostCall), so the floor is the adapter's own host function
// with a session that does nothing: the sandbox's cost is then exactly
// what its session adds.
func wasmtimeFloor(b *testing.B, wasm []byte) func(name string, args ...uint64) uint64 {
	ctx := context.Background()
	f := engine.Func{Module: "acl", Name: "aclrtMemcpy", Params: []abi.Param{{Type: abi.Addr}, {Type: abi.Size}, {Type: abi.Addr}, {Type: abi.Size}, {Type: abi.I32}}, Profile: abi.Wide}
	e, err := wasmtime.New(ctx, engine.Options{Funcs: []engine.Func{f}})
	require.NoError(b, err)
	b.Cleanup(func() { e.Close(ctx) })
	c, err := e.Compile(ctx, engine.Module{Wasm: wasm, Memory: "memory"})
	require.NoError(b, err)
	inst, err := c.Instantiate(ctx, engine.Config{Invoker: noopInvoker{}, MemoryLimit: 1 << 20})
	require.NoError(b, err)
	b.Cleanup(func() { inst.Close(ctx) })
	return func(name string, args ...uint64) uint64 {
		res, err := inst.Call(ctx, name, args...)
		if err != nil {
			b.Fatal(err)
		}
		return res[0]
	}
}

func init() { hostFloors["wasmtime"] = wasmtimeHostFloor }

// hostFloorInvoker is a session whose bench.nop (function 0) does nothing
// and whose bench.rw (function 1) does what hostBenchFuncs' does, with
// the same bounds checks, and nothing else.
type hostFloorInvoker struct {
	noopInvoker
	buf [64]byte
}

func (v *hostFloorInvoker) Invoke(_ context.Context, fn int, mem []byte, stack []uint64) {
	if fn == 0 {
		stack[0] = 0
		return
	}
	ptr, n := uint64(uint32(stack[0])), uint64(uint32(stack[1]))
	if ptr == 0 || n > uint64(len(v.buf)) || ptr+2*n > uint64(len(mem)) {
		stack[0] = 1
		return
	}
	copy(v.buf[:], mem[ptr:ptr+n])
	copy(mem[ptr+n:ptr+2*n], v.buf[:n])
	stack[0] = 0
}

// wasmtimeHostFloor is wazeroHostFloor on wasmtime: the adapter's own host
// functions bench.nop and bench.rw with a session that only does their
// work (hostFloorInvoker), for wasmtimeFloor's reason.
func wasmtimeHostFloor(b *testing.B, wasm []byte) func(name string, args ...uint64) uint64 {
	ctx := context.Background()
	var fs []engine.Func
	for _, h := range hostBenchFuncs() {
		fs = append(fs, engine.Func{Module: h.Module, Name: h.Name, Params: h.Params, Profile: abi.Wide})
	}
	e, err := wasmtime.New(ctx, engine.Options{Funcs: fs})
	require.NoError(b, err)
	b.Cleanup(func() { e.Close(ctx) })
	c, err := e.Compile(ctx, engine.Module{Wasm: wasm, Memory: "memory"})
	require.NoError(b, err)
	inst, err := c.Instantiate(ctx, engine.Config{Invoker: &hostFloorInvoker{}, MemoryLimit: 1 << 16})
	require.NoError(b, err)
	b.Cleanup(func() { inst.Close(ctx) })
	return func(name string, args ...uint64) uint64 {
		res, err := inst.Call(ctx, name, args...)
		if err != nil {
			b.Fatal(err)
		}
		return res[0]
	}
}
