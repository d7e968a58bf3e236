package serve

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// serverMetrics are the server's own series, next to the host's
// (host.Metrics): requests by plugin, status and outcome, their duration,
// the requests in flight, the bytes of request bodies held against
// [Config.MaxBuffered], the directory's reloads, and each plugin's loads,
// load failures and state; with a Config.ConfigFile, the access rules'
// reload failures and last good reload; with TLS, when its certificates
// expire. The plugin label of a request is empty for
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
	// Of Config.ConfigFile, registered only with one.
	configFailures prometheus.Counter
	configLoaded   prometheus.Gauge
}

// pluginStates are the values of aclwasm_plugin_state's state label.
var pluginStates = []string{"ready", "stale", "refused", "invalid"}

// newServerMetrics registers the server's series on reg (none if nil):
// those of the access rules when config (Config.ConfigFile), and those of
// the certificates when ts (Config.TLS).
func newServerMetrics(reg prometheus.Registerer, config bool, ts *tlsState) (*serverMetrics, error) {
	if reg == nil {
		return nil, nil
	}
	m := &serverMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aclwasm_http_requests_total",
			Help: "Plugin requests (POST /v1/plugins/{name}) by plugin, HTTP status and outcome: ok, or the failure's code (plugin_failed: the guest's exit code or a reactor's status was not 0; trap, timeout, shutting_down, ...)."},
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
	cs := []prometheus.Collector{m.requests, m.duration, m.inFlight, m.held, m.refused, m.reloads, m.loads, m.loadFailures, m.state}
	if config {
		m.configFailures = prometheus.NewCounter(prometheus.CounterOpts{Name: "aclwasm_config_reload_failures_total",
			Help: "Reloads of the server configuration (the access rules: admin endpoint, SIGHUP) that failed; the rules in force were kept."})
		m.configLoaded = prometheus.NewGauge(prometheus.GaugeOpts{Name: "aclwasm_config_last_reload_success_timestamp_seconds",
			Help: "When the server configuration (the access rules) in force was read, in seconds since the Unix epoch."})
		cs = append(cs, m.configFailures, m.configLoaded)
	}
	if ts != nil {
		// Read at each scrape: the certificate served, reloaded when its
		// files change, is the one whose expiry matters.
		expiry := func(cert string, f func() time.Time) prometheus.Collector {
			return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "aclwasm_tls_certificate_expiry_timestamp_seconds",
				Help:        "When a certificate of the server expires (its NotAfter), in seconds since the Unix epoch, by cert: server (the one served now), client_ca (the first of the client CAs to expire).",
				ConstLabels: prometheus.Labels{"cert": cert}},
				func() float64 { return float64(f().Unix()) })
		}
		cs = append(cs, expiry("server", ts.certs.notAfter))
		if !ts.caNotAfter.IsZero() {
			cs = append(cs, expiry("client_ca", func() time.Time { return ts.caNotAfter }))
		}
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// observe counts a request of plugin that ended with status and outcome
// after d. ps, if not nil, is plugin's series (a version's requests).
func (m *serverMetrics) observe(ps *pluginSeries, plugin string, status int, outcome string, d time.Duration) {
	switch {
	case m == nil:
	case ps != nil:
		if status == http.StatusOK && outcome == "ok" {
			ps.okCounter().Inc()
		} else {
			m.requests.WithLabelValues(plugin, strconv.Itoa(status), outcome).Inc()
		}
		ps.duration.Observe(d.Seconds())
	default:
		m.requests.WithLabelValues(plugin, strconv.Itoa(status), outcome).Inc()
		m.duration.WithLabelValues(plugin).Observe(d.Seconds())
	}
}

// pluginSeries are a plugin's request series, looked up once per version
// of it (version.seriesOf), not per request: a lookup hashes the labels
// under the vector's lock, and makes the status's label.
type pluginSeries struct {
	m        *serverMetrics
	plugin   string
	inFlight prometheus.Gauge
	duration prometheus.Observer
	okOnce   sync.Once
	ok       prometheus.Counter // status 200, outcome ok: made at the first, as WithLabelValues would
}

// forPlugin returns plugin's series; nil without metrics.
func (m *serverMetrics) forPlugin(plugin string) *pluginSeries {
	if m == nil {
		return nil
	}
	return &pluginSeries{m: m, plugin: plugin, inFlight: m.inFlight.WithLabelValues(plugin), duration: m.duration.WithLabelValues(plugin)}
}

func (ps *pluginSeries) okCounter() prometheus.Counter {
	ps.okOnce.Do(func() { ps.ok = ps.m.requests.WithLabelValues(ps.plugin, "200", "ok") })
	return ps.ok
}

// running adds delta to the plugin's requests in flight.
func (ps *pluginSeries) running(delta int) {
	if ps != nil {
		ps.inFlight.Add(float64(delta))
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

// configReloaded counts a reload of the server configuration (New's
// first read included) that failed, or stamps one that succeeded.
func (m *serverMetrics) configReloaded(err error) {
	switch {
	case m == nil || m.configFailures == nil:
	case err != nil:
		m.configFailures.Inc()
	default:
		m.configLoaded.SetToCurrentTime()
	}
}
