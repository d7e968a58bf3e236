package host

import (
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// Metrics are Prometheus metrics of every session of the runtimes given
// them with WithMetrics: host calls, their errors and latency, bytes moved,
// queued operations, live sessions, device memory and pinned memory held,
// and how runs ended. Labels are bounded: the plugin's name (LoadName),
// the ABI function, the error code, the direction, the physical device and
// the outcome; never a session.
//
// The per-call cost when enabled is two clock reads, a few atomic adds and
// no allocation: a plugin resolves each function's series once, on its
// first call. A Runtime without Metrics pays one nil check per call.
type Metrics struct {
	calls, errs, bytes, queued, runs *prometheus.CounterVec
	latency                          *prometheus.HistogramVec
	sessions, allocated              *prometheus.GaugeVec
	registered                       prometheus.Gauge

	mu      sync.Mutex
	plugins map[string]*pluginMetrics
	devices map[int32]prometheus.Gauge
}

// NewMetrics creates the metrics and registers them with reg. It fails if
// reg already has metrics of the same names (one Metrics per registry; it
// may serve several runtimes).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	if reg == nil {
		return nil, errors.New("host: NewMetrics: nil Registerer")
	}
	fn := []string{"plugin", "function"}
	m := &Metrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aclwasm_calls_total",
			Help: "Host calls made by guests, by plugin and ABI function."}, fn),
		errs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aclwasm_call_errors_total",
			Help: "Host calls that returned an ACL error, by plugin, ABI function and native error code."}, append(fn, "code")),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aclwasm_bytes_total",
			Help: "Bytes moved by copies and memsets, by plugin, ABI function and direction (H2D, D2H, D2D, H2H)."}, append(fn, "direction")),
		queued: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aclwasm_queued_operations_total",
			Help: "Operations queued on streams (asynchronous copies, memsets, event records and waits), by plugin and ABI function."}, fn),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "aclwasm_call_duration_seconds",
			Help:    "Duration of host calls, by plugin and ABI function.",
			Buckets: prometheus.ExponentialBuckets(1e-6, 4, 11)}, fn),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aclwasm_runs_total",
			Help: "How runs (Plugin.Run), reactor calls (Instance.Call) and loads ended: ok, exit (nonzero exit code), trap, timeout, canceled, error (host error), refused (load refused)."}, []string{"plugin", "outcome"}),
		sessions: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "aclwasm_sessions",
			Help: "Live sessions (runs and instances not yet released), by plugin."}, []string{"plugin"}),
		allocated: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "aclwasm_device_allocated_bytes",
			Help: "Device memory held by live sessions, with native rounding, by physical device."}, []string{"device"}),
		registered: prometheus.NewGauge(prometheus.GaugeOpts{Name: "aclwasm_registered_bytes",
			Help: "Guest memory registered (pinned) by live sessions."}),
		plugins: map[string]*pluginMetrics{},
		devices: map[int32]prometheus.Gauge{},
	}
	for _, c := range []prometheus.Collector{m.calls, m.errs, m.bytes, m.queued, m.latency, m.runs, m.sessions, m.allocated, m.registered} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// WithMetrics records every session of the runtime in m.
func WithMetrics(m *Metrics) Option { return func(c *config) { c.metrics = m } }

// LoadOption configures one Load.
type LoadOption func(*loadConfig)

type loadConfig struct{ name string }

// LoadName names the plugin in metrics (the "plugin" label). Keep names
// few: each is a set of series.
func LoadName(name string) LoadOption { return func(c *loadConfig) { c.name = name } }

func loadOptions(opts []LoadOption) loadConfig {
	var c loadConfig
	for _, o := range opts {
		o(&c)
	}
	return c
}

// plugin returns the metrics of the plugin named name; nil when m is nil.
func (m *Metrics) plugin(name string) *pluginMetrics {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	pm, ok := m.plugins[name]
	if !ok {
		pm = &pluginMetrics{m: m, name: name, fns: make([]atomic.Pointer[funcMetrics], len(abi.Funcs)),
			sessions: m.sessions.WithLabelValues(name)}
		m.plugins[name] = pm
	}
	return pm
}

func (m *Metrics) device(phys int32) prometheus.Gauge {
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ok := m.devices[phys]
	if !ok {
		g = m.allocated.WithLabelValues(strconv.Itoa(int(phys)))
		m.devices[phys] = g
	}
	return g
}

