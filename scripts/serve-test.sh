#!/usr/bin/env bash
# serve-test.sh: starts `aclwasm serve` on 127.0.0.1 (a free port) over a
# directory of plugins, and checks it with curl as a client would: each
# documented status, bodies echoed byte for byte under parallel requests,
# hot reload, the admin endpoint, /metrics, refusals made before a body is
# read, no plugin directory in any answer, and a clean exit on SIGTERM.
#
#   scripts/serve-test.sh        # needs curl, wat2wasm and build/wasm/hostile.wasm (make guests)
#
# Bounded: every wait has a deadline, the server is killed on any exit.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GO="${GO:-go}"
die() { echo "serve-test: FAIL: $*" >&2; [[ -f "${LOG:-}" ]] && tail -20 "$LOG" >&2; exit 1; }
say() { echo "serve-test: $*"; }

for t in curl wat2wasm; do
	command -v "$t" >/dev/null 2>&1 || die "missing tool $t: run scripts/install-toolchains.sh"
done
HOSTILE="${ACLWASM_GUEST_DIR:-$ROOT/build/wasm}/hostile.wasm"
[[ -f "$HOSTILE" ]] || die "$HOSTILE is missing: run make guests (scripts/build-guests.sh)"

WORK="$(mktemp -d)"
PID=
cleanup() {
	if [[ -n "$PID" ]] && kill -0 "$PID" 2>/dev/null; then kill -KILL "$PID" 2>/dev/null || true; fi
	rm -rf "$WORK"
}
trap cleanup EXIT

BIN="$WORK/aclwasm"
(cd "$ROOT" && "$GO" build -o "$BIN" ./cmd/aclwasm) || die "go build"
DIR="$WORK/plugins"
mkdir -p "$DIR"
for w in echo exit3 trap badimport upper; do
	wat2wasm "$ROOT/serve/testdata/$w.wat" -o "$DIR/$w.wasm"
done
cp "$HOSTILE" "$DIR/forged-addr.wasm"
echo '{"args": ["forged-addr"]}' >"$DIR/forged-addr.json"
cp "$HOSTILE" "$DIR/spin.wasm"
echo '{"args": ["spin"], "timeout": "300ms", "max_concurrent": 2}' >"$DIR/spin.json"

if out="$("$BIN" serve --listen 127.0.0.1:0 --max-body 2MiB --max-buffered 1MiB "$DIR" 2>&1)"; then
	die "--max-buffered below --max-body was accepted"
fi
grep -q -- "--max-buffered 1MiB is below --max-body 2MiB" <<<"$out" || die "--max-buffered below --max-body: $out"
say "--max-buffered below --max-body: refused"

LOG="$WORK/serve.log"
TOKEN=s3cret
"$BIN" serve --listen 127.0.0.1:0 --log-format json --poll 100ms --grace 5s \
	--max-buffered 64MiB --admin-token "$TOKEN" "$DIR" 2>"$LOG" &
