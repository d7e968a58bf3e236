package host

import (
	"context"
	"errors"
)

// Observer watches the runs of plugins, for tracing: each Plugin.Run,
// Plugin.Instantiate and Instance.Call begins one run. It lets a tracing
// library (see host/otelhost) follow runs without this package importing it.
//
// Begin is called on the caller's goroutine before guest code runs; the
// RunObserver it returns (nil to skip the run) gets every host call the
// guest makes during the run, on the guest's goroutine, then the run's end.
// Neither may block.
type Observer interface {
	Begin(ctx context.Context, run RunInfo) RunObserver
}

// RunInfo describes a run that begins.
type RunInfo struct {
	Plugin string // the plugin's name (LoadName), "" if none
	// Export is what runs: "_start" for Plugin.Run, "_initialize" for
	// Plugin.Instantiate, the export's name for Instance.Call.
	Export string
}

// RunObserver follows one run.
type RunObserver interface {
	// HostCall is called after each host call of the run.
	HostCall(CallRecord)
	// End is called once when the run ends.
	End(RunEnd)
}

// RunEnd describes how a run ended.
type RunEnd struct {
	// Outcome is "ok", "exit" (a nonzero exit code), "trap", "timeout",
	// "canceled" or "error", as in the metrics' runs_total.
	Outcome  string
	ExitCode uint32
	Err      error
	Session  uint64 // the session's ID; 0 if it was never made
}

// WithObserver has o follow every run (see Observer). Several WithObserver
// options replace one another: the last one counts.
func WithObserver(o Observer) Option { return func(c *config) { c.observer = o } }

// outcome classifies how a run ended, for metrics and observers.
func outcome(exitCode uint32, err error) string {
	var ee *ExitError
	switch {
	case errors.As(err, &ee) && ee.Code != 0, err == nil && exitCode != 0:
		return "exit"
	case errors.Is(err, ErrTrap):
		return "trap"
	case errors.Is(err, ErrTimeout):
		return "timeout"
	case errors.Is(err, ErrCanceled):
		return "canceled"
	case err != nil && !errors.As(err, &ee):
		return "error"
	}
	return "ok"
}

// begin starts observing a run of p's export; nil without an observer.
func (p *Plugin) begin(ctx context.Context, export string) RunObserver {
	if p.rt.observer == nil {
		return nil
	}
	return p.rt.observer.Begin(ctx, RunInfo{Plugin: p.name, Export: export})
}

// end ends the observed run ro (nil: none).
func end(ro RunObserver, s *Session, exitCode uint32, err error) {
	if ro == nil {
		return
	}
	if ee := (*ExitError)(nil); errors.As(err, &ee) {
		exitCode = ee.Code
	}
	var id uint64
	if s != nil {
		s.observe(nil)
		id = s.ID()
	}
	ro.End(RunEnd{Outcome: outcome(exitCode, err), ExitCode: exitCode, Err: err, Session: id})
}

// ran counts how a run or reactor call of p ended, with WithMetrics.
func (p *Plugin) ran(exitCode uint32, err error) {
	if p.m != nil {
		p.m.Run(outcome(exitCode, err))
	}
}
