package serve

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

func TestMain(m *testing.M) {
	if side := os.Getenv(benchServerEnv); side != "" { // a benchmark's server process
		os.Exit(benchServerMain(side))
	}
	goleak.VerifyTestMain(m)
}

// engine is wazero, or the one ACLWASM_TEST_ENGINE names (wasmtime needs
// -tags wasmtime).
var engine = testsupport.Engine()

// wat2wasm compiles testdata/NAME.wat, or src when NAME is empty.
func wat2wasm(t testing.TB, name, src string) []byte {
	t.Helper()
	if name == "" {
		return testsupport.WAT(t, src)
	}
	return testsupport.WATFile(t, filepath.Join("testdata", name+".wat"))
}

// plugins writes a plugin directory: name -> module, and name -> sidecar.
func plugins(t testing.TB, mods map[string][]byte, sidecars map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for n, b := range mods {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n+".wasm"), b, 0o644))
	}
	for n, s := range sidecars {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n+".json"), []byte(s), 0o644))
	}
	return dir
}

// fixture is a server listening on 127.0.0.1, over its own simulated
// device, with its metrics.
type fixture struct {
	t    testing.TB
	b    *sim.Backend
	rt   *host.Runtime
	s    *Server
	url  string
	base []uint64 // free device memory before anything ran
	done chan error
	down bool
}

func start(t testing.TB, cfg Config) *fixture { t.Helper(); return startWith(t, cfg, nil) }

// startWith is start with the runtime's backend wrap(the simulated
// device), or the device itself when wrap is nil.
func startWith(t testing.TB, cfg Config, wrap func(*sim.Backend) acl.Backend) *fixture {
	t.Helper()
	return startAll(t, cfg, wrap, true)
}

// startAll is startWith, waiting for the first loads (WaitLoaded) before
// it returns when wait is set.
func startAll(t testing.TB, cfg Config, wrap func(*sim.Backend) acl.Backend, wait bool) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{t: t, b: sim.New(), done: make(chan error, 1)}
	f.base = freeMem(t, f.b)
	reg := prometheus.NewRegistry()
	m, err := host.NewMetrics(reg)
	require.NoError(t, err)
	var b acl.Backend = f.b
	if wrap != nil {
		b = wrap(f.b)
	}
	f.rt, err = host.NewRuntime(ctx, host.WithBackend(b), host.WithMetrics(m), host.WithEngine(engine))
	require.NoError(t, err)
	cfg.Runtime, cfg.Registerer, cfg.Gatherer = f.rt, reg, reg
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	f.s, err = New(ctx, cfg)
	require.NoError(t, err)
	if wait {
		require.NoError(t, f.s.WaitLoaded(ctx))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	f.url = "http://" + ln.Addr().String()
	go func() { f.done <- f.s.Serve(ln) }()
	t.Cleanup(func() { f.shutdown(time.Minute) })
	return f
}

// shutdown stops the server within grace and checks that everything was
// released: no plugin open, the device accounting back to its baseline.
func (f *fixture) shutdown(grace time.Duration) error {
	if f.down {
		return nil
	}
	f.down = true
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := f.s.Shutdown(ctx)
	require.NoError(f.t, <-f.done)
	require.Zero(f.t, f.s.OpenPlugins(), "plugins left open")
	require.Equal(f.t, f.base, freeMem(f.t, f.b), "device memory not back to its baseline")
	require.NoError(f.t, f.rt.Close(context.Background()))
	require.NoError(f.t, f.b.Close())
	return err
}

func freeMem(t testing.TB, b acl.Backend) []uint64 {
	var out []uint64
	for d := 0; d < b.DeviceCount(); d++ {
		free, _, err := b.MemInfo(int32(d), acl.HBMMem)
		require.NoError(t, err)
		out = append(out, free)
	}
	return out
}

// reply is one HTTP response, read whole.
type reply struct {
	status int
	header http.Header
	body   []byte
	close  bool // the server said "Connection: close" (net/http drops the header)
}

// errBody decodes a JSON failure.
func (r reply) err(t testing.TB) apiError {
	t.Helper()
	var e apiError
	require.NoError(t, json.Unmarshal(r.body, &e), "not a JSON error body: %s", r.body)
	require.Equal(t, "application/json", r.header.Get("Content-Type"))
	return e
}

func (r reply) String() string { return fmt.Sprintf("%d %v %q", r.status, r.header, r.body) }

