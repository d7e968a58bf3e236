package serve

// Kept instances: a reactor whose manifest says serve.reuse_instances: true
// (or every reactor whose manifest does not say, with
// Config.ReuseInstances) is served from a host.Pool of its version, one
// kept instance per request at a time, instead of an instance made and
// released per request. The pool's instances share one host.Config, made
// at load; what differs per request, the logger with the request's id and
// the buffer of the guest's stderr, reaches them through logRouter.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/aclwasm/aclwasm/host"
)

// reuses reports whether a reactor keeps its instances between requests:
// its manifest's serve.reuse_instances when set (manifest nil: not set),
// else the server's default.
func (s *Server) reuses(manifest *bool) bool {
	if manifest != nil {
		return *manifest
	}
	return s.cfg.ReuseInstances
}

// newPool gives reactor version v, whose plugin is pl, the pool its
// requests are served from: as many instances as its concurrency limit
// (the limit's semaphore is taken first, so a request never waits for an
// instance), each made by the first request that finds none idle, with
// what a fresh instance of the version gets but its stdio: no stdin, its
// stdout discarded (a reactor answers with output_write), its stderr and
// aclAppLog records routed to the request it runs for (logRouter).
func (s *Server) newPool(v *version, pl *host.Plugin) error {
	v.logs = &logRouter{fallback: s.log, live: map[uint64]*requestLog{}}
	p, err := pl.NewPool(host.PoolConfig{Size: cap(v.sem), Config: host.Config{
		Args: v.argv(), Env: v.env, Vars: v.vars, Name: v.name,
		Stdout: io.Discard, Logger: slog.New(v.logs)}})
	if err != nil {
		return err
	}
	v.pool = p
	return nil
}

// callPooled is callReactor on one of v's kept instances: while the
// export runs, the instance's log records go to log and its stderr to
// stderr. An instance the call ended (a trap, a timeout, a cancellation)
// is dropped by the pool, and the next request gets a fresh one; one
// whose export returned, a nonzero status or an output over the cap
// included, is kept.
func (s *Server) callPooled(ctx context.Context, v *version, log *slog.Logger, body []byte, out, stderr *capped) (host.Result, error) {
	var res host.Result
	err := v.pool.Do(ctx, func(inst *host.Instance) error {
		v.mem.calling(inst)
		defer v.mem.called(inst)
		id := inst.Session().ID()
		v.logs.route(id, &requestLog{log: log, stderr: stderr})
		defer v.logs.route(id, nil)
		b, err := inst.CallBytes(ctx, v.export, body, host.MaxOutput(out.max))
		res, err = bytesResult(b, err, out)
		return err
	})
	if err != nil && ctx.Err() != nil && !errors.Is(err, host.ErrCanceled) && !errors.Is(err, host.ErrTimeout) && !errors.Is(err, host.ErrClosed) {
		// Do refused to wait for an instance as the request ended (an
		// instance is always free for it: it holds one of the version's
		// cap(sem) places): a cancellation, as on a fresh instance.
		err = fmt.Errorf("%w: %w", host.ErrCanceled, err)
	}
	return res, err
}

// bytesResult is how a reactor's CallBytes ended, as a request's result:
// the export's nonzero status as its exit code with the guest's reason
// (error_set) as its message, an output over out's cap marked on out, and
// the output written to out (within the cap).
func bytesResult(b []byte, err error, out *capped) (host.Result, error) {
	var se *host.StatusError
	var res host.Result
	switch {
	case errors.Is(err, host.ErrOutputLimit):
		out.over, err = true, nil
	case errors.As(err, &se):
		res.ExitCode, res.Message, err = uint32(se.Status), se.Reason, nil
	}
	_, _ = out.Write(b) // within the cap; over it (no cap below the memory limit) marks it
	return res, err
}

