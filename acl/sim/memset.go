package sim

import (
	"context"
	"encoding/binary"
	"math"

	"github.com/aclwasm/aclwasm/acl"
)

// Memset implements [acl.Backend]. dst may be device memory or host memory,
// registered or not; a range registered read-only gives 107000.
func (b *Backend) Memset(ctx context.Context, dst acl.Buf, value byte, n uint64) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	d, err := b.one(dst, n, true, "dst")
	if err != nil {
		return err
	}
	err = b.fill(haltOn(ctx), d, value, n)
	if c := b.clk; c != nil && err == nil {
		c.hostOp(ctx, nil, c.cost(fillFlow(d, n)))
	}
	d.release()
	return err
}

// MemsetAsync implements [acl.Backend]. Pageable host memory makes it wait
// for the stream and set the bytes before returning, as MemcpyAsync does.
func (b *Backend) MemsetAsync(ctx context.Context, dst acl.Buf, value byte, n uint64, sh acl.Stream) error {
	if n == 0 {
		return nil
	}
	st, err := b.stream(sh)
	if err != nil {
		return err
	}
	d, err := b.one(dst, n, true, "dst")
	if err != nil {
		return err
	}
	return submit(ctx, st, d.pageable(), fillOp{value, n}, [2]span{d}, nil)
}

// fillOp is the work of MemsetAsync.
type fillOp struct {
	v byte
	n uint64
}

func (x fillOp) run(st *stream, h [2]span, stop halt) error { return st.b.fill(stop, h[0], x.v, x.n) }

// one resolves the single Buf of an operation.
func (b *Backend) one(x acl.Buf, n uint64, write bool, what string) (span, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return span{}, errClosed()
	}
	return b.spanLocked(x, n, write, what)
}

// fill sets n bytes at d to v under d's data lock, in chunks (set),
// stopping between two when h says.
func (b *Backend) fill(h halt, d span, v byte, n uint64) error {
	lock2(d.a, nil)
	err := set(h, d.bytes(n), v)
	unlock2(d.a, nil)
	return err
}

// MemsetD32 implements [acl.Backend]: n 32-bit words at dst, which may
// be device or host memory as for Memset, become value, little-endian.
func (b *Backend) MemsetD32(ctx context.Context, dst acl.Buf, value uint32, n uint64) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	bytes, err := wordBytes(n)
	if err != nil {
		return err
	}
	d, err := b.one(dst, bytes, true, "dst")
	if err != nil {
		return err
	}
	err = b.fill32(haltOn(ctx), d, value, bytes)
	if c := b.clk; c != nil && err == nil {
		c.hostOp(ctx, nil, c.cost(fillFlow(d, bytes)))
	}
	d.release()
	return err
}

// MemsetD32Async implements [acl.Backend] as MemsetAsync does Memset.
func (b *Backend) MemsetD32Async(ctx context.Context, dst acl.Buf, value uint32, n uint64, sh acl.Stream) error {
	if n == 0 {
		return nil
	}
	bytes, err := wordBytes(n)
	if err != nil {
		return err
	}
	st, err := b.stream(sh)
	if err != nil {
		return err
	}
	d, err := b.one(dst, bytes, true, "dst")
	if err != nil {
		return err
	}
	return submit(ctx, st, d.pageable(), fill32Op{value, bytes}, [2]span{d}, nil)
}

// wordBytes returns the bytes of n 32-bit words, or 107000 when they
// overflow.
func wordBytes(n uint64) (uint64, error) {
	if n > math.MaxUint64/4 {
		return 0, acl.Errorf(acl.ErrRTParamInvalid, "%d 32-bit words overflow a byte count", n)
	}
	return n * 4, nil
}

// fill32Op is the work of MemsetD32Async; n counts bytes.
type fill32Op struct {
	v uint32
	n uint64
}

func (x fill32Op) run(st *stream, h [2]span, stop halt) error {
	return st.b.fill32(stop, h[0], x.v, x.n)
}

// fill32 is fill for a 32-bit pattern: n bytes (a multiple of 4) at d.
func (b *Backend) fill32(h halt, d span, v uint32, n uint64) error {
	lock2(d.a, nil)
	err := set32(h, d.bytes(n), v)
	unlock2(d.a, nil)
	return err
}

// set32 writes v little-endian into every 4-byte word of p (len(p) is a
// multiple of 4), in chunks like set. chunk is a multiple of 4, so each
// chunk starts on a word.
func set32(h halt, p []byte, v uint32) error {
	if len(p) == 0 {
		return nil
	}
	if err := h.err(); err != nil {
		return err
	}
	first := p[:min(len(p), chunk)]
	binary.LittleEndian.PutUint32(first, v)
	for i := 4; i < len(first); i *= 2 {
		copy(first[i:], first[:i])
	}
	for lo := len(first); lo < len(p); lo += chunk {
		if err := h.err(); err != nil {
			return err
		}
		copy(p[lo:min(lo+chunk, len(p))], first)
	}
	return nil
}
