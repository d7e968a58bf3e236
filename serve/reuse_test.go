package serve

import (
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host"
)

// reuseManifest is NAME.yaml with serve.reuse_instances set to reuse,
// and the serve and policy lines extra.
func reuseManifest(name string, reuse bool, extra string) string {
	return fmt.Sprintf("name: %s\nmodule: {path: %s.wasm}\nserve:\n  reuse_instances: %v\n%s", name, name, reuse, extra)
}

// count is the counter plugin's answer: its instance's count.
func count(t *testing.T, r reply) uint32 {
	t.Helper()
	require.Equal(t, 200, r.status, "%v", r)
	require.Len(t, r.body, 4, "%v", r)
	return binary.LittleEndian.Uint32(r.body)
}

// sessions is how many sessions plugin holds now (instances not yet
// released): the host's aclwasm_sessions.
func (f *fixture) sessions(plugin string) float64 {
	f.t.Helper()
	return scrape(f.t, f.url+"/metrics").sum("aclwasm_sessions", `plugin="`+plugin+`"`)
}

// TestReuseKeepsState: a reactor with serve.reuse_instances: true keeps
// its instance between requests (its count goes on), one without it, or
// with false, gets a fresh instance per request (its count is always 1);
// a trap or a timeout drops the kept instance, and the next request gets
// a fresh one; a nonzero status keeps it. The kept instance's stderr and
// aclAppLog records go with the request that made them (its request_id),
// and the device memory it holds is released at shutdown (the fixture
// checks the device accounting).
func TestReuseKeepsState(t *testing.T) {
	counter := wat2wasm(t, "counter", "")
	dir := plugins(t, map[string][]byte{"counter": counter, "fresh": counter, "off": counter}, nil)
	write(t, dir, "counter.yaml", reuseManifest("counter", true, "policy: {timeout: 300ms}\n"))
	write(t, dir, "off.yaml", reuseManifest("off", false, ""))
	var log jsonLog
	f := start(t, Config{Dir: dir, Logger: log.logger()})

	l := f.listed()
	require.True(t, l["counter"].ReuseInstances)
	require.False(t, l["fresh"].ReuseInstances)
	require.False(t, l["off"].ReuseInstances)
	call := func(name, in string) reply { return f.do("POST", "/v1/plugins/"+name, "", []byte(in)) }
	for i := uint32(1); i <= 3; i++ {
		require.Equal(t, i, count(t, call("counter", "")), "the kept instance counts on")
		require.Equal(t, uint32(1), count(t, call("fresh", "")), "a fresh instance per request")
		require.Equal(t, uint32(1), count(t, call("off", "")))
	}
	require.Equal(t, 1.0, f.sessions("counter"), "one instance kept")
	require.Zero(t, f.sessions("fresh"), "fresh instances are released with their requests")

	// A trap drops the instance: the next request gets a fresh one.
	r := call("counter", "trap")
	require.Equal(t, 502, r.status, "%v", r)
	require.Equal(t, "trap", r.err(t).Code)
	require.Zero(t, f.sessions("counter"), "the trapped instance was released")
	require.Equal(t, uint32(1), count(t, call("counter", "")))
	require.Equal(t, uint32(2), count(t, call("counter", "")))

	// So does a timeout.
	r = call("counter", "spin")
	require.Equal(t, 504, r.status, "%v", r)
	require.Equal(t, "timeout", r.err(t).Code)
	require.Equal(t, uint32(1), count(t, call("counter", "")))

	// A nonzero status is the guest's answer: the instance stays. Its
	// stderr and aclAppLog record are the request's.
	r = f.withID("/v1/plugins/counter", "")
	require.Equal(t, uint32(2), count(t, r))
	req := f.do("POST", "/v1/plugins/counter", "", []byte("warn"))
	require.Equal(t, 502, req.status, "%v", req)
	require.Equal(t, "1", req.header.Get("X-Aclwasm-Exit-Code"))
	id := req.header.Get(RequestIDHeader)
	recs := log.of(t, id)
	require.ElementsMatch(t, []string{"counter warned", "plugin stderr", "request"}, msgs(recs), "the guest's records go with its request")
	for _, rec := range recs {
		switch rec["msg"] {
		case "plugin stderr":
			require.Equal(t, "counter: warned\n", rec["stderr"])
		case "counter warned":
			require.Equal(t, "WARN", rec["level"])
			require.Equal(t, "counter", rec["plugin"])
			require.NotNil(t, rec["session"])
		}
	}
	require.Equal(t, uint32(4), count(t, call("counter", "")), "kept after a nonzero status")
	for _, rec := range log.Records(t) {
		if rec["msg"] == "counter warned" || rec["msg"] == "plugin stderr" {
			require.Equal(t, id, rec["request_id"], "a record of the guest's in another request: %v", rec)
		}
	}
	for _, rec := range log.Records(t) {
		if rec["msg"] == "plugin loaded" && rec["plugin"] == "counter" {
			require.Equal(t, true, rec["reuse_instances"])
		}
	}
}

