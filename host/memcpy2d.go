package host

import "github.com/aclwasm/aclwasm/acl"

// prepare2D checks (dst, dpitch, src, spitch, width, height, kind): the
// native checks, then each side's span, (height-1)*pitch + width bytes.
func (c *call) prepare2D() (d, s span, done bool, err error) {
	dst, dpitch, src, spitch, width, height := c.u64(0), c.u64(1), c.u64(2), c.u64(3), c.u64(4), c.u64(5)
	if done, err = acl.CheckMemcpy2D(dst, dpitch, src, spitch, width, height, c.kind(6)); done || err != nil {
		return
	}
	if err = c.needDevice(); err != nil {
		return
	}
	dn, ok := acl.Span2D(dpitch, width, height)
	if !ok {
		return d, s, false, acl.Errorf(acl.ErrRTParamInvalid, "(height-1)*dpitch + width overflows: height %d, dpitch %d, width %d", height, dpitch, width)
	}
	sn, ok := acl.Span2D(spitch, width, height)
	if !ok {
		return d, s, false, acl.Errorf(acl.ErrRTParamInvalid, "(height-1)*spitch + width overflows: height %d, spitch %d, width %d", height, spitch, width)
	}
	if d, err = c.resolve("dst", dst, dn, true); err != nil {
		return
	}
	if s, err = c.resolve("src", src, sn, false); err != nil {
		return
	}
	err = c.peerCheck(d, s)
	return
}

// memcpy2dSync is aclrtMemcpy2d: host-to-device or device-to-host only.
func memcpy2dSync(c *call) error {
	d, s, done, err := c.prepare2D()
	if done || err != nil {
		return err
	}
	dir := direction(d, s)
	switch dir {
	case acl.DeviceToDevice:
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "this memcpy2d feature supports only host2device or device2host kinds")
	case acl.HostToHost:
		return acl.Errorf(acl.ErrRTParamInvalid, "neither dst nor src is device memory: memcpy2d copies host to device or device to host")
	}
	width, height := c.u64(4), c.u64(5)
	if err := c.budget(width * height); err != nil {
		return err
	}
	if err := c.s.b.Memcpy2D(c.ctx, d.buf, c.u64(1), s.buf, c.u64(3), width, height); err != nil {
		return be(err)
	}
	c.moved(dir, width*height)
	return nil
}

// memcpy2dAsync is aclrtMemcpy2dAsync: H2D, D2H or D2D.
func memcpy2dAsync(c *call) error {
	d, s, done, err := c.prepare2D()
	if done || err != nil {
		return err
	}
	st, err := c.stream(c.u32(7))
	if err != nil {
		return err
	}
	dir := direction(d, s)
	if dir == acl.HostToHost {
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "asynchronous host-to-host copies are not supported (PCIe-attached card)")
	}
	width, height := c.u64(4), c.u64(5)
	if err := c.budget(width * height); err != nil {
		return err
	}
	if err := c.enqueue(st); err != nil {
		return err
	}
	if err := c.s.b.Memcpy2DAsync(c.ctx, d.buf, c.u64(1), s.buf, c.u64(3), width, height, st.h); err != nil {
		return be(err)
	}
	c.movedWhenRun(st, d.buf.Pinned() && s.buf.Pinned(), dir, width*height)
	return nil
}
