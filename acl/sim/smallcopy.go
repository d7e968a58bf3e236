package sim

import (
	"context"

	"github.com/aclwasm/aclwasm/acl"
)

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
// range, or pageable host bytes) and the same data locks, one for a copy
// within one allocation or between one and host memory.
func (b *Backend) CopySmall(ctx context.Context, dst *acl.Buf, dr any, src *acl.Buf, sr any, n uint64) (bool, error) {
	if err := ctxErr(ctx); err != nil { // Memcpy's first check
		return true, err
	}
	if n == 0 || n > acl.SmallCopyMax || b.clk != nil {
		return false, nil
	}
	w, woff, d, ok := b.regionSide(dst, dr, n)
	if !ok {
		return false, nil
	}
	r, roff, s, ok := b.regionSide(src, sr, n)
	if !ok || (w != nil && r != nil && w.dev != r.dev) || b.shut.Load() {
		return false, nil
	}
	return true, copyLocked(w, woff, d, r, roff, s, n)
}

// regionSide is smallSide for one side of CopySmall, given its region: the
// allocation that holds x and the offset in it, or host bytes; false for
// anything smallSide would not take, or a region that does not hold x.
func (b *Backend) regionSide(x *acl.Buf, rg any, n uint64) (*alloc, uint64, []byte, bool) {
	if rg == nil {
		if x.Host == nil || x.Dev != 0 || x.Pin != 0 || uint64(len(x.Host)) < n {
			return nil, 0, nil, false
		}
		return nil, 0, x.Host[:n], true
	}
	a, ok := rg.(*alloc)
	if !ok || x.Host != nil || a.base != x.Dev&^acl.DevPtr(b.mask) || a.dying.Load() {
		return nil, 0, nil, false
	}
	off := uint64(x.Dev) & b.mask
	return a, off, nil, off < a.size && n <= a.size-off
}
