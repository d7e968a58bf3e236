package serve

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"unsafe"
)

// RequestIDHeader carries a request's id: taken from the request when it
// is sane (maxRequestID printable ASCII characters at most), made
// otherwise, and sent back on the response. Every log record of the
// request has it as the attribute request_id, so that a client's report
// finds the server's records.
const RequestIDHeader = "X-Request-Id"

// maxRequestID bounds a client's request id: longer ones are replaced,
// so that a client cannot grow the log records.
const maxRequestID = 128

// saneRequestID reports whether a client's id may be used as given: 1 to
// maxRequestID characters, each printable ASCII without space (no control
// characters to forge log lines).
func saneRequestID(id string) bool {
	if id == "" || len(id) > maxRequestID {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] > '~' {
			return false
		}
	}
	return true
}

// newRequestID makes an id in b: 16 random bytes in hex, unique in
// practice. They come from math/rand/v2's generator (ChaCha8 per thread,
// seeded by the system), not crypto/rand: an id is no secret, and the
// system's generator costs a request about ten times more.
func newRequestID(b *[32]byte) string {
	var r [16]byte
	binary.LittleEndian.PutUint64(r[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(r[8:], rand.Uint64())
	hex.Encode(b[:], r[:])
	return unsafe.String(&b[0], len(b))
}

type logKey struct{}

// withRequestID gives each request its id (RequestIDHeader) on the
// response and a logger with it in the request's context (logFor).
func (s *Server) withRequestID(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := &requestCtx{Context: r.Context()}
		id := r.Header.Get(RequestIDHeader)
		if !saneRequestID(id) {
			id = newRequestID(&rc.made)
		}
		rc.ids[0] = id
		w.Header()[RequestIDHeader] = rc.ids[:] // as Header.Set, without a slice of its own
		rc.h = idHandler{h: s.log.Handler(), id: id}
		rc.log = *slog.New(&rc.h)
		h.ServeHTTP(w, r.WithContext(rc))
	})
}

// requestCtx is a request's context with its logger (logKey), and what
// the logger and the response's id header are made of, in one allocation
// (a context.WithValue, a Logger.With, the id and its header value were
// six), and guard's record of the body.
type requestCtx struct {
	context.Context
	log  slog.Logger
	h    idHandler
	ids  [1]string
	made [32]byte // a made id's bytes
	body trackedBody
}

func (c *requestCtx) Value(key any) any {
	if _, ok := key.(logKey); ok {
		return &c.log
	}
	return c.Context.Value(key)
}

// idHandler is the handler of a request's logger: h with the attribute
// request_id first, as h.WithAttrs would give it, but made only for the
// records that are logged (a request logs few, a successful one none).
type idHandler struct {
	h  slog.Handler
	id string
}

func (h *idHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.h.Enabled(ctx, l) }

func (h *idHandler) Handle(ctx context.Context, r slog.Record) error {
	nr := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	nr.AddAttrs(slog.String("request_id", h.id))
	r.Attrs(func(a slog.Attr) bool { nr.AddAttrs(a); return true })
	return h.h.Handle(ctx, nr)
}

func (h *idHandler) WithAttrs(as []slog.Attr) slog.Handler { return h.with().WithAttrs(as) }

func (h *idHandler) WithGroup(name string) slog.Handler { return h.with().WithGroup(name) }

// with is h's handler with the request id, made as Logger.With makes it.
func (h *idHandler) with() slog.Handler {
	return h.h.WithAttrs([]slog.Attr{slog.String("request_id", h.id)})
}

// logFor is the logger of request r: the server's, with its request id.
func (s *Server) logFor(r *http.Request) *slog.Logger {
	if l, ok := r.Context().Value(logKey{}).(*slog.Logger); ok {
		return l
	}
	return s.log
}

// active counts the requests that hold a plugin version; idle is closed
// while there are none, so that Shutdown can wait for the count to reach
// zero while new requests still come in (a sync.WaitGroup may not be
// added to while it is waited on at zero). It also holds the runs in
// progress (follow), so that Shutdown can cancel them at the end of its
// grace period (cancel): a run is cancelled through the lock that
// counts its request, not by a follower of a server-wide context of its
// own (context.AfterFunc: two allocations, and that context's lock twice,
// per request).
// Under Serve no run is held here: runs is the base of its connections'
// contexts (Server.baseContext), which cancels them.
type active struct {
	mu       sync.Mutex
	n        int
	idle     chan struct{} // made by zero while n > 0; closed and dropped when n reaches 0
	runs     runLink       // a ring of the runs in progress
	canceled bool          // cancel was called: every run from here on is cancelled
}

// runLink is a run in progress, linked in active's ring while it runs.
type runLink struct {
	prev, next *runLink
	cancel     context.CancelFunc
}

func newActive() *active {
	a := &active{}
	a.runs.prev, a.runs.next = &a.runs, &a.runs
	return a
}

// closedChan is zero's answer while no request is active.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// add counts a request in; no allocation (the channel zero waits on is
// made only when something waits).
func (a *active) add() {
	a.mu.Lock()
	a.n++
	a.mu.Unlock()
}

func (a *active) done() {
	a.mu.Lock()
	a.n--
	if a.n == 0 && a.idle != nil {
		close(a.idle)
		a.idle = nil
	}
	a.mu.Unlock()
}

// follow links l, whose cancel ends a run's context, until unfollow;
// once cancel has been called, it calls l.cancel at once.
func (a *active) follow(l *runLink) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.canceled {
		l.cancel()
		return
	}
	l.prev, l.next = a.runs.prev, &a.runs
	l.prev.next, a.runs.prev = l, l
}

// unfollow unlinks l (a run that ended).
func (a *active) unfollow(l *runLink) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if l.next != nil {
		l.prev.next, l.next.prev = l.next, l.prev
		l.prev, l.next = nil, nil
	}
}

// cancel cancels the runs in progress and every run that follows later.
func (a *active) cancel() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.canceled = true
	for l := a.runs.next; l != &a.runs; l = l.next {
		l.cancel()
	}
}

// zero is closed once no request is active (now, or when the last of
// those active now ends).
func (a *active) zero() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.n == 0 {
		return closedChan
	}
	if a.idle == nil {
		a.idle = make(chan struct{})
	}
	return a.idle
}
