package sandbox

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
)

// ErrInterrupted ends a blocking WASI call whose guest call has ended
// (timeout, cancellation, Close): the engine then stops the guest.
var ErrInterrupted = errors.New("interrupted: the call's context is done")

// Stdin serves Config.Stdin to the guest so that a read that blocks (a
// pipe that stays open) cannot outlive the call that made it: the
// reader's Read runs on a goroutine of its own, and the guest's read
// returns ErrInterrupted as soon as the call's context is done, instead of
// keeping the run alive until the input closes (the policy's timeout must
// bound every run). Bytes of a read that finished after its call ended are
// kept for the next read. A Read of the underlying reader that never
// returns keeps its goroutine until it does: nothing can interrupt an
// io.Reader, so a caller that passes a pipe should close it after the run.
//
// Reads come from the guest's goroutine only, one at a time; done is set
// by the instance around each call (watch, unwatch).
type Stdin struct {
	r       io.Reader
	done    atomic.Pointer[<-chan struct{}] // the current call's, nil between calls
	pending chan readResult                 // the read in progress, nil if none
	buf     []byte                          // bytes read but not yet delivered
	err     error                           // to deliver after buf
}

type readResult struct {
	b   []byte
	err error
}

// NewStdin wraps r, or returns it as is if its reads never block.
func NewStdin(r io.Reader) (io.Reader, *Stdin) {
	switch r.(type) {
	case nil, *strings.Reader, *bytes.Reader, *bytes.Buffer:
		return r, nil
	}
	s := &Stdin{r: r}
	return s, s
}

// Watch makes reads return when ctx is done.
func (s *Stdin) Watch(ctx context.Context) {
	if s != nil {
		d := ctx.Done()
		s.done.Store(&d)
	}
}

// Unwatch ends watch, between calls.
func (s *Stdin) Unwatch() {
	if s != nil {
		s.done.Store(nil)
	}
}

// Read implements io.Reader.
func (s *Stdin) Read(p []byte) (int, error) {
	if len(s.buf) > 0 {
		n := copy(p, s.buf)
		s.buf = s.buf[n:]
		return n, nil
	}
	if s.err != nil {
		return 0, s.err // sticky, like io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	if s.pending == nil {
		ch := make(chan readResult, 1)
		b := make([]byte, len(p))
		r := s.r
		go func() {
			n, err := r.Read(b)
			ch <- readResult{b[:n], err}
		}()
		s.pending = ch
	}
	var done <-chan struct{}
	if d := s.done.Load(); d != nil {
		done = *d
	}
	select {
	case res := <-s.pending:
		s.pending = nil
		n := copy(p, res.b)
		s.buf, s.err = res.b[n:], res.err
		if n == 0 && res.err != nil {
			return 0, res.err
		}
		return n, nil
	case <-done:
		return 0, ErrInterrupted
	}
}
