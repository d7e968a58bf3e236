// Command perftable prints the README's performance table from the output
// of the goal benchmarks (host/perf_test.go, host/perf_engine_test.go,
// host/hostfunc_bench_test.go and the others named BenchmarkGoal*), one
// `go test -bench` output per engine:
//
//	go run ./internal/perftable wazero=build/perf/wazero.txt wasmtime=build/perf/wasmtime.txt
//
// Each goal benchmark reports its ratio to a floor measured in the same run
// as a metric whose unit starts with "x-" (and batches their allocations
// per entry as allocs/entry). A row gives the median of the runs (-count),
// their range, the goal's target and whether the median meets it.
// scripts/perf-table.sh runs the benchmarks and this command.
package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// target is a goal's bound on a ratio: below (op "<=") or above (">=") v.
type target struct {
	op string
	v  float64
}

func (t target) met(x float64) bool {
	if t.op == "<=" {
		return x <= t.v
	}
	return x >= t.v
}

func (t target) String() string { return fmt.Sprintf("%s %g", t.op, t.v) }

// goal is one row of the table: the benchmark (its name without
// "Benchmark", each of its sub-benchmarks a row of its own) and metric that
// measure it, what it measures against, and its target, per engine
// when the engines' targets differ.
type goal struct {
	id, bench, unit string
	what, floor     string
	want            target
	per             map[string]target // engine's own target, where it differs
	ref             bool              // a reference figure, no goal
}

