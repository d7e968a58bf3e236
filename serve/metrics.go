package serve

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// serverMetrics are the server's own series, next to the host's
// (host.Metrics): requests by plugin and status, and their duration. The
// plugin label is empty for names that are no plugin, so that made-up
// names in URLs cannot grow the series.
type serverMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
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
	}
	for _, c := range []prometheus.Collector{m.requests, m.duration} {
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
