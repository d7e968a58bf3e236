package host

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

// Metrics are Prometheus metrics of every session of the runtimes given
// them with WithMetrics: host calls, their errors and latency, bytes moved,
// queued operations, compute launches and their time, model loads and
// executions by model name, live sessions, device memory and pinned memory held,
// and how runs ended. Labels are bounded: the plugin's name (LoadName),
// the ABI function, the error code, the direction, the physical device,
// the model name the policy approved and the outcome; never a session.
//
// The per-call cost when enabled is two clock reads, a few atomic adds and
// no allocation: a plugin resolves each function's series once, on its
// first call. A Runtime without Metrics pays one nil check per call.
type Metrics struct{ m *sandbox.Metrics }

// NewMetrics creates the metrics and registers them with reg. It fails if
// reg already has metrics of the same names (one Metrics per registry; it
// may serve several runtimes).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	if reg == nil {
		return nil, errors.New("host: NewMetrics: nil Registerer")
	}
	fn := []string{"plugin", "function"}
	m := &sandbox.Metrics{
		Calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aclwasm_calls_total",
			Help: "Host calls made by guests, by plugin and ABI function."}, fn),
		Errs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aclwasm_call_errors_total",
			Help: "Host calls that returned an ACL error, by plugin, ABI function and native error code."}, append(fn, "code")),
		Bytes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aclwasm_bytes_total",
			Help: "Bytes moved by copies and memsets, by plugin, ABI function and direction (H2D, D2H, D2D, H2H)."}, append(fn, "direction")),
		Queued: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aclwasm_queued_operations_total",
			Help: "Operations queued on streams (asynchronous copies, memsets, event records and waits), by plugin and ABI function."}, fn),
		Latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "aclwasm_call_duration_seconds",
			Help:    "Duration of host calls, by plugin and ABI function.",
			Buckets: prometheus.ExponentialBuckets(1e-6, 4, 11)}, fn),
		Compute: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "aclwasm_compute_duration_seconds",
			Help:    "Launches of compute (the operator library's, registered kernels') as they executed, by plugin, function (an ABI function or a kernel's name) and outcome (ok, failed): their count, and the time they ran.",
			Buckets: prometheus.ExponentialBuckets(1e-6, 4, 11)}, append(fn, "outcome")),
		ModelLoad: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "aclwasm_model_load_duration_seconds",
			Help:    "Loads of approved models (aclmdlLoadFromFile), by plugin, model name and source (file: compiled from its file; cache: the runtime's compiled copy): their count, and the time they took.",
			Buckets: prometheus.ExponentialBuckets(1e-6, 4, 13)}, []string{"plugin", "model", "source"}),
		ModelRun: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "aclwasm_model_execution_duration_seconds",
			Help:    "Executions of models (aclmdlExecute, aclmdlExecuteAsync) as they ran, by plugin, model name and outcome (ok, failed): their count, and the time they ran.",
			Buckets: prometheus.ExponentialBuckets(1e-6, 4, 13)}, []string{"plugin", "model", "outcome"}),
		Runs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aclwasm_runs_total",
			Help: "How runs (Plugin.Run), reactor calls (Instance.Call) and loads ended: ok, exit (nonzero exit code), trap, timeout, canceled, error (host error), refused (load refused)."}, []string{"plugin", "outcome"}),
		Sessions: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "aclwasm_sessions",
			Help: "Live sessions (runs and instances not yet released), by plugin."}, []string{"plugin"}),
		Allocated: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "aclwasm_device_allocated_bytes",
			Help: "Device memory held by live sessions, with native rounding, by physical device."}, []string{"device"}),
		Registered: prometheus.NewGauge(prometheus.GaugeOpts{Name: "aclwasm_registered_bytes",
			Help: "Guest memory registered (pinned) by live sessions."}),
	}
	for _, c := range []prometheus.Collector{m.Calls, m.Errs, m.Bytes, m.Queued, m.Latency, m.Compute, m.ModelLoad, m.ModelRun, m.Runs, m.Sessions, m.Allocated, m.Registered} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return &Metrics{m: m}, nil
}

// WithMetrics records every session of the runtime in m.
func WithMetrics(m *Metrics) Option { return func(c *config) { c.metrics = m } }

// plugin returns the metrics of the plugin named name; nil when m is nil.
func (m *Metrics) plugin(name string) *sandbox.PluginMetrics {
	if m == nil {
		return nil
	}
	return m.m.Plugin(name)
}

// refused counts a load the check refused.
func (m *Metrics) refused(name string) {
	if m != nil {
		m.m.Refused(name)
	}
}
