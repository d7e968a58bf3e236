#!/usr/bin/env bash
# serve-test.sh: starts `aclwasm serve` on 127.0.0.1 (a free port) over a
# directory of plugins, and checks it with curl as a client would: each
# documented status, bodies echoed byte for byte under parallel requests,
# hot reload, manifests (NAME.yaml; the deprecated NAME.json), a bad
# manifest leaving the last good version serving, request ids in answers
# and log records, durations as strings in the JSON log, the admin
# endpoint, /metrics, refusals made before a body is read (whole, over
# HTTP/1.1 and h2c), no plugin directory in any answer, and SIGTERM: /readyz 503 while requests in
# flight finish and new ones are served, then a clean exit.
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
echo '{"args": ["forged-addr"]}' >"$DIR/forged-addr.json" # the deprecated sidecar, still read
cp "$HOSTILE" "$DIR/spin.wasm"
printf 'name: spin\nmodule: {path: spin.wasm}\nargs: [spin]\npolicy: {timeout: 300ms}\nserve: {max_concurrent: 2}\n' >"$DIR/spin.yaml"
cp "$HOSTILE" "$DIR/hang.wasm"
printf 'name: hang\nmodule: {path: hang.wasm}\nargs: [hang]\npolicy: {timeout: 10m}\n' >"$DIR/hang.yaml"

if out="$("$BIN" serve --listen 127.0.0.1:0 --max-body 2MiB --max-buffered 1MiB "$DIR" 2>&1)"; then
	die "--max-buffered below --max-body was accepted"
fi
grep -q -- "--max-buffered 1MiB is below --max-body 2MiB" <<<"$out" || die "--max-buffered below --max-body: $out"
say "--max-buffered below --max-body: refused"

LOG="$WORK/serve.log"
TOKEN=s3cret
"$BIN" serve --listen 127.0.0.1:0 --log-format json --log-level debug --poll 100ms --grace 5s \
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
# The server answers while it compiles: /readyz is 503 loading until every
# plugin's first load has ended.
for _ in $(seq 600); do
	[[ "$(req GET /readyz)" == 200 ]] && break
	grep -q '"code":"loading"' "$WORK/body" || die "/readyz before ready: $(cat "$WORK/body")"
	sleep 0.1
done
expect 200 "" GET /readyz
expect 200 "" GET /v1/plugins
grep -q '"name":"echo","version":"sha256:[0-9a-f]*","module":"sha256:[0-9a-f]*","state":"ready"' "$WORK/body" || die "listing: $(cat "$WORK/body")"
grep -q '"name":"badimport","version":"sha256:[0-9a-f]*","module":"sha256:[0-9a-f]*","state":"refused"' "$WORK/body" || die "listing: $(cat "$WORK/body")"

head -c 5000 /dev/urandom >"$WORK/in"
expect 200 "" POST /v1/plugins/echo --data-binary "@$WORK/in"
{ printf 'echo:'; cat "$WORK/in"; } | cmp -s - "$WORK/body" || die "echo: the body is not the input echoed"
[[ "$(header x-aclwasm-exit-code)" == 0 ]] || die "echo: exit code header $(header x-aclwasm-exit-code)"
expect 502 "" POST /v1/plugins/exit3
[[ "$(header x-aclwasm-exit-code)" == 3 ]] && grep -q '"code":"plugin_failed"' "$WORK/body" || die "exit3: $(cat "$WORK/headers")"
expect 200 "" POST /v1/plugins/forged-addr
grep -q "hostile forged-addr: contained" "$WORK/body" || die "forged-addr: $(tail -3 "$WORK/body")"
expect 200 "" POST /v1/plugins/upper --data-binary "Hello, reactor"
[[ "$(cat "$WORK/body")" == "HELLO, REACTOR" ]] || die "upper (a reactor): $(cat "$WORK/body")"
grep -q '"msg":"deprecated: the JSON sidecar forged-addr.json' "$LOG" || die "no deprecation line for forged-addr.json"
[[ "$(grep -c 'deprecated: the JSON sidecar forged-addr.json' "$LOG")" == 1 ]] || die "the deprecation is logged more than once"
say "forged-addr.json: read, deprecated (logged once)"

