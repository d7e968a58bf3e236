#!/usr/bin/env bash
# Builds the notify-pipeline sample. It needs its own build step because
# build-guests.sh's *.cpp rule adds -fno-exceptions: this sample is built as
# a native C++ program would be, with nothing but the SDK's include path and
# its library (libaclwasm.a, from which aclrtLaunchHostFunc links the
# dispatcher export the host runs the callback through), plus warnings as
# errors.
#
# scripts/build-guests.sh runs it with OUT, NAME and ROOT set; alone:
#   bash samples/notify-pipeline/build.sh     (writes build/wasm/notify-pipeline.wasm)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="${ROOT:-$(cd "$HERE/../.." && pwd)}"
OUT="${OUT:-$ROOT/build/wasm}"
NAME="${NAME:-notify-pipeline}"
command -v clang++ >/dev/null 2>&1 || { echo "$NAME: missing tool clang++; run scripts/install-toolchains.sh" >&2; exit 1; }
[[ -d /usr/include/wasm32-wasi/c++ ]] ||
	{ echo "$NAME: missing libc++ for wasm32 (/usr/include/wasm32-wasi/c++); run scripts/install-toolchains.sh" >&2; exit 1; }
make -s -C "$ROOT/guest-sdk/c" lib
mkdir -p "$OUT"
clang++ --target=wasm32-wasi -std=c++17 -O2 -Wall -Wextra -Werror -I"$ROOT/guest-sdk/c/include" \
	-o "$OUT/$NAME.wasm" "$HERE/main.cpp" -L"$ROOT/guest-sdk/c/build" -laclwasm
