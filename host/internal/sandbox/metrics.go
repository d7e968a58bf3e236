package sandbox

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// Metrics are the Prometheus series of host.Metrics, which makes them
// (NewMetrics there names and registers each); the sessions update them.
type Metrics struct {
	Calls, Errs, Bytes, Queued, Runs *prometheus.CounterVec
	Latency                          *prometheus.HistogramVec
	// Compute times the launches of compute (an operator's) as they
	// execute, by plugin, function and outcome (ok, failed); nil: none.
	Compute *prometheus.HistogramVec
	// ModelLoad times the loads of models by plugin, model name and
	// source (file: compiled from its file; cache: the runtime's copy);
	// ModelRun their executions by plugin, model name and outcome. nil:
	// none.
	ModelLoad, ModelRun *prometheus.HistogramVec
	Sessions, Allocated *prometheus.GaugeVec
	Registered          prometheus.Gauge

	mu      sync.Mutex
	plugins map[string]*PluginMetrics
	devices map[int32]prometheus.Gauge
}

// Plugin returns the metrics of the plugin named name; nil when m is nil.
func (m *Metrics) Plugin(name string) *PluginMetrics {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.plugins == nil {
		m.plugins = map[string]*PluginMetrics{}
	}
	pm, ok := m.plugins[name]
	if !ok {
		pm = &PluginMetrics{m: m, name: name, fns: make([]atomic.Pointer[funcMetrics], len(abi.Funcs)),
			sessions: m.Sessions.WithLabelValues(name)}
		m.plugins[name] = pm
	}
	return pm
}

func (m *Metrics) Device(phys int32) prometheus.Gauge {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.devices == nil {
		m.devices = map[int32]prometheus.Gauge{}
	}
	g, ok := m.devices[phys]
	if !ok {
		g = m.Allocated.WithLabelValues(strconv.Itoa(int(phys)))
		m.devices[phys] = g
	}
	return g
}

// PluginMetrics are the series of one plugin name, resolved once.
type PluginMetrics struct {
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

func (pm *PluginMetrics) fn(fi int) *funcMetrics {
	if f := pm.fns[fi].Load(); f != nil {
		return f
	}
	name := abi.Funcs[fi].Name
	pm.fns[fi].CompareAndSwap(nil, &funcMetrics{calls: pm.m.Calls.WithLabelValues(pm.name, name), latency: pm.m.Latency.WithLabelValues(pm.name, name)})
	return pm.fns[fi].Load()
}

// resolve stores c in p unless another goroutine stored one first, and
// returns what p holds: the slow path of a series' first use.
func resolve(p *atomic.Pointer[prometheus.Counter], c prometheus.Counter) prometheus.Counter {
	p.CompareAndSwap(nil, &c)
	return *p.Load()
}

// Run counts how a run or reactor call of the plugin ended (host's
// outcome names). It does nothing on a nil PluginMetrics.
func (pm *PluginMetrics) Run(outcome string) {
	if pm == nil {
		return
	}
	pm.m.Runs.WithLabelValues(pm.name, outcome).Inc()
}

// Refused counts a load of the plugin named name that the check refused.
// It does nothing on nil Metrics.
func (m *Metrics) Refused(name string) {
	if m != nil {
		m.Runs.WithLabelValues(name, "refused").Inc()
	}
}

// computeMetrics records a launch of function fi that ran for d.
func (s *Session) computeMetrics(fi int, d time.Duration, failed bool) {
	s.computeMetricsOf(abi.Funcs[fi].Name, d, failed)
}

// computeMetricsOf records a launch named name (an ABI function, a
// kernel) that ran for d.
func (s *Session) computeMetricsOf(name string, d time.Duration, failed bool) {
	if s.ms.pm == nil || s.ms.pm.m.Compute == nil {
		return
	}
	outcome := "ok"
	if failed {
		outcome = "failed"
	}
	s.ms.pm.m.Compute.WithLabelValues(s.ms.pm.name, name, outcome).Observe(d.Seconds())
}

// modelLoadMetrics records a load of model name that took d, compiled
// from its file or found in the runtime's cache.
func (s *Session) modelLoadMetrics(name string, d time.Duration, cached bool) {
	if s.ms.pm == nil || s.ms.pm.m.ModelLoad == nil {
		return
	}
	source := "file"
	if cached {
		source = "cache"
	}
	s.ms.pm.m.ModelLoad.WithLabelValues(s.ms.pm.name, name, source).Observe(d.Seconds())
}

// modelRunMetrics records an execution of model name that ran for d.
func (s *Session) modelRunMetrics(name string, d time.Duration, failed bool) {
	if s.ms.pm == nil || s.ms.pm.m.ModelRun == nil {
		return
	}
	outcome := "ok"
	if failed {
		outcome = "failed"
	}
	s.ms.pm.m.ModelRun.WithLabelValues(s.ms.pm.name, name, outcome).Observe(d.Seconds())
}

// sessionMetrics is a session's part: its plugin's series, and the memory
// it last reported, so that gauges move by what changed.
type sessionMetrics struct {
	pm     *PluginMetrics // set before the guest runs, never changed
	held   []uint64       // by guest device, as last reported
	pinned uint64
	ended  bool
}

// startMetrics attaches the session to its plugin's series (nil: none).
func (s *Session) startMetrics(pm *PluginMetrics) {
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
		s.ms.pm.m.Errs.WithLabelValues(s.ms.pm.name, abi.Funcs[fi].Name, strconv.Itoa(int(code))).Inc()
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
			m.Device(s.phys(int32(d))).Add(float64(h) - float64(old))
			s.ms.held[d] = h
		}
	}
	if s.pinned != s.ms.pinned {
		m.Registered.Add(float64(s.pinned) - float64(s.ms.pinned))
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
		v := resolve(p, s.ms.pm.m.Bytes.WithLabelValues(s.ms.pm.name, abi.Funcs[fi].Name, d.String()))
		c = &v
	}
	(*c).Add(float64(n))
}

// queuedMetrics counts an operation queued by function fi.
func (s *Session) queuedMetrics(fi int) {
	p := &s.ms.pm.fn(fi).queued
	c := p.Load()
	if c == nil {
		v := resolve(p, s.ms.pm.m.Queued.WithLabelValues(s.ms.pm.name, abi.Funcs[fi].Name))
		c = &v
	}
	(*c).Inc()
}
