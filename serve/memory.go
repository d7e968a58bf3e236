package serve

// The guest memory budget (Config.MaxGuestMemory): every instance the
// server makes reserves the most linear memory its plugin's policy allows
// (MemoryPages x 64 KiB) before it is made, and returns it when it is
// gone: a fresh instance when its request ends, a kept one (reuse.go)
// when its pool drops or closes it, a prepared one (prepare.go) when the
// request that took it ends or it is closed; a prepared one is made only
// where there is room at once. An instance beyond the budget waits
// (Config.MemoryWait, or until its request ends) for one to be returned,
// and closes idle kept and prepared instances of other plugins to make
// room; then its request gets 503 memory_budget.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/aclwasm/aclwasm/host"
)

// pageBytes is a wasm page.
const pageBytes = 64 << 10

// maxEvictions bounds the idle instances one request closes to make room:
// as many as make room when the accounting is right; the bound keeps the
// loop finite if a pool dropped instances unseen.
const maxEvictions = 64

// memBudget is the server's guest memory budget; nil: none.
type memBudget struct {
	max  int64
	wait time.Duration
	m    *memMetrics

	mu       sync.Mutex
	reserved int64
	changed  chan struct{}          // closed (and replaced) when bytes are returned while some wait
	waiting  int                    // requests waiting on changed
	kept     map[*memShare]struct{} // the versions with a pool: where idle instances are
}

// memShare is one plugin version's share of the budget: units reservations
// of unit bytes, held by its instances (a kept instance's while it
// exists), by the requests that are about to make one, and, for a pool,
// spare until no request is in flight (a request that reserved may find
// an instance that went idle meanwhile). Guarded by b.mu.
type memShare struct {
	b      *memBudget
	plugin string
	unit   int64
	pool   *host.Pool // nil: every request makes a fresh instance
	ahead  *ahead     // a command's prepared run (prepare.go); nil: none

	done   func() // ends a request's claim that holds its room (enter): made once, not per request
	units  int
	claims int                     // requests that hold, or wait for, an instance
	live   map[*host.Instance]bool // a pool's instances, seen in calls
	busy   int                     // of live, those in a call
	closed bool
}

// newMemBudget is the budget of cfg, with its metrics registered on reg;
// nil without one.
func newMemBudget(cfg Config, reg prometheus.Registerer) (*memBudget, error) {
	if cfg.MaxGuestMemory == 0 {
		return nil, nil
	}
	m, err := newMemMetrics(reg)
	if err != nil {
		return nil, err
	}
	b := &memBudget{max: cfg.MaxGuestMemory, wait: cfg.MemoryWait, m: m, changed: make(chan struct{}), kept: map[*memShare]struct{}{}}
	if m != nil {
		m.budget.Set(float64(b.max))
	}
	return b, nil
}

// use is the share of version v, whose plugin is loaded: its instances'
// unit is its policy's memory limit.
func (b *memBudget) use(v *version) *memShare {
	if b == nil {
		return nil
	}
	u := b.share(v.name, int64(v.pl.Policy().MemoryPages)*pageBytes, v.pool)
	if u.pool != nil {
		u.live = map[*host.Instance]bool{}
		b.mu.Lock()
		b.kept[u] = struct{}{}
		b.mu.Unlock()
	}
	return u
}

// share is a new share of plugin's instances of unit bytes each, kept
// in pool (nil: none).
func (b *memBudget) share(plugin string, unit int64, pool *host.Pool) *memShare {
	u := &memShare{b: b, plugin: plugin, unit: unit, pool: pool}
	u.done = func() { u.leave(true) }
	return u
}

// noShare is the done of a request without a budget.
func noShare() {}

