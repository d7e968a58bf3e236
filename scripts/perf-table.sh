#!/usr/bin/env bash
# Runs the goal benchmarks of the performance issue (BenchmarkGoal* in
# host/) on wazero and on wasmtime, the peers' (bench/peers) and serve's
# against a bare server (serve/) on wazero,
# then prints the README's performance table (internal/perftable): each
# goal as a ratio to its floor measured in the same run, its target, met
# or not, per engine.
#
#   BENCHFLAGS='-benchtime 1s -count 6' bash scripts/perf-table.sh
#
# The raw outputs stay in build/perf/ (benchstat reads them too).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
BENCHFLAGS=${BENCHFLAGS:--benchtime 1s -count 6}
SERVE_BENCHFLAGS=${SERVE_BENCHFLAGS:--benchtime 20000x -count 5}
SERVE_MEMFLAGS=${SERVE_MEMFLAGS:--benchtime 2000x -count 5}
out=build/perf
mkdir -p "$out"
# shellcheck disable=SC2086 # BENCHFLAGS is a list of flags
$GO test -run '^$' -timeout 60m -bench '^BenchmarkGoal' $BENCHFLAGS ./host/ | tee "$out/wazero.txt"
# The peers (Extism's Go SDK on wazero), from their own module: wazero rows.
# shellcheck disable=SC2086
(cd bench/peers && $GO test -run '^$' -timeout 60m -bench '^BenchmarkPeer' $BENCHFLAGS ./...) | tee -a "$out/wazero.txt"
# serve against a bare net/http + wazero server, and idle pooled instances
# against bare wazero ones (serve/bench_test.go; scripts/serve-bench.sh
# prints them all, the reactor rows too): wazero rows.
# shellcheck disable=SC2086
$GO test -run '^$' -timeout 60m -bench '^BenchmarkServeEcho$' $SERVE_BENCHFLAGS ./serve/ | tee -a "$out/wazero.txt"
# shellcheck disable=SC2086
$GO test -run '^$' -timeout 60m -bench '^BenchmarkServeIdleMemory$' $SERVE_MEMFLAGS ./serve/ | tee -a "$out/wazero.txt"
# shellcheck disable=SC2086
ACLWASM_TEST_ENGINE=wasmtime $GO test -tags wasmtime -run '^$' -timeout 60m -bench '^BenchmarkGoal' $BENCHFLAGS ./host/ | tee "$out/wasmtime.txt"
$GO run ./internal/perftable wazero="$out/wazero.txt" wasmtime="$out/wasmtime.txt" | tee "$out/table.md"