// TestReuseDefault: Config.ReuseInstances keeps the instances of every
// reactor whose manifest does not say otherwise (no manifest, a JSON
// sidecar); a manifest's false still gets fresh ones; commands are not
// affected; and a command whose manifest asks for reuse is refused at
// load with the reason.
func TestReuseDefault(t *testing.T) {
	counter := wat2wasm(t, "counter", "")
	echo := wat2wasm(t, "echo", "")
	dir := plugins(t, map[string][]byte{"counter": counter, "off": counter, "sidecar": counter, "echo": echo, "kept-echo": echo},
		map[string]string{"sidecar": `{"max_concurrent": 2}`})
	write(t, dir, "off.yaml", reuseManifest("off", false, ""))
	write(t, dir, "kept-echo.yaml", reuseManifest("kept-echo", true, ""))
	f := start(t, Config{Dir: dir, ReuseInstances: true})
	for i := uint32(1); i <= 2; i++ {
		require.Equal(t, i, count(t, f.do("POST", "/v1/plugins/counter", "", nil)))
		require.Equal(t, i, count(t, f.do("POST", "/v1/plugins/sidecar", "", nil)))
		require.Equal(t, uint32(1), count(t, f.do("POST", "/v1/plugins/off", "", nil)))
		r := f.do("POST", "/v1/plugins/echo", "", []byte("hi"))
		require.Equal(t, 200, r.status, "%v", r)
		require.Equal(t, "echo:hi", string(r.body), "a command runs as ever")
	}
	l := f.listed()
	require.True(t, l["counter"].ReuseInstances)
	require.False(t, l["off"].ReuseInstances)
	require.False(t, l["echo"].ReuseInstances)
	require.Equal(t, "refused", l["kept-echo"].State)

	r := f.do("POST", "/v1/plugins/kept-echo", "", []byte("hi"))
	require.Equal(t, 422, r.status, "%v", r)
	e := r.err(t)
	require.Equal(t, "load_refused", e.Code)
	require.Equal(t, []string{"kept-echo.yaml: serve.reuse_instances: the module is a command (it exports _start, which runs once per instance): only a reactor's instances can be kept between requests"}, e.Problems)
}

