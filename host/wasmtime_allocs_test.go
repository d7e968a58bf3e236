//go:build wasmtime && cgo

package host_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// TestWasmtimeAllocs pins what the wasmtime adapter's unchecked calls buy
// (host/internal/engine/wasmtime: host functions and export calls with raw
// values through the C API): no allocation per host call and none per
// Instance.Call. wasmtime-go's own host calls box their arguments and
// results (6 allocations per aclrtMemcpy), its Func.Call 5 per call.
func TestWasmtimeAllocs(t *testing.T) {
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, host.WithEngine("wasmtime"))
	require.NoError(t, err)
	t.Cleanup(func() { rt.Close(ctx) })

	t.Run("empty export", func(t *testing.T) {
		got, _ := emptyCallAllocs(t, rt)
		require.Zero(t, got, "allocations per Instance.Call of an empty export")
	})

	t.Run("host calls", func(t *testing.T) {
		pl, err := rt.Load(ctx, testsupport.WAT(t, testsupport.ProxyWAT(abi.Wide, 4, testsupport.MemcpyLoopWAT)), host.Policy{MemoryPages: 4, DeviceMemory: 1 << 20})
		require.NoError(t, err)
		defer pl.Close(ctx)
		inst, err := pl.Instantiate(ctx, host.Config{})
		require.NoError(t, err)
		defer inst.Close(ctx)
		h := &proxytest.Harness{Inst: inst, RT: rt}
		call := func(name string, args ...uint64) {
			res, err := inst.Call(ctx, name, args...)
			if err != nil || res[0] != 0 {
				t.Fatalf("%s = %v, %v: %s", name, res, err, inst.Session().LastError())
			}
		}
		call("aclrtSetDevice", 0)
		call("aclrtMalloc", outA, 1<<16, 0)
		dev := h.U64(outA)
		// A guest loop of 64-byte H2D copies: one Instance.Call (its
		// result slice is the caller's) of 1 and of 1000 host calls.
		loop := func(iters uint64) float64 {
			return testing.AllocsPerRun(20, func() { call("memcpy_loop", dev, data, 64, 1, iters) })
		}
		one, many := loop(1), loop(1000)
		require.Less(t, many-one, 1.0, "allocations of 999 more host calls (1 call: %.1f, 1000: %.1f)", one, many)
	})
}