// requestLog is where a kept instance's records go during one request:
// the request's logger (its request_id), and its stderr buffer.
type requestLog struct {
	log    *slog.Logger
	stderr *capped
}

// logRouter is the slog.Handler of a pool's instances. The host logs an
// instance's stderr, one record per line, and its aclAppLog records with
// the attributes session (its host.Session's ID) and, for a stream,
// stream (host.Config.Logger); the router sends the records of a session
// that runs a request to that request: a stderr line to its stderr buffer
// (logged with the request when it fails or exits nonzero, as a fresh
// instance's stderr is), the other records to its logger. A record made
// outside a request (the instance's _initialize, a line left unterminated
// until the instance is released) goes to the server's log. A line the
// guest leaves unterminated at the end of a request is kept by the host
// until the next newline, and goes with the request that writes it.
type logRouter struct {
	fallback *slog.Logger
	mu       sync.RWMutex
	live     map[uint64]*requestLog // by session ID, while it runs a request
}

// route sends the records of session id to rl from now on; nil: to the
// server's log.
func (r *logRouter) route(id uint64, rl *requestLog) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rl == nil {
		delete(r.live, id)
		return
	}
	r.live[id] = rl
}

func (r *logRouter) lookup(id uint64) *requestLog {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.live[id]
}

func (r *logRouter) Enabled(ctx context.Context, l slog.Level) bool {
	return routed{r: r}.Enabled(ctx, l)
}

func (r *logRouter) Handle(ctx context.Context, rec slog.Record) error {
	return routed{r: r}.Handle(ctx, rec)
}

func (r *logRouter) WithAttrs(as []slog.Attr) slog.Handler { return routed{r: r}.WithAttrs(as) }
func (r *logRouter) WithGroup(name string) slog.Handler    { return routed{r: r}.WithGroup(name) }

// routed is a logRouter's handler with the attributes and groups a
// logger added: the session and stream it found among them (outside any
// group), and every addition, replayed on the handler a record goes to.
type routed struct {
	r       *logRouter
	session uint64
	stream  string
	grouped bool // a group is open: later attributes are the guest's own
	ops     []func(slog.Handler) slog.Handler
}

// target is where the records go now: the request's logger, or the
// server's; and the request's stderr buffer for a stderr line.
func (h routed) target() (slog.Handler, *capped) {
	if rl := h.r.lookup(h.session); rl != nil {
		if h.stream == "stderr" {
			return nil, rl.stderr
		}
		return rl.log.Handler(), nil
	}
	return h.r.fallback.Handler(), nil
}

func (h routed) Enabled(ctx context.Context, l slog.Level) bool {
	t, buf := h.target()
	return buf != nil || t.Enabled(ctx, l)
}

func (h routed) Handle(ctx context.Context, rec slog.Record) error {
	t, buf := h.target()
	if buf != nil {
		_, _ = buf.Write(append([]byte(rec.Message), '\n')) // quiet: keeps its first bytes
		return nil
	}
	for _, op := range h.ops {
		t = op(t)
	}
	if !t.Enabled(ctx, rec.Level) {
		return nil
	}
	return t.Handle(ctx, rec)
}

func (h routed) WithAttrs(as []slog.Attr) slog.Handler {
	if !h.grouped {
		for _, a := range as {
			switch v := a.Value.Resolve(); {
			case a.Key == "session" && v.Kind() == slog.KindUint64:
				h.session = v.Uint64()
			case a.Key == "stream" && v.Kind() == slog.KindString:
				h.stream = v.String()
			}
		}
	}
	as = append([]slog.Attr(nil), as...)
	h.ops = append(h.ops[:len(h.ops):len(h.ops)], func(t slog.Handler) slog.Handler { return t.WithAttrs(as) })
	return h
}

func (h routed) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	h.grouped = true
	h.ops = append(h.ops[:len(h.ops):len(h.ops)], func(t slog.Handler) slog.Handler { return t.WithGroup(name) })
	return h
}
