package serve

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"
	"sync/atomic"
	"time"
)

// refusedBodyGrace is how long the server still reads a refused request's
// body, to discard it, before it gives up and closes the connection: long
// enough for a client that sent its (small) body with its headers, so that
// closing does not reset the connection before the client reads the
// answer, too short for a trickling body to hold the server.
const refusedBodyGrace = 250 * time.Millisecond

// drainMax bounds the bytes of an HTTP/2 request's unread body that the
// server reads to discard them (drain).
const drainMax = 4 << 20

// drain ends an HTTP/2 answer given before its request's body was read:
// the answer is flushed whole, then the rest of the body is read and
// dropped, for refusedBodyGrace and drainMax bytes at most, so that a
// client that sends its body while the answer arrives sees its stream end
// cleanly. Past those bounds net/http resets the stream (RST_STREAM
// NO_ERROR after the answer, RFC 9113 8.1), which is correct, but which
// some clients read as a failed transfer while they still send (curl
// 7.88 over h2c: "(92) Stream error in the HTTP/2 framing layer"). The
// connection and its other streams go on either way.
func drain(w http.ResponseWriter, tb *trackedBody) {
	rc := http.NewResponseController(w)
	if rc.Flush() != nil {
		return
	}
	_ = rc.SetReadDeadline(time.Now().Add(refusedBodyGrace))
	_, _ = io.CopyN(io.Discard, tb, drainMax)
}

// trackedBody is a request body that knows whether it was read to its end,
// so that an answer given before then closes the connection instead of
// letting net/http drain the rest (up to 256 KiB, for as long as the read
// timeout allows).
type trackedBody struct {
	io.ReadCloser
	want, n int64 // want is the Content-Length, -1 if unknown
	done    bool
}

func (b *trackedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	if err == io.EOF || (b.want >= 0 && b.n >= b.want) {
		b.done = true
	}
	return n, err
}

// unread reports whether r has a body not yet read to its end.
func unread(r *http.Request) bool {
	tb, ok := r.Body.(*trackedBody)
	return ok && !tb.done
}

// guard wraps every endpoint. A path not in canonical form gets 404 (not
// the mux's redirect), as does one with an escaped slash (%2F), whose
// decoded and escaped forms have different segments. Over HTTP/1, an
// answer to a request whose body was not read (a refusal, or an endpoint
// that takes no body) is sent with "Connection: close" (writeJSON sets
// it), and once the handler returns the server stops reading that body
// after refusedBodyGrace. Over HTTP/2 the connection stays: the answer is
// flushed and the rest of the body drained, within bounds (drain).
func guard(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var tb *trackedBody
		if r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody {
			if rc, ok := r.Context().(*requestCtx); ok {
				tb = &rc.body // in the request's one allocation (withRequestID)
			} else {
				tb = new(trackedBody)
			}
			*tb = trackedBody{ReadCloser: r.Body, want: r.ContentLength}
			// r is net/http's own request: it looks at its Body once the
			// handler returns, to close a large unread body early and
			// delay the close of the connection so that the client reads
			// the answer before a reset.
			orig := r.Body
			defer func() { r.Body = orig }()
			r.Body = tb
			if r.Method != http.MethodPost && r.ProtoMajor == 1 { // no endpoint reads a body but POST ones
				w.Header().Set("Connection", "close")
			}
		}
		if p := r.URL.Path; !strings.HasPrefix(p, "/") || path.Clean(p) != p {
			// http.ServeMux would redirect (or answer 400 to "*") with no
			// JSON body: a path that is not in canonical form names nothing.
			writeErr(w, r, &apiError{status: http.StatusNotFound, Code: "not_found", Message: fmt.Sprintf("no endpoint %q: paths are absolute and clean", p)})
		} else if e := r.URL.EscapedPath(); strings.Count(e, "/") != strings.Count(p, "/") {
			// An escaped slash: the mux routes /v1/plugins/a%2Fb to plugin
			// "a/b", while the decoded path has one segment more. Such a
			// path is read two ways; no name has a slash: it names nothing.
			writeErr(w, r, &apiError{status: http.StatusNotFound, Code: "not_found", Message: fmt.Sprintf("no endpoint %q: a path has no escaped slash (%%2F)", e)})
		} else {
			h.ServeHTTP(w, r)
		}
		switch {
		case tb == nil || tb.done:
		case r.ProtoMajor == 1:
			// Not supported under a ResponseWriter other than net/http's
			// (a test's recorder): there is no connection to hold then.
			_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(refusedBodyGrace))
		default:
			drain(w, tb)
		}
	})
}

