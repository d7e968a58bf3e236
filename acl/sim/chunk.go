package sim

import (
	"context"
	"unsafe"

	"github.com/aclwasm/aclwasm/acl"
)

// chunk is how many bytes a copy or memset moves between two looks at
// whether it must stop: a synchronous call whose context is done, a
// queued operation whose stream is destroyed with its work cancelled. So
// a timeout ends even a copy of gigabytes within one chunk's time (well
// under a millisecond), and a look costs nothing measurable next to the
// memmove of a chunk (BenchmarkCopy64MiB's x-copy stays at 1.00).
const chunk = 2 << 20

// halt tells a long operation when to stop: done is closed then. ctx is
// the context of a synchronous call (or of the caller an asynchronous
// operation on pageable memory runs on), nil for a queued operation, whose
// stream's destruction is what stops it.
type halt struct {
	done <-chan struct{}
	ctx  context.Context
}

// haltOn returns the halt of a call with context ctx (nil: never).
func haltOn(ctx context.Context) halt { return halt{done: done(ctx), ctx: ctx} }

// err returns nil, or why the operation must stop now.
func (h halt) err() error {
	select {
	case <-h.done:
		if h.ctx != nil {
			return h.ctx.Err()
		}
		return errStopped()
	default:
		return nil
	}
}

// move copies src into dst, len(dst) bytes, in chunks, looking at h
// before each. Overlapping ranges are copied as by memmove: back to front
// when dst starts inside src. What was copied before a stop stays.
func move(h halt, dst, src []byte) error {
	n := len(dst)
	if n <= chunk {
		if err := h.err(); err != nil {
			return err
		}
		copy(dst, src)
		return nil
	}
	d := uintptr(unsafe.Pointer(unsafe.SliceData(dst)))
	s := uintptr(unsafe.Pointer(unsafe.SliceData(src)))
	if d > s && d < s+uintptr(n) {
		for hi := n; hi > 0; hi -= chunk {
			if err := h.err(); err != nil {
				return err
			}
			lo := max(hi-chunk, 0)
			copy(dst[lo:hi], src[lo:hi])
		}
		return nil
	}
	for lo := 0; lo < n; lo += chunk {
		if err := h.err(); err != nil {
			return err
		}
		hi := min(lo+chunk, n)
		copy(dst[lo:hi], src[lo:hi])
	}
	return nil
}

// set sets every byte of p to v in chunks, looking at h before each.
// Doubling copies from a filled prefix run at memmove speed, unlike a byte
// loop.
func set(h halt, p []byte, v byte) error {
	if len(p) == 0 {
		return nil
	}
	if err := h.err(); err != nil {
		return err
	}
	first := p[:min(len(p), chunk)]
	if v == 0 {
		clear(first)
	} else {
		first[0] = v
		for i := 1; i < len(first); i *= 2 {
			copy(first[i:], first[:i])
		}
	}
	for lo := len(first); lo < len(p); lo += chunk {
		if err := h.err(); err != nil {
			return err
		}
		copy(p[lo:min(lo+chunk, len(p))], first)
	}
	return nil
}

// errStopped is the error of an operation its stream's cancellation
// stopped.
func errStopped() error {
	return acl.Errorf(acl.ErrRTStreamAbort, "the operation was stopped: its stream was destroyed with its work cancelled")
}
