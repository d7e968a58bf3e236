package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"sync"
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

// newRequestID makes an id: 16 random bytes in hex, unique in practice.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read does not fail (Go 1.24)
	return hex.EncodeToString(b[:])
}

type logKey struct{}

// withRequestID gives each request its id (RequestIDHeader) on the
// response and a logger with it in the request's context (logFor).
func (s *Server) withRequestID(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(RequestIDHeader)
		if !saneRequestID(id) {
			id = newRequestID()
		}
		w.Header().Set(RequestIDHeader, id)
		ctx := context.WithValue(r.Context(), logKey{}, s.log.With("request_id", id))
		h.ServeHTTP(w, r.WithContext(ctx))
	})
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
type active struct {
	mu       sync.Mutex
	n        int
	idle     chan struct{}
	runs     runLink // a ring of the runs in progress
	canceled bool    // cancel was called: every run from here on is cancelled
}

// runLink is a run in progress, linked in active's ring while it runs.
type runLink struct {
	prev, next *runLink
	cancel     context.CancelFunc
}

func newActive() *active {
	a := &active{idle: make(chan struct{})}
	close(a.idle)
	a.runs.prev, a.runs.next = &a.runs, &a.runs
	return a
}

func (a *active) add() {
	a.mu.Lock()
	if a.n == 0 {
		a.idle = make(chan struct{})
	}
	a.n++
	a.mu.Unlock()
}

func (a *active) done() {
	a.mu.Lock()
	a.n--
	if a.n == 0 {
		close(a.idle)
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
	return a.idle
}