# Request ids: the client's is kept, one is made otherwise; both are on the
# request's log records, whose durations are strings.
expect 502 "" POST /v1/plugins/exit3 -H "X-Request-Id: serve-test-41"
[[ "$(header x-request-id)" == serve-test-41 ]] || die "X-Request-Id: $(header x-request-id), want serve-test-41"
grep '"request_id":"serve-test-41"' "$LOG" | grep -q '"msg":"request".*"outcome":"plugin_failed"' || die "no request record with the client's id"
grep '"request_id":"serve-test-41"' "$LOG" | grep -q '"duration":"[0-9.]*[mµn]*s"' || die "the duration is no string: $(grep serve-test-41 "$LOG")"
expect 200 "" GET /healthz
[[ "$(header x-request-id)" =~ ^[0-9a-f]{32}$ ]] || die "made X-Request-Id: $(header x-request-id)"
say "X-Request-Id: kept, made, logged with durations as strings"
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

# HTTP/1.1 and HTTP/2 in clear text (h2c, prior knowledge): every refusal
# arrives whole (as long as its Content-Length says, with its JSON code),
# with a small body and with a large one the server does not read, and a
# large body is served.
head -c 1048576 /dev/zero | tr '\0' a >"$WORK/large"
for proto in --http1.1 --http2-prior-knowledge; do
	version=2
	[[ $proto == --http1.1 ]] && version=1.1
	for body in ab "@$WORK/large"; do
		for c in "401 unauthorized POST /v1/admin/reload" "404 not_found POST /v1/plugins/nope" \
			"405 method_not_allowed GET /v1/plugins/echo" "422 load_refused POST /v1/plugins/badimport" \
			"502 trap POST /v1/plugins/trap" "200 - POST /v1/plugins/upper"; do
			read -r st code m p <<<"$c"
			out="$(curl -sS --max-time 60 "$proto" -X "$m" --data-binary "$body" -o "$WORK/body" -D "$WORK/headers" \
				-w '%{http_code} %{http_version}' "$URL$p" 2>&1)" || die "$proto $m $p (body ${body:0:2}): $out"
			[[ "$out" == "$st $version" ]] || die "$proto $m $p (body ${body:0:2}): $out, want $st $version"
			cl="$(header content-length)"
			[[ -z "$cl" || "$cl" == "$(wc -c <"$WORK/body")" ]] || die "$proto $m $p: a partial body: $(cat "$WORK/body")"
			[[ $code == - ]] || grep -q "\"code\":\"$code\"" "$WORK/body" || die "$proto $m $p: body $(cat "$WORK/body"), want code $code"
		done
	done
	say "$proto: refusals whole with small and 1 MiB bodies"
done

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
	[[ "$(req POST /v1/plugins/echo)" == 502 && "$(header x-aclwasm-exit-code)" == 3 ]] && break
	sleep 0.1
done
[[ "$(header x-aclwasm-exit-code)" == 3 ]] || die "hot reload: echo.wasm replaced, still $(cat "$WORK/body")"
say "hot reload: echo.wasm replaced, the new module answers"

# A manifest with a typo: the last good version of upper serves on, the
# failure shows in the listing (without the directory) and the log.
printf 'name: upper\nmodule: {path: upper.wasm}\npolicy: {max_stream: 3}\n' >"$DIR/upper.yaml.tmp" && mv "$DIR/upper.yaml.tmp" "$DIR/upper.yaml"
for _ in $(seq 300); do
	req GET /v1/plugins >/dev/null
	grep -q '"name":"upper","version":"sha256:[0-9a-f]*","module":"sha256:[0-9a-f]*","state":"stale"' "$WORK/body" && break
	sleep 0.1
done
grep -q '"name":"upper","version":"sha256:[0-9a-f]*","module":"sha256:[0-9a-f]*","state":"stale","error":{"code":"plugin_invalid","message":"upper.yaml: policy.max_stream (line 3): no such field' "$WORK/body" ||
	die "a bad manifest: listing $(cat "$WORK/body")"