// budget bounds the bytes of request bodies that all requests together
// hold in memory ([Config.MaxBuffered]).
type budget struct {
	max  int64
	used atomic.Int64
	m    *serverMetrics
}

// reserve takes n bytes of the budget, or reports that they are not free.
func (b *budget) reserve(n int64) bool {
	for {
		cur := b.used.Load()
		if cur+n > b.max {
			b.m.bufferRefused()
			return false
		}
		if b.used.CompareAndSwap(cur, cur+n) {
			b.m.buffered(n)
			return true
		}
	}
}

func (b *budget) release(n int64) {
	if n != 0 {
		b.used.Add(-n)
		b.m.buffered(-n)
	}
}

// readChunk is the first reservation for a body of unknown length; the
// buffer doubles from there.
const readChunk = 64 << 10

// readBody reads r's body (at most Config.MaxBody) into memory reserved
// from the server's budget before it is read, and returns it with the
// bytes held: the caller releases them once done with the body. A body of
// known length is reserved whole; one of unknown length (chunked) as its
// buffer grows.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, plugin string) ([]byte, int64, *apiError) {
	full := func() *apiError {
		w.Header().Set("Retry-After", "1")
		return &apiError{status: http.StatusServiceUnavailable, Code: "buffers_full", Plugin: plugin,
			Message: fmt.Sprintf("the server already holds its limit of %d bytes of request bodies", s.cfg.MaxBuffered)}
	}
	failed := func(err error) *apiError {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return tooLarge(plugin, s.cfg.MaxBody)
		}
		return &apiError{status: http.StatusBadRequest, Code: "bad_request", Plugin: plugin, Message: "reading the request body: " + err.Error()}
	}
	if n := r.ContentLength; n >= 0 { // the caller refused n > MaxBody
		if !s.buf.reserve(n) {
			return nil, 0, full()
		}
		// net/http ends the body at its declared length: no limit to add.
		body := make([]byte, n)
		if _, err := io.ReadFull(r.Body, body); err != nil {
			s.buf.release(n)
			return nil, 0, failed(err)
		}
		return body, n, nil
	}
	rd := http.MaxBytesReader(w, r.Body, s.cfg.MaxBody)
	var body []byte
	var held int64
	for {
		if len(body) == cap(body) && int64(cap(body)) == s.cfg.MaxBody {
			// Full: one more byte is over the limit (MaxBytesReader says
			// so); an end of the body here is its end.
			var one [1]byte
			_, err := rd.Read(one[:])
			if err == io.EOF {
				return body, held, nil
			}
			s.buf.release(held)
			if err == nil { // MaxBytesReader fails on the read after: defensive
				return nil, 0, tooLarge(plugin, s.cfg.MaxBody)
			}
			return nil, 0, failed(err)
		}
		if len(body) == cap(body) {
			grow := min(max(readChunk, int64(cap(body))), s.cfg.MaxBody-int64(cap(body)))
			if !s.buf.reserve(grow) {
				s.buf.release(held)
				return nil, 0, full()
			}
			held += grow
			body = append(make([]byte, 0, int64(cap(body))+grow), body...)
		}
		n, err := rd.Read(body[len(body):cap(body)])
		body = body[:len(body)+n]
		if err == io.EOF {
			return body, held, nil
		}
		if err != nil {
			s.buf.release(held)
			return nil, 0, failed(err)
		}
	}
}

func tooLarge(plugin string, limit int64) *apiError {
	return &apiError{status: http.StatusRequestEntityTooLarge, Code: "body_too_large", Plugin: plugin, Message: fmt.Sprintf("the request body exceeds %d bytes", limit)}
}
