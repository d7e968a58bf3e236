package serve

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// jsonLog is a server log in JSON, one record a line, that the test
// reads while the server writes.
type jsonLog struct{ testsupport.Logs }

func (l *jsonLog) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(&l.Logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// of are the records with request id id.
func (l *jsonLog) of(t *testing.T, id string) []map[string]any {
	var out []map[string]any
	for _, rec := range l.Records(t) {
		if rec["request_id"] == id {
			out = append(out, rec)
		}
	}
	return out
}

func msgs(recs []map[string]any) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r["msg"].(string))
	}
	return out
}

// withID is a request with header X-Request-Id: id ("" for none).
func (f *fixture) withID(path, id string) reply {
	f.t.Helper()
	req, err := http.NewRequest("POST", f.url+path, nil)
	require.NoError(f.t, err)
	if id != "" {
		req.Header.Set(RequestIDHeader, id)
	}
	resp, err := client.Do(req)
	require.NoError(f.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(f.t, err)
	return reply{resp.StatusCode, resp.Header, b, resp.Close}
}

var madeID = regexp.MustCompile(`^[0-9a-f]{32}$`)

// TestRequestIDs: every response has X-Request-Id, the client's when it
// is sane, a new unique one otherwise, and every log record of the
// request carries it: the request's own, the guest's aclAppLog records and
// its stderr. A 502 record names the trap.
func TestRequestIDs(t *testing.T) {
	dir := plugins(t, map[string][]byte{
		"hello": readFile(t, filepath.Join("..", "host", "testdata", "hello.wasm")),
		"oops": wat2wasm(t, "", `(module
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 0x100) "oops: no model\n")
  (func (export "_start")
    (i32.store (i32.const 0) (i32.const 0x100))
    (i32.store (i32.const 4) (i32.const 15))
    (drop (call $write (i32.const 2) (i32.const 0) (i32.const 1) (i32.const 8)))
    (call $exit (i32.const 1))))`),
		"trap": wat2wasm(t, "trap", ""),
	}, nil)
	var log jsonLog
	f := start(t, Config{Dir: dir, Logger: log.logger()})

	r := f.withID("/v1/plugins/hello", "client-7f3a")
	require.Equal(t, 200, r.status, "%v", r)
	require.Equal(t, "client-7f3a", r.header.Get(RequestIDHeader))
	recs := log.of(t, "client-7f3a")
	require.ElementsMatch(t, []string{"tile cache is full", "request"}, msgs(recs), "the guest's aclAppLog record and the request's")
	require.Equal(t, "hello", recs[0]["plugin"])

	r = f.withID("/v1/plugins/oops", "")
	require.Equal(t, 502, r.status, "%v", r)
	id := r.header.Get(RequestIDHeader)
	require.Regexp(t, madeID, id)
	recs = log.of(t, id)
	require.Equal(t, []string{"plugin stderr", "request"}, msgs(recs))
	require.Equal(t, "oops: no model\n", recs[0]["stderr"])
	require.Equal(t, "plugin_failed", recs[1]["outcome"])

	r = f.withID("/v1/plugins/trap", "t-1")
	require.Equal(t, 502, r.status, "%v", r)
	recs = log.of(t, "t-1")
	require.Equal(t, []string{"request"}, msgs(recs))
	require.Equal(t, "WARN", recs[0]["level"])
	require.Equal(t, "trap", recs[0]["code"])
	require.Contains(t, recs[0]["error"], "unreachable", "the 502 record says why")

	// Ids that are not sane are replaced: too long, a space, a control
	// character (which could forge log lines), non-ASCII.
	// (The handler itself: net/http's client refuses to send some.)
	for _, bad := range []string{strings.Repeat("x", 129), "a b", "a\x01b", "a\nlevel=ERROR", "é"} {
		rec := httptestRecorder{h: http.Header{}}
		req := mustRequest(t, "GET", "/healthz")
		req.Header.Set(RequestIDHeader, bad)
		f.s.Handler().ServeHTTP(&rec, req)
		require.Equal(t, 200, rec.status)
		require.Regexp(t, madeID, rec.h.Get(RequestIDHeader), "%q", bad)
	}
	require.Equal(t, strings.Repeat("x", 128), f.withID("/v1/plugins/nope", strings.Repeat("x", 128)).header.Get(RequestIDHeader))
	// Every endpoint answers with an id, each made one new.
	seen := map[string]bool{}
	for i := 0; i < 50; i++ {
		r := f.do("GET", "/healthz", "", nil)
		id := r.header.Get(RequestIDHeader)
		require.Regexp(t, madeID, id)
		require.False(t, seen[id], "id %s made twice", id)
		seen[id] = true
	}
	// No record of a request lacks its id.
	for _, rec := range log.Records(t) {
		if rec["msg"] == "request" || rec["msg"] == "plugin stderr" || rec["msg"] == "tile cache is full" {
			require.NotEmpty(t, rec["request_id"], "%v", rec)
		}
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// gated is the simulated device with its Memcpy held at a gate: a guest
// that copies blocks in the host function until the test opens the gate
// (or its call's context ends).
type gated struct {
	*sim.Backend
	entered chan struct{} // closed at the first Memcpy
	once    sync.Once
	open    chan struct{}
}

func newGated(b *sim.Backend) *gated {
	return &gated{Backend: b, entered: make(chan struct{}), open: make(chan struct{})}
}

func (g *gated) Memcpy(ctx context.Context, dst, src acl.Buf, n uint64) error {
	g.once.Do(func() { close(g.entered) })
	select {
	case <-g.open:
	case <-ctx.Done():
		return ctx.Err()
	}
	return g.Backend.Memcpy(ctx, dst, src, n)
}

// TestOutcomes: the request metrics tell a guest's nonzero exit code (a
// command's) or status (a reactor's) from ok and from failures.
func TestOutcomes(t *testing.T) {
	dir := plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", ""), "exit3": wat2wasm(t, "exit3", ""),
		"upper": wat2wasm(t, "upper", ""), "trap": wat2wasm(t, "trap", "")}, nil)
	f := start(t, Config{Dir: dir})
	require.Equal(t, 200, f.do("POST", "/v1/plugins/echo", "", []byte("x")).status)
	require.Equal(t, 502, f.do("POST", "/v1/plugins/exit3", "", nil).status)
	require.Equal(t, 200, f.do("POST", "/v1/plugins/upper", "", []byte("a")).status)
	require.Equal(t, "7", f.do("POST", "/v1/plugins/upper", "", nil).header.Get("X-Aclwasm-Exit-Code"))
	require.Equal(t, 502, f.do("POST", "/v1/plugins/trap", "", nil).status)
	m := scrape(t, f.url+"/metrics")
	for _, c := range []struct {
		plugin, outcome string
		n               float64
	}{{"echo", "ok", 1}, {"echo", "plugin_failed", 0}, {"exit3", "plugin_failed", 1}, {"exit3", "ok", 0},
		{"upper", "ok", 1}, {"upper", "plugin_failed", 1}, {"trap", "trap", 1}} {
		require.Equal(t, c.n, m.sum("aclwasm_http_requests_total", `plugin="`+c.plugin+`"`, `outcome="`+c.outcome+`"`), "%s %s", c.plugin, c.outcome)
	}
}

// TestInFlightGauge: a request whose guest is blocked in a host function
// counts in aclwasm_http_requests_in_flight until it ends.
func TestInFlightGauge(t *testing.T) {
	var g *gated
	f := startWith(t, Config{Dir: plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", "")}, nil)},
		func(b *sim.Backend) acl.Backend { g = newGated(b); return g })
	release := sync.OnceFunc(func() { close(g.open) })
	t.Cleanup(release)
	got := make(chan reply, 1)
	go func() { r, _ := try("POST", f.url+"/v1/plugins/echo", "", []byte("x")); got <- r }()
	<-g.entered
	require.Equal(t, 1.0, scrape(t, f.url+"/metrics").sum("aclwasm_http_requests_in_flight", `plugin="echo"`))
	release()
	require.Equal(t, "echo:x", string((<-got).body))
	require.Equal(t, 0.0, scrape(t, f.url+"/metrics").sum("aclwasm_http_requests_in_flight", `plugin="echo"`))
}

// TestShutdownDrains: during Shutdown's grace period, while a request is in
// flight, /readyz answers 503 and /healthz 200, and new requests, on a
// kept-alive connection and on a new one, are served; when the last
// request ends the listener closes and Shutdown returns without error.
func TestShutdownDrains(t *testing.T) {
	var g *gated
	f := startWith(t, Config{Dir: plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", ""), "exit3": wat2wasm(t, "exit3", "")}, nil)},
		func(b *sim.Backend) acl.Backend { g = newGated(b); return g })
	release := sync.OnceFunc(func() { close(g.open) })
	t.Cleanup(release)
	kept := &http.Client{Transport: &http.Transport{}, Timeout: time.Minute}
	defer kept.CloseIdleConnections()
	reused := func(method, path string) (reply, bool) {
		t.Helper()
		var again bool
		ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { again = i.Reused }})
		req, err := http.NewRequestWithContext(ctx, method, f.url+path, nil)
		require.NoError(t, err)
		resp, err := kept.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return reply{resp.StatusCode, resp.Header, b, resp.Close}, again
	}
	r, _ := reused("GET", "/healthz") // opens the connection kept alive
	require.Equal(t, 200, r.status)

	inflight := make(chan reply, 1)
	go func() { r, _ := try("POST", f.url+"/v1/plugins/echo", "", []byte("x")); inflight <- r }()
	<-g.entered
	stopped := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		stopped <- f.s.Shutdown(ctx)
	}()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		r := f.do("GET", "/readyz", "", nil)
		if r.status == 503 || time.Now().After(deadline) {
			require.Equal(t, 503, r.status, "%v", r)
			require.Equal(t, "shutting_down", r.err(t).Code)
			break
		}
	}
	require.Equal(t, 200, f.do("GET", "/healthz", "", nil).status, "alive while draining")
	r, again := reused("POST", "/v1/plugins/exit3")
	require.Equal(t, 502, r.status, "%v", r)
	require.Equal(t, "plugin_failed", r.err(t).Code, "the whole answer")
	require.True(t, again, "the kept-alive connection served")
	r = f.do("POST", "/v1/plugins/exit3", "", nil) // client's pool: maybe new, the listener is open either way
	require.Equal(t, 502, r.status, "%v", r)
	fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: time.Minute}
	resp, err := fresh.Post(f.url+"/v1/plugins/exit3", "", nil)
	require.NoError(t, err, "a new connection during the drain")
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	require.Equal(t, 502, resp.StatusCode, "exit3 fails, as it does outside a drain")
	select {
	case err := <-stopped:
		t.Fatalf("Shutdown returned (%v) with a request in flight", err)
	default:
	}

	release()
	require.Equal(t, "echo:x", string((<-inflight).body), "the request in flight finished")
	require.NoError(t, <-stopped)
	_, err = fresh.Get(f.url + "/healthz")
	require.Error(t, err, "the listener is closed once the drain is over")
	f.down = true // shut down above; check what the fixture would
	require.NoError(t, <-f.done)
	require.Zero(t, f.s.OpenPlugins())
	require.NoError(t, f.rt.Close(context.Background()))
	require.Equal(t, f.base, freeMem(t, f.b))
	require.NoError(t, f.b.Close())
}