var client = &http.Client{Timeout: time.Minute}

func (f *fixture) do(method, path, token string, body []byte) reply {
	f.t.Helper()
	return do(f.t, method, f.url+path, token, body)
}

func do(t testing.TB, method, url, token string, body []byte) reply {
	t.Helper()
	r, err := try(method, url, token, body)
	require.NoError(t, err)
	return r
}

// try is do for goroutines other than the test's.
func try(method, url, token string, body []byte) (reply, error) {
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		return reply{}, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header, b, resp.Close}, err
}

// TestStatuses checks each documented outcome of a request, and the other
// endpoints, against a real listening server.
func TestStatuses(t *testing.T) {
	dir := plugins(t, map[string][]byte{
		"echo": wat2wasm(t, "echo", ""), "exit3": wat2wasm(t, "exit3", ""), "trap": wat2wasm(t, "trap", ""),
		"reactor": wat2wasm(t, "reactor", ""), "badimport": wat2wasm(t, "badimport", ""),
		"spin":      wat2wasm(t, "", `(module (func (export "_start") (loop $l (br $l))))`),
		"badconfig": wat2wasm(t, "exit3", ""), "typo": wat2wasm(t, "exit3", ""), "denied": wat2wasm(t, "echo", ""),
		"chatty": wat2wasm(t, "echo", ""), "upper": wat2wasm(t, "upper", ""), "upper-elsewhere": wat2wasm(t, "upper", ""),
	}, map[string]string{
		"upper-elsewhere": `{"export": "process"}`,
		"spin":            `{"timeout": "200ms"}`,
		"badconfig":       `{"max_streams": 0}`,
		"typo":            `{"max_stream": 3}`,
		"denied":          `{"deny": ["aclrtMemcpy"]}`,
	})
	f := start(t, Config{Dir: dir, MaxBody: 1 << 20, MaxOutput: 64 << 10, AdminToken: "s3cret"})

	t.Run("ok", func(t *testing.T) {
		r := f.do("POST", "/v1/plugins/echo", "", []byte("hello"))
		require.Equal(t, 200, r.status, "%v", r)
		require.Equal(t, "echo:hello", string(r.body))
		require.Equal(t, "0", r.header.Get("X-Aclwasm-Exit-Code"))
		// The version is a digest: of the module alone, without a manifest.
		sum := sha256.Sum256(wat2wasm(t, "echo", ""))
		require.Equal(t, "sha256:"+hex.EncodeToString(sum[:]), r.header.Get("X-Aclwasm-Plugin-Version"))
		info := f.listed()["echo"]
		require.Equal(t, "sha256:"+hex.EncodeToString(sum[:]), info.Version)
		require.Equal(t, info.Version, info.Module)
		require.Empty(t, info.Digest, "no OCI digest for a file")
	})
	t.Run("version with a sidecar", func(t *testing.T) {
		r := f.do("POST", "/v1/plugins/upper-elsewhere", "", []byte("hi")) // not servable: a failure names its version too
		wasm := wat2wasm(t, "upper", "")
		mod, ver := sha256.Sum256(wasm), sha256.Sum256(append(wasm, `{"export": "process"}`...))
		require.Equal(t, "sha256:"+hex.EncodeToString(ver[:]), r.header.Get("X-Aclwasm-Plugin-Version"), "the module then its sidecar")
		info := f.listed()["upper-elsewhere"]
		require.Equal(t, "sha256:"+hex.EncodeToString(ver[:]), info.Version)
		require.Equal(t, "sha256:"+hex.EncodeToString(mod[:]), info.Module)
	})
	for _, tc := range []struct {
		name, method, path, token string
		body                      []byte
		status                    int
		code, msg                 string
	}{
		{"unknown plugin", "POST", "/v1/plugins/nope", "", nil, 404, "not_found", `no plugin "nope"`},
		{"unknown endpoint", "GET", "/v2/x", "", nil, 404, "not_found", "no endpoint /v2/x"},
		{"GET a plugin", "GET", "/v1/plugins/echo", "", nil, 405, "method_not_allowed", "use POST"},
		{"POST the list", "POST", "/v1/plugins", "", nil, 405, "method_not_allowed", "use GET, HEAD"},
		{"body too large", "POST", "/v1/plugins/echo", "", make([]byte, 1<<20+1), 413, "body_too_large", "exceeds 1048576 bytes"},
		{"output too large", "POST", "/v1/plugins/chatty", "", make([]byte, 64<<10), 502, "output_too_large", "more than 65536 bytes"},
		{"refused at load", "POST", "/v1/plugins/badimport", "", nil, 422, "load_refused", "refused at load time"},
		{"denied by its sidecar", "POST", "/v1/plugins/denied", "", nil, 422, "load_refused", "refused at load time"},
		{"no entry point", "POST", "/v1/plugins/reactor", "", nil, 422, "not_servable", "exports neither _start (a command: stdin in, stdout out) nor handle"},
		{"no such reactor export", "POST", "/v1/plugins/upper-elsewhere", "", nil, 422, "not_servable", "nor process (a reactor"},
		{"sidecar out of range", "POST", "/v1/plugins/badconfig", "", nil, 500, "plugin_invalid", "badconfig.json: max_streams 0: want at least 1"},
		{"sidecar with a typo", "POST", "/v1/plugins/typo", "", nil, 500, "plugin_invalid", `unknown field "max_stream"`},
		{"trap", "POST", "/v1/plugins/trap", "", nil, 502, "trap", "unreachable"},
		{"timeout", "POST", "/v1/plugins/spin", "", nil, 504, "timeout", "within its timeout (200ms)"},
		{"admin without token", "POST", "/v1/admin/reload", "", nil, 401, "unauthorized", "Bearer"},
		{"admin with a wrong token", "POST", "/v1/admin/reload", "s3cre", nil, 401, "unauthorized", "Bearer"},
		{"admin GET", "GET", "/v1/admin/reload", "s3cret", nil, 405, "method_not_allowed", "POST"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := f.do(tc.method, tc.path, tc.token, tc.body)
			require.Equal(t, tc.status, r.status, "%v", r)
			e := r.err(t)
			require.Equal(t, tc.code, e.Code)
			require.Contains(t, e.Message, tc.msg)
			if strings.HasPrefix(tc.path, "/v1/plugins/") && tc.status != 404 && tc.status != 405 {
				require.Equal(t, strings.TrimPrefix(tc.path, "/v1/plugins/"), e.Plugin)
			}
		})
	}
	t.Run("reactor", func(t *testing.T) {
		r := f.do("POST", "/v1/plugins/upper", "", []byte("Hello, world"))
		require.Equal(t, 200, r.status, "%v", r)
		require.Equal(t, "HELLO, WORLD", string(r.body))
		require.Equal(t, "0", r.header.Get("X-Aclwasm-Exit-Code"))
		r = f.do("POST", "/v1/plugins/upper", "", nil)
		require.Equal(t, 502, r.status, "%v", r)
		require.Equal(t, "7", r.header.Get("X-Aclwasm-Exit-Code"), "the export's status")
		e := r.err(t)
		require.Equal(t, "plugin_failed", e.Code)
		require.Equal(t, uint32(7), e.ExitCode)
	})
	t.Run("refusal names each problem", func(t *testing.T) {
		e := f.do("POST", "/v1/plugins/badimport", "", nil).err(t)
		require.Equal(t, []string{"import acl.aclopExecuteV2 is not a function of ABI v1"}, e.Problems)
		e = f.do("POST", "/v1/plugins/denied", "", nil).err(t)
		require.Equal(t, []string{"import acl.aclrtMemcpy is denied by the policy"}, e.Problems)
	})
	t.Run("nonzero exit", func(t *testing.T) {
		// The guest's own failure: 502 with its code, not its output.
		r := f.do("POST", "/v1/plugins/exit3", "", nil)
		require.Equal(t, 502, r.status, "%v", r)
		require.Equal(t, "3", r.header.Get("X-Aclwasm-Exit-Code"))
		e := r.err(t)
		require.Equal(t, apiError{Code: "plugin_failed", Message: "the plugin failed with status 3", Plugin: "exit3", ExitCode: 3}, e)
	})
	t.Run("list", func(t *testing.T) {
		r := f.do("GET", "/v1/plugins", "", nil)
		require.Equal(t, 200, r.status)
		var l struct{ Plugins []PluginInfo }
		require.NoError(t, json.Unmarshal(r.body, &l))
		states := map[string]string{}
		for _, p := range l.Plugins {
			states[p.Name] = p.State
		}
		require.Equal(t, map[string]string{"echo": "ready", "exit3": "ready", "trap": "ready", "spin": "ready", "chatty": "ready",
			"upper": "ready", "upper-elsewhere": "refused", "reactor": "refused", "badimport": "refused", "denied": "refused", "badconfig": "invalid", "typo": "invalid"}, states)
	})
	t.Run("health", func(t *testing.T) {
		require.Equal(t, 200, f.do("GET", "/healthz", "", nil).status)
		require.Equal(t, 200, f.do("GET", "/readyz", "", nil).status)
	})
	t.Run("admin reload", func(t *testing.T) {
		require.NoError(t, os.Remove(filepath.Join(dir, "typo.json")))
		r := f.do("POST", "/v1/admin/reload", "s3cret", nil)
		require.Equal(t, 200, r.status, "%v", r)
		var rep ReloadReport
		require.NoError(t, json.Unmarshal(r.body, &rep))
		require.Equal(t, []string{"typo"}, rep.Changed)
		require.Equal(t, "3", f.do("POST", "/v1/plugins/typo", "", nil).header.Get("X-Aclwasm-Exit-Code"))
	})
	t.Run("no admin endpoint without a token", func(t *testing.T) {
		g := start(t, Config{Dir: plugins(t, nil, nil)})
		require.Equal(t, 404, g.do("POST", "/v1/admin/reload", "", nil).status)
	})
}