// goals are the goals of the performance issue, in the table's order.
var goals = []goal{
	{id: "1", bench: "Goal1SmallCopy", unit: "x-floor", what: "64 B `aclrtMemcpy` H2D, guest loop", floor: "no-op import, same signature", want: target{"<=", 1.5}, per: map[string]target{"wasmtime": {"<=", 1.2}}},
	{id: "1", bench: "Goal1SmallCopy", unit: "allocs/call", what: "64 B `aclrtMemcpy`, allocations", floor: "per call", want: target{"<=", 0.01}},
	{id: "2", bench: "Goal2Copy4KiB", unit: "x-floor", what: "4 KiB `aclrtMemcpy`", floor: "no-op import + `copy()` 4 KiB", want: target{"<=", 1.5}},
	{id: "3", bench: "Goal3AsyncLarge", unit: "x-copy", what: "1 MiB async + synchronize, throughput", floor: "`copy()` 1 MiB", want: target{">=", 0.9}},
	{id: "3", bench: "Goal3AsyncSmall", unit: "x-sync", what: "64 B async + synchronize pair", floor: "64 B sync copy", want: target{"<=", 3}},
	{id: "3", bench: "Goal3WasmtimeAsyncSmall", unit: "x-sync", what: "64 B async + synchronize pair, wasmtime's own floor", floor: "64 B sync copy", want: target{"<=", 3}},
	{id: "4", bench: "Goal4Call", unit: "x-bare", what: "`Instance.Call` of an empty export", floor: "bare engine call, export looked up once", want: target{"<=", 2}},
	{id: "4", bench: "Goal4Call", unit: "allocs/call", what: "`Instance.Call`, allocations", floor: "per call", want: target{"<=", 0}},
	{id: "5", bench: "Goal5Batch4KiB", unit: "x-loop", what: "batch 1024 x 4 KiB, speed-up", floor: "loop of 1024 copies", want: target{">=", 1.2}},
	{id: "5", bench: "Goal5Batch4KiB", unit: "allocs/entry", what: "batch 1024 x 4 KiB, allocations", floor: "per entry", want: target{"<=", 0.01}},
	{id: "5", bench: "Goal5Batch64B", unit: "x-loop", what: "batch 1024 x 64 B, speed-up", floor: "loop of 1024 copies", want: target{">=", 2}},
	{id: "5", bench: "Goal5Batch64B", unit: "allocs/entry", what: "batch 1024 x 64 B, allocations", floor: "per entry", want: target{"<=", 0.01}},
	{id: "6", bench: "Goal6Scaling1MiB", unit: "x-one", what: "64 sessions, 1 MiB copies, per core", floor: "1 session", want: target{">=", 0.95}},
	{id: "6", bench: "Goal6Scaling1MiB", unit: "x-copy-one", what: "64 goroutines, 1 MiB `copy()`, per core (the machine's own scaling)", floor: "1 goroutine", ref: true},
	{id: "6", bench: "Goal6Scaling64B", unit: "x-one", what: "64 sessions, 64 B copies, per core", floor: "1 session", want: target{">=", 0.95}},
	{id: "6", bench: "Goal6Scaling64B", unit: "x-copy-one", what: "64 goroutines, 64 B `copy()`, per core (the machine's own scaling)", floor: "1 goroutine", ref: true},
	{id: "7", bench: "Goal7Instantiate", unit: "x-bare", what: "instantiation, cached small module", floor: "bare engine instantiation, same module", want: target{"<=", 1.5}},
	{id: "7", bench: "Goal7Pool", unit: "x-call", what: "Go plugin call through the pool", floor: "call on a held instance", want: target{"<=", 1.5}},
	{id: "7", bench: "Goal7Pool", unit: "x-instantiate", what: "Go plugin call through the pool", floor: "an instantiation", ref: true},
	{id: "8", bench: "Goal8SmallCopyD2D", unit: "x-floor", what: "64 B `aclrtMemcpy` D2D, guest loop", floor: "no-op import, same signature", want: target{"<=", 1.5}},
	{id: "9", bench: "Goal9Scaling1MiB", unit: "x-copy", what: "sessions copying 1 MiB H2D from guest memory, throughput", floor: "as many goroutines, `copy()` from the same guest memory", want: target{">=", 0.9}},
	{id: "9", bench: "Goal9Scaling1MiB", unit: "x-heap", what: "sessions copying 1 MiB H2D from guest memory, throughput", floor: "as many goroutines, `copy()` between Go buffers", ref: true},
	{id: "10", bench: "Goal10Large64MiB/async", unit: "x-copy", what: "64 MiB D2H async + synchronize, throughput", floor: "`copy()` 64 MiB", want: target{">=", 0.95}},
	{id: "10", bench: "Goal10Large64MiB/async", unit: "x-guest", what: "64 MiB D2H async + synchronize, throughput", floor: "`copy()` 64 MiB into guest memory", ref: true},
	{id: "10", bench: "Goal10Large64MiB/sync", unit: "x-copy", what: "64 MiB D2H `aclrtMemcpy`, throughput", floor: "`copy()` 64 MiB", ref: true},
	{id: "10", bench: "Goal10Large64MiB/sync", unit: "x-guest", what: "64 MiB D2H `aclrtMemcpy`, throughput", floor: "`copy()` 64 MiB into guest memory", ref: true},
	{id: "11", bench: "Goal11HostFunc", unit: "x-bare", what: "an embedder's host function, no payload, guest loop", floor: "bare host function, same signature (wazero: `api.GoModuleFunc`; wasmtime: the adapter's own)", want: target{"<=", 1.5}},
	{id: "11", bench: "Goal11HostFunc", unit: "allocs/call", what: "an embedder's host function, allocations", floor: "per host call (the guest call's own spread over its 1000)", want: target{"<=", 0.01}},
	{id: "12", bench: "Goal12HostFunc64B", unit: "x-bare", what: "an embedder's host function reading and writing 64 B, guest loop", floor: "bare host function doing the same", want: target{"<=", 2}},
	{id: "12", bench: "Goal12HostFunc64B", unit: "allocs/call", what: "the same, allocations", floor: "per host call (the guest call's own spread over its 1000)", want: target{"<=", 0.01}},
	{id: "13", bench: "Goal13Echo1MiB", unit: "x-fresh", what: "`CallBytesTo` 1 MiB echo into a reused buffer", floor: "`CallBytes` into a fresh slice (the issue's 0.6 ms over its 0.76 ms)", want: target{"<=", 0.79}},
	{id: "13", bench: "Goal13Echo1MiB", unit: "x-copy", what: "`CallBytesTo` 1 MiB echo into a reused buffer", floor: "`copy()` of the bytes in and out", ref: true},
	{id: "13", bench: "Goal13Echo1MiB", unit: "allocs/call", what: "`CallBytesTo` 1 MiB echo, allocations", floor: "per call", ref: true},
	{id: "14", bench: "Goal14OpAdd", unit: "x-loop", what: "`aclnnAdd` of 1 M float32 on the simulator (launch, run, synchronize)", floor: "the same addition, a plain Go loop", want: target{"<=", 2}},
	{id: "14", bench: "Goal14OpLaunch", unit: "x-floor", what: "`aclnnAdd` of 64 float32, one launch in a guest loop", floor: "no-op import, aclrtMemcpy's signature", ref: true},
	{id: "15", bench: "Goal15KernelLaunch", unit: "x-floor", what: "one-block launch of a kernel that does nothing, guest loop", floor: "an embedder's host function that does nothing", want: target{"<=", 2}},
	{id: "15", bench: "Goal15KernelAdd", unit: "x-loop", what: "`basic` AddF32 of 1 M float32 (launch, run, synchronize)", floor: "the same addition, a plain Go loop", want: target{"<=", 1.5}},
	{id: "16", bench: "Goal16ModelExec", unit: "x-direct", what: "`aclmdlExecute` of a small CNN on device buffers, throughput", floor: "the same model run directly by the ONNX library", want: target{">=", 0.9}},
	{id: "16", bench: "Goal16ModelLoad", unit: "x-uncached", what: "`aclmdlLoadFromFile` with the model in the runtime's cache", floor: "its first load in a fresh runtime (runtime and plugin included)", ref: true},
	{id: "serve", bench: "GoalPreparedRun/echo", unit: "x-fresh", what: "a command's run made ahead (`Prepared.Run`), serve's echo", floor: "a whole `Plugin.Run` of it", ref: true},
	{id: "serve", bench: "GoalPreparedRun/go-copy", unit: "x-fresh", what: "a command's run made ahead (`Prepared.Run`), the Go sample go-copy", floor: "a whole `Plugin.Run` of it", ref: true},
	{id: "serve", bench: "ServeEcho", unit: "x-floor-req/s", what: "`aclwasm serve`, command plugin (a new instance per request), throughput", floor: "bare net/http + wazero, a new instance per request, same guest, same memory configuration (a reservation of the limit, reused, resident pages cleared) and WASI setup (serve/bench_test.go)", want: target{">=", 1}},
	{id: "serve", bench: "ServeEcho", unit: "x-floor-p99", what: "`aclwasm serve`, command plugin, p99 latency", floor: "the same bare server", want: target{"<=", 1.2}},
	{id: "serve", bench: "ServeEcho", unit: "x-floor-p50", what: "`aclwasm serve`, command plugin, median latency", floor: "the same bare server", ref: true},
	{id: "serve", bench: "ServeEcho", unit: "x-floor-cpu", what: "`aclwasm serve`, command plugin, CPU time per request (its server process and its clients)", floor: "the same bare server", ref: true},
	{id: "serve", bench: "ServeEchoReactor", unit: "x-floor-req/s", what: "`aclwasm serve`, reactor on kept instances (`serve.reuse_instances`), throughput", floor: "bare net/http + wazero, pre-instantiated modules of the same guest (serve/bench_test.go)", want: target{">=", 0.8}},
	{id: "serve", bench: "ServeEchoReactor", unit: "x-floor-p99", what: "`aclwasm serve`, reactor on kept instances, p99 latency", floor: "the same bare server", want: target{"<=", 1.5}},
	{id: "serve", bench: "ServeEchoReactor", unit: "x-floor-p50", what: "`aclwasm serve`, reactor on kept instances, median latency", floor: "the same bare server", ref: true},
	{id: "serve", bench: "ServeEchoReactor", unit: "x-floor-cpu", what: "`aclwasm serve`, reactor on kept instances, CPU time per request (its server process and its clients)", floor: "the same bare server", ref: true},
	{id: "serve", bench: "ServeIdleMemory", unit: "x-bare-mem", what: "idle pooled instance of a tiny module, resident memory", floor: "bare wazero instance of the same module", want: target{"<=", 1.3}},
	{id: "serve", bench: "ServeIdleMemory", unit: "x-bare-heap", what: "idle pooled instance of a tiny module, Go heap", floor: "bare wazero instance of the same module", want: target{"<=", 1.3}},
	{id: "peer", bench: "PeerHostFunc", unit: "x-extism", what: "an embedder's host function, no payload, guest loop (bench/peers)", floor: "Extism's Go SDK, same wazero, the same loop", want: target{"<=", 1}},
	{id: "peer", bench: "PeerEcho", unit: "x-extism", what: "bytes echoed through a plugin call (`CallBytesTo`, reused buffer)", floor: "Extism's `Plugin.Call`, its kernel's 8-byte copies", want: target{"<=", 1}},
}

