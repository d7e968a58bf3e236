package sim

import "github.com/aclwasm/aclwasm/acl"

var _ acl.SmallCopier = (*Backend)(nil)

// Region implements [acl.SmallCopier]: the handle is the allocation
// itself, so that CopySmall skips the table lookup copySmall makes.
func (b *Backend) Region(p acl.DevPtr) any {
	a := b.allocs.get(uint64(p) >> b.shift) // nil for NULL: id 0 is never handed out
	if a == nil || a.dying.Load() {
		return nil
	}
	return a
}

// CopySmall implements [acl.SmallCopier]: copySmall with the allocations
// given, the same checks on each side (a live allocation that holds the
// range, or host bytes) and the same data locks, one for a copy within one
// allocation or between one and host memory. It runs in one frame but for
// the copy between two allocations: calls, and the registers saved around
// them, cost more than its checks.
func (b *Backend) CopySmall(dst, src *acl.SmallSide, n uint64) (bool, error) {
	if n-1 >= acl.SmallCopyMax || b.clk != nil || b.shut.Load() { // n == 0 wraps
		return false, nil
	}
	w, woff, ok := b.regionOf(dst, n)
	if !ok {
		return false, nil
	}
	r, roff, ok := b.regionOf(src, n)
	if !ok {
		return false, nil
	}
	switch {
	case w != nil && r != nil && w != r:
		if w.dev != r.dev {
			return false, nil
		}
		return true, copyLocked(w, woff, nil, r, roff, nil, n)
	case w != nil: // into w, from w or host bytes
		w.mu.Lock()
		if w.mem == nil {
			w.mu.Unlock()
			return true, errFreed("dst", w)
		}
		s := src.Host
		if r != nil {
			s = w.mem[roff:]
		}
		copy(w.mem[woff:woff+n], s[:n])
		w.mu.Unlock()
	case r != nil: // from r into host bytes
		r.mu.Lock()
		if r.mem == nil {
			r.mu.Unlock()
			return true, errFreed("src", r)
		}
		copy(dst.Host[:n], r.mem[roff:roff+n])
		r.mu.Unlock()
	default:
		copy(dst.Host[:n], src.Host[:n])
	}
	return true, nil
}

// regionOf is smallSide for one side of CopySmall: the allocation that
// holds the side's range and the offset in it, or nil for host bytes;
// false for anything smallSide would not take, or a region that does not
// hold the range.
func (b *Backend) regionOf(x *acl.SmallSide, n uint64) (*alloc, uint64, bool) {
	if x.Region == nil {
		return nil, 0, uint64(len(x.Host)) >= n
	}
	a, ok := x.Region.(*alloc)
	off := uint64(x.Dev) & b.mask
	return a, off, ok && a.base == x.Dev&^acl.DevPtr(b.mask) && !a.dying.Load() && off < a.size && n <= a.size-off
}
