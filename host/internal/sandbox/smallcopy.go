package sandbox

import "github.com/aclwasm/aclwasm/acl"

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
	if s.sc == nil || n == 0 || n > acl.SmallCopyMax || n > destMax || dst == 0 || src == 0 || dst == src ||
		kind < acl.MemcpyHostToHost || kind > acl.MemcpyHostToBufToDevice || s.dev < 0 || n > s.policy.MaxCallBytes {
		return false, nil
	}
	d, sb := &c.small[0], &c.small[1]
	da, ok := c.smallSide(d, dst, n, true)
	if !ok {
		return false, nil
	}
	sa, ok := c.smallSide(sb, src, n, false)
	if !ok || (da != nil && sa != nil && da.dev != sa.dev) { // the peer rule: memcpySync's
		return false, nil
	}
	var dr, sr any
	if da != nil {
		if dr = s.regionOf(da); dr == nil {
			return false, nil
		}
	}
	if sa != nil {
		if sr = s.regionOf(sa); sr == nil {
			return false, nil
		}
	}
	done, err := s.sc.CopySmall(c.ctx, d, dr, sb, sr, n)
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
// inside one allocation (writable, for a destination); false for anything
// else. It sets every field of *b.
func (c *Call) smallSide(b *acl.Buf, addr, n uint64, write bool) (*alloc, bool) {
	as := &c.s.as
	if end := addr + n; addr < as.guestEnd {
		if end >= addr && end <= uint64(len(c.mem)) && len(as.pins) == 0 {
			// Field by field, as invoke fills the call: a composite
			// literal costs the copy a stall on its 16-byte moves.
			b.Host, b.Dev, b.Pin = c.mem[addr:end:end], 0, 0
			return nil, true
		}
		return nil, false
	}
	if a := as.find(addr); a != nil && n <= a.end()-addr && (!write || !a.readOnly) {
		b.Host, b.Dev, b.Pin = nil, a.ptr+acl.DevPtr(addr-a.base), 0
		return a, true
	}
	return nil, false
}

// regionOf returns the backend's handle on a, asked once per allocation.
func (s *Session) regionOf(a *alloc) any {
	if a.rg == nil {
		a.rg = s.sc.Region(a.ptr)
	}
	return a.rg
}
