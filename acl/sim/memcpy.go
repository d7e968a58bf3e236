package sim

import (
	"context"

	"github.com/aclwasm/aclwasm/acl"
)

// Memcpy implements [acl.Backend]. It copies in any direction, host to host
// included (the native synchronous copy allows it), with memmove semantics
// for overlapping ranges. It runs concurrently with queued work: it takes
// the data locks of the allocations it touches, so it lands before or after
// a queued operation on the same allocation, never inside it.
func (b *Backend) Memcpy(ctx context.Context, dst, src acl.Buf, n uint64) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if dst.Pin == 0 && src.Pin == 0 {
		return b.memcpyDirect(ctx, dst, src, n)
	}
	d, s, err := b.pair(dst, src, n, n)
	if err != nil {
		return err
	}
	err = b.xfer(haltOn(ctx), &d, &s, n)
	if c := b.clk; c != nil && err == nil {
		c.hostOp(ctx, nil, c.cost(copyFlow(d, s, n)))
	}
	d.release()
	s.release()
	return err
}

// memcpyDirect is Memcpy between device memory and pageable host memory,
// the common small copy: it takes no lock every caller shares and no
// reference, only the data locks of the allocations it copies (which Free
// takes before it drops their memory), so that copies of different
// sessions scale with cores. Cross-device copies read the peer table under
// the backend's lock, as pair does.
func (b *Backend) memcpyDirect(ctx context.Context, dst, src acl.Buf, n uint64) error {
	if b.shut.Load() {
		return errClosed()
	}
	d, err := b.resolveLocked(dst, n, true, "dst")
	if err != nil {
		return err
	}
	s, err := b.resolveLocked(src, n, false, "src")
	if err != nil {
		return err
	}
	if d.dev() && s.dev() && d.a.dev != s.a.dev {
		b.mu.RLock()
		err = b.peerLocked(d, s)
		b.mu.RUnlock()
		if err != nil {
			return err
		}
	}
	var h halt // one chunk: Memcpy looked at ctx just before
	if n > chunk {
		h = haltOn(ctx)
	}
	err = b.xfer(h, &d, &s, n)
	if c := b.clk; c != nil && err == nil {
		c.hostOp(ctx, nil, c.cost(copyFlow(d, s, n)))
	}
	return err
}

// MemcpyAsync implements [acl.Backend]. A copy between host memory only gives
// 207000, as natively for a card attached over PCIe. A copy that touches
// pageable host memory waits for the stream's queued work, then copies
// before returning; if that work failed, it returns the stream's pending
// error instead (and clears it), as the native runtime's stream
// synchronize does.
func (b *Backend) MemcpyAsync(ctx context.Context, dst, src acl.Buf, n uint64, sh acl.Stream) error {
	if n == 0 {
		return nil
	}
	st, err := b.stream(sh)
	if err != nil {
		return err
	}
	if err := acl.CheckAsyncSides(dst, src); err != nil {
		return err
	}
	d, s, err := b.pair(dst, src, n, n)
	if err != nil {
		return err
	}
	return submit(ctx, st, d.pageable() || s.pageable(), xferOp{n}, [2]span{d, s}, nil)
}

// xferOp is the work of MemcpyAsync.
type xferOp struct{ n uint64 }

func (x xferOp) run(st *stream, h [2]span, stop halt) error {
	return st.b.xfer(stop, &h[0], &h[1], x.n)
}

func (x xferOp) bytes() uint64 { return x.n }

// xfer copies n bytes from s to d under their data locks, in chunks
// (move), stopping between two when h says.
func (b *Backend) xfer(h halt, d, s *span, n uint64) error {
	lock2(d.a, s.a)
	var err error
	switch {
	case d.freed():
		err = errFreed("dst", d.a)
	case s.freed():
		err = errFreed("src", s.a)
	default:
		err = move(h, d.bytes(n), s.bytes(n))
	}
	unlock2(d.a, s.a)
	return err
}
