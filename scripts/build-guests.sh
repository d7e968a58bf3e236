#!/usr/bin/env bash
# build-guests.sh: builds every guest the tests run into build/wasm/<name>.wasm,
# then checks each module's imports against the ABI table (abi/abi.go).
#
#   scripts/build-guests.sh            # everything
#   scripts/build-guests.sh c rust     # only some parts: c rust go as conformance samples
#
# What it builds:
#   c-copy, c-freestanding,      guest-sdk/c/examples (wide profile, -DACLWASM_WIDE; c-bytes is
#   c-bytes                      a reactor, -mexec-model=reactor); c-copy32 is
#                                copy.c in the native layout (module acl32); and the
#                                SDK header checks of guest-sdk/c/tests (both profiles, C and C++)
#   rust-copy, rust-nostd,       guest-sdk/rust/examples (and the crate's unit tests, run natively)
#   rust-bytes, rust-runtime, rust-callback (with the crate's callbacks feature),
#   rust-compute
#   go-copy, go-reactor,         guest-sdk/go/examples
#   go-bytes, go-runtime, go-callback (imports acl/callback, the dispatcher export),
#   go-compute
#   as-copy, as-bytes,           guest-sdk/assemblyscript/examples
#   as-runtime, as-callback (re-exports assembly/callback's dispatcher),
#   as-compute
#   (*-bytes: the same reactor of the bytes-in, bytes-out convention in each
#   language, which tests/bytes_test.go runs; *-runtime: the runtime functions beyond copies
#   through each SDK, which tests/sdk_runtime_test.go runs; *-compute: tensors and an
#   operator, a kernel launcher and an approved model through each SDK, which
#   tests/sdk_compute_test.go runs)
#   conformance, conformance32   tests/conformance/conformance.c (the ABI conformance program),
#                                built in the wide profile and in the native layout (acl32)
#   models, models32             tests/conformance/models.c (models the host approves, both profiles)
#   files                        tests/conformance/files.c (file I/O over mounts, through wasi-libc)
#   <sample>                     every directory under samples/ but include/ (see below)
#                                (samples/notify-pipeline: C++ without -fno-exceptions, by its build.sh)
#                                (samples/edge-classify: C in the native layout, a command that
#                                also exports "classify", by its build.sh)
#
# Samples: a directory samples/NAME is built by its own build.sh when it has
# one, run as `bash build.sh` in that directory with OUT (the output
# directory), NAME and ROOT (the repository root) in the environment; it
# writes $OUT/NAME.wasm (or $OUT/NAME-*.wasm) and, if the module must import
# nothing but "acl", lists its file name in $OUT/freestanding.txt. Without a
# build.sh the layout decides:
#   Cargo.toml                   cargo build --release --target wasm32-wasi; the package's cdylib or bin
#   *.go                         GOOS=wasip1 go build (-buildmode=c-shared if it uses //go:wasmexport)
#   *.cpp                        clang++ --target=wasm32-wasi -std=c++17 -fno-exceptions, native
#                                layout (module acl32), as CANN's C++ samples are written
#   *.c                          clang --target=wasm32-wasi -DACLWASM_WIDE (-mexec-model=reactor if there
#                                is no main), with samples/include (sample.h, the C samples' shared
#                                helpers) on the path
#                                (C and C++ link the SDK's libaclwasm.a, built in guest-sdk/c/build
#                                by `make -C guest-sdk/c lib`, as pkg-config's Libs say)
#   assembly/index.ts or *.ts    asc (AssemblyScript), exporting _start
#   *.wat                        wat2wasm
#
# A missing tool stops the build with a message naming it; install them all
# with scripts/install-toolchains.sh. OUT defaults to build/wasm (set
# ACLWASM_WASM_OUT to change it).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${ACLWASM_WASM_OUT:-$ROOT/build/wasm}"
GO="${GO:-go}"
RUSTC_BIN="${RUSTC:-/usr/bin/rustc}"
CARGO_BIN="${CARGO:-/usr/bin/cargo}"

die() { echo "build-guests: error: $*" >&2; exit 1; }
say() { echo "build-guests: $*"; }

