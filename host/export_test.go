package host

import "github.com/aclwasm/aclwasm/host/internal/sandbox"

// What this package's external tests (package host_test, which share the
// proxy guest's harness with package sandbox's) may see inside.

// MaxTraceAttrs is how many batch attributes a trace line shows.
const MaxTraceAttrs = maxTraceAttrs

// SandboxMetrics returns the collectors behind m.
func SandboxMetrics(m *Metrics) *sandbox.Metrics { return m.m }

// Live returns how many instances of p are open.
func (p *Plugin) Live() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.live)
}

// Armed reports whether i has a call in progress that Close would cancel.
func (i *Instance) Armed() bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.armed
}
