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
		if n <= chunk && b.clk == nil {
			if done, err := b.copySmall(&dst, &src, n); done {
				return err
			}
		}
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

// copySmall is memcpyDirect for its common case, in one frame: at most one
// chunk (no halt to look at: Memcpy looked at ctx just before), untimed,
// between live ranges of device memory on one device and pageable host
// memory, each side checked as resolveLocked checks it. It reports false,
// having done nothing, for anything else, which memcpyDirect then does
// with its errors. A small copy is mostly fixed costs (host/RATIONALE.md):
// the spans, the halt and the three calls between resolving and copying
// cost more than the checks.
func (b *Backend) copySmall(dst, src *acl.Buf, n uint64) (bool, error) {
	w, woff, ok := b.smallSide(dst, n)
	if !ok {
		return false, nil
	}
	r, roff, ok := b.smallSide(src, n)
	if !ok || (w != nil && r != nil && w.dev != r.dev) || b.shut.Load() {
		return false, nil
	}
	lock2(w, r)
	d, s := dst.Host, src.Host
	if w != nil {
		d = w.mem
	}
	if r != nil {
		s = r.mem
	}
	var err error
	switch {
	case d == nil: // freed after the lookup: only the lock orders a Free
		err = errFreed("dst", w)
	case s == nil:
		err = errFreed("src", r)
	default:
		copy(d[woff:woff+n], s[roff:roff+n])
	}
	unlock2(w, r)
	return true, err
}

// smallSide resolves one side of copySmall: a live allocation and the
// offset in it, or pageable host bytes (nil, 0); false for anything else.
func (b *Backend) smallSide(x *acl.Buf, n uint64) (*alloc, uint64, bool) {
	if x.Host != nil {
		return nil, 0, x.Dev == 0 && uint64(len(x.Host)) >= n
	}
	a := b.allocs.get(uint64(x.Dev) >> b.shift) // nil for NULL: id 0 is never handed out
	if a == nil || a.dying.Load() {
		return nil, 0, false
	}
	off := uint64(x.Dev) & b.mask
	return a, off, off < a.size && n <= a.size-off
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
	if n <= smallAsync && b.clk == nil {
		if done, err := b.asyncSmall(st, &dst, &src, n); done {
			return err
		}
	}
	d, s, err := b.pair(dst, src, n, n)
	if err != nil {
		return err
	}
	return submit(ctx, st, d.pageable() || s.pageable(), xferOp{n}, [2]span{d, s}, nil)
}

// smallAsync bounds the copies asyncSmall runs: it holds the backend's
// lock shared while it copies, which HostUnregister waits for.
const smallAsync = 64 << 10

// asyncSmall is MemcpyAsync for its common small case, on an idle stream:
// both sides pinned (device memory on one device, or registered host
// memory), untimed. The copy runs in the call, as the stream's inline path
// runs it (enqueue), but without an op, references or a second lookup of
// each side: the backend's lock, held shared from the lookup to the end of
// the copy, keeps each pin registered, and the allocations' data locks
// order the copy against a Free. It reports false, having done nothing,
// for anything else, which the general path then does with its errors.
// Lock order: Backend.mu, then the stream's, then the data locks, as
// elsewhere.
func (b *Backend) asyncSmall(st *stream, dst, src *acl.Buf, n uint64) (bool, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return false, nil
	}
	w, woff, d, ok := b.pinnedSide(dst, n, true)
	if !ok {
		return false, nil
	}
	r, roff, s, ok := b.pinnedSide(src, n, false)
	if !ok || (w != nil && r != nil && w.dev != r.dev) {
		return false, nil
	}
	run, abort, ok := st.claim()
	if !ok {
		return false, nil
	}
	var err error
	if run { // a stopped stream's operations fail without effect (loop)
		select {
		case <-abort:
			err = errStopped()
		default:
			lock2(w, r)
			switch {
			case w != nil && w.mem == nil:
				err = errFreed("dst", w)
			case r != nil && r.mem == nil:
				err = errFreed("src", r)
			default:
				if w != nil {
					d = w.mem[woff : woff+n]
				}
				if r != nil {
					s = r.mem[roff : roff+n]
				}
				copy(d, s)
			}
			unlock2(w, r)
		}
	}
	st.finish(err)
	return true, nil
}

// pinnedSide resolves one side of asyncSmall: a live allocation and the
// offset in it (its bytes are read under its data lock), or the bytes of a
// registered host range; false for anything else. The caller holds
// Backend.mu shared.
func (b *Backend) pinnedSide(x *acl.Buf, n uint64, write bool) (*alloc, uint64, []byte, bool) {
	if x.Host == nil {
		a := b.allocs.get(uint64(x.Dev) >> b.shift) // nil for NULL: id 0 is never handed out
		if a == nil || a.dying.Load() {
			return nil, 0, nil, false
		}
		off := uint64(x.Dev) & b.mask
		return a, off, nil, off < a.size && n <= a.size-off
	}
	if x.Dev != 0 || x.Pin == 0 || uint64(len(x.Host)) < n {
		return nil, 0, nil, false
	}
	p := b.pins[x.Pin]
	if p == nil || p.dying || !p.contains(x.Host[:n]) || (write && p.readonly) {
		return nil, 0, nil, false
	}
	return nil, 0, x.Host[:n], true
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