// TestHotReload: a request in flight finishes on the version it started
// on while new requests get the new one; the old version closes when its
// last request ends; a removed module answers 404.
func TestHotReload(t *testing.T) {
	v1 := wat2wasm(t, "echo", "")
	src, err := os.ReadFile(filepath.Join("testdata", "echo.wat"))
	require.NoError(t, err)
	v2 := wat2wasm(t, "", strings.Replace(string(src), `(data (i32.const 0x100) "echo:")`, `(data (i32.const 0x100) "ECHO:")`, 1))
	require.NotEqual(t, v1, v2)
	dir := plugins(t, map[string][]byte{"echo": v1}, nil)
	f := start(t, Config{Dir: dir, Poll: 20 * time.Millisecond})

	entered, proceed := make(chan struct{}), make(chan struct{})
	var first atomic.Bool
	release := sync.OnceFunc(func() { close(proceed) })
	t.Cleanup(release) // before the fixture's shutdown, if the test fails early
	f.s.testHookRun = func(string) {
		if first.CompareAndSwap(false, true) {
			close(entered)
			<-proceed
		}
	}
	old := make(chan reply, 1)
	go func() { r, _ := try("POST", f.url+"/v1/plugins/echo", "", []byte("first")); old <- r }()
	<-entered
	f.s.mu.RLock()
	oldVersion := f.s.plugins["echo"].digest
	f.s.mu.RUnlock()

	// An atomic replacement, as documented; the poll picks it up.
	tmp := filepath.Join(dir, "echo.tmp")
	require.NoError(t, os.WriteFile(tmp, v2, 0o644))
	require.NoError(t, os.Rename(tmp, filepath.Join(dir, "echo.wasm")))
	var r reply
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		r = f.do("POST", "/v1/plugins/echo", "", []byte("second"))
		if r.header.Get("X-Aclwasm-Plugin-Version") != oldVersion || time.Now().After(deadline) {
			break
		}
	}
	require.Equal(t, "ECHO:second", string(r.body), "the new version answers")
	require.Equal(t, 2, f.s.OpenPlugins(), "the old version stays open while a request holds it")

	release()
	r = <-old
	require.Equal(t, 200, r.status, "%v", r)
	require.Equal(t, "echo:first", string(r.body), "the request in flight ran on the old version")
	require.Equal(t, oldVersion, r.header.Get("X-Aclwasm-Plugin-Version"))
	for deadline := time.Now().Add(time.Minute); f.s.OpenPlugins() != 1 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
	}
	require.Equal(t, 1, f.s.OpenPlugins(), "the old version closed after its last request")

	require.NoError(t, os.Remove(filepath.Join(dir, "echo.wasm")))
	rep, err := f.s.Reload(context.Background())
	require.NoError(t, err)
	if len(rep.Removed) == 0 { // the poll was first
		require.Equal(t, 404, f.do("POST", "/v1/plugins/echo", "", nil).status)
	}
	require.Equal(t, 404, f.do("POST", "/v1/plugins/echo", "", nil).status)
	require.Zero(t, f.s.OpenPlugins())
}

