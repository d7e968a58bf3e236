#!/usr/bin/env bash
# Runs serve's benchmarks (serve/bench_test.go) and prints their goals as a
# markdown table: the echo command through serve (a new instance per
# request) against a bare net/http + wazero handler that instantiates the
# same guest per request (same memory configuration, same WASI setup); in
# the rows after each, the echo as a reactor whose instances serve
# keeps (serve.reuse_instances) against a bare handler over
# pre-instantiated wazero modules; at 1, 16 and 64 keep-alive clients,
# HTTP and HTTPS; and the memory of idle pooled instances against bare
# wazero instances. Each figure is the median of the runs (-count); the
# floors are measured in the same run. Each run starts a new pair of server
# processes, and a pair's ratio swings from the next one's on a 2-core
# machine (where its threads run, its collector's pacing), the more the
# shorter the run: two processes serving the same server at 64 clients
# measured 0.92 to 1.28 of each other over 2000 requests, 0.97 to 1.05
# over 20000. Five runs of 20000 requests (about six minutes), so that
# neither one pair nor a short one decides a row. The memory rows take
# their own flags (SERVE_MEMFLAGS): an operation of theirs makes 128
# instances.
#
#   SERVE_BENCHFLAGS='-benchtime 20000x -count 5' SERVE_MEMFLAGS='-benchtime 2000x -count 5' bash scripts/serve-bench.sh
#
# The raw output stays in build/perf/serve.txt (benchstat reads it too).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FLAGS=${SERVE_BENCHFLAGS:--benchtime 20000x -count 5}
MEMFLAGS=${SERVE_MEMFLAGS:--benchtime 2000x -count 5}
out=build/perf
mkdir -p "$out"
# shellcheck disable=SC2086 # FLAGS is a list of flags
$GO test -run '^$' -timeout 30m -bench '^BenchmarkServeEcho' $FLAGS ./serve/ > "$out/serve.txt"
# shellcheck disable=SC2086
$GO test -run '^$' -timeout 30m -bench '^BenchmarkServeIdleMemory$' $MEMFLAGS ./serve/ >> "$out/serve.txt"
awk -f - "$out/serve.txt" <<'AWK' | tee "$out/serve-table.md"
# median of the space-separated numbers in s
function median(s,    a, n, i, j, t) {
	n = split(s, a, " ")
	for (i = 2; i <= n; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
		a[j + 1] = t
	}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function has(b, u) { return ((b, u) in v) }
function m(b, u) { return median(v[b, u]) }
function ms(ns) { return sprintf("%.3f ms", ns / 1e6) }
function row(what, serve, floor, ratio, op, want, ref,    met) {
	met = ref ? "reference" : ((op == ">=" ? ratio >= want : ratio <= want) ? "met" : "not met")
	printf "| %s | %s | %s | %.2f | %s | %s |\n", what, serve, floor, ratio, ref ? "-" : op " " want, met
}
# echo's rows for benchmark b, as what, in configuration w
# (tls=...,/clients=...), with the goals tput (throughput, at least) and
# p99 (latency, at most)
function echo(b, what, w, tput, p99) {
	gsub(/\//, ", ", w)
	what = what " " w
	row(what ": throughput", sprintf("%.0f req/s", m(b, "req/s")), sprintf("%.0f req/s", m(b, "floor-req/s")), m(b, "x-floor-req/s"), ">=", tput, 0)
	row(what ": p99 latency", ms(m(b, "p99-ns")), ms(m(b, "floor-p99-ns")), m(b, "x-floor-p99"), "<=", p99, 0)
	row(what ": p50 latency", ms(m(b, "p50-ns")), ms(m(b, "floor-p50-ns")), m(b, "x-floor-p50"), "", 0, 1)
	if (has(b, "x-floor-cpu")) # unix only (getrusage): the server process's and its clients'
		row(what ": CPU per request", sprintf("%.1f us", m(b, "cpu-ns") / 1e3), sprintf("%.1f us", m(b, "floor-cpu-ns") / 1e3), m(b, "x-floor-cpu"), "", 0, 1)
}
/^BenchmarkServe/ {
	name = $1
	sub(/^Benchmark/, "", name)
	sub(/-[0-9]+$/, "", name)
	if (!(name in seen)) { seen[name] = 1; order[++nb] = name }
	for (i = 3; i < NF; i += 2) v[name, $(i + 1)] = v[name, $(i + 1)] " " $i
}
END {
	if (nb == 0) { print "serve-bench: no BenchmarkServe results" > "/dev/stderr"; exit 1 }
	print "| measured | serve | floor (same run) | ratio (median) | target | met |"
	print "|---|---|---|---|---|---|"
	for (k = 1; k <= nb; k++) {
		b = order[k]
		if (has(b, "x-floor-req/s")) {
			w = b
			if (sub(/^ServeEchoReactor\//, "", w)) {
				if (("ServeEcho/" w) in seen) continue # printed after the command's rows
				echo(b, "echo reactor (kept instances)", w, 0.8, 1.5)
				continue
			}
			sub(/^ServeEcho\//, "", w)
			echo(b, "echo command", w, 1, 1.2)
			if (("ServeEchoReactor/" w) in seen) echo("ServeEchoReactor/" w, "echo reactor (kept instances)", w, 0.8, 1.5)
		}
		if (has(b, "x-bare-mem")) {
			if (has(b, "pooled-rss-B/inst"))
				row("idle pooled instance, resident memory", sprintf("%.1f KiB", m(b, "pooled-rss-B/inst") / 1024), sprintf("%.1f KiB", m(b, "bare-rss-B/inst") / 1024), m(b, "x-bare-mem"), "<=", 1.3, 0)
			else
				row("idle pooled instance, heap in use", sprintf("%.1f KiB", m(b, "pooled-heap-B/inst") / 1024), sprintf("%.1f KiB", m(b, "bare-heap-B/inst") / 1024), m(b, "x-bare-mem"), "<=", 1.3, 0)
			row("idle pooled instance, Go heap in use", sprintf("%.1f KiB", m(b, "pooled-heap-B/inst") / 1024), sprintf("%.1f KiB", m(b, "bare-heap-B/inst") / 1024), m(b, "x-bare-heap"), "", 0, 1)
		}
	}
}
AWK
