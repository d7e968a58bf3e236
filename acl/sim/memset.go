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
	b.fill(d, value, n)
	d.release()
	return nil
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

func (x fillOp) run(st *stream, h [2]span) error { st.b.fill(h[0], x.v, x.n); return nil }

// one resolves the single Buf of an operation.
func (b *Backend) one(x acl.Buf, n uint64, write bool, what string) (span, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return span{}, errClosed()
	}
	return b.spanLocked(x, n, write, what)
}

// fill sets n bytes at d to v under d's data lock.
func (b *Backend) fill(d span, v byte, n uint64) {
	t := b.now()
	lock2(d.a, nil)
	p := d.bytes(n)
	if v == 0 {
		clear(p)
	} else {
		// Doubling copies run at memmove speed, unlike a byte loop.
		p[0] = v
		for i := 1; i < len(p); i *= 2 {
			copy(p[i:], p[:i])
		}
	}
	unlock2(d.a, nil)
	b.pace(t, d.dev(), d.dev(), n)
}
