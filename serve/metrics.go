package serve

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// serverMetrics are the server's own series, next to the host's
// (host.Metrics): requests by plugin and status, their duration, and the
// bytes of request bodies held against Config.MaxBuffered. The
// plugin label is empty for names that are no plugin, so that made-up
// names in URLs cannot grow the series.
type serverMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	held     prometheus.Gauge
	refused  prometheus.Counter
}

func newServerMetrics(reg prometheus.Registerer) (*serverMetrics, error) {
	if reg == nil {
		return nil, nil
	}
	m := &serverMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aclwasm_http_requests_total",
			Help: "Plugin requests (POST /v1/plugins/{name}) by plugin and HTTP status."}, []string{"plugin", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "aclwasm_http_request_duration_seconds",
			Help: "Duration of plugin requests, by plugin.", Buckets: prometheus.ExponentialBuckets(1e-4, 4, 10)}, []string{"plugin"}),
		held: prometheus.NewGauge(prometheus.GaugeOpts{Name: "aclwasm_http_buffered_bytes",
			Help: "Bytes of request bodies the server holds in memory now (bounded by --max-buffered)."}),
		refused: prometheus.NewCounter(prometheus.CounterOpts{Name: "aclwasm_http_buffer_refusals_total",
			Help: "Requests refused (503 buffers_full) because their body would take the bodies held beyond --max-buffered."}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.duration, m.held, m.refused} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *serverMetrics) observe(plugin string, status int, d time.Duration) {
	if m == nil {
		return
	}
	m.requests.WithLabelValues(plugin, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(plugin).Observe(d.Seconds())
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