// TestShutdownCancelsAfterGrace: a run that would outlast the grace period
// is cancelled when it ends; its request gets 503, and the session it
// held is released (the fixture checks the device accounting).
func TestShutdownCancelsAfterGrace(t *testing.T) {
	t.Parallel() // it waits (on its server, its clients, a timeout) more than it computes
	dir := plugins(t, map[string][]byte{"hang": testsupport.Guest(t, "hostile"), "echo": wat2wasm(t, "echo", "")},
		map[string]string{"hang": `{"args": ["hang"], "timeout": "10m"}`})
	f := start(t, Config{Dir: dir})
	entered := make(chan struct{})
	var once sync.Once
	linked := false
	f.s.testHookRun = func(name string) {
		if name == "hang" {
			linked = runsLinked(f.s)
			once.Do(func() { close(entered) })
		}
	}
	got := make(chan reply, 1)
	go func() { r, _ := try("POST", f.url+"/v1/plugins/hang", "", nil); got <- r }()
	<-entered
	require.False(t, linked, "under Serve the request's own context is cancelled: no run of its own in the registry")
	err := f.shutdown(200 * time.Millisecond)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	r := <-got
	require.Equal(t, 503, r.status, "%v", r)
	require.Equal(t, "shutting_down", r.err(t).Code)
	require.Equal(t, "1", r.header.Get("Retry-After"))

	// After Shutdown, the handler (mounted elsewhere) refuses.
	rec := httptestRecorder{h: http.Header{}}
	f.s.Handler().ServeHTTP(&rec, mustRequest(t, "GET", "/readyz"))
	require.Equal(t, 503, rec.status)
	f.s.Handler().ServeHTTP(&rec, mustRequest(t, "POST", "/v1/plugins/echo"))
	require.Equal(t, 503, rec.status)
}

