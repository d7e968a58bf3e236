package host

import (
	"time"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

// Session is the state of one plugin instance, as its embedder sees it:
// its statistics, its most recent error message and its number. The
// session itself (address space, handles, limits) is the sandbox's.
type Session struct {
	s   *sandbox.Session
	rt  *Runtime
	obs RunObserver // the observed run in progress, nil if none
	hc  HostCall    // the embedder's host call in flight (hostCall)
}

// Stats returns a snapshot of the session's call statistics. Like
// LastError, call it between the instance's calls, not during one.
func (s *Session) Stats() Stats { return stats(s.s.Counts()) }

// LastError returns the session's most recent error message, as
// aclGetRecentErrMsg reports it. Call it between the instance's calls.
func (s *Session) LastError() string { return s.s.LastError() }

// ID returns the session's number, unique in the process: the "session"
// attribute of its log records and CallRecord.Session.
func (s *Session) ID() uint64 { return s.s.ID() }

// observe has ro follow the session's host calls (nil: none), along with
// the runtime's trace callback.
func (s *Session) observe(ro RunObserver) {
	s.obs = ro
	if s.rt.trace == nil && ro == nil {
		s.s.SetTracer(nil)
		return
	}
	s.s.SetTracer((*tracer)(s))
}

// tracer turns a session's host calls into CallRecords for the trace
// callback and the run's observer.
type tracer Session

func (t *tracer) HostCall(c *sandbox.Traced) {
	r := CallRecord{Func: c.Func, Args: traceArgs(c.Func, c.Stack), Result: c.Result, Code: c.Code, Msg: c.Msg, Session: c.Session, Start: c.Start}
	if c.Index >= 0 {
		r.Outs = traceOuts(c.Index, c.Profile, c.Mem, c.Stack, c.Code)
		r.Attrs = traceAttrs(c.Index, c.Mem, c.Stack)
	}
	r.Duration = time.Since(c.Start)
	if t.rt.trace != nil {
		t.rt.trace(r)
	}
	if t.obs != nil {
		t.obs.HostCall(r)
	}
}

// Stats counts what a session did: calls, errors by code and bytes moved by
// direction, per function. Bytes count when they move: those of a queued
// copy when it has run, so that work cancelled before it ran (a timeout,
// a trap) is not counted.
type Stats struct {
	Funcs map[string]FuncStats
	// Bytes moved by direction ("H2D", "D2H", "D2D", "H2H") over all functions.
	Bytes map[string]uint64
	// Set is the bytes the memset functions set (device or guest
	// memory), which move nowhere, so Bytes leaves them out.
	Set uint64
}

// FuncStats is the part of Stats about one function.
type FuncStats struct {
	Calls  uint64
	Errors map[acl.Error]uint64
	Bytes  map[string]uint64 // by direction
	Set    uint64            // bytes set (Stats.Set)
	// Launches counts the compute a launch function (an operator's
	// aclnnXxx) queued that executed, LaunchFailures those that failed
	// when they did, Compute the time they ran. Of the launches of a
	// quick kernel on at most 64 KiB past its first 64 in the session,
	// without metrics, one in 64 is timed and Compute estimates the rest
	// from those: timing each would cost more than such a launch.
	Launches, LaunchFailures uint64
	Compute                  time.Duration
}

// stats returns the statistics of a session's counts.
func stats(counts []sandbox.FuncCount) Stats {
	// Sized up front: a command run per request makes them every time.
	out := Stats{Funcs: make(map[string]FuncStats, len(counts)), Bytes: map[string]uint64{}}
	for _, c := range counts {
		fs := FuncStats{Calls: c.Calls, Errors: make(map[acl.Error]uint64, len(c.Errors)), Bytes: map[string]uint64{},
			Launches: c.Launches, LaunchFailures: c.LaunchFailures, Compute: c.Compute}
		for code, k := range c.Errors {
			fs.Errors[code] = k
		}
		for d, b := range c.Bytes {
			if d == sandbox.SetSlot {
				fs.Set = b
				out.Set += b
				continue
			}
			if b != 0 {
				name := acl.Direction(d).String()
				fs.Bytes[name] = b
				out.Bytes[name] += b
			}
		}
		out.Funcs[c.Name] = fs
	}
	return out
}