// enter reserves, for one request, what the instance it runs on needs:
// a unit for a fresh instance; for a pool's, one when the pool may have
// to make one (no idle instance or spare reservation is left for it).
// Beyond the budget it closes idle kept instances of other plugins, then
// waits until bytes are returned, b.wait has passed or ctx is done; then
// it answers 503 memory_budget. done ends the request's share.
func (u *memShare) enter(ctx context.Context) (done func(), fail *apiError) {
	if u == nil {
		return noShare, nil
	}
	b := u.b
	if u.unit > b.max {
		b.m.refused(u.plugin)
		return nil, u.refusal(fmt.Sprintf("an instance of the plugin needs %d bytes (its policy's memory limit), more than the whole budget", u.unit))
	}
	b.mu.Lock()
	u.claims++
	ok := u.take()
	b.mu.Unlock()
	if ok { // room at once: no timer, no wait
		return u.done, nil
	}
	timer := time.NewTimer(b.wait)
	defer timer.Stop()
	for evictions := 0; ; {
		b.mu.Lock()
		if u.take() {
			b.mu.Unlock()
			return u.done, nil
		}
		var victim *memShare
		if evictions < maxEvictions {
			victim = b.idle(u)
		}
		if victim != nil {
			b.mu.Unlock()
			victim.evict(ctx)
			evictions++
			continue
		}
		changed := b.changed
		b.waiting++
		b.mu.Unlock()
		var why string
		select {
		case <-changed:
		case <-timer.C:
			why = fmt.Sprintf("no room within %v", b.wait)
		case <-ctx.Done():
			why = "the request ended while it waited"
		}
		b.mu.Lock()
		b.waiting--
		b.mu.Unlock()
		if why == "" {
			continue
		}
		u.leave(false)
		b.m.refused(u.plugin)
		return nil, u.refusal(why)
	}
}

// take gives the request of a claim the room its instance needs, if
// there is some: a pool's idle instance or spare unit, or a new unit of
// the budget; b.mu is held.
func (u *memShare) take() bool {
	b := u.b
	if u.pool != nil && u.claims <= u.units {
		return true
	}
	if b.reserved+u.unit > b.max {
		return false
	}
	b.reserved += u.unit
	u.units++
	b.m.set(b.reserved)
	return true
}

func (u *memShare) refusal(why string) *apiError {
	return &apiError{status: http.StatusServiceUnavailable, Code: "memory_budget", Plugin: u.plugin,
		Message: fmt.Sprintf("the server's guest memory budget (%d bytes) has no room for another instance of %d bytes: %s", u.b.max, u.unit, why)}
}

// leave ends a request's claim: a fresh instance's unit (held: the
// request reserved one) is returned; a pool's spare units are once no
// request is left.
func (u *memShare) leave(held bool) {
	b := u.b
	b.mu.Lock()
	defer b.mu.Unlock()
	u.claims--
	if u.closed {
		return
	}
	switch {
	case u.pool == nil && held:
		u.give(1)
	case u.pool != nil && u.claims == 0:
		u.give(u.units - len(u.live))
	case u.pool != nil:
		u.b.notify() // the instance it used is idle: a request that waits may take it
	}
}

// give returns n units; b.mu is held.
func (u *memShare) give(n int) {
	if n <= 0 {
		return
	}
	u.units -= n
	u.b.reserved -= int64(n) * u.unit
	u.b.m.set(u.b.reserved)
	u.b.notify()
}

// notify wakes the requests that wait for room; b.mu is held. With none
// waiting there is nothing to wake: a waiter takes b.changed under b.mu
// as it counts itself in (enter), so that it sees every later notify.
func (b *memBudget) notify() {
	if b.waiting == 0 {
		return
	}
	close(b.changed)
	b.changed = make(chan struct{})
}

// calling records that a pool's call runs on inst (a new one was made
// with a unit its request reserved).
func (u *memShare) calling(inst *host.Instance) {
	if u == nil {
		return
	}
	u.b.mu.Lock()
	defer u.b.mu.Unlock()
	if u.closed { // its pool is closed: it makes no instance
		return
	}
	u.live[inst] = true
	u.busy++
}

// called records that the call on inst returned: an instance the call
// ended (a trap, a timeout, a cancellation, Close) is dropped by the
// pool, and its unit is returned.
func (u *memShare) called(inst *host.Instance) {
	if u == nil {
		return
	}
	_, err := inst.ReadMemory(0, 0) // fails with ErrClosed once the instance ended
	u.b.mu.Lock()
	defer u.b.mu.Unlock()
	if u.closed {
		return
	}
	u.busy--
	if errors.Is(err, host.ErrClosed) && u.live[inst] {
		delete(u.live, inst)
		u.give(1)
	}
}

// idle returns a pool other than u's with an idle instance (and a unit
// no request claims), or a command other than u's with a prepared run,
// claimed for its eviction; nil if none. b.mu is held.
func (b *memBudget) idle(u *memShare) *memShare {
	for k := range b.kept {
		if k == u || k.closed {
			continue
		}
		if k.pool != nil && len(k.live) > k.busy && k.units > k.claims || k.ahead != nil && len(k.ahead.ready) > 0 {
			k.claims++
			return k
		}
	}
	return nil
}