! grep -qF "$DIR" "$WORK/body" || die "the listing shows the plugin directory"
expect 200 "" POST /v1/plugins/upper --data-binary "still"
[[ "$(cat "$WORK/body")" == "STILL" ]] || die "upper after a bad manifest: $(cat "$WORK/body")"
grep -q '"msg":"plugin reload failed: the last good version serves on","plugin":"upper"' "$LOG" || die "no log line for the failed reload"
say "a bad manifest: the last good version serves, stale in the listing and the log"

expect 200 "" GET /metrics
for series in 'aclwasm_calls_total{function="aclrtMemcpy",plugin="echo"}' \
	'aclwasm_runs_total{outcome="trap",plugin="trap"}' \
	'aclwasm_runs_total{outcome="timeout",plugin="spin"}' \
	'aclwasm_call_errors_total{code="107000",function="aclrtMemcpy",plugin="forged-addr"}' \
	'aclwasm_http_requests_total{outcome="ok",plugin="echo",status="200"}' \
	'aclwasm_http_requests_total{outcome="plugin_failed",plugin="exit3",status="502"}' \
	'aclwasm_http_requests_total{outcome="trap",plugin="trap",status="502"}' \
	'aclwasm_plugin_state{plugin="echo",state="ready"}' \
	'aclwasm_plugin_load_failures_total{plugin="upper"}' \
	'aclwasm_reloads_total{result="ok"}'; do
	v="$(grep -F "$series " "$WORK/body" | awk '{print $2}')"
	[[ -n "$v" && "$v" != 0 ]] || die "/metrics: $series is ${v:-missing}"
	say "/metrics: $series $v"
done
# At most its next run's session, made ahead after an answer.
v="$(sed -n 's/^aclwasm_sessions{plugin="echo"} //p' "$WORK/body")"
[[ "$v" == 0 || "$v" == 1 ]] || die "/metrics: live sessions of echo: ${v:-missing}, not 0 or 1 (its next run, made ahead)"
grep -q '^aclwasm_http_buffered_bytes 0$' "$WORK/body" || die "/metrics: request bodies still held: $(grep aclwasm_http_buffered_bytes "$WORK/body")"

# SIGTERM with a request in flight (hang runs until it is cancelled):
# readiness fails at once while the listener stays open, /healthz and new
# requests are answered; at the end of --grace the run is cancelled (503),
# and the server exits cleanly.
curl -sS --max-time 60 -o "$WORK/hang.body" -w '%{http_code}' -X POST "$URL/v1/plugins/hang" >"$WORK/hang.status" &
HANG=$!
inflight() { curl -sS --max-time 10 -o "$WORK/m" "$URL/metrics" && grep -q '^aclwasm_http_requests_in_flight{plugin="hang"} 1$' "$WORK/m"; }
for _ in $(seq 300); do
	inflight && break
	sleep 0.1
done
inflight || die "the hang request is not in flight"
kill -TERM "$PID"
for _ in $(seq 300); do
	[[ "$(req GET /readyz)" == 503 ]] && break
	sleep 0.05
done
expect 503 shutting_down GET /readyz
expect 200 "" GET /healthz
expect 502 "" POST /v1/plugins/exit3
say "SIGTERM: not ready, still serving while a request is in flight"
wait "$HANG" || die "the request in flight: curl failed"
[[ "$(cat "$WORK/hang.status")" == 503 ]] && grep -q '"code":"shutting_down"' "$WORK/hang.body" ||
	die "the request in flight at the end of --grace: $(cat "$WORK/hang.status") $(cat "$WORK/hang.body")"
for _ in $(seq 300); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$PID" 2>/dev/null && die "the server did not exit within 30 s of the end of its grace period"
rc=0
wait "$PID" || rc=$?
PID=
[[ $rc == 0 ]] || die "the server exited with $rc after SIGTERM"
grep -q '"msg":"stopped"' "$LOG" || die "no \"stopped\" in the log"
curl -sS --max-time 5 "$URL/healthz" >/dev/null 2>&1 && die "the listener is still open after exit"
say "SIGTERM: the request in flight was cancelled at the end of --grace (503), the server stopped cleanly"
say "ok"
