package host

import (
	"context"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// BenchmarkIdleInstance: the Go heap an idle pooled instance of a tiny
// module holds after one call of an export that makes one acl call (what
// a pooled plugin keeps between requests), per instance of 64.
func BenchmarkIdleInstance(b *testing.B) {
	const n = 64
	ctx := context.Background()
	wasm := testsupport.WAT(b, `(module
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "handle") (result i32) (call $set (i32.const 0))))`)
	rt, err := NewRuntime(ctx, WithEngine(testEngine))
	require.NoError(b, err)
	defer rt.Close(ctx)
	pl, err := rt.Load(ctx, wasm, Policy{})
	require.NoError(b, err)
	defer pl.Close(ctx)
	heap := func() uint64 {
		runtime.GC()
		debug.FreeOSMemory()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapInuse
	}
	var total float64
	b.ResetTimer()
	for range b.N {
		h0 := heap()
		p, err := pl.NewPool(PoolConfig{Size: n})
		require.NoError(b, err)
		var all sync.WaitGroup
		all.Add(n)
		errs := make(chan error, n)
		for range n {
			go func() {
				errs <- p.Do(ctx, func(i *Instance) error {
					_, err := i.Call(ctx, "handle")
					all.Done()
					all.Wait() // every call has its own instance
					return err
				})
			}()
		}
		for range n {
			require.NoError(b, <-errs)
		}
		h1 := heap()
		require.NoError(b, p.Close(ctx))
		total += float64(h1-h0) / n
	}
	b.ReportMetric(total/float64(b.N), "heap-B/inst")
}
