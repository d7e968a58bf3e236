package sim

import (
	"context"

	"github.com/aclwasm/aclwasm/acl"
)

// Memcpy2D implements [acl.Backend]. Each side touches (height-1)*pitch+width
// bytes from its base, so a host Buf must hold that many. As natively, the
// synchronous 2D copy goes host to device or device to host only: device to
// device gives 207000, host to host 107000.
func (b *Backend) Memcpy2D(ctx context.Context, dst acl.Buf, dpitch uint64, src acl.Buf, spitch, width, height uint64) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	if width == 0 || height == 0 {
		return nil
	}
	if err := checkBufs(dst, src); err != nil {
		return err
	}
	switch {
	case dst.IsDevice() && src.IsDevice():
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "synchronous 2D copies go host to device or device to host, not device to device")
	case !dst.IsDevice() && !src.IsDevice():
		return errHost2D()
	}
	r, err := newRect(dpitch, spitch, width, height)
	if err != nil {
		return err
	}
	d, s, err := b.pair(dst, src, r.dn, r.sn)
	if err != nil {
		return err
	}
	err = b.xfer2D(haltOn(ctx), d, s, r)
	if c := b.clk; c != nil && err == nil {
		c.hostOp(ctx, nil, c.cost(copyFlow(d, s, r.width*r.height)))
	}
	d.release()
	s.release()
	return err
}

// Memcpy2DAsync implements [acl.Backend]. Device to device is allowed (all
// three chip families support it); host to host gives 107000. Pageable host
// memory makes it wait for the stream and copy before returning, as
// MemcpyAsync does.
func (b *Backend) Memcpy2DAsync(ctx context.Context, dst acl.Buf, dpitch uint64, src acl.Buf, spitch, width, height uint64, sh acl.Stream) error {
	if width == 0 || height == 0 {
		return nil
	}
	st, err := b.stream(sh)
	if err != nil {
		return err
	}
	if err := checkBufs(dst, src); err != nil {
		return err
	}
	if !dst.IsDevice() && !src.IsDevice() {
		return errHost2D()
	}
	r, err := newRect(dpitch, spitch, width, height)
	if err != nil {
		return err
	}
	d, s, err := b.pair(dst, src, r.dn, r.sn)
	if err != nil {
		return err
	}
	return submit(ctx, st, d.pageable() || s.pageable(), r, [2]span{d, s}, nil)
}

// run is the work of Memcpy2DAsync.
func (r rect) run(st *stream, h [2]span, stop halt) error { return st.b.xfer2D(stop, h[0], h[1], r) }

func errHost2D() error {
	return acl.Errorf(acl.ErrRTParamInvalid, "2D copies go host to device, device to host or device to device: neither side is device memory")
}

// rect is the shape of a 2D copy and the bytes it touches from each base,
// dn on the destination side and sn on the source side.
type rect struct {
	dpitch, spitch, width, height uint64
	dn, sn                        uint64
}

// newRect returns the shape of a 2D copy, or 107000 if a side's span
// (acl.Span2D) overflows.
func newRect(dpitch, spitch, width, height uint64) (rect, error) {
	dn, ok := acl.Span2D(dpitch, width, height)
	if !ok {
		return rect{}, acl.Errorf(acl.ErrRTParamInvalid, "the destination span (height %d - 1) * dpitch %d + width %d overflows", height, dpitch, width)
	}
	sn, ok := acl.Span2D(spitch, width, height)
	if !ok {
		return rect{}, acl.Errorf(acl.ErrRTParamInvalid, "the source span (height %d - 1) * spitch %d + width %d overflows", height, spitch, width)
	}
	return rect{dpitch: dpitch, spitch: spitch, width: width, height: height, dn: dn, sn: sn}, nil
}

// xfer2D copies the rows of r from s to d under the data locks, looking
// at h about every chunk bytes.
func (b *Backend) xfer2D(h halt, d, s span, r rect) error {
	lock2(d.a, s.a)
	db, sb := d.bytes(r.dn), s.bytes(r.sn)
	var err error
	if r.dpitch == r.width && r.spitch == r.width {
		err = move(h, db, sb) // contiguous rows: one copy
	} else {
		var since uint64 // bytes copied since the last look at h
		for i := range r.height {
			if since += r.width; since >= chunk {
				if err = h.err(); err != nil {
					break
				}
				since = 0
			}
			if r.width > chunk {
				if err = move(h, db[i*r.dpitch:i*r.dpitch+r.width], sb[i*r.spitch:i*r.spitch+r.width]); err != nil {
					break
				}
				continue
			}
			copy(db[i*r.dpitch:i*r.dpitch+r.width], sb[i*r.spitch:i*r.spitch+r.width])
		}
	}
	unlock2(d.a, s.a)
	return err
}