// samples are one benchmark's values of one metric on one engine.
type key struct{ engine, bench, unit string }

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: perftable ENGINE=FILE...")
		os.Exit(2)
	}
	var engines []string
	vals := map[key][]float64{}
	for _, arg := range os.Args[1:] {
		engine, file, ok := strings.Cut(arg, "=")
		if !ok {
			fmt.Fprintf(os.Stderr, "perftable: %q is not ENGINE=FILE\n", arg)
			os.Exit(2)
		}
		engines = append(engines, engine)
		if err := read(engine, file, vals); err != nil {
			fmt.Fprintln(os.Stderr, "perftable:", err)
			os.Exit(1)
		}
	}
	writeTable(os.Stdout, engines, vals)
}

// read adds the ratio metrics of the Goal, Peer and Serve benchmarks in file to
// vals.
func read(engine, file string, vals map[key][]float64) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	r := benchfmt.NewReader(f, file)
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		// The name without "Benchmark" and GOMAXPROCS, sub-benchmarks kept.
		name, parts := res.Name.Parts()
		base := strings.TrimPrefix(string(name), "Benchmark")
		if !strings.HasPrefix(base, "Goal") && !strings.HasPrefix(base, "Peer") && !strings.HasPrefix(base, "Serve") {
			continue
		}
		for _, p := range parts {
			if p[0] == '/' {
				base += string(p)
			}
		}
		for _, v := range res.Values {
			if strings.HasPrefix(v.Unit, "x-") || v.Unit == "allocs/entry" || v.Unit == "allocs/call" {
				k := key{engine, base, v.Unit}
				vals[k] = append(vals[k], v.Value)
			}
		}
	}
	return r.Err()
}

