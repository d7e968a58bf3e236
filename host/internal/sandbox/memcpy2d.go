package sandbox

import "github.com/aclwasm/aclwasm/acl"

// sides2D resolves both sides of a 2D copy (step "range"): each side's
// span is (height-1)*pitch + width bytes.
func (c *Call) sides2D() (d, s span, err error) {
	dst, dpitch, src, spitch, width, height := c.u64(0), c.u64(1), c.u64(2), c.u64(3), c.u64(4), c.u64(5)
	dn, ok := acl.Span2D(dpitch, width, height)
	if !ok {
		return d, s, acl.Errorf(acl.ErrRTParamInvalid, "(height-1)*dpitch + width overflows: height %d, dpitch %d, width %d", height, dpitch, width)
	}
	sn, ok := acl.Span2D(spitch, width, height)
	if !ok {
		return d, s, acl.Errorf(acl.ErrRTParamInvalid, "(height-1)*spitch + width overflows: height %d, spitch %d, width %d", height, spitch, width)
	}
	if d, err = c.resolve("dst", dst, dn, true); err != nil {
		return d, s, err
	}
	s, err = c.resolve("src", src, sn, false)
	return d, s, err
}

// args2D checks the ACL layer's arguments of (dst, dpitch, src, spitch,
// width, height, kind): steps zero, null, pitch and kind.
func (c *Call) args2D() (bool, error) {
	return acl.CheckMemcpy2DArgs(c.u64(0), c.u64(1), c.u64(2), c.u64(3), c.u64(4), c.u64(5), c.kind(6))
}

// memcpy2dSync is aclrtMemcpy2d: host to device or device to host only.
func memcpy2dSync(c *Call) error {
	if done, err := c.args2D(); done || err != nil { // zero, null, pitch, kind
		return err
	}
	width, height, kind := c.u64(4), c.u64(5), c.kind(6)
	if err := acl.Check2DLimits(width, height); err != nil { // limits
		return err
	}
	if kind == acl.MemcpyDeviceToDevice { // d2d
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "kind %s: this memcpy2d supports only host-to-device and device-to-host copies", kind)
	}
	if err := c.needDevice(); err != nil { // context
		return err
	}
	d, s, err := c.sides2D() // range
	if err != nil {
		return err
	}
	if _, err := acl.CorrectKind(kind, d.loc().Type, s.loc().Type); err != nil { // kindloc
		return err
	}
	dir := direction(&d, &s)
	if dir != acl.HostToDevice && dir != acl.DeviceToHost { // kindloc
		return acl.Errorf(acl.ErrRTParamInvalid, "the copy goes %s: memcpy2d copies host to device or device to host", dir)
	}
	if err := c.budget(width * height); err != nil { // bytes
		return err
	}
	if err := c.s.b.Memcpy2D(c.ctx, d.buf, c.u64(1), s.buf, c.u64(3), width, height); err != nil {
		return be(err)
	}
	c.moved(dir, width*height)
	return nil
}

// memcpy2dAsync is aclrtMemcpy2dAsync: H2D, D2H or D2D.
func memcpy2dAsync(c *Call) error {
	if done, err := c.args2D(); done || err != nil { // zero, null, pitch, kind
		return err
	}
	width, height, kind := c.u64(4), c.u64(5), c.kind(6)
	st, err := c.streamHandle(c.u32(7)) // stream
	if err != nil {
		return err
	}
	if st == nil && c.s.dev < 0 { // nullstream
		return acl.Errorf(acl.ErrRTParamInvalid, "stream is NULL and there is no current device to take the default stream of: call aclrtSetDevice first")
	}
	if err := acl.Check2DLimits(width, height); err != nil { // limits
		return err
	}
	if st, err = c.bindStream(st); err != nil { // context
		return err
	}
	d, s, err := c.sides2D() // range
	if err != nil {
		return err
	}
	if _, err := acl.CorrectKind(kind, d.loc().Type, s.loc().Type); err != nil { // kindloc
		return err
	}
	dir := direction(&d, &s)
	if dir == acl.HostToHost { // h2h
		return acl.Errorf(acl.ErrRTParamInvalid, "neither dst nor src is device memory: 2D copies go host to device, device to host or device to device")
	}
	if err := c.peerCheck(&d, &s); err != nil { // peer
		return err
	}
	if err := c.budget(width * height); err != nil { // bytes
		return err
	}
	if acl.Queues(d.buf, s.buf) { // not pageable
		if err := c.streamCtx(st); err != nil { // streamctx
			return err
		}
		if err := c.enqueue(st); err != nil { // queue
			return err
		}
	}
	if err := c.s.b.Memcpy2DAsync(c.ctx, d.buf, c.u64(1), s.buf, c.u64(3), width, height, st.h); err != nil { // pageable
		return be(err)
	}
	c.movedWhenRun(st, acl.Queues(d.buf, s.buf), dir, width*height)
	return nil
}
