package sandbox

import (
	"context"

	"github.com/aclwasm/aclwasm/acl"
)

// copySmall is aclrtMemcpy's common case in one pass: a small copy that
// passes every check, between pageable guest memory and device memory or
// within device memory of one device, handed to the backend with the
// allocations this session already resolved (acl.SmallCopier), so that
// neither side is looked up twice. It reports false, having done nothing,
// for anything else, which memcpySync then checks step by step in the
// native order with its errors: a call that fails any check never gets
// here, so the order and the codes are memcpySync's.
func (c *Call) copySmall(dst, destMax, src, n uint64, kind acl.MemcpyKind) (bool, error) {
	s := c.s
	if s.sc == nil || n-1 >= min(acl.SmallCopyMax, destMax, s.policy.MaxCallBytes) || dst == 0 || src == 0 || dst == src ||
		kind < acl.MemcpyHostToHost || kind > acl.MemcpyHostToBufToDevice || s.dev < 0 { // n == 0 wraps
		return false, nil
	}
	d, sd := &c.small[0], &c.small[1]
	da, ok := c.smallSide(d, dst, n, true)
	if !ok {
		return false, nil
	}
	sa, ok := c.smallSide(sd, src, n, false)
	if !ok || (da != nil && sa != nil && da.dev != sa.dev) { // the peer rule: memcpySync's
		return false, nil
	}
	if ended(c.ctx) { // the backend's first check: Memcpy returns the context's error
		return false, nil
	}
	done, err := s.sc.CopySmall(d, sd, n)
	if !done {
		return false, nil
	}
	if err != nil {
		return true, be(err)
	}
	c.moved(acl.DirectionOf(da != nil, sa != nil), n)
	return true, nil
}

// smallSide resolves one side of copySmall as resolveBuf's common cases
// do: unregistered guest memory while nothing is registered, or a range
// inside one allocation (writable, for a destination) whose backend handle
// is known or found now; false for anything else. It sets every field of
// *b.
func (c *Call) smallSide(b *acl.SmallSide, addr, n uint64, write bool) (*alloc, bool) {
	as := &c.s.as
	if end := addr + n; addr < as.guestEnd {
		// Field by field, as invoke fills the call: a composite literal
		// costs the copy a stall on its 16-byte moves.
		b.Region, b.Dev = nil, 0
		if end >= addr && end <= uint64(len(c.mem)) && len(as.pins) == 0 {
			b.Host = c.mem[addr:end:end]
			return nil, true
		}
		return nil, false
	}
	a := as.find(addr)
	if a == nil || n > a.end()-addr || (write && a.readOnly) {
		return nil, false
	}
	if a.rg == nil { // asked once per allocation
		if a.rg = c.s.sc.Region(a.ptr); a.rg == nil {
			return nil, false
		}
	}
	b.Region, b.Dev, b.Host = a.rg, a.ptr+acl.DevPtr(addr-a.base), nil
	return a, true
}

// ended reports whether ctx.Err() != nil, without a call for an
// instance's own context: a small copy cost as much as its checks.
func ended(ctx context.Context) bool {
	if c, ok := ctx.(*CallCtx); ok {
		return c.ended.Load()
	}
	return ctx.Err() != nil
}