// TestRuntimeClosedIsShutdown: a Runtime closed under a run in flight
// (an embedder's shutdown order) ends it as 503 shutting_down, counted as
// its own outcome, never as a trap; later requests get the same.
func TestRuntimeClosedIsShutdown(t *testing.T) {
	var g *gated
	f := startWith(t, Config{Dir: plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", "")}, nil)},
		func(b *sim.Backend) acl.Backend { g = newGated(b); return g })
	release := sync.OnceFunc(func() { close(g.open) })
	t.Cleanup(release)
	got := make(chan reply, 1)
	go func() { r, _ := try("POST", f.url+"/v1/plugins/echo", "", []byte("x")); got <- r }()
	<-g.entered
	require.NoError(t, f.rt.Close(context.Background()))
	r := <-got
	require.Equal(t, 503, r.status, "%v", r)
	require.Equal(t, "shutting_down", r.err(t).Code)
	require.Equal(t, "1", r.header.Get("Retry-After"))
	r = f.do("POST", "/v1/plugins/echo", "", []byte("x"))
	require.Equal(t, 503, r.status, "%v", r)
	require.Equal(t, "shutting_down", r.err(t).Code)
	m := scrape(t, f.url+"/metrics")
	require.Equal(t, 2.0, m.sum("aclwasm_http_requests_total", `plugin="echo"`, `outcome="shutting_down"`))
	require.Zero(t, m.sum("aclwasm_http_requests_total", `outcome="trap"`))
}

// TestDrainDelay: with Config.DrainDelay, Shutdown keeps serving, not
// ready, even with no request in flight, until the delay or its context
// ends.
func TestDrainDelay(t *testing.T) {
	f := start(t, Config{Dir: plugins(t, map[string][]byte{"exit3": wat2wasm(t, "exit3", "")}, nil), DrainDelay: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- f.s.Shutdown(ctx) }()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if r := f.do("GET", "/readyz", "", nil); r.status == 503 || time.Now().After(deadline) {
			require.Equal(t, 503, r.status, "%v", r)
			break
		}
	}
	r := f.do("POST", "/v1/plugins/exit3", "", nil)
	require.Equal(t, 502, r.status, "served during the delay: %v", r)
	cancel()
	if err := <-stopped; err != nil { // nil: nothing was in flight to cut short
		require.ErrorIs(t, err, context.Canceled)
	}
	f.down = true
	require.NoError(t, <-f.done)
	require.Zero(t, f.s.OpenPlugins())
	require.NoError(t, f.rt.Close(context.Background()))
	require.NoError(t, f.b.Close())
}

// TestRequestRecordLevels: the request's record is Debug when it went
// well, Info when the guest failed (its exit code), Warn for a 5xx, and a
// logger above a level gets none of that level's (invoke makes the
// record's attributes only for a level the logger takes).
func TestRequestRecordLevels(t *testing.T) {
	dir := plugins(t, map[string][]byte{
		"hello": readFile(t, filepath.Join("..", "host", "testdata", "hello.wasm")),
		"trap":  wat2wasm(t, "trap", ""),
	}, nil)
	var log jsonLog
	f := start(t, Config{Dir: dir, Logger: slog.New(slog.NewJSONHandler(&log.Logs, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	require.Equal(t, 200, f.withID("/v1/plugins/hello", "ok-1").status)
	require.Equal(t, 502, f.withID("/v1/plugins/trap", "trap-1").status)
	require.Equal(t, 404, f.withID("/v1/plugins/nope", "nope-1").status)
	for id, want := range map[string]string{"ok-1": "", "trap-1": "WARN", "nope-1": "INFO"} {
		var got string
		for _, rec := range log.of(t, id) {
			if rec["msg"] == "request" {
				require.Empty(t, got, "one request record")
				got = rec["level"].(string)
				require.Equal(t, id[:len(id)-2], rec["plugin"])
			}
		}
		require.Equal(t, want, got, id)
	}
}

// TestRequestLoggerAsWith: a request's logger (withRequestID) writes what
// the server's logger With("request_id", id) writes, the id first, under
// the server's own groups and attributes, with attributes and groups of
// the request's added after it; and the response carries the id, the
// client's when sane, a made one (32 hex digits) otherwise.
func TestRequestLoggerAsWith(t *testing.T) {
	var got, want strings.Builder
	base := func(b *strings.Builder) *slog.Logger {
		return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug})).WithGroup("srv").With("k", 1)
	}
	s := &Server{log: base(&got)}
	var ids []string
	h := s.withRequestID(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := w.Header().Get(RequestIDHeader)
		ids = append(ids, id)
		l, wl := s.logFor(r), base(&want).With("request_id", id)
		for _, pair := range [][2]*slog.Logger{{l, wl}, {l.With("a", 2), wl.With("a", 2)}, {l.WithGroup("g").With("b", 3), wl.WithGroup("g").With("b", 3)}} {
			for _, lg := range pair {
				lg.Info("msg", "x", 1, "y", "z", "p", 1, "q", 2, "r", 3, "s", 4)
				require.True(t, lg.Enabled(context.Background(), slog.LevelDebug))
			}
		}
	}))
	for _, id := range []string{"client-id", "", "bad id"} {
		req, err := http.NewRequest("POST", "http://x/", nil)
		require.NoError(t, err)
		if id != "" {
			req.Header.Set(RequestIDHeader, id)
		}
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	require.Equal(t, "client-id", ids[0])
	require.Regexp(t, "^[0-9a-f]{32}$", ids[1])
	require.Regexp(t, "^[0-9a-f]{32}$", ids[2])
	require.NotEqual(t, ids[1], ids[2])
	stamp := regexp.MustCompile(`time=\S+ `)
	require.Equal(t, stamp.ReplaceAllString(want.String(), ""), stamp.ReplaceAllString(got.String(), ""))
	require.Contains(t, got.String(), "srv.request_id=client-id srv.x=1")
}
