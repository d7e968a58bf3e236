#!/usr/bin/env bash
# Compares the goal benchmarks of two commits on this machine in the same
# hour: BASE (a commit, default HEAD~1) checked out in a worktree under
# build/perf/base, and the working tree. Rounds alternate between the two
# (base wazero, head wazero, base wasmtime, head wasmtime, each -count 1),
# so that a change of load hits both alike; then the performance table of
# each is printed (internal/perftable of the working tree reads both).
#
#   ROUNDS=4 BENCHFLAGS='-test.benchtime 500ms' bash scripts/perf-compare.sh cf6ce56
#
# The raw outputs stay in build/perf/{base,head}-{wazero,wasmtime}.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
BASE=${1:-HEAD~1}
ROUNDS=${ROUNDS:-4}
BENCHFLAGS=${BENCHFLAGS:--test.benchtime 500ms}
BENCH=${BENCH:-^BenchmarkGoal}
out=build/perf
wt=$out/base
mkdir -p "$out"
if [ -d "$wt" ]; then git worktree remove --force "$wt"; fi
git worktree add -q --detach "$wt" "$BASE"
trap 'git worktree remove --force "$wt"' EXIT
# The base's goal benchmarks read built guests (../build/wasm): give it
# the working tree's (guests are inputs here, not what is compared).
if [ -d build/wasm ]; then
	export ACLWASM_GUEST_DIR=$PWD/build/wasm
	mkdir -p "$wt/build" && ln -s "$PWD/build/wasm" "$wt/build/wasm"
fi
for f in base-wazero base-wasmtime head-wazero head-wasmtime; do : > "$out/$f.txt"; done
# Each side's test binary is built once per engine and run from its
# package directory, as go test runs it.
for side in base head; do
	dir=$wt; [ $side = head ] && dir=.
	(cd "$dir" && $GO test -c -o "$OLDPWD/$out/$side-wazero.test" ./host/)
	(cd "$dir" && $GO test -c -tags wasmtime -o "$OLDPWD/$out/$side-wasmtime.test" ./host/)
done
bench() { # side engine
	local dir=$wt env=()
	[ "$1" = head ] && dir=.
	[ "$2" = wasmtime ] && env=(ACLWASM_TEST_ENGINE=wasmtime)
	# shellcheck disable=SC2086 # BENCHFLAGS is a list of flags
	(cd "$dir/host" && env "${env[@]}" "$OLDPWD/$out/$1-$2.test" -test.run '^$' -test.timeout 60m -test.bench "$BENCH" $BENCHFLAGS -test.count 1) >> "$out/$1-$2.txt"
}
for r in $(seq "$ROUNDS"); do
	echo "perf-compare: round $r of $ROUNDS" >&2
	for e in wazero wasmtime; do
		bench base "$e"
		bench head "$e"
	done
done
for side in base head; do
	echo "## $side ($( [ $side = base ] && git rev-parse --short "$BASE" || git rev-parse --short HEAD))"
	$GO run ./internal/perftable wazero="$out/$side-wazero.txt" wasmtime="$out/$side-wasmtime.txt"
done | tee "$out/compare.md"
