package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// BenchmarkProfiles compares a sandboxed 64-byte aclrtMemcpy H2D called
// from a guest loop through module acl32 with the same call through acl,
// in the same run: "x-acl" is the acl32 cost over the wide one (the i32
// parameters cleared on entry are all acl32 adds on this path).
func BenchmarkProfiles(b *testing.B) {
	const iters = 1000
	var wide float64
	for _, prof := range abi.Profiles {
		b.Run(prof.Module(), func(b *testing.B) {
			ctx := context.Background()
			rt, err := host.NewRuntime(ctx, host.WithEngine(testsupport.Engine()))
			require.NoError(b, err)
			defer rt.Close(ctx)
			t := prof.Wasm(abi.Addr)
			loop := strings.NewReplacer("i64", t).Replace(testsupport.MemcpyLoopWAT)
			pl, err := rt.Load(ctx, testsupport.WAT(b, testsupport.ProxyWAT(prof, 4, loop)), host.Policy{MemoryPages: 4})
			require.NoError(b, err)
			defer pl.Close(ctx)
			inst, err := pl.Instantiate(ctx, host.Config{})
			require.NoError(b, err)
			defer inst.Close(ctx)
			h := &proxytest.Harness{Inst: inst, RT: rt, Prof: prof}
			require.Zero(b, uint32(h.Result(b, "aclrtSetDevice", 0)))
			require.Zero(b, uint32(h.Result(b, "aclrtMalloc", outA, 64, 0)))
			dst := h.Word(outA)
			b.ResetTimer()
			for i := 0; i < b.N; i += iters {
				if r := uint32(h.Result(b, "memcpy_loop", dst, data, 64, 1, iters)); r != 0 {
					b.Fatalf("aclrtMemcpy = %d", r)
				}
			}
			ns := float64(b.Elapsed().Nanoseconds()) / float64((b.N+iters-1)/iters*iters)
			b.ReportMetric(ns, "ns/call")
			if prof == abi.Wide {
				wide = ns
			} else if wide > 0 {
				b.ReportMetric(ns/wide, "x-acl")
			}
		})
	}
}