// prepares makes u the share of command version whose prepared run is
// a: the budget may close that run to make room (idle).
func (u *memShare) prepares(a *ahead) {
	if u == nil || a == nil {
		return
	}
	u.ahead = a
	u.b.mu.Lock()
	u.b.kept[u] = struct{}{}
	u.b.mu.Unlock()
}

// reserveAhead reserves the unit of a prepared run about to be made, if
// there is room at once and no request waits for some: a run made ahead
// never waits, nor takes room a request waits for.
func (u *memShare) reserveAhead() bool {
	if u == nil {
		return true
	}
	b := u.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if u.closed || b.waiting > 0 || b.reserved+u.unit > b.max {
		return false
	}
	b.reserved += u.unit
	u.units++
	b.m.set(b.reserved)
	return true
}

// dropAhead returns the unit of a prepared run that was not made, or
// that eviction closed.
func (u *memShare) dropAhead() {
	if u == nil {
		return
	}
	u.b.mu.Lock()
	defer u.b.mu.Unlock()
	if u.closed {
		return
	}
	u.give(1)
}

// adopt makes the unit of a prepared run the claim of the request that
// takes it, which done returns as a fresh instance's.
func (u *memShare) adopt() (done func()) {
	if u == nil {
		return noShare
	}
	u.b.mu.Lock()
	defer u.b.mu.Unlock()
	u.claims++
	return u.done
}

// evict closes one of u's idle instances, or its prepared run, claimed
// by idle: its unit is returned as the pool drops it, or here.
func (u *memShare) evict(ctx context.Context) {
	if u.pool == nil {
		if r := u.ahead.take(); r != nil {
			_ = r.Close(ctx)
			u.dropAhead()
			u.b.m.evicted(u.plugin)
		}
		u.leave(false)
		return
	}
	ran := false
	_ = u.pool.Do(ctx, func(inst *host.Instance) error {
		ran = true
		u.calling(inst)
		defer u.called(inst)
		return inst.Close(ctx)
	})
	if ran {
		u.b.m.evicted(u.plugin)
	}
	u.leave(false)
}

// close returns every unit of a version being closed: no request holds
// it, and its pool's instances are closed.
func (u *memShare) close() {
	if u == nil {
		return
	}
	b := u.b
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.kept, u)
	u.give(u.units)
	u.live = nil
	u.closed = true
}

// memMetrics are the budget's series: the budget, the bytes reserved, and
// by plugin the requests refused and the idle instances closed for room.
type memMetrics struct {
	budget    prometheus.Gauge
	reserved  prometheus.Gauge
	refusals  *prometheus.CounterVec
	evictions *prometheus.CounterVec
}

func newMemMetrics(reg prometheus.Registerer) (*memMetrics, error) {
	if reg == nil {
		return nil, nil
	}
	m := &memMetrics{
		budget: prometheus.NewGauge(prometheus.GaugeOpts{Name: "aclwasm_guest_memory_budget_bytes",
			Help: "The server's budget of guest linear memory (--max-guest-memory)."}),
		reserved: prometheus.NewGauge(prometheus.GaugeOpts{Name: "aclwasm_guest_memory_reserved_bytes",
			Help: "Guest memory reserved now against the budget: each instance's policy memory limit, fresh ones while they run, kept ones while they exist."}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aclwasm_guest_memory_refusals_total",
			Help: "Requests refused (503 memory_budget) because the budget had no room for their instance, by plugin."}, []string{"plugin"}),
		evictions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aclwasm_guest_memory_evictions_total",
			Help: "Idle kept instances closed to make room in the budget for another plugin's instance, by the plugin of the closed instance."}, []string{"plugin"}),
	}
	for _, c := range []prometheus.Collector{m.budget, m.reserved, m.refusals, m.evictions} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// set is the bytes reserved now (set under the budget's lock, in order).
func (m *memMetrics) set(reserved int64) {
	if m != nil {
		m.reserved.Set(float64(reserved))
	}
}

func (m *memMetrics) refused(plugin string) {
	if m != nil {
		m.refusals.WithLabelValues(plugin).Inc()
	}
}

func (m *memMetrics) evicted(plugin string) {
	if m != nil {
		m.evictions.WithLabelValues(plugin).Inc()
	}
}
