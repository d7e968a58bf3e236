package serve

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// serverMetrics are the server's own series, next to the host's
// (host.Metrics): requests by plugin, status and outcome, their duration,
// the requests in flight, the bytes of request bodies held against
// [Config.MaxBuffered], the directory's reloads, and each plugin's loads,
// load failures and state. The plugin label of a request is empty for
// names that are no plugin, so that made-up names in URLs cannot grow the
// series.
type serverMetrics struct {
	requests     *prometheus.CounterVec
	duration     *prometheus.HistogramVec
	inFlight     *prometheus.GaugeVec
	held         prometheus.Gauge
	refused      prometheus.Counter
	reloads      *prometheus.CounterVec
	loads        *prometheus.CounterVec
	loadFailures *prometheus.CounterVec
	state        *prometheus.GaugeVec
}

// pluginStates are the values of aclwasm_plugin_state's state label.
var pluginStates = []string{"ready", "stale", "refused", "invalid"}

func newServerMetrics(reg prometheus.Registerer) (*serverMetrics, error) {
	if reg == nil {
		return nil, nil
	}
	m := &serverMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aclwasm_http_requests_total",
			Help: "Plugin requests (POST /v1/plugins/{name}) by plugin, HTTP status and outcome: ok, nonzero (the guest's exit code or a reactor's status was not 0), or the failure's code (trap, timeout, shutting_down, ...)."},
			[]string{"plugin", "status", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "aclwasm_http_request_duration_seconds",
			Help: "Duration of plugin requests, by plugin.", Buckets: prometheus.ExponentialBuckets(1e-4, 4, 10)}, []string{"plugin"}),
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "aclwasm_http_requests_in_flight",
			Help: "Plugin requests being answered now (body read, run, answer), by plugin."}, []string{"plugin"}),
		held: prometheus.NewGauge(prometheus.GaugeOpts{Name: "aclwasm_http_buffered_bytes",
			Help: "Bytes of request bodies the server holds in memory now (bounded by --max-buffered)."}),
		refused: prometheus.NewCounter(prometheus.CounterOpts{Name: "aclwasm_http_buffer_refusals_total",
			Help: "Requests refused (503 buffers_full) because their body would take the bodies held beyond --max-buffered."}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aclwasm_reloads_total",
			Help: "Rescans of the plugin directory (poll, admin endpoint, Reload), by result: ok, or error (the directory could not be read)."}, []string{"result"}),
		loads: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aclwasm_plugin_loads_total",
			Help: "Versions of a plugin loaded and ready to serve, by plugin."}, []string{"plugin"}),
		loadFailures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aclwasm_plugin_load_failures_total",
			Help: "Versions of a plugin that failed to load (manifest, module, refusal), by plugin; the last good version serves on."}, []string{"plugin"}),
		state: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "aclwasm_plugin_state",
			Help: "1 for each plugin's state: ready, stale (the last good version serves, newer files failed to load), refused or invalid (it answers with its failure)."},
			[]string{"plugin", "state"}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.duration, m.inFlight, m.held, m.refused, m.reloads, m.loads, m.loadFailures, m.state} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *serverMetrics) observe(plugin string, status int, outcome string, d time.Duration) {
	if m == nil {
		return
	}
	m.requests.WithLabelValues(plugin, strconv.Itoa(status), outcome).Inc()
	m.duration.WithLabelValues(plugin).Observe(d.Seconds())
}

// running adds delta to the plugin's requests in flight.
func (m *serverMetrics) running(plugin string, delta int) {
	if m != nil {
		m.inFlight.WithLabelValues(plugin).Add(float64(delta))
	}
}

// buffered adds delta to the bytes held (a delta, not the total: two
// updates may reach the gauge out of order).
func (m *serverMetrics) buffered(delta int64) {
	if m != nil {
		m.held.Add(float64(delta))
	}
}

func (m *serverMetrics) bufferRefused() {
	if m != nil {
		m.refused.Inc()
	}
}

func (m *serverMetrics) reloaded(err error) {
	if m == nil {
		return
	}
	result := "ok"
	if err != nil {
		result = "error"
	}
	m.reloads.WithLabelValues(result).Inc()
}

func (m *serverMetrics) loaded(plugin string) {
	if m != nil && validName.MatchString(plugin) {
		m.loads.WithLabelValues(plugin).Inc()
	}
}

func (m *serverMetrics) loadFailed(plugin string) {
	if m != nil && validName.MatchString(plugin) {
		m.loadFailures.WithLabelValues(plugin).Inc()
	}
}

// pluginState sets the plugin's state series to 1 and drops its others;
// "" drops them all (the plugin is gone). Names that are no valid plugin
// name (a file in the directory) get no series.
func (m *serverMetrics) pluginState(plugin, state string) {
	if m == nil || !validName.MatchString(plugin) {
		return
	}
	for _, st := range pluginStates {
		if st != state {
			m.state.DeleteLabelValues(plugin, st)
		}
	}
	if state != "" {
		m.state.WithLabelValues(plugin, state).Set(1)
	}
}
