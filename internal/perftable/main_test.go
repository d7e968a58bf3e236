package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTable reads benchmark output of two engines and checks the rows:
// medians, ranges, per-engine targets, met or not, and a Goal benchmark no
// row describes.
func TestTable(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	wz := write("wazero.txt", `goos: linux
BenchmarkGoal1SmallCopy-2   1000   500 ns/op   1.4 x-floor
BenchmarkGoal1SmallCopy-2   1000   500 ns/op   1.6 x-floor
BenchmarkGoal1SmallCopy-2   1000   500 ns/op   1.45 x-floor
BenchmarkGoal5Batch64B-2    10     9 ns/op     2.5 x-loop   0.002 allocs/entry
BenchmarkGoal99Other-2      10     9 ns/op     7 x-thing
BenchmarkGoal9Scaling1MiB/sessions=2-2   10   9 ns/op   0.95 x-copy
BenchmarkGoal9Scaling1MiB/sessions=16-2  10   9 ns/op   0.85 x-copy
BenchmarkGoal10Large64MiB/async-2        10   9 ns/op   0.96 x-copy
BenchmarkGoal11HostFunc-2   1000   300 ns/op   1.2 x-bare   0.005 allocs/call
BenchmarkGoal12HostFunc64B-2   1000   300 ns/op   2.4 x-bare   0.005 allocs/call
BenchmarkOther-2            10     9 ns/op     7 x-floor
BenchmarkServeEcho/tls=false/clients=16-2         2000  9 ns/op  1.10 x-floor-req/s  1.05 x-floor-p99  1.02 x-floor-p50  1.17 x-floor-cpu
BenchmarkServeEchoReactor/tls=false/clients=16-2  2000  9 ns/op  0.75 x-floor-req/s  1.30 x-floor-p99  1.25 x-floor-p50  1.40 x-floor-cpu
`)
	wt := write("wasmtime.txt", `BenchmarkGoal1SmallCopy-2   1000   500 ns/op   1.3 x-floor
`)
	vals := map[key][]float64{}
	if err := read("wazero", wz, vals); err != nil {
		t.Fatal(err)
	}
	if err := read("wasmtime", wt, vals); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	writeTable(&b, []string{"wazero", "wasmtime"}, vals)
	out := b.String()
	for _, want := range []string{
		"| 1.45 (1.40-1.60) | <= 1.5 | met | wazero |",
		"| 1.30 (1.30-1.30) | <= 1.2 | not met | wasmtime |",
		"| 2.50 (2.50-2.50) | >= 2 | met | wazero |",
		"| 0.00 (0.00-0.00) | <= 0.01 | met | wazero |",
		"| ? | Goal99Other (x-thing) |",
		"from guest memory, throughput, sessions=2 | as many goroutines, `copy()` from the same guest memory | 0.95 (0.95-0.95) | >= 0.9 | met | wazero |",
		"sessions=16 | as many goroutines, `copy()` from the same guest memory | 0.85 (0.85-0.85) | >= 0.9 | not met | wazero |",
		"| 10 | 64 MiB D2H async + synchronize, throughput | `copy()` 64 MiB | 0.96 (0.96-0.96) | >= 0.95 | met | wazero |",
		"| 11 | an embedder's host function, no payload, guest loop | bare host function, same signature (wazero: `api.GoModuleFunc`; wasmtime: the adapter's own) | 1.20 (1.20-1.20) | <= 1.5 | met | wazero |",
		"| 12 | an embedder's host function reading and writing 64 B, guest loop | bare host function doing the same | 2.40 (2.40-2.40) | <= 2 | not met | wazero |",
		"| serve | `aclwasm serve`, command plugin (a new instance per request), throughput, tls=false/clients=16 | bare net/http + wazero, a new instance per request",
		"| 1.10 (1.10-1.10) | >= 1 | met | wazero |",
		"| 1.05 (1.05-1.05) | <= 1.2 | met | wazero |",
		"| serve | `aclwasm serve`, reactor on kept instances (`serve.reuse_instances`), throughput, tls=false/clients=16 | bare net/http + wazero, pre-instantiated modules of the same guest (serve/bench_test.go) | 0.75 (0.75-0.75) | >= 0.8 | not met | wazero |",
		"| 1.30 (1.30-1.30) | <= 1.5 | met | wazero |",
		"| serve | `aclwasm serve`, command plugin, CPU time per request (its server process and its clients), tls=false/clients=16 | the same bare server | 1.17 (1.17-1.17) | - | reference | wazero |",
		"| serve | `aclwasm serve`, reactor on kept instances, CPU time per request (its server process and its clients), tls=false/clients=16 | the same bare server | 1.40 (1.40-1.40) | - | reference | wazero |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if i, j := strings.Index(out, "sessions=2 "), strings.Index(out, "sessions=16 "); i < 0 || j < i {
		t.Errorf("sessions=2 is not listed before sessions=16:\n%s", out)
	}
	if strings.Contains(out, "| ? | ServeEcho") {
		t.Errorf("a serve benchmark has no row:\n%s", out)
	}
	if strings.Contains(out, "BenchmarkOther") || strings.Contains(out, "| Other") {
		t.Errorf("a benchmark that is not a goal is listed:\n%s", out)
	}
}