// runsLinked reports whether a run is in s's registry of runs that
// Shutdown cancels (active.follow).
func runsLinked(s *Server) bool {
	s.active.mu.Lock()
	defer s.active.mu.Unlock()
	return s.active.runs.next != &s.active.runs
}

// TestShutdownCancelsMounted is TestShutdownCancelsAfterGrace with the
// server's Handler mounted on another http.Server (not Serve's, whose
// connections' contexts Shutdown cancels): the run has a context of its
// own, followed in the registry, and is cancelled all the same.
func TestShutdownCancelsMounted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := plugins(t, map[string][]byte{"hang": testsupport.Guest(t, "hostile")}, map[string]string{"hang": `{"args": ["hang"], "timeout": "10m"}`})
	rt, err := host.NewRuntime(ctx, host.WithEngine(engine))
	require.NoError(t, err)
	defer rt.Close(ctx)
	s, err := New(ctx, Config{Dir: dir, Runtime: rt, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	require.NoError(t, s.WaitLoaded(ctx))
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	entered := make(chan bool, 1)
	s.testHookRun = func(string) { entered <- runsLinked(s) }
	got := make(chan reply, 1)
	go func() { r, _ := try("POST", srv.URL+"/v1/plugins/hang", "", nil); got <- r }()
	require.True(t, <-entered, "a run of a Handler mounted elsewhere is in the registry")
	grace, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, s.Shutdown(grace), context.DeadlineExceeded)
	r := <-got
	require.Equal(t, 503, r.status, "%v", r)
	require.Equal(t, "shutting_down", r.err(t).Code)
	require.False(t, runsLinked(s), "the run left the registry")
}

type httptestRecorder struct {
	h      http.Header
	status int
}

func (r *httptestRecorder) Header() http.Header         { return r.h }
func (r *httptestRecorder) Write(b []byte) (int, error) { return len(b), nil }
func (r *httptestRecorder) WriteHeader(s int)           { r.status = s }

func mustRequest(t testing.TB, method, path string) *http.Request {
	r, err := http.NewRequest(method, "http://x"+path, nil)
	require.NoError(t, err)
	return r
}

// hostilePolicy is the small quota the hostile plugin's quota mode expects
// (tests/hostile_test.go).
const hostileQuota = `{"args": ["quota"], "device_memory": 1048576, "pinned_memory": 131072, "max_allocations": 16,
 "max_registrations": 4, "max_streams": 4, "max_events": 8, "max_queued": 32}`