// pluginMetrics are the series of one plugin name, resolved once.
type pluginMetrics struct {
	m        *Metrics
	name     string
	fns      []atomic.Pointer[funcMetrics] // by function index, on first use
	sessions prometheus.Gauge
}

type funcMetrics struct {
	calls   prometheus.Counter
	latency prometheus.Observer
	queued  atomic.Pointer[prometheus.Counter]
	bytes   [4]atomic.Pointer[prometheus.Counter] // by acl.Direction
}

func (pm *pluginMetrics) fn(fi int) *funcMetrics {
	if f := pm.fns[fi].Load(); f != nil {
		return f
	}
	name := abi.Funcs[fi].Name
	pm.fns[fi].CompareAndSwap(nil, &funcMetrics{calls: pm.m.calls.WithLabelValues(pm.name, name), latency: pm.m.latency.WithLabelValues(pm.name, name)})
	return pm.fns[fi].Load()
}

// resolve stores c in p unless another goroutine stored one first, and
// returns what p holds: the slow path of a series' first use.
func resolve(p *atomic.Pointer[prometheus.Counter], c prometheus.Counter) prometheus.Counter {
	p.CompareAndSwap(nil, &c)
	return *p.Load()
}

// run counts how a run or reactor call ended.
func (pm *pluginMetrics) run(exitCode uint32, err error) {
	if pm == nil {
		return
	}
	out := outcome(exitCode, err)
	pm.m.runs.WithLabelValues(pm.name, out).Inc()
}

// refused counts a load the check refused.
func (m *Metrics) refused(name string) {
	if m != nil {
		m.runs.WithLabelValues(name, "refused").Inc()
	}
}

// sessionMetrics is a session's part: its plugin's series, and the memory
// it last reported, so that gauges move by what changed.
type sessionMetrics struct {
	pm     *pluginMetrics // set before the guest runs, never changed
	held   []uint64       // by guest device, as last reported
	pinned uint64
	ended  bool
}

// startMetrics attaches the session to its plugin's series.
func (s *Session) startMetrics(pm *pluginMetrics) {
	if pm == nil {
		return
	}
	s.ms = sessionMetrics{pm: pm, held: make([]uint64, len(s.held))}
	pm.sessions.Inc()
}

// callMetrics records the host call fi that began at t0 and returned code.
func (s *Session) callMetrics(fi int, code acl.Error, t0 time.Time) {
	f := s.ms.pm.fn(fi)
	f.calls.Inc()
	f.latency.Observe(time.Since(t0).Seconds())
	if code != acl.Success {
		s.ms.pm.m.errs.WithLabelValues(s.ms.pm.name, abi.Funcs[fi].Name, strconv.Itoa(int(code))).Inc()
	}
	s.syncMemory()
}

// syncMemory moves the memory gauges by what the session's holdings
// changed since it last reported. The guest's goroutine (and release)
// change them, and call this.
func (s *Session) syncMemory() {
	m := s.ms.pm.m
	for d, h := range s.held {
		if old := s.ms.held[d]; h != old {
			m.device(s.phys(int32(d))).Add(float64(h) - float64(old))
			s.ms.held[d] = h
		}
	}
	if s.pinned != s.ms.pinned {
		m.registered.Add(float64(s.pinned) - float64(s.ms.pinned))
		s.ms.pinned = s.pinned
	}
}

// endMetrics reports a released session.
func (s *Session) endMetrics() {
	if s.ms.pm == nil || s.ms.ended {
		return
	}
	s.syncMemory()
	s.ms.pm.sessions.Dec()
	s.ms.ended = true
}

// movedMetrics counts n bytes moved in direction d by function fi; stream
// workers call it too.
func (s *Session) movedMetrics(fi int, d acl.Direction, n uint64) {
	p := &s.ms.pm.fn(fi).bytes[d&3]
	c := p.Load()
	if c == nil {
		v := resolve(p, s.ms.pm.m.bytes.WithLabelValues(s.ms.pm.name, abi.Funcs[fi].Name, d.String()))
		c = &v
	}
	(*c).Add(float64(n))
}

// queuedMetrics counts an operation queued by function fi.
func (s *Session) queuedMetrics(fi int) {
	p := &s.ms.pm.fn(fi).queued
	c := p.Load()
	if c == nil {
		v := resolve(p, s.ms.pm.m.queued.WithLabelValues(s.ms.pm.name, abi.Funcs[fi].Name))
		c = &v
	}
	(*c).Inc()
}
