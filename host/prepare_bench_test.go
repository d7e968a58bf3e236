package host_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// BenchmarkGoalPreparedRun measures what a request waits for when serve made
// its run ahead (Prepared.Run, its Plugin.Prepare outside the timer)
// against a whole Plugin.Run, in alternating rounds, for serve's echo
// and for the Go sample go-copy, whose instantiation (its data segments)
// is most of its run: x-fresh is the prepared run's time over the fresh
// run's (both wall time, the same streams and statistics). A reference
// row of make perf-table.
func BenchmarkGoalPreparedRun(b *testing.B) {
	ctx := context.Background()
	src, err := os.ReadFile(filepath.Join("..", "serve", "testdata", "echo.wat"))
	require.NoError(b, err)
	rt, err := host.NewRuntime(ctx, host.WithEngine(testsupport.Engine()))
	require.NoError(b, err)
	defer rt.Close(ctx)
	for _, g := range []struct {
		name string
		wasm []byte
	}{{"echo", testsupport.WAT(b, string(src))}, {"go-copy", testsupport.Guest(b, "go-copy")}} {
		b.Run(g.name, func(b *testing.B) {
			pl, err := rt.Load(ctx, g.wasm, host.Policy{})
			require.NoError(b, err)
			defer pl.Close(ctx)
			cfg := host.Config{Args: []string{g.name}, NoStats: true}
			std := host.Stdio{Stdin: bytes.NewReader(nil), Stdout: io.Discard, Stderr: io.Discard}
			var fresh, prepared time.Duration
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				r, err := pl.Prepare(ctx, cfg)
				require.NoError(b, err)
				b.StartTimer()
				t0 := time.Now()
				_, err = r.Run(ctx, std)
				t1 := time.Now()
				require.NoError(b, err)
				run := cfg
				run.Stdin, run.Stdout, run.Stderr = std.Stdin, std.Stdout, std.Stderr
				_, err = pl.Run(ctx, run)
				fresh += time.Since(t1)
				prepared += t1.Sub(t0)
				require.NoError(b, err)
			}
			b.ReportMetric(float64(prepared)/float64(fresh), "x-fresh")
			b.ReportMetric(float64(prepared.Nanoseconds())/float64(b.N), "prepared-ns/op")
		})
	}
}