// TestReuseConcurrencyBound: a reused reactor runs at most max_concurrent
// requests at once (more get 429), and its pool holds at most that many
// instances however many requests come.
func TestReuseConcurrencyBound(t *testing.T) {
	t.Parallel() // it waits (on its server, its clients, a timeout) more than it computes
	dir := plugins(t, map[string][]byte{"counter": wat2wasm(t, "counter", "")}, nil)
	write(t, dir, "counter.yaml", reuseManifest("counter", true, "  max_concurrent: 2\n"))
	f := start(t, Config{Dir: dir})
	require.Equal(t, 2, f.listed()["counter"].MaxConcurrent)

	held, proceed := make(chan struct{}, 2), make(chan struct{})
	var hold atomic.Bool
	hold.Store(true)
	release := sync.OnceFunc(func() { hold.Store(false); close(proceed) })
	t.Cleanup(release)
	f.s.testHookRun = func(string) {
		if hold.Load() {
			held <- struct{}{}
			<-proceed
		}
	}
	answers := make(chan reply, 2)
	for range 2 {
		go func() { r, _ := try("POST", f.url+"/v1/plugins/counter", "", nil); answers <- r }()
	}
	for range 2 {
		select {
		case <-held:
		case <-time.After(watchdog):
			t.Fatal("the two requests did not start")
		}
	}
	r := f.do("POST", "/v1/plugins/counter", "", nil)
	require.Equal(t, 429, r.status, "%v", r)
	require.Equal(t, "overloaded", r.err(t).Code)
	release()
	// Released at once, the two run on two instances, or one after the
	// other on one.
	a, b := count(t, <-answers), count(t, <-answers)
	require.Contains(t, [][2]uint32{{1, 1}, {1, 2}, {2, 1}}, [2]uint32{a, b})

	// Many clients at once: never more than two instances.
	var wg sync.WaitGroup
	var ok, busy atomic.Int64
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				r, err := try("POST", f.url+"/v1/plugins/counter", "", nil)
				switch {
				case err != nil:
					t.Error(err)
				case r.status == 200:
					ok.Add(1)
				case r.status == 429:
					busy.Add(1)
				default:
					t.Errorf("%v", r)
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("200: %d, 429: %d", ok.Load(), busy.Load())
	require.Positive(t, ok.Load())
	require.LessOrEqual(t, f.sessions("counter"), 2.0, "at most max_concurrent instances")
}

// TestReuseHotReload: a new version of a reused reactor gets a pool of
// its own (fresh instances), while a request that started on the old
// version finishes on the old version's kept instance; the old pool is
// closed, its instance released, once that request ends.
func TestReuseHotReload(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "counter.wat"))
	require.NoError(t, err)
	v1 := wat2wasm(t, "counter", "")
	v2 := wat2wasm(t, "", strings.Replace(string(src), `(data (i32.const 0x40)`, `(data (i32.const 0x80) "v2") (data (i32.const 0x40)`, 1))
	dir := plugins(t, map[string][]byte{"counter": v1}, nil)
	write(t, dir, "counter.yaml", reuseManifest("counter", true, ""))
	f := start(t, Config{Dir: dir})
	first := f.do("POST", "/v1/plugins/counter", "", nil)
	require.Equal(t, uint32(1), count(t, first))
	oldVersion := first.header.Get("X-Aclwasm-Plugin-Version")

	entered, proceed := make(chan struct{}), make(chan struct{})
	var once atomic.Bool
	release := sync.OnceFunc(func() { close(proceed) })
	t.Cleanup(release)
	f.s.testHookRun = func(string) {
		if once.CompareAndSwap(false, true) {
			close(entered)
			<-proceed
		}
	}
	old := make(chan reply, 1)
	go func() { r, _ := try("POST", f.url+"/v1/plugins/counter", "", nil); old <- r }()
	<-entered

	replace(t, dir, "counter", v2)
	rep, err := f.s.Reload(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{"counter"}, rep.Changed)
	r := f.do("POST", "/v1/plugins/counter", "", nil)
	require.NotEqual(t, oldVersion, r.header.Get("X-Aclwasm-Plugin-Version"))
	require.Equal(t, uint32(1), count(t, r), "the new version's own instance")
	require.Equal(t, uint32(2), count(t, f.do("POST", "/v1/plugins/counter", "", nil)))
	require.Equal(t, 2, f.s.OpenPlugins(), "the old version stays open while a request holds it")
	require.Equal(t, 2.0, f.sessions("counter"), "each version's kept instance")

	release()
	r = <-old
	require.Equal(t, oldVersion, r.header.Get("X-Aclwasm-Plugin-Version"))
	require.Equal(t, uint32(2), count(t, r), "the request in flight ran on the old version's kept instance")
	for deadline := time.Now().Add(watchdog); f.s.OpenPlugins() != 1 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
	}
	require.Equal(t, 1, f.s.OpenPlugins(), "the old version closed after its last request")
	require.Equal(t, 1.0, f.sessions("counter"), "the old pool's instance released")
	require.Equal(t, uint32(3), count(t, f.do("POST", "/v1/plugins/counter", "", nil)))
}