# need TOOL WHAT: fails unless TOOL runs.
need() {
	if [[ "$1" == /* ]]; then
		[[ -x "$1" ]] || die "missing tool $1 (needed for $2); run scripts/install-toolchains.sh"
	else
		command -v "$1" >/dev/null 2>&1 || die "missing tool $1 (needed for $2); run scripts/install-toolchains.sh"
	fi
}

mkdir -p "$OUT"
# freestanding.txt lists the modules that must import nothing but "acl".
if (($# == 0)); then : >"$OUT/freestanding.txt"; else touch "$OUT/freestanding.txt"; fi
freestanding() { grep -qxF "$1" "$OUT/freestanding.txt" || echo "$1" >>"$OUT/freestanding.txt"; }

C_INC="$ROOT/guest-sdk/c/include"
C_FLAGS=(-O2 -Wall -Wextra -Werror -I"$C_INC")
# The SDK's library (libaclwasm.a: the stream callback dispatcher, which
# wasm-ld links only into modules that launch a callback), built in the
# tree by `make -C guest-sdk/c lib`; every C and C++ guest links it, as
# pkg-config's Libs say (need_c_lib builds it once).
C_LIBS=(-L"$ROOT/guest-sdk/c/build" -laclwasm)
# The wide profile (module "acl", 64-bit aclrtPtr addresses); without it the
# headers give the native layout (module "acl32", void * and size_t).
C_WIDE=(-DACLWASM_WIDE)
# C++ guests: the native layout, C++17 with Debian's libc++ for wasm32, and
# -fno-exceptions as the samples' READMEs document it. The SDK no longer
# needs the flag (its headers define the C++ exception entry points, and a
# throw aborts the guest naming the type: tests/native_test.go builds C++
# without it). <thread> does not compile (wasm32-wasi is single-threaded;
# the SDK's <pthread.h> is a single-threaded one); <signal.h> needs no flag
# (the SDK's defines what wasi-libc's asks for), and only a program that
# calls signal() or raise() links -lwasi-emulated-signal. See
# guest-sdk/c/PORTING.md.
CXX_FLAGS=(-std=c++17 -fno-exceptions "${C_FLAGS[@]}")

need_clang_wasi() {
	need clang "$1"
	need wasm-ld "$1"
	[[ -d /usr/include/wasm32-wasi ]] || die "missing wasi-libc (/usr/include/wasm32-wasi, needed for $1); run scripts/install-toolchains.sh"
	need_c_lib "$1"
}

# need_c_lib WHAT: builds the SDK's libaclwasm.a (make is up to date after
# the first time).
need_c_lib() {
	need make "$1"
	need llvm-ar "the C SDK's libaclwasm.a (for $1)"
	make -s -C "$ROOT/guest-sdk/c" lib || die "make -C guest-sdk/c lib failed (needed for $1)"
}

build_c() {
	need clang "the C examples"
	need wasm-ld "the C examples"
	need_clang_wasi "the C examples"
	say "C: c-copy, c-copy32 (the same source in the native layout), c-freestanding, c-bytes"
	clang --target=wasm32-wasi "${C_FLAGS[@]}" "${C_WIDE[@]}" -mexec-model=reactor -o "$OUT/c-bytes.wasm" "$ROOT/guest-sdk/c/examples/bytes.c" "${C_LIBS[@]}"
	clang --target=wasm32-wasi "${C_FLAGS[@]}" "${C_WIDE[@]}" -o "$OUT/c-copy.wasm" "$ROOT/guest-sdk/c/examples/copy.c" "${C_LIBS[@]}"
	clang --target=wasm32-wasi "${C_FLAGS[@]}" -o "$OUT/c-copy32.wasm" "$ROOT/guest-sdk/c/examples/copy.c" "${C_LIBS[@]}"
	clang --target=wasm32 "${C_FLAGS[@]}" "${C_WIDE[@]}" -nostdlib -Wl,--no-entry -o "$OUT/c-freestanding.wasm" \
		"$ROOT/guest-sdk/c/examples/freestanding.c" "${C_LIBS[@]}"
	freestanding c-freestanding.wasm
	check_c_headers
}

# check_c_headers: the SDK headers' two profiles, as C and as C++. The
# native layout (the default) must compile native-style code unchanged
# (guest-sdk/c/tests/native_api.c); the wide profile must refuse, as a
# compile error even with the conversion warnings switched off, every
# pointer passed where an address or an 8-byte out-parameter is expected
# (guest-sdk/c/tests/wide_mixups.c, once per MIXUP_* case; without a case
# it must compile, so that each failure is the case's).
check_c_headers() {
	need clang++ "the C++ header checks"
	local t="$ROOT/guest-sdk/c/tests" obj log lang cases c
	obj="$(mktemp -d)"
	log="$obj/log"
	for lang in c c++; do
		say "C SDK headers: native layout and wide profile as $lang"
		clang --target=wasm32-wasi -x "$lang" "${C_FLAGS[@]}" -c -o "$obj/native.o" "$t/native_api.c" ||
			die "guest-sdk/c/tests/native_api.c does not compile as $lang against the native-layout headers"
		clang --target=wasm32-wasi -x "$lang" "${C_FLAGS[@]}" "${C_WIDE[@]}" -c -o "$obj/wide.o" "$t/wide_mixups.c" ||
			die "guest-sdk/c/tests/wide_mixups.c without a MIXUP_* case does not compile as $lang"
		cases="$(grep -oE 'MIXUP_[A-Z_]+' "$t/wide_mixups.c" | sort -u)"
		[[ -n "$cases" ]] || die "guest-sdk/c/tests/wide_mixups.c has no MIXUP_* case"
		for c in $cases; do
			if clang --target=wasm32-wasi -x "$lang" -I"$C_INC" -w -Wno-int-conversion -Wno-incompatible-pointer-types \
				"${C_WIDE[@]}" -D"$c" -c -o "$obj/bad.o" "$t/wide_mixups.c" >"$log" 2>&1; then
				die "wide profile, $lang: $c compiled; it must be a compile error (guest-sdk/c/tests/wide_mixups.c)"
			fi
			grep -q 'error:' "$log" || die "wide profile, $lang: $c failed without a compile error:\n$(cat "$log")"
		done
	done
	rm -rf "$obj"
}

build_conformance() {
	need_clang_wasi "the conformance program"
	say "C: conformance (wide profile), conformance32 (native layout)"
	clang --target=wasm32-wasi "${C_FLAGS[@]}" "${C_WIDE[@]}" -o "$OUT/conformance.wasm" "$ROOT/tests/conformance/conformance.c" "${C_LIBS[@]}"
	clang --target=wasm32-wasi "${C_FLAGS[@]}" -o "$OUT/conformance32.wasm" "$ROOT/tests/conformance/conformance.c" "${C_LIBS[@]}"
	say "C: models (models the host approves: aclmdl), both profiles"
	clang --target=wasm32-wasi "${C_FLAGS[@]}" "${C_WIDE[@]}" -o "$OUT/models.wasm" "$ROOT/tests/conformance/models.c" "${C_LIBS[@]}"
	clang --target=wasm32-wasi "${C_FLAGS[@]}" -o "$OUT/models32.wasm" "$ROOT/tests/conformance/models.c" "${C_LIBS[@]}"
	say "C: files (file I/O over mounts through wasi-libc)"
	clang --target=wasm32-wasi "${C_FLAGS[@]}" -o "$OUT/files.wasm" "$ROOT/tests/conformance/files.c" "${C_LIBS[@]}"
}

cargo_build() { # DIR ARGS...
	local dir="$1"
	shift
	(cd "$dir" && RUSTC="$RUSTC_BIN" "$CARGO_BIN" build --offline --release --quiet "$@")
}

build_rust() {
	need "$RUSTC_BIN" "the Rust examples (Debian's rustc, which has the wasm32 targets)"
	need "$CARGO_BIN" "the Rust examples"
	need wasm-ld "the Rust examples"
	"$RUSTC_BIN" --print target-list | grep -x wasm32-wasi >/dev/null ||
		die "$RUSTC_BIN has no wasm32-wasi target (install libstd-rust-dev-wasm32); run scripts/install-toolchains.sh"
	say "Rust: rust-copy, rust-nostd, rust-bytes, rust-runtime, rust-callback, rust-compute"
	local dir="$ROOT/guest-sdk/rust"
	cargo_build "$dir" --target wasm32-wasi --example copy
	cargo_build "$dir" --target wasm32-wasi --example runtime
	cargo_build "$dir" --target wasm32-wasi --example compute
	cargo_build "$dir" --target wasm32-wasi --features callbacks --example callback
	cargo_build "$dir" --target wasm32-unknown-unknown --no-default-features --example nostd
	# A reactor with std but no WASI (see the example's comment).
	cargo_build "$dir" --target wasm32-unknown-unknown --example bytes
	# The crate's unit tests (layouts, codes, errors) run on the build machine.
	(cd "$dir" && RUSTC="$RUSTC_BIN" "$CARGO_BIN" test --offline --quiet --lib) >/dev/null ||
		die "the aclwasm crate's unit tests failed (cd guest-sdk/rust && RUSTC=$RUSTC_BIN $CARGO_BIN test --offline --lib)"
	cp "$dir/target/wasm32-wasi/release/examples/copy.wasm" "$OUT/rust-copy.wasm"
	cp "$dir/target/wasm32-unknown-unknown/release/examples/nostd.wasm" "$OUT/rust-nostd.wasm"
	cp "$dir/target/wasm32-unknown-unknown/release/examples/bytes.wasm" "$OUT/rust-bytes.wasm"
	cp "$dir/target/wasm32-wasi/release/examples/runtime.wasm" "$OUT/rust-runtime.wasm"
	cp "$dir/target/wasm32-wasi/release/examples/callback.wasm" "$OUT/rust-callback.wasm"
	cp "$dir/target/wasm32-wasi/release/examples/compute.wasm" "$OUT/rust-compute.wasm"
	freestanding rust-nostd.wasm
	freestanding rust-bytes.wasm
}

build_go() {
	need "$GO" "the Go examples"
	say "Go: go-copy, go-reactor, go-bytes, go-runtime, go-callback, go-compute"
	(cd "$ROOT" && GOOS=wasip1 GOARCH=wasm "$GO" build -o "$OUT/go-copy.wasm" github.com/aclwasm/aclwasm/guest-sdk/go/examples/copy)
	(cd "$ROOT" && GOOS=wasip1 GOARCH=wasm "$GO" build -buildmode=c-shared -o "$OUT/go-reactor.wasm" github.com/aclwasm/aclwasm/guest-sdk/go/examples/reactor)
	(cd "$ROOT" && GOOS=wasip1 GOARCH=wasm "$GO" build -buildmode=c-shared -o "$OUT/go-bytes.wasm" github.com/aclwasm/aclwasm/guest-sdk/go/examples/bytes)
	(cd "$ROOT" && GOOS=wasip1 GOARCH=wasm "$GO" build -o "$OUT/go-runtime.wasm" github.com/aclwasm/aclwasm/guest-sdk/go/examples/runtime)
	(cd "$ROOT" && GOOS=wasip1 GOARCH=wasm "$GO" build -o "$OUT/go-callback.wasm" github.com/aclwasm/aclwasm/guest-sdk/go/examples/callback)
	(cd "$ROOT" && GOOS=wasip1 GOARCH=wasm "$GO" build -o "$OUT/go-compute.wasm" github.com/aclwasm/aclwasm/guest-sdk/go/examples/compute)
}

# asc_in DIR: the asc of DIR's node_modules.
asc_in() {
	local dir="$1"
	need node "AssemblyScript guests"
	[[ -x "$dir/node_modules/.bin/asc" ]] ||
		die "missing tool asc in ${dir#"$ROOT"/}/node_modules (needed for AssemblyScript guests); run scripts/install-toolchains.sh"
	echo "$dir/node_modules/.bin/asc"
}

AS_FLAGS=(-O3 --runtime stub --use abort= --exportStart _start)

build_as() {
	local dir="$ROOT/guest-sdk/assemblyscript" asc
	asc="$(asc_in "$dir")"
	say "AssemblyScript: as-copy, as-bytes, as-runtime, as-callback, as-compute"
	(cd "$dir" && "$asc" examples/copy.ts "${AS_FLAGS[@]}" -o "$OUT/as-copy.wasm")
	(cd "$dir" && "$asc" examples/runtime.ts "${AS_FLAGS[@]}" -o "$OUT/as-runtime.wasm")
	(cd "$dir" && "$asc" examples/callback.ts "${AS_FLAGS[@]}" -o "$OUT/as-callback.wasm")
	(cd "$dir" && "$asc" examples/compute.ts "${AS_FLAGS[@]}" -o "$OUT/as-compute.wasm")
	# A reactor serving many calls: a collecting runtime, top-level code as
	# _initialize (see the example's comment).
	(cd "$dir" && "$asc" examples/bytes.ts -O3 --runtime incremental --use abort= --exportStart _initialize -o "$OUT/as-bytes.wasm")
	freestanding as-copy.wasm
	freestanding as-bytes.wasm
	freestanding as-runtime.wasm
	freestanding as-callback.wasm
	freestanding as-compute.wasm
}

build_sample() { # DIR
	local dir="$1" name
	name="$(basename "$dir")"
	if [[ -f "$dir/build.sh" ]]; then
		say "sample $name: build.sh"
		(cd "$dir" && OUT="$OUT" NAME="$name" ROOT="$ROOT" bash build.sh) || die "samples/$name/build.sh failed"
	elif [[ -f "$dir/Cargo.toml" ]]; then
		need "$CARGO_BIN" "samples/$name"
		say "sample $name: cargo"
		cargo_build "$dir" --target wasm32-wasi
		local wasm
		wasm="$(find "$dir/target/wasm32-wasi/release" -maxdepth 1 -name '*.wasm' | head -n 1)"
		[[ -n "$wasm" ]] || die "samples/$name: cargo produced no .wasm"
		cp "$wasm" "$OUT/$name.wasm"
	elif compgen -G "$dir/*.go" >/dev/null; then
		need "$GO" "samples/$name"
		say "sample $name: go"
		local mode=()
		if grep -qs '^//go:wasmexport' "$dir"/*.go; then mode=(-buildmode=c-shared); fi
		(cd "$ROOT" && GOOS=wasip1 GOARCH=wasm "$GO" build "${mode[@]}" -o "$OUT/$name.wasm" "./${dir#"$ROOT"/}")
	elif compgen -G "$dir/*.cpp" >/dev/null; then
		need_clang_wasi "samples/$name"
		need clang++ "samples/$name"
		[[ -d /usr/include/wasm32-wasi/c++ ]] ||
			die "missing libc++ for wasm32 (/usr/include/wasm32-wasi/c++, needed for samples/$name); run scripts/install-toolchains.sh"
		say "sample $name: clang++ (native layout)"
		clang++ --target=wasm32-wasi "${CXX_FLAGS[@]}" -o "$OUT/$name.wasm" "$dir"/*.cpp "${C_LIBS[@]}"
	elif compgen -G "$dir/*.c" >/dev/null; then
		need_clang_wasi "samples/$name"
		say "sample $name: clang"
		local model=()
		if ! grep -qsE '\bmain[[:space:]]*\(' "$dir"/*.c; then model=(-mexec-model=reactor); fi
		clang --target=wasm32-wasi "${C_FLAGS[@]}" "${C_WIDE[@]}" -I"$ROOT/samples/include" "${model[@]}" -o "$OUT/$name.wasm" "$dir"/*.c "${C_LIBS[@]}"
	elif [[ -f "$dir/assembly/index.ts" ]] || compgen -G "$dir/*.ts" >/dev/null; then
		local entry asc adir="$dir"
		entry="$dir/assembly/index.ts"
		[[ -f "$entry" ]] || entry="$(ls "$dir"/*.ts | head -n 1)"
		[[ -d "$adir/node_modules" ]] || adir="$ROOT/guest-sdk/assemblyscript"
		asc="$(asc_in "$adir")"
		say "sample $name: asc"
		(cd "$dir" && "$asc" "$entry" "${AS_FLAGS[@]}" -o "$OUT/$name.wasm")
		freestanding "$name.wasm"
	elif compgen -G "$dir/*.wat" >/dev/null; then
		need wat2wasm "samples/$name"
		say "sample $name: wat2wasm"
		local w
		for w in "$dir"/*.wat; do
			local base
			base="$(basename "$w" .wat)"
			if [[ "$base" == "$name" || $(ls "$dir"/*.wat | wc -l) -eq 1 ]]; then base="$name"; else base="$name-$base"; fi
			wat2wasm "$w" -o "$OUT/$base.wasm"
		done
	else
		die "samples/$name: no build.sh and no known layout (Cargo.toml, *.go, *.c, *.ts, *.wat)"
	fi
}

build_samples() {
	local d
	for d in "$ROOT"/samples/*/; do
		[[ -d "$d" ]] || continue
		# samples/include holds the C samples' header, not a sample.
		[[ "$(basename "$d")" == include ]] && continue
		build_sample "${d%/}"
	done
}

parts=("$@")
if ((${#parts[@]} == 0)); then parts=(c rust go as conformance samples); fi
for p in "${parts[@]}"; do
	case "$p" in
	c) build_c ;;
	rust) build_rust ;;
	go) build_go ;;
	as) build_as ;;
	conformance) build_conformance ;;
	samples) build_samples ;;
	*) die "unknown part $p (want: c rust go as conformance samples)" ;;
	esac
done

# Every built module imports only what the ABI table allows, with the
# table's signatures.
need "$GO" "the import check"
say "checking imports of $(find "$OUT" -maxdepth 1 -name '*.wasm' | wc -l) modules against abi/abi.go"
(cd "$ROOT" && ACLWASM_GUEST_DIR="$OUT" "$GO" test -count=1 -run 'TestBuiltGuestImports' ./guest-sdk) ||
	die "a built module imports something the ABI table does not allow (see above)"
say "done: $OUT"
