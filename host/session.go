package host

import (
	"time"

	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

// Session is the state of one plugin instance, as its embedder sees it:
// its statistics, its most recent error message and its number. The
// session itself (address space, handles, limits) is the sandbox's.
type Session struct {
	s   *sandbox.Session
	rt  *Runtime
	obs RunObserver // the observed run in progress, nil if none
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
