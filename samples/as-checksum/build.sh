#!/usr/bin/env bash
# Builds the as-checksum reactor. It needs its own build step because
# build-guests.sh exports an AssemblyScript module's start function as
# _start (a command); this module is a reactor, so its top-level code is
# exported as _initialize, which the host runs once at instantiation.
#
# scripts/build-guests.sh runs it with OUT, NAME and ROOT set; alone:
#   bash samples/as-checksum/build.sh        (writes build/wasm/as-checksum.wasm)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="${ROOT:-$(cd "$HERE/../.." && pwd)}"
OUT="${OUT:-$ROOT/build/wasm}"
NAME="${NAME:-as-checksum}"
ASC="$ROOT/guest-sdk/assemblyscript/node_modules/.bin/asc"
command -v node >/dev/null 2>&1 || { echo "as-checksum: missing tool node; run scripts/install-toolchains.sh" >&2; exit 1; }
[[ -x "$ASC" ]] || { echo "as-checksum: missing $ASC; run scripts/install-toolchains.sh" >&2; exit 1; }
mkdir -p "$OUT"
cd "$HERE"
"$ASC" assembly/index.ts -O3 --runtime stub --use abort= --exportStart _initialize -o "$OUT/$NAME.wasm"
# It imports nothing but "acl": the import check holds it to that.
if [[ -f "$OUT/freestanding.txt" ]] && ! grep -qx "$NAME.wasm" "$OUT/freestanding.txt"; then
	echo "$NAME.wasm" >>"$OUT/freestanding.txt"
fi