// TestLoad: 64 clients for 2 s against well-behaved and hostile plugins.
// Every response is the right one for its plugin (or 429 when the plugin is
// at its limit), /metrics shows the host's series, and at shutdown every
// session is released.
func TestLoad(t *testing.T) {
	hostile := testsupport.Guest(t, "hostile")
	dir := plugins(t, map[string][]byte{
		"echo": wat2wasm(t, "echo", ""), "exit3": wat2wasm(t, "exit3", ""), "trap": wat2wasm(t, "trap", ""),
		"upper": wat2wasm(t, "upper", ""), "forged-addr": hostile, "quota": hostile, "hostile-trap": hostile, "spin": hostile, "hang": hostile,
	}, map[string]string{
		"echo":         `{"max_concurrent": 64}`,
		"forged-addr":  `{"args": ["forged-addr"]}`,
		"quota":        hostileQuota,
		"hostile-trap": `{"args": ["trap"], "max_concurrent": 4}`,
		"spin":         `{"args": ["spin"], "timeout": "300ms", "max_concurrent": 2}`,
		"hang":         `{"args": ["hang"], "timeout": "300ms", "max_concurrent": 2}`,
	})
	f := start(t, Config{Dir: dir})

	type check func(r reply) error
	want := func(status int, code string) check {
		return func(r reply) error {
			var e apiError
			if r.status != status || json.Unmarshal(r.body, &e) != nil || e.Code != code {
				return fmt.Errorf("want %d %s", status, code)
			}
			return nil
		}
	}
	contained := func(mode string) check {
		return func(r reply) error {
			if r.status != 200 || r.header.Get("X-Aclwasm-Exit-Code") != "0" || !bytes.Contains(r.body, []byte("hostile "+mode+": contained")) {
				return errors.New("want exit 0 and contained")
			}
			return nil
		}
	}
	cases := []struct {
		plugin string
		check  func(body []byte) check
	}{
		{"echo", func(body []byte) check {
			return func(r reply) error {
				if r.status != 200 || r.header.Get("X-Aclwasm-Exit-Code") != "0" || string(r.body) != "echo:"+string(body) {
					return errors.New("want 200 and the body echoed")
				}
				return nil
			}
		}},
		{"upper", func(body []byte) check {
			return func(r reply) error {
				up := bytes.Clone(body)
				for i, c := range up {
					if c >= 'a' && c <= 'z' {
						up[i] = c - 32
					}
				}
				if r.status != 200 || r.header.Get("X-Aclwasm-Exit-Code") != "0" || !bytes.Equal(r.body, up) {
					return errors.New("want 200 and the body in upper case")
				}
				return nil
			}
		}},
		{"exit3", func([]byte) check {
			return func(r reply) error {
				if r.status != 502 || r.header.Get("X-Aclwasm-Exit-Code") != "3" || !bytes.Contains(r.body, []byte(`"plugin_failed"`)) {
					return errors.New("want 502 plugin_failed with exit code 3")
				}
				return nil
			}
		}},
		{"trap", func([]byte) check { return want(502, "trap") }},
		{"forged-addr", func([]byte) check { return contained("forged-addr") }},
		{"quota", func([]byte) check { return contained("quota") }},
		{"hostile-trap", func([]byte) check { return want(502, "trap") }},
		{"spin", func([]byte) check { return want(504, "timeout") }},
		{"hang", func([]byte) check { return want(504, "timeout") }},
	}
	const clients = 64
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		wrong    []string
		ok, busy = map[string]int{}, map[string]int{}
		total    atomic.Int64
	)
	stop := time.Now().Add(2 * time.Second)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 1))
			// Two requests at least, so that every plugin is asked
			// however slow the machine: a plugin's first request always
			// finds its limit free.
			for i := 0; i < 2 || time.Now().Before(stop) && i < 10000; i++ {
				tc := cases[0] // every other request is an echo, the rest go round the others
				if i%2 == 1 {
					tc = cases[(c+i/2)%len(cases)]
				}
				body := make([]byte, 1+rng.IntN(8192))
				for j := range body {
					body[j] = byte(rng.Uint32())
				}
				r, err := try("POST", f.url+"/v1/plugins/"+tc.plugin, "", body)
				total.Add(1)
				if err == nil {
					err = tc.check(body)(r)
				}
				mu.Lock()
				switch {
				case err == nil:
					ok[tc.plugin]++
				case want(429, "overloaded")(r) == nil && r.header.Get("Retry-After") == "1":
					busy[tc.plugin]++
				default:
					wrong = append(wrong, fmt.Sprintf("%s: %v: got %d %q", tc.plugin, err, r.status, truncate(r.body)))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("%d requests; answered by plugin: %v; 429: %v", total.Load(), ok, busy)
	require.Empty(t, wrong)
	for _, tc := range cases {
		require.Positive(t, ok[tc.plugin], "no request of %s answered (429: %d)", tc.plugin, busy[tc.plugin])
	}

	m := scrape(t, f.url+"/metrics")
	for _, s := range []struct {
		name   string
		labels []string
	}{
		{"aclwasm_calls_total", []string{`function="aclrtMemcpy"`, `plugin="echo"`}},
		{"aclwasm_bytes_total", []string{`direction="H2D"`, `plugin="echo"`}},
		{"aclwasm_call_errors_total", []string{`plugin="forged-addr"`, `code="107000"`}},
		{"aclwasm_call_errors_total", []string{`plugin="quota"`, `code="207001"`}},
		{"aclwasm_queued_operations_total", []string{`plugin="quota"`, `function="aclrtMemcpyAsync"`}},
		{"aclwasm_runs_total", []string{`plugin="echo"`, `outcome="ok"`}},
		{"aclwasm_calls_total", []string{`function="aclrtMemcpy"`, `plugin="upper"`}},
		{"aclwasm_runs_total", []string{`plugin="exit3"`, `outcome="exit"`}},
		{"aclwasm_runs_total", []string{`plugin="hostile-trap"`, `outcome="trap"`}},
		{"aclwasm_runs_total", []string{`plugin="spin"`, `outcome="timeout"`}},
		{"aclwasm_call_duration_seconds_count", []string{`function="aclrtMemcpy"`, `plugin="echo"`}},
		{"aclwasm_http_requests_total", []string{`plugin="echo"`, `status="200"`}},
		{"aclwasm_http_requests_total", []string{`plugin="spin"`, `status="504"`}},
	} {
		require.Positive(t, m.sum(s.name, s.labels...), "%s%v", s.name, s.labels)
	}
	require.Equal(t, float64(ok["echo"]*3), m.sum("aclwasm_calls_total", `function="aclrtMemcpy"`, `plugin="echo"`), "three copies per echo")
	// A command may keep its next run made (Config.NoPrepare): a
	// session of its own, which holds no device memory.
	require.LessOrEqual(t, m.sum("aclwasm_sessions"), float64(len(cases)), "live sessions once every request is answered")
	require.Zero(t, m.sum("aclwasm_device_allocated_bytes"))
	require.Zero(t, m.sum("aclwasm_registered_bytes"))
	require.Zero(t, m.sum("aclwasm_call_errors_total", `plugin="echo"`))
}

func truncate(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}

// metrics are the samples of a Prometheus text exposition.
type metrics []string

func scrape(t testing.TB, url string) metrics {
	t.Helper()
	r := do(t, "GET", url, "", nil)
	require.Equal(t, 200, r.status)
	var m metrics
	sc := bufio.NewScanner(bytes.NewReader(r.body))
	for sc.Scan() {
		if l := sc.Text(); l != "" && !strings.HasPrefix(l, "#") {
			m = append(m, l)
		}
	}
	return m
}

// sum adds the samples of metric name that carry every label given.
func (m metrics) sum(name string, labels ...string) float64 {
	var total float64
next:
	for _, l := range m {
		series, val, ok := strings.Cut(l, " ")
		if !ok || (series != name && !strings.HasPrefix(series, name+"{")) {
			continue
		}
		for _, lb := range labels {
			if !strings.Contains(series, lb) {
				continue next
			}
		}
		v, err := strconv.ParseFloat(val, 64)
		if err == nil {
			total += v
		}
	}
	return total
}

// gathered is g's samples as scrape reads them from /metrics.
func gathered(t testing.TB, g prometheus.Gatherer) metrics {
	t.Helper()
	mfs, err := g.Gather()
	require.NoError(t, err)
	var m metrics
	for _, mf := range mfs {
		for _, s := range mf.GetMetric() {
			var ls []string
			for _, l := range s.GetLabel() {
				ls = append(ls, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			v := s.GetCounter().GetValue() + s.GetGauge().GetValue() + s.GetUntyped().GetValue()
			m = append(m, fmt.Sprintf("%s{%s} %v", mf.GetName(), strings.Join(ls, ","), v))
		}
	}
	return m
}

// TestPluginFailedReason: a reactor that fails says why with
// aclwasm.error_set; the answer is 502 plugin_failed with its reason and
// status, on a fresh instance and on a kept one alike.
func TestPluginFailedReason(t *testing.T) {
	why := wat2wasm(t, "", `(module
  (import "aclwasm" "error_set" (func $set (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0x10) "no model named resnet")
  (func (export "handle") (result i32)
    (drop (call $set (i32.const 0x10) (i32.const 21)))
    (i32.const 9)))`)
	for _, reuse := range []bool{false, true} {
		f := start(t, Config{Dir: plugins(t, map[string][]byte{"why": why}, nil), ReuseInstances: reuse})
		r := f.do("POST", "/v1/plugins/why", "", nil)
		require.Equal(t, 502, r.status, "%v", r)
		require.Equal(t, "9", r.header.Get("X-Aclwasm-Exit-Code"))
		require.Equal(t, apiError{Code: "plugin_failed", Message: "no model named resnet", Plugin: "why", ExitCode: 9}, r.err(t), "reuse %v", reuse)
	}
}

// TestSharedHeaderValues: the values every successful answer shares
// (setShared: the plugin version, exit code 0, the content type) are set
// under their canonical keys, and a handler around serve's that adds to
// one of them changes that answer only.
func TestSharedHeaderValues(t *testing.T) {
	s := startBenchServer(t, map[string][]byte{"echo": wat2wasm(t, "echo", "")}, "", 1)
	h := s.Handler()
	version := benchVersion(t, s)
	answer := func(add bool) http.Header {
		req := httptest.NewRequest(http.MethodPost, "/v1/plugins/echo", bytes.NewReader([]byte("hi")))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		require.Equal(t, http.StatusOK, w.Code, w.Body.String())
		require.Equal(t, "echo:hi", w.Body.String())
		if add {
			w.Header().Add("X-Aclwasm-Exit-Code", "1")
			w.Header().Add("X-Aclwasm-Plugin-Version", "other")
		}
		return w.Result().Header
	}
	for _, add := range []bool{true, false, false} {
		hd := answer(add)
		for key, want := range map[string]string{"X-Aclwasm-Plugin-Version": version, "X-Aclwasm-Exit-Code": "0", "Content-Type": "application/octet-stream"} {
			require.Equal(t, http.CanonicalHeaderKey(key), key)
			require.Equal(t, []string{want}, hd[key], "%s (added to the answer before: %v)", key, add)
		}
	}
}

// benchVersion is the digest of s's plugin echo.
func benchVersion(tb testing.TB, s *Server) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.plugins["echo"].digest
}

// TestActiveCancel: active.cancel cancels the runs that follow it, not
// those that ended (unfollow), and a run that follows after it is
// cancelled at once.
func TestActiveCancel(t *testing.T) {
	a := newActive()
	var ended [3]bool
	links := make([]*runLink, 3)
	for k := range links {
		links[k] = &runLink{cancel: func() { ended[k] = true }}
		a.follow(links[k])
	}
	a.unfollow(links[1])
	a.unfollow(links[1]) // once only
	a.cancel()
	require.Equal(t, [3]bool{true, false, true}, ended)
	late := false
	a.follow(&runLink{cancel: func() { late = true }})
	require.True(t, late, "a run that follows after cancel is cancelled at once")
	a.unfollow(links[0])
	a.unfollow(links[2])
	require.Same(t, &a.runs, a.runs.next, "the ring is empty")
}

// TestActiveZero: zero is closed while no request is active and once the
// last active one ends; counting requests in and out allocates nothing.
func TestActiveZero(t *testing.T) {
	a := newActive()
	closed := func(c <-chan struct{}) bool {
		select {
		case <-c:
			return true
		default:
			return false
		}
	}
	require.True(t, closed(a.zero()))
	a.add()
	a.add()
	z := a.zero()
	require.False(t, closed(z))
	a.done()
	require.False(t, closed(z))
	require.False(t, closed(a.zero()))
	a.done()
	require.True(t, closed(z), "closed when the last active request ends")
	require.True(t, closed(a.zero()))
	a.add()
	require.False(t, closed(a.zero()), "a new request: not zero again")
	a.done()
	require.Zero(t, testing.AllocsPerRun(100, func() { a.add(); a.done() }))
}
