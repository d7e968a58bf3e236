package serve

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// pagesManifest is NAME.yaml with the policy's memory_pages, and the lines
// extra.
func pagesManifest(name string, pages int, extra string) string {
	return fmt.Sprintf("name: %s\nmodule: {path: %s.wasm}\npolicy: {memory_pages: %d}\n%s", name, name, pages, extra)
}

// holder holds the requests that reach the run hook (each holds its
// reservation there) until released.
type holder struct {
	t       *testing.T
	held    chan string
	proceed chan struct{}
	release func()
}

func hold(t *testing.T, f *fixture) *holder {
	h := &holder{t: t, held: make(chan string, 16), proceed: make(chan struct{})}
	h.release = sync.OnceFunc(func() { close(h.proceed) })
	t.Cleanup(h.release)
	f.s.testHookRun = func(name string) {
		h.held <- name
		<-h.proceed
	}
	return h
}

// wait waits for n requests to be held.
func (h *holder) wait(n int) {
	h.t.Helper()
	for range n {
		select {
		case <-h.held:
		case <-time.After(watchdog):
			h.t.Fatal("the requests did not reach the plugin")
		}
	}
}

// post sends a request to plugin from a goroutine; its answer comes on the
// channel.
func (f *fixture) post(plugin string) <-chan reply {
	c := make(chan reply, 1)
	go func() { r, _ := try("POST", f.url+"/v1/plugins/"+plugin, "", []byte("in")); c <- r }()
	return c
}

func answerOf(t *testing.T, c <-chan reply) reply {
	t.Helper()
	select {
	case r := <-c:
		return r
	case <-time.After(watchdog):
		t.Fatal("no answer")
	}
	return reply{}
}

// reserved is the budget's bytes reserved now.
func (s *Server) reserved() int64 {
	s.mem.mu.Lock()
	defer s.mem.mu.Unlock()
	return s.mem.reserved
}

// waiting reports whether n requests of plugin claim an instance (hold
// one, or wait for room).
func (s *Server) claims(plugin string) int {
	s.mu.RLock()
	v := s.plugins[plugin]
	s.mu.RUnlock()
	s.mem.mu.Lock()
	defer s.mem.mu.Unlock()
	return v.mem.claims
}

const mib = 1 << 20

// TestMemoryBudgetRefuses: with a budget of two instances (the policy's
// memory limit each), two requests in flight hold it, and a third gets
// 503 memory_budget after its wait, counted by plugin; an instance larger
// than the whole budget is refused at once. The two end, and the budget
// is free again.
func TestMemoryBudgetRefuses(t *testing.T) {
	echo := wat2wasm(t, "echo", "")
	dir := plugins(t, map[string][]byte{"echo": echo, "reactor": wat2wasm(t, "echo-reactor", ""), "big": echo}, nil)
	write(t, dir, "echo.yaml", pagesManifest("echo", 64, ""))
	write(t, dir, "reactor.yaml", pagesManifest("reactor", 64, ""))
	write(t, dir, "big.yaml", pagesManifest("big", 256, ""))
	// Fresh instances made per request (a prepared run's share:
	// TestPreparedRunsBudget).
	f := start(t, Config{Dir: dir, NoPrepare: true, MaxGuestMemory: 8 * mib, MemoryWait: time.Millisecond})
	h := hold(t, f)

	a, b := f.post("echo"), f.post("reactor")
	h.wait(2)
	require.Equal(t, int64(8*mib), f.s.reserved())
	for _, name := range []string{"echo", "reactor", "big"} {
		r := f.do("POST", "/v1/plugins/"+name, "", []byte("in"))
		require.Equal(t, 503, r.status, "%v", r)
		e := r.err(t)
		require.Equal(t, "memory_budget", e.Code)
		require.Equal(t, name, e.Plugin)
		require.Equal(t, "1", r.header.Get("Retry-After"))
		if name == "big" {
			require.Contains(t, e.Message, "needs 16777216 bytes (its policy's memory limit), more than the whole budget")
		} else {
			require.Contains(t, e.Message, "budget (8388608 bytes) has no room for another instance of 4194304 bytes: no room within 1ms")
		}
	}
	m := scrape(t, f.url+"/metrics")
	require.Equal(t, float64(8*mib), m.sum("aclwasm_guest_memory_budget_bytes"))
	require.Equal(t, float64(8*mib), m.sum("aclwasm_guest_memory_reserved_bytes"))
	for _, name := range []string{"echo", "reactor", "big"} {
		require.Equal(t, 1.0, m.sum("aclwasm_guest_memory_refusals_total", `plugin="`+name+`"`), name)
		require.Equal(t, 1.0, m.sum("aclwasm_http_requests_total", `plugin="`+name+`"`, `outcome="memory_budget"`), name)
	}

	h.release()
	for _, c := range []<-chan reply{a, b} {
		r := answerOf(t, c)
		require.Equal(t, 200, r.status, "%v", r)
	}
	require.Zero(t, f.s.reserved())
	require.Equal(t, 200, f.do("POST", "/v1/plugins/echo", "", nil).status)
	require.Zero(t, scrape(t, f.url+"/metrics").sum("aclwasm_guest_memory_reserved_bytes"))
}

