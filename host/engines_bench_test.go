//go:build wasmtime && cgo

package host_test

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// BenchmarkEngines runs the same guests on wazero, then wasmtime, in one
// run, and reports on each wasmtime sub-benchmark "x-wazero": its time per
// operation over wazero's (above 1: wasmtime is slower). The workloads:
//
//   - small-call: one 64-byte aclrtMemcpy H2D from a guest loop, so the
//     cost of a host call through the engine and every check (ns/call);
//   - copy-64MiB: one 64 MiB guest-to-device aclrtMemcpy (MB/s);
//   - instantiate-cold: compiling a module never seen (a fresh custom
//     section each time defeats the caches), instantiating and closing it;
//   - instantiate-cached: loading the same bytes again (the engine's
//     compilation cache hits), instantiating and closing.
func BenchmarkEngines(b *testing.B) {
	b.Run("small-call", func(b *testing.B) {
		perEngine(b, func(b *testing.B, engine string) float64 {
			h, done := benchHarnessOn(b, engine, 4)
			defer done()
			require.Zero(b, uint32(h.Result(b, "aclrtSetDevice", 0)))
			require.Zero(b, uint32(h.Result(b, "aclrtMalloc", outA, 64, 0)))
			dst := h.U64(outA)
			const iters = 1000
			b.ResetTimer()
			for i := 0; i < b.N; i += iters {
				if r := uint32(h.Result(b, "memcpy_loop", dst, data, 64, 1, iters)); r != 0 {
					b.Fatalf("aclrtMemcpy = %d", r)
				}
			}
			per := float64(b.Elapsed().Nanoseconds()) / float64((b.N+iters-1)/iters*iters)
			b.ReportMetric(per, "ns/call")
			return per
		})
	})
	b.Run("copy-64MiB", func(b *testing.B) {
		const n = 64 << 20
		perEngine(b, func(b *testing.B, engine string) float64 {
			h, done := benchHarnessOn(b, engine, 2048)
			defer done()
			require.Zero(b, uint32(h.Result(b, "aclrtSetDevice", 0)))
			require.Zero(b, uint32(h.Result(b, "aclrtMalloc", outA, n, 0)))
			dst := h.U64(outA)
			mem := h.Mem()
			for i := range mem[0x10000 : 0x10000+n] { // commit the pages first
				mem[0x10000+i] = byte(i)
			}
			require.Zero(b, uint32(h.Result(b, "memcpy_loop", dst, 0x10000, n, 1, 1)))
			b.SetBytes(n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if r := uint32(h.Result(b, "memcpy_loop", dst, 0x10000, n, 1, 1)); r != 0 {
					b.Fatalf("aclrtMemcpy = %d", r)
				}
			}
			return float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		})
	})
	wasm := testsupport.WAT(b, testsupport.ProxyWAT(abi.Wide, 4, testsupport.MemcpyLoopWAT))
	b.Run("instantiate-cold", func(b *testing.B) {
		perEngine(b, func(b *testing.B, engine string) float64 {
			rt := benchRuntime(b, engine)
			unique := uniqueModules(wasm)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				loadInstantiateClose(b, rt, unique(i))
			}
			return float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		})
	})
	b.Run("instantiate-cached", func(b *testing.B) {
		perEngine(b, func(b *testing.B, engine string) float64 {
			rt := benchRuntime(b, engine)
			loadInstantiateClose(b, rt, wasm)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				loadInstantiateClose(b, rt, wasm)
			}
			return float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		})
	})
}

// perEngine runs fn as a sub-benchmark per engine, wazero first; fn returns
// its time per operation, and the wasmtime one is reported over wazero's.
func perEngine(b *testing.B, fn func(b *testing.B, engine string) float64) {
	var base float64
	for _, e := range []string{"wazero", "wasmtime"} {
		b.Run(e, func(b *testing.B) {
			per := fn(b, e)
			if e == "wazero" {
				base = per
			} else if base > 0 {
				b.ReportMetric(per/base, "x-wazero")
			}
		})
	}
}

func benchHarnessOn(b *testing.B, engine string, pages int) (*proxytest.Harness, func()) {
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, host.WithEngine(engine))
	require.NoError(b, err)
	pl, err := rt.Load(ctx, testsupport.WAT(b, testsupport.ProxyWAT(abi.Wide, pages, testsupport.MemcpyLoopWAT)), host.Policy{MemoryPages: uint32(pages), DeviceMemory: 1 << 30})
	require.NoError(b, err)
	inst, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(b, err)
	h := &proxytest.Harness{Inst: inst, RT: rt}
	return h, func() { inst.Close(ctx); pl.Close(ctx); rt.Close(ctx) }
}

func benchRuntime(b *testing.B, engine string) *host.Runtime {
	rt, err := host.NewRuntime(context.Background(), host.WithEngine(engine))
	require.NoError(b, err)
	b.Cleanup(func() { rt.Close(context.Background()) })
	return rt
}

func loadInstantiateClose(b *testing.B, rt *host.Runtime, wasm []byte) {
	ctx := context.Background()
	pl, err := rt.Load(ctx, wasm, host.Policy{})
	if err != nil {
		b.Fatal(err)
	}
	inst, err := pl.Instantiate(ctx, host.Config{})
	if err != nil {
		b.Fatal(err)
	}
	if err := inst.Close(ctx); err != nil {
		b.Fatal(err)
	}
	if err := pl.Close(ctx); err != nil {
		b.Fatal(err)
	}
}

// uniqueModules returns wasm with a custom section holding i appended: a
// module no cache has seen, with the same code.
func uniqueModules(wasm []byte) func(i int) []byte {
	return func(i int) []byte {
		out := append(append([]byte(nil), wasm...), 0, 10, 1, 'n') // custom section "n", 8 bytes
		return binary.LittleEndian.AppendUint64(out, uint64(i))
	}
}
