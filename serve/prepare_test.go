package serve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host"
)

// TestPreparedRuns: after a command's first request the server keeps its
// next run made (one session, no device memory), the next request runs
// on it and makes the one after, every answer is its own request's, and
// the plugin's removal closes the run left.
func TestPreparedRuns(t *testing.T) {
	ctx := context.Background()
	dir := plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", ""), "exit3": wat2wasm(t, "exit3", "")}, nil)
	f := start(t, Config{Dir: dir})
	require.Zero(t, f.sessions("echo"), "none made before a request")
	var kept *host.Prepared
	for k := range 10 {
		body := fmt.Sprintf("request %d", k)
		r := f.do("POST", "/v1/plugins/echo", "", []byte(body))
		require.Equal(t, 200, r.status, "%v", r)
		require.Equal(t, "echo:"+body, string(r.body), "each answer is its own request's")
		require.Equal(t, strconv.Itoa(len(r.body)), r.header.Get("Content-Length"))
		if kept != nil {
			_, err := kept.Run(ctx, host.Stdio{})
			require.ErrorContains(t, err, "already ran", "the request ran on the run made before it")
		}
		// The next run, made after the answer: a look at it, when it is
		// made (the answer comes first), and it goes back at once.
		a := f.version(t, "echo").ahead
		kept = <-a.ready
		a.ready <- kept
		require.Equal(t, 1.0, f.sessions("echo"), "one session: the next run's")
	}
	require.Equal(t, f.base, freeMem(t, f.b), "a prepared run holds no device memory")

	r := f.do("POST", "/v1/plugins/exit3", "", nil)
	require.Equal(t, 502, r.status, "%v", r)
	require.Equal(t, "3", r.header.Get("X-Aclwasm-Exit-Code"))
	require.Eventually(t, func() bool { return f.sessions("exit3") == 1 }, watchdog, time.Millisecond, "made after a failed run too")

	require.NoError(t, os.Remove(filepath.Join(dir, "echo.wasm")))
	_, err := f.s.Reload(ctx)
	require.NoError(t, err)
	require.Zero(t, f.sessions("echo"), "closed with its version")
	_, err = kept.Run(ctx, host.Stdio{})
	require.ErrorIs(t, err, host.ErrClosed)
}

// TestPreparedRunsOff: with NoPrepare a command's requests make their
// runs themselves and nothing is left once they are answered.
func TestPreparedRunsOff(t *testing.T) {
	f := start(t, Config{Dir: plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", "")}, nil), NoPrepare: true})
	for range 3 {
		r := f.do("POST", "/v1/plugins/echo", "", []byte("x"))
		require.Equal(t, 200, r.status, "%v", r)
		require.Equal(t, "echo:x", string(r.body))
	}
	require.Nil(t, f.version(t, "echo").ahead)
	require.Zero(t, f.sessions("echo"))
}

// TestPreparedRunsBudget: under a guest memory budget a prepared run
// holds its instance's share, which the request that takes it takes
// over; another plugin's request that finds no room closes it (an
// eviction), and a run is prepared only where there is room at once.
func TestPreparedRunsBudget(t *testing.T) {
	dir := plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", ""), "exit3": wat2wasm(t, "exit3", "")}, nil)
	for _, name := range []string{"echo", "exit3"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(pagesManifest(name, 64, "")), 0o644))
	}
	const unit = 64 * pageBytes
	f := start(t, Config{Dir: dir, MaxGuestMemory: unit}) // room for one instance
	metric := func(name string, labels ...string) func() float64 {
		return func() float64 { return scrape(t, f.url+"/metrics").sum(name, labels...) }
	}
	reserved := metric("aclwasm_guest_memory_reserved_bytes")
	evicted := func(plugin string) float64 {
		return metric("aclwasm_guest_memory_evictions_total", `plugin="`+plugin+`"`)()
	}
	eventually := func(what string, get func() float64, want float64) {
		t.Helper()
		require.Eventually(t, func() bool { return get() == want }, watchdog, time.Millisecond, "%s: %v, want %v", what, get(), want)
	}

	for k := range 3 {
		r := f.do("POST", "/v1/plugins/echo", "", []byte("x"))
		require.Equal(t, "echo:x", string(r.body), "%v", r)
		eventually("echo's sessions", func() float64 { return f.sessions("echo") }, 1)
		require.Equal(t, float64(unit), reserved(), "request %d: the prepared run holds the only room", k)
	}
	r := f.do("POST", "/v1/plugins/exit3", "", nil)
	require.Equal(t, 502, r.status, "%v", r)
	require.Equal(t, 1.0, evicted("echo"), "exit3's request closed echo's prepared run")
	require.Zero(t, f.sessions("echo"))
	eventually("exit3's sessions", func() float64 { return f.sessions("exit3") }, 1)
	require.Equal(t, float64(unit), reserved())

	r = f.do("POST", "/v1/plugins/echo", "", []byte("y"))
	require.Equal(t, "echo:y", string(r.body), "%v", r)
	require.Equal(t, 1.0, evicted("exit3"))
	eventually("echo's sessions", func() float64 { return f.sessions("echo") }, 1)
	require.Equal(t, float64(unit), reserved())
}

// version is the current version of plugin name.
func (f *fixture) version(t *testing.T, name string) *version {
	t.Helper()
	f.s.mu.RLock()
	defer f.s.mu.RUnlock()
	v := f.s.plugins[name]
	require.NotNil(t, v, "no plugin %q", name)
	return v
}

// TestPreparedRunsOnlyIdle: a request that ends while another of its
// plugin is in flight makes no run ahead; the last one to end does.
func TestPreparedRunsOnlyIdle(t *testing.T) {
	dir := plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", "")}, nil)
	f := start(t, Config{Dir: dir})
	entered, proceed := make(chan struct{}), make(chan struct{})
	release := sync.OnceFunc(func() { close(proceed) })
	t.Cleanup(release) // before the fixture's shutdown, if the test fails early
	var first atomic.Bool
	f.s.testHookRun = func(string) {
		if first.CompareAndSwap(false, true) {
			close(entered)
			<-proceed
		}
	}
	held := make(chan reply, 1)
	go func() { held <- f.do("POST", "/v1/plugins/echo", "", []byte("held")) }()
	<-entered
	r := f.do("POST", "/v1/plugins/echo", "", []byte("other"))
	require.Equal(t, "echo:other", string(r.body))
	require.Zero(t, f.sessions("echo"), "another request was in flight: none made")
	release()
	r = <-held
	require.Equal(t, "echo:held", string(r.body))
	require.Eventually(t, func() bool { return f.sessions("echo") == 1 }, watchdog, time.Millisecond, "the last one made it")
}