PID=$!
ADDR=
for _ in $(seq 300); do
	ADDR="$(sed -n 's/.*"msg":"listening","addr":"\([^"]*\)".*/\1/p' "$LOG" | head -1)"
	[[ -n "$ADDR" ]] && break
	kill -0 "$PID" 2>/dev/null || die "the server exited before listening"
	sleep 0.1
done
[[ -n "$ADDR" ]] || die "the server did not log its address within 30 s"
URL="http://$ADDR"
say "serving $DIR at $URL"

# req METHOD PATH [curl args...]: the status on stdout; the body in $WORK/body,
# headers in $WORK/headers.
req() {
	local m="$1" p="$2"
	shift 2
	curl -sS --max-time 60 -X "$m" -o "$WORK/body" -D "$WORK/headers" -w '%{http_code}' "$@" "$URL$p"
}
# expect STATUS JSONCODE METHOD PATH [curl args...]
expect() {
	local want="$1" code="$2"
	shift 2
	local got
	got="$(req "$@")"
	[[ "$got" == "$want" ]] || die "$1 $2: status $got, want $want: $(cat "$WORK/body")"
	if [[ -n "$code" ]]; then
		grep -q "\"code\":\"$code\"" "$WORK/body" || die "$1 $2: body $(cat "$WORK/body"), want code $code"
	fi
	say "$1 $2: $got $code"
}
header() { tr -d '\r' <"$WORK/headers" | sed -n "s/^$1: //Ip"; }

expect 200 "" GET /healthz
expect 200 "" GET /readyz
expect 200 "" GET /v1/plugins
grep -q '"name":"echo","version":"[0-9a-f]*","state":"ready"' "$WORK/body" || die "listing: $(cat "$WORK/body")"
grep -q '"name":"badimport","version":"[0-9a-f]*","state":"refused"' "$WORK/body" || die "listing: $(cat "$WORK/body")"

head -c 5000 /dev/urandom >"$WORK/in"
expect 200 "" POST /v1/plugins/echo --data-binary "@$WORK/in"
{ printf 'echo:'; cat "$WORK/in"; } | cmp -s - "$WORK/body" || die "echo: the body is not the input echoed"
[[ "$(header x-aclwasm-exit-code)" == 0 ]] || die "echo: exit code header $(header x-aclwasm-exit-code)"
expect 200 "" POST /v1/plugins/exit3
[[ "$(header x-aclwasm-exit-code)" == 3 && "$(cat "$WORK/body")" == bye ]] || die "exit3: $(cat "$WORK/headers")"
expect 200 "" POST /v1/plugins/forged-addr
grep -q "hostile forged-addr: contained" "$WORK/body" || die "forged-addr: $(tail -3 "$WORK/body")"
expect 200 "" POST /v1/plugins/upper --data-binary "Hello, reactor"
[[ "$(cat "$WORK/body")" == "HELLO, REACTOR" ]] || die "upper (a reactor): $(cat "$WORK/body")"
expect 502 trap POST /v1/plugins/trap
expect 504 timeout POST /v1/plugins/spin
expect 422 load_refused POST /v1/plugins/badimport
expect 404 not_found POST /v1/plugins/nope
expect 405 method_not_allowed GET /v1/plugins/echo
# A declared length over --max-body: 413 at once, without the body (curl
# sends none: the server must not wait for it).
expect 413 body_too_large POST /v1/plugins/echo -H "Content-Length: 1099511627776" -H "Expect:"
for p in /v1/plugins /v1/plugins/echo /v1/plugins/badimport /v1/plugins/nope; do
	req GET "$p" >/dev/null
	! grep -qF "$DIR" "$WORK/body" || die "GET $p shows the plugin directory: $(cat "$WORK/body")"
done
say "no answer shows the plugin directory"
expect 401 unauthorized POST /v1/admin/reload
expect 401 unauthorized POST /v1/admin/reload -H "Authorization: Bearer wrong"
expect 200 "" POST /v1/admin/reload -H "Authorization: Bearer $TOKEN"

# Parallel clients: 256 echo requests, 16 at a time, each body checked,
# with spin requests (504 or 429) among them.
say "parallel: 256 echo requests, 16 clients, with spin requests among them"
export URL WORK
seq 256 | xargs -P 16 -I{} bash -c '
	i={}
	if (( i % 8 == 0 )); then
		s=$(curl -sS --max-time 60 -o /dev/null -w "%{http_code}" -X POST "$URL/v1/plugins/spin")
		[[ $s == 504 || $s == 429 ]] || { echo "spin $i: status $s" >&2; exit 255; }
		exit 0
	fi
	printf "request %d %s" "$i" "$RANDOM$RANDOM" >"$WORK/in.$i"
	s=$(curl -sS --max-time 60 -o "$WORK/out.$i" -w "%{http_code}" -X POST --data-binary "@$WORK/in.$i" "$URL/v1/plugins/echo")
	if [[ $s == 429 ]]; then exit 0; fi
	[[ $s == 200 ]] || { echo "echo $i: status $s" >&2; exit 255; }
	{ printf "echo:"; cat "$WORK/in.$i"; } | cmp -s - "$WORK/out.$i" || { echo "echo $i: wrong body" >&2; exit 255; }
' || die "parallel requests"

# Hot reload: replace echo by exit3 (atomically); the poll picks it up.
cp "$DIR/exit3.wasm" "$DIR/echo.tmp" && mv "$DIR/echo.tmp" "$DIR/echo.wasm"
for _ in $(seq 300); do
	[[ "$(req POST /v1/plugins/echo)" == 200 && "$(header x-aclwasm-exit-code)" == 3 ]] && break
	sleep 0.1
done
[[ "$(header x-aclwasm-exit-code)" == 3 ]] || die "hot reload: echo.wasm replaced, still $(cat "$WORK/body")"
say "hot reload: echo.wasm replaced, the new module answers"

expect 200 "" GET /metrics
for series in 'aclwasm_calls_total{function="aclrtMemcpy",plugin="echo"}' \
	'aclwasm_runs_total{outcome="trap",plugin="trap"}' \
	'aclwasm_runs_total{outcome="timeout",plugin="spin"}' \
	'aclwasm_call_errors_total{code="107000",function="aclrtMemcpy",plugin="forged-addr"}' \
	'aclwasm_http_requests_total{plugin="echo",status="200"}'; do
	v="$(grep -F "$series " "$WORK/body" | awk '{print $2}')"
	[[ -n "$v" && "$v" != 0 ]] || die "/metrics: $series is ${v:-missing}"
	say "/metrics: $series $v"
done
grep -q '^aclwasm_sessions{plugin="echo"} 0$' "$WORK/body" || die "/metrics: live sessions of echo not 0"
grep -q '^aclwasm_http_buffered_bytes 0$' "$WORK/body" || die "/metrics: request bodies still held: $(grep aclwasm_http_buffered_bytes "$WORK/body")"

kill -TERM "$PID"
for _ in $(seq 300); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$PID" 2>/dev/null && die "the server did not exit within 30 s of SIGTERM"
rc=0
wait "$PID" || rc=$?
PID=
[[ $rc == 0 ]] || die "the server exited with $rc after SIGTERM"
grep -q '"msg":"stopped"' "$LOG" || die "no \"stopped\" in the log"
say "SIGTERM: the server stopped cleanly"
say "ok"
