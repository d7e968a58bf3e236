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
	w, woff, d, _, ok := b.smallSide(dst, n, false, false)
	if !ok {
		return false, nil
	}
	r, roff, s, _, ok := b.smallSide(src, n, false, false)
	if !ok || (w != nil && r != nil && w.dev != r.dev) || b.shut.Load() {
		return false, nil
	}
	// copyLocked written out: as a call it cost the 64 B copy 3-4% (0.1x
	// its floor, BenchmarkGoal1SmallCopy, four interleaved runs).
	lock2(w, r)
	var err error
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
	return true, err
}

// smallSide resolves one side of copySmall and asyncSmall, holding no
// lock: a live allocation and the offset in it (its bytes are read under
// its data lock, copyLocked), or host bytes: pageable ones, or with pinned
// those of a registered range that write may write, and its pin, on which
// the caller takes a reference (pin.take); false for anything else.
func (b *Backend) smallSide(x *acl.Buf, n uint64, pinned, write bool) (*alloc, uint64, []byte, *pin, bool) {
	if x.Host == nil {
		a := b.allocs.get(uint64(x.Dev) >> b.shift) // nil for NULL: id 0 is never handed out
		if a == nil || a.dying.Load() {
			return nil, 0, nil, nil, false
		}
		off := uint64(x.Dev) & b.mask
		return a, off, nil, nil, off < a.size && n <= a.size-off
	}
	if x.Dev != 0 || uint64(len(x.Host)) < n || (x.Pin != 0) != pinned {
		return nil, 0, nil, nil, false
	}
	var p *pin
	if pinned {
		p = b.pins.get(uint64(x.Pin))
		if p == nil || p.dying.Load() || !p.contains(x.Host[:n]) || (write && p.readonly) {
			return nil, 0, nil, nil, false
		}
	}
	return nil, 0, x.Host[:n], p, true
}

// copyLocked copies n bytes to d (or allocation w at woff) from s (or r at
// roff) under the allocations' data locks: an allocation freed since its
// lookup gives the error, as only the lock orders a Free.
func copyLocked(w *alloc, woff uint64, d []byte, r *alloc, roff uint64, s []byte, n uint64) error {
	lock2(w, r)
	var err error
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

// smallAsync bounds the copies asyncSmall runs in the call.
const smallAsync = 64 << 10

// asyncSmall is MemcpyAsync for its common small case, on an idle stream:
// both sides pinned (device memory on one device, or registered host
// memory), untimed. The copy runs in the call, as the stream's inline path
// runs it (enqueue), but without an op or a second lookup of each side.
// It holds no lock that other sessions' calls need: the pin's reference
// keeps it registered (HostUnregister waits for it) and the allocations'
// data locks order the copy against a Free, which waits for them, so that
// a copy that waits for the data lock behind a long copy on another stream
// of the same allocation holds up only its own caller. It reports false,
// having done nothing, for anything else, which the general path then does
// with its errors. Lock order: the stream's, then the data locks, as
// elsewhere.
func (b *Backend) asyncSmall(st *stream, dst, src *acl.Buf, n uint64) (bool, error) {
	w, woff, d, wp, ok := b.smallSide(dst, n, true, true)
	if !ok {
		return false, nil
	}
	r, roff, s, rp, ok := b.smallSide(src, n, true, false)
	if !ok || (w != nil && r != nil && w.dev != r.dev) || b.shut.Load() {
		return false, nil
	}
	p := wp // the copy's one side in host memory, if any (CheckAsyncSides)
	if p == nil {
		p = rp
	}
	if p != nil && !p.take() {
		return false, nil
	}
	run, abort, ok := st.claim()
	if !ok {
		if p != nil {
			p.refs.release()
		}
		return false, nil
	}
	var err error
	if run { // a stopped stream's operations fail without effect (loop)
		select {
		case <-abort:
			err = errStopped()
		default:
			err = copyLocked(w, woff, d, r, roff, s, n)
		}
	}
	st.finish(err)
	if p != nil {
		p.refs.release()
	}
	return true, nil
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