// TestMemoryBudgetWaits: a request beyond the budget waits, and gets in
// when an instance is returned: a fresh one's at the end of its request,
// and, for a reused plugin, the kept instance a request left idle.
func TestMemoryBudgetWaits(t *testing.T) {
	dir := plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", ""), "counter": wat2wasm(t, "counter", "")}, nil)
	write(t, dir, "echo.yaml", pagesManifest("echo", 64, ""))
	write(t, dir, "counter.yaml", reuseManifest("counter", true, "policy: {memory_pages: 64}\n"))
	// Fresh instances made per request (a prepared run's share:
	// TestPreparedRunsBudget).
	f := start(t, Config{Dir: dir, NoPrepare: true, MaxGuestMemory: 4 * mib, MemoryWait: time.Hour})
	h := hold(t, f)

	for _, name := range []string{"echo", "counter"} {
		a := f.post(name)
		h.wait(1)
		b := f.post(name) // waits: the budget holds one instance
		for deadline := time.Now().Add(watchdog); f.s.claims(name) != 2 && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		}
		require.Equal(t, 2, f.s.claims(name), "the second request waits")
		require.Equal(t, int64(4*mib), f.s.reserved())
		h.proceed <- struct{}{} // a goes on and returns its instance, b gets it
		h.wait(1)
		h.proceed <- struct{}{}
		for _, c := range []<-chan reply{a, b} {
			r := answerOf(t, c)
			require.Equal(t, 200, r.status, "%v", r)
		}
	}
	// The counter's two requests ran one after the other on its one kept
	// instance, which still holds its reservation.
	require.Equal(t, uint32(3), count(t, h.call(f, "counter")))
	require.Equal(t, int64(4*mib), f.s.reserved())
	m := scrape(t, f.url+"/metrics")
	require.Zero(t, m.sum("aclwasm_guest_memory_refusals_total"))
	require.Equal(t, float64(4*mib), m.sum("aclwasm_guest_memory_reserved_bytes"))
	require.NoError(t, f.shutdown(time.Minute))
	require.Zero(t, f.s.reserved(), "reservations left after Shutdown")
}

// call is one request let through h at once.
func (h *holder) call(f *fixture, plugin string) reply {
	t := h.t
	c := f.post(plugin)
	h.wait(1)
	h.proceed <- struct{}{}
	return answerOf(t, c)
}

