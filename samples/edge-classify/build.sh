# Builds edge-classify in the native layout (module acl32), as a native
# CANN program is written: a command (main) that also exports "classify"
# for bytes calls. Run by scripts/build-guests.sh with OUT, NAME and ROOT.
set -euo pipefail
clang --target=wasm32-wasi -O2 -Wall -Wextra -Werror -I"$ROOT/guest-sdk/c/include" \
	-o "$OUT/$NAME.wasm" classify.c