// TestReuseShutdown: Shutdown closes the pools: every kept instance's
// session is released (the gauge, the device accounting), a request
// still running on a kept instance at the end of the grace period is
// cancelled (503), and no goroutine is left (TestMain's goleak).
func TestReuseShutdown(t *testing.T) {
	dir := plugins(t, map[string][]byte{"counter": wat2wasm(t, "counter", ""), "idle": wat2wasm(t, "counter", "")}, nil)
	write(t, dir, "counter.yaml", reuseManifest("counter", true, "policy: {timeout: 10m}\n"))
	write(t, dir, "idle.yaml", reuseManifest("idle", true, ""))
	f := start(t, Config{Dir: dir})
	require.Equal(t, uint32(1), count(t, f.do("POST", "/v1/plugins/idle", "", nil)))
	require.Equal(t, uint32(1), count(t, f.do("POST", "/v1/plugins/counter", "", nil)))
	entered := make(chan struct{})
	var once sync.Once
	f.s.testHookRun = func(string) { once.Do(func() { close(entered) }) }
	got := make(chan reply, 1)
	go func() { r, _ := try("POST", f.url+"/v1/plugins/counter", "", []byte("spin")); got <- r }()
	<-entered
	require.ErrorIs(t, f.shutdown(300*time.Millisecond), context.DeadlineExceeded)
	r := <-got
	require.Equal(t, 503, r.status, "%v", r)
	require.Equal(t, "shutting_down", r.err(t).Code)

	mfs, err := f.s.cfg.Gatherer.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() == "aclwasm_sessions" {
			for _, m := range mf.GetMetric() {
				require.Zero(t, m.GetGauge().GetValue(), "%v", m.GetLabel())
			}
		}
	}
}

// TestLogRouter: the records of a kept instance's session go to the
// request it runs for while it does (a stderr line to its buffer, the
// others to its logger, with the logger's attributes and groups), and to
// the server's log otherwise; another session's records are not the
// request's.
func TestLogRouter(t *testing.T) {
	var server, req jsonLog
	r := &logRouter{fallback: server.logger(), live: map[uint64]*requestLog{}}
	inst := slog.New(r).With("plugin", "p", "session", uint64(7))
	other := slog.New(r).With("plugin", "p", "session", uint64(8))
	stderr := inst.With("stream", "stderr")

	stderr.Warn("before")
	buf := &capped{max: 10, quiet: true}
	r.route(7, &requestLog{log: req.logger().With("request_id", "r-1"), stderr: buf})
	stderr.Warn("during the request")
	inst.WithGroup("g").Info("applog", "line", 3)
	other.Info("not mine")
	r.route(7, nil)
	stderr.Warn("after")

	require.Equal(t, "during the", buf.String(), "the request's stderr, capped")
	recs := req.Records(t)
	require.Len(t, recs, 1)
	require.Equal(t, "applog", recs[0]["msg"])
	require.Equal(t, "r-1", recs[0]["request_id"])
	require.Equal(t, "p", recs[0]["plugin"])
	require.Equal(t, 7.0, recs[0]["session"])
	require.Equal(t, map[string]any{"line": 3.0}, recs[0]["g"])
	require.Equal(t, []string{"before", "not mine", "after"}, msgs(server.Records(t)))
	for _, rec := range server.Records(t) {
		require.NotContains(t, rec, "request_id")
	}
}

// TestReuseCanceled: a request whose context ended before its call is a
// cancellation (503 canceled, or shutting_down), never a host error, when
// the pool refused to wait for an instance (Do picks that at random with
// a free instance there too); a call that took the instance may also run
// to its end, as a short guest does before it sees the cancellation.
func TestReuseCanceled(t *testing.T) {
	dir := plugins(t, map[string][]byte{"counter": wat2wasm(t, "counter", "")}, nil)
	write(t, dir, "counter.yaml", reuseManifest("counter", true, ""))
	f := start(t, Config{Dir: dir})
	require.Equal(t, uint32(1), count(t, f.do("POST", "/v1/plugins/counter", "", nil)))
	v, fail := f.s.acquire("counter")
	require.Nil(t, fail)
	defer func() { v.release(); f.s.active.done() }()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	canceled := 0
	for range 40 {
		_, err := f.s.callPooled(ctx, v, f.s.log, nil, &capped{max: 1 << 10}, &capped{max: 1 << 10, quiet: true})
		if err != nil {
			require.ErrorIs(t, err, host.ErrCanceled)
			canceled++
		}
	}
	require.Positive(t, canceled)
}