// TestMemoryBudgetEvictsIdle: a kept instance holds its reservation while
// it exists; a request of another plugin that needs its room closes it
// (counted), and the reused plugin's next request makes a new instance. A
// kept instance the call ended (a trap) returns its reservation, and so do
// the versions a reload retires and Shutdown closes.
func TestMemoryBudgetEvictsIdle(t *testing.T) {
	counter := wat2wasm(t, "counter", "")
	dir := plugins(t, map[string][]byte{"counter": counter, "echo": wat2wasm(t, "echo", "")}, nil)
	write(t, dir, "counter.yaml", reuseManifest("counter", true, "policy: {memory_pages: 64}\n"))
	write(t, dir, "echo.yaml", pagesManifest("echo", 64, ""))
	// Fresh instances made per request (a prepared run's share:
	// TestPreparedRunsBudget).
	f := start(t, Config{Dir: dir, NoPrepare: true, MaxGuestMemory: 4 * mib, MemoryWait: time.Millisecond})
	do := func(name, in string) reply { return f.do("POST", "/v1/plugins/"+name, "", []byte(in)) }

	require.Equal(t, uint32(1), count(t, do("counter", "")))
	require.Equal(t, uint32(2), count(t, do("counter", "")))
	require.Equal(t, 1.0, f.sessions("counter"))
	require.Equal(t, int64(4*mib), f.s.reserved(), "the kept instance holds its reservation")

	r := do("echo", "x")
	require.Equal(t, 200, r.status, "%v", r)
	require.Zero(t, f.sessions("counter"), "the idle kept instance was closed for echo's")
	m := scrape(t, f.url+"/metrics")
	require.Equal(t, 1.0, m.sum("aclwasm_guest_memory_evictions_total", `plugin="counter"`))
	require.Zero(t, m.sum("aclwasm_guest_memory_refusals_total"))
	require.Zero(t, f.s.reserved())

	require.Equal(t, uint32(1), count(t, do("counter", "")), "a new instance")
	require.Equal(t, int64(4*mib), f.s.reserved())
	r = do("counter", "trap")
	require.Equal(t, 502, r.status, "%v", r)
	require.Zero(t, f.s.reserved(), "the trapped instance's reservation")

	// A reload retires the version and its kept instance.
	require.Equal(t, uint32(1), count(t, do("counter", "")))
	require.Equal(t, int64(4*mib), f.s.reserved())
	write(t, dir, "counter.yaml", reuseManifest("counter", true, "policy: {memory_pages: 8}\n"))
	_, err := f.s.Reload(t.Context())
	require.NoError(t, err)
	require.Zero(t, f.s.reserved(), "the retired version's reservation")
	require.Equal(t, uint32(1), count(t, do("counter", "")))
	require.Equal(t, int64(512<<10), f.s.reserved())
	require.NoError(t, f.shutdown(time.Minute))
	require.Zero(t, f.s.reserved(), "reservations left after Shutdown")
}

// TestMemoryBudgetConfig: a negative budget or wait is refused; none is
// the default (no metrics, nothing reserved).
func TestMemoryBudgetConfig(t *testing.T) {
	dir := plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", "")}, nil)
	f := start(t, Config{Dir: dir})
	require.Nil(t, f.s.mem)
	require.Equal(t, 200, f.do("POST", "/v1/plugins/echo", "", nil).status)
	require.Zero(t, scrape(t, f.url+"/metrics").sum("aclwasm_guest_memory_budget_bytes"))
	for _, cfg := range []Config{{MaxGuestMemory: -1}, {MaxGuestMemory: mib, MemoryWait: -time.Second}} {
		cfg.Dir, cfg.Runtime = dir, f.rt
		_, err := New(t.Context(), cfg)
		require.ErrorContains(t, err, "negative Config limit")
	}
}

// TestMemoryShareFastPath: a request that finds room takes it and gives
// it back without an allocation (no timer, no function of its own, no
// new channel to wake waiters when none waits).
func TestMemoryShareFastPath(t *testing.T) {
	b, err := newMemBudget(Config{MaxGuestMemory: 4 * pageBytes, MemoryWait: time.Second}, nil)
	require.NoError(t, err)
	u := b.share("p", pageBytes, nil)
	changed := b.changed
	require.Zero(t, testing.AllocsPerRun(100, func() {
		done, fail := u.enter(context.Background())
		if fail != nil {
			t.Fatal(fail)
		}
		done()
	}))
	require.Zero(t, b.reserved)
	require.Zero(t, u.claims)
	require.Equal(t, changed, b.changed, "none waited: none to wake")
}
