//go:build unix

package host_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// BenchmarkRunEcho runs serve's echo command (serve/testdata/echo.wat:
// a device set, two 64-byte allocations, three copies through them, two
// frees) with Plugin.Run as serve runs a command per request: a
// cancellable context, the request's streams, a logger, no statistics.
// It reports the process's CPU time per run (cpu-ns), which a loaded
// machine disturbs less than the wall time; profile with
// -test.cpuprofile and pprof -focus 'sandbox|acl/sim'.
func BenchmarkRunEcho(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src, err := os.ReadFile(filepath.Join("..", "serve", "testdata", "echo.wat"))
	require.NoError(b, err)
	rt, err := host.NewRuntime(ctx, host.WithEngine(testsupport.Engine()))
	require.NoError(b, err)
	defer rt.Close(ctx)
	pl, err := rt.Load(ctx, testsupport.WAT(b, string(src)), host.Policy{})
	require.NoError(b, err)
	defer pl.Close(ctx)
	body := bytes.Repeat([]byte("x"), 64)
	var in bytes.Reader
	var out bytes.Buffer
	cfg := host.Config{Args: []string{"echo"}, Logger: slog.New(slog.DiscardHandler),
		Stdin: &in, Stdout: &out, Stderr: io.Discard, NoStats: true}
	b.ReportAllocs()
	b.ResetTimer()
	start := testsupport.CPUTime(b)
	for i := 0; i < b.N; i++ {
		in.Reset(body)
		out.Reset()
		if _, err := pl.Run(ctx, cfg); err != nil {
			b.Fatal(err)
		}
		if out.Len() != len("echo:")+len(body) {
			b.Fatalf("stdout %q", out.Bytes())
		}
	}
	b.ReportMetric(float64(testsupport.CPUTime(b)-start)/float64(b.N), "cpu-ns/op")
}
