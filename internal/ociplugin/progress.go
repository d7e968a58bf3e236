package ociplugin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// Progress defaults (Options.ProgressTimeout, Options.ProgressBytes): a
// download must receive 64 KiB, or the rest of its blob, in every 30
// seconds.
const (
	DefaultProgressTimeout = 30 * time.Second
	DefaultProgressBytes   = 64 << 10
)

// ErrStalled is wrapped by the error of a request that made too little
// progress: no answer, or fewer than Options.ProgressBytes bytes, in an
// Options.ProgressTimeout. It is the network's or the registry's fault,
// not the artifact's: a later try may pass.
var ErrStalled = errors.New("no progress")

// progress watches one request: its context is cancelled when a window
// of Options.ProgressTimeout passes with fewer than Options.ProgressBytes
// bytes read through it, so that a registry that stops sending, or sends
// a byte now and then, fails the download after a window rather than
// holding it for a total timeout. The window restarts each time that
// many bytes have come.
type progress struct {
	cancel context.CancelCauseFunc
	timer  *time.Timer
	window time.Duration
	min    int64
	got    int64 // in this window; only the reading goroutine touches it
}

// watch returns ctx for one request and its progress watch; stop it when
// the request is done.
func (c *Client) watch(ctx context.Context) (context.Context, *progress) {
	ctx, cancel := context.WithCancelCause(ctx)
	p := &progress{cancel: cancel, window: c.opts.ProgressTimeout, min: c.opts.ProgressBytes}
	stalled := fmt.Errorf("%w: fewer than %d bytes in %v", ErrStalled, p.min, p.window)
	p.timer = time.AfterFunc(p.window, func() { cancel(stalled) })
	return ctx, p
}

// reader is r with its bytes counted as progress.
func (p *progress) reader(r io.Reader) io.Reader { return progressReader{p, r} }

type progressReader struct {
	p *progress
	r io.Reader
}

func (pr progressReader) Read(b []byte) (int, error) {
	n, err := pr.r.Read(b)
	if p := pr.p; n > 0 {
		if p.got += int64(n); p.got >= p.min {
			p.got = 0
			p.timer.Reset(p.window)
		}
	}
	return n, err
}

// stop ends the watch.
func (p *progress) stop() {
	p.timer.Stop()
	p.cancel(nil)
}

// stalled is err, or the stall that cancelled ctx (a request cancelled
// for its progress fails with the context's plain error).
func stalled(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); err != nil && errors.Is(cause, ErrStalled) {
		return fmt.Errorf("%w (%v)", cause, err)
	}
	return err
}
