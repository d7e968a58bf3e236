package sim

import (
	"context"

	"github.com/aclwasm/aclwasm/acl"
)

// Memset implements acl.Backend. dst may be device memory or host memory,
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
	d.release()
	return err
}

// MemsetAsync implements acl.Backend. Pageable host memory makes it wait
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
	t := b.now()
	lock2(d.a, nil)
	err := set(h, d.bytes(n), v)
	unlock2(d.a, nil)
	if err != nil {
		return err
	}
	return b.pace(h, t, d.dev(), d.dev(), n)
}
