package host_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

func benchHarness(b *testing.B, pages int) (*proxytest.Harness, func()) {
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, host.WithEngine(testsupport.Engine()))
	require.NoError(b, err)
	pl, err := rt.Load(ctx, testsupport.WAT(b, testsupport.ProxyWAT(abi.Wide, pages, testsupport.MemcpyLoopWAT)), host.Policy{MemoryPages: uint32(pages), DeviceMemory: 1 << 30})
	require.NoError(b, err)
	inst, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(b, err)
	h := &proxytest.Harness{Inst: inst, RT: rt}
	return h, func() { inst.Close(ctx); pl.Close(ctx); rt.Close(ctx) }
}

// BenchmarkSmallMemcpy compares a sandboxed 64-byte aclrtMemcpy H2D (a
// guest call through the import, with every check) against the direct
// backend call it delegates to, in the same run. The "x-direct" metric is
// the sandboxed cost over the direct cost.
func BenchmarkSmallMemcpy(b *testing.B) {
	h, done := benchHarness(b, 4)
	defer done()
	require.Zero(b, uint32(h.Result(b, "aclrtSetDevice", 0)))
	require.Zero(b, uint32(h.Result(b, "aclrtMalloc", outA, 64, 0)))
	dst := h.U64(outA)
	const iters = 1000
	var direct, sandboxed float64
	b.Run("direct", func(b *testing.B) {
		// The backend's own allocation of the same size, as the session's
		// allocation is to the backend.
		be := h.RT.Backend()
		p, err := be.Malloc(0, 64, acl.MemMallocHugeFirst)
		require.NoError(b, err)
		defer func() { require.NoError(b, be.Free(context.Background(), p)) }()
		d, src := acl.Device(p), acl.Host(h.Mem()[data:data+64], 0)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := be.Memcpy(b.Context(), d, src, 64); err != nil {
				b.Fatal(err)
			}
		}
		direct = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("sandboxed", func(b *testing.B) {
		for i := 0; i < b.N; i += iters {
			if r := uint32(h.Result(b, "memcpy_loop", dst, data, 64, 1, iters)); r != 0 {
				b.Fatalf("aclrtMemcpy = %d", r)
			}
		}
		sandboxed = float64(b.Elapsed().Nanoseconds()) / float64((b.N+iters-1)/iters*iters)
		b.ReportMetric(sandboxed, "ns/call")
		if direct > 0 {
			b.ReportMetric(sandboxed/direct, "x-direct")
		}
	})
}

// BenchmarkLargeMemcpy compares a 64 MiB guest-to-device aclrtMemcpy with a
// raw copy() of 64 MiB between Go slices, in the same run. "x-copy" is the
// sandboxed throughput over copy()'s (goal >= 0.85).
func BenchmarkLargeMemcpy(b *testing.B) {
	const n = 64 << 20
	h, done := benchHarness(b, 2048) // 128 MiB of guest memory
	defer done()
	require.Zero(b, uint32(h.Result(b, "aclrtSetDevice", 0)))
	require.Zero(b, uint32(h.Result(b, "aclrtMalloc", outA, n, 0)))
	dst := h.U64(outA)
	var base float64
	// Touch every page first on both sides: untouched pages read as the
	// kernel's shared zero page and would flatter either side.
	for i := range h.Mem()[0x10000 : 0x10000+n] {
		h.Mem()[0x10000+i] = byte(i)
	}
	require.Zero(b, uint32(h.Result(b, "memcpy_loop", dst, 0x10000, n, 1, 1)))
	b.Run("copy", func(b *testing.B) {
		src, dstb := make([]byte, n), make([]byte, n)
		for i := range src {
			src[i] = byte(i)
		}
		copy(dstb, src)
		b.SetBytes(n)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			copy(dstb, src)
		}
		base = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("sandboxed", func(b *testing.B) {
		b.SetBytes(n)
		for i := 0; i < b.N; i++ {
			if r := uint32(h.Result(b, "memcpy_loop", dst, 0x10000, n, 1, 1)); r != 0 {
				b.Fatalf("aclrtMemcpy = %d", r)
			}
		}
		per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		if base > 0 {
			b.ReportMetric(base/per, "x-copy")
		}
	})
}

// BenchmarkInstantiate measures creating and releasing a plugin instance
// with the module already compiled (the runtime's compilation cache warm).
func BenchmarkInstantiate(b *testing.B) {
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, host.WithEngine(testsupport.Engine()))
	require.NoError(b, err)
	defer rt.Close(ctx)
	pl, err := rt.Load(ctx, testsupport.Proxy(abi.Wide, 4), host.Policy{})
	require.NoError(b, err)
	defer pl.Close(ctx)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		inst, err := pl.Instantiate(ctx, host.Config{})
		if err != nil {
			b.Fatal(err)
		}
		if err := inst.Close(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
