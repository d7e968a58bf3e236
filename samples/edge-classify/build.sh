# Builds edge-classify in the native layout (module acl32), as a native
# CANN program is written: a command (main) that also exports "classify"
# for bytes calls. Run by scripts/build-guests.sh with OUT, NAME and ROOT.
# It links the SDK's library as every C guest does (it launches no
# callback, so nothing of it ends up in the module).
set -euo pipefail
make -s -C "$ROOT/guest-sdk/c" lib
clang --target=wasm32-wasi -O2 -Wall -Wextra -Werror -I"$ROOT/guest-sdk/c/include" \
	-o "$OUT/$NAME.wasm" classify.c -L"$ROOT/guest-sdk/c/build" -laclwasm