// writeTable prints the table of vals, engines in that order per goal.
func writeTable(w io.Writer, engines []string, vals map[key][]float64) {
	fmt.Fprintln(w, "| goal | measured | floor (same run) | ratio: median (range) | target | met | engine |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	used := map[key]bool{}
	for _, g := range goals {
		for _, e := range engines {
			for _, k := range keys(vals, e, g) {
				used[k] = true
				want := g.want
				if t, ok := g.per[e]; ok {
					want = t
				}
				med, lo, hi := stats(vals[k])
				met, tgt := "not met", want.String()
				switch {
				case g.ref:
					met, tgt = "reference", "-"
				case want.met(med):
					met = "met"
				}
				what := g.what
				if sub, ok := strings.CutPrefix(k.bench, g.bench+"/"); ok {
					what += ", " + sub
				}
				fmt.Fprintf(w, "| %s | %s | %s | %.2f (%.2f-%.2f) | %s | %s | %s |\n", g.id, what, g.floor, med, lo, hi, tgt, met, e)
			}
		}
	}
	// Goal benchmarks no row describes still show, without a target.
	var rest []key
	for k := range vals {
		if !used[k] {
			rest = append(rest, k)
		}
	}
	slices.SortFunc(rest, func(a, b key) int { return strings.Compare(a.engine+a.bench+a.unit, b.engine+b.bench+b.unit) })
	for _, k := range rest {
		med, lo, hi := stats(vals[k])
		fmt.Fprintf(w, "| ? | %s (%s) | | %.2f (%.2f-%.2f) | ? | | %s |\n", k.bench, k.unit, med, lo, hi, k.engine)
	}
}

// keys returns the metrics of engine that measure g: those of benchmark
// g.bench and of its sub-benchmarks, in g's unit.
func keys(vals map[key][]float64, engine string, g goal) []key {
	var out []key
	for k := range vals {
		if k.engine != engine {
			continue
		}
		if (k.bench == g.bench || strings.HasPrefix(k.bench, g.bench+"/")) && k.unit == g.unit {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b key) int { return natural(a.bench, b.bench) })
	return out
}

// natural compares a and b as strings whose runs of digits compare as
// numbers: sessions=2 before sessions=16.
func natural(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			x, y := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Or(cmp.Compare(len(x), len(y)), strings.Compare(x, y)); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

// digits returns the length of the run of digits s starts with.
func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// stats returns the median, minimum and maximum of xs.
func stats(xs []float64) (med, lo, hi float64) {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	med = s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return med, s[0], s[n-1]
}
