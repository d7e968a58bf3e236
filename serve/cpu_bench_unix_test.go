//go:build unix

package serve

import (
	"bytes"
	"context"
	"net/http"
	"testing"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// BenchmarkEchoHandlerCPU (not one of scripts/serve-bench.sh's
// BenchmarkServe*): the CPU time per request of serve's
// handler for the echo command and of the command floor's
// (newCommandFloor), each called in the benchmark's process without a
// connection, in alternating rounds of 100 requests, measured with
// getrusage (the process's user and system time, its garbage collection
// included). On a machine that other work loads, wall-clock ratios over
// connections (BenchmarkServeEcho) swing with the load; the CPU the
// process spends per request does far less. x-floor-cpu is serve's over
// the floor's; nop-cpu-ns is what a handler that echoes the body costs
// with the same request and recorder, which both figures include.
// Sub-benchmark ctx=background gives each request httptest's context
// (Background: never cancelled, nothing to follow); ctx=serve a new
// cancellable one derived from the server's base context, as net/http
// gives each request of a connection Serve accepted: what following the
// request's context costs serve's run and the floor's timeout shows there.
func BenchmarkEchoHandlerCPU(b *testing.B) {
	wasm := wat2wasm(b, "echo", "")
	s := startBenchServer(b, map[string][]byte{"echo": wasm}, "", 1)
	floor := newCommandFloor(b, wasm, benchPolicy(b, s), 1)
	b.Run("ctx=background", func(b *testing.B) { benchHandlerCPU(b, s, floor, nil) })
	b.Run("ctx=serve", func(b *testing.B) { benchHandlerCPU(b, s, floor, s.base) })
}

// benchHandlerCPU is BenchmarkEchoHandlerCPU with each request's context
// derived from base (nil: httptest's).
func benchHandlerCPU(b *testing.B, s *Server, floor http.Handler, base context.Context) {
	nop := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(r.Body)
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(buf.Bytes())
	})
	serve := func(h http.Handler, check bool) { serveEcho(b, h, base, check) }
	hs := []http.Handler{floor, s.Handler(), nop}
	for range 100 { // warm up
		for k, h := range hs {
			serve(h, k < 2)
		}
	}
	const round = 100
	var spent [3]int64
	b.ResetTimer()
	for done := 0; done < b.N; done += round {
		for k, h := range hs {
			t := testsupport.CPUTime(b)
			for range round {
				serve(h, k < 2)
			}
			spent[k] += testsupport.CPUTime(b) - t
		}
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(spent[0])/n, "floor-cpu-ns")
	b.ReportMetric(float64(spent[1])/n, "cpu-ns")
	b.ReportMetric(float64(spent[2])/n, "nop-cpu-ns")
	b.ReportMetric(float64(spent[1])/float64(spent[0]), "x-floor-cpu")
}
