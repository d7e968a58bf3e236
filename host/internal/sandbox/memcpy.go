package sandbox

import "github.com/aclwasm/aclwasm/acl"

// The copies below run their checks in the order acl.Order lists for
// them; each check is marked with its step's ID.

// peerCheck applies the peer rule per session: a copy between two devices
// needs this session to have enabled peer access between them (either
// way, as the simulator's chips do), on hardware that needs it at all.
func (c *Call) peerCheck(d, s *span) error {
	if d.a == nil || s.a == nil || d.a.dev == s.a.dev || !c.s.sh.peerRequired {
		return nil
	}
	x, y := d.a.dev, s.a.dev
	if c.s.peers[[2]int32{x, y}] || c.s.peers[[2]int32{y, x}] {
		return nil
	}
	return acl.Errorf(acl.ErrRTParamInvalid, "dst is on device %d and src on device %d: enable peer access between them first (aclrtDeviceEnablePeerAccess)", x, y)
}

func direction(dst, src *span) acl.Direction {
	return acl.DirectionOf(dst.a != nil, src.a != nil)
}

// memcpySync is aclrtMemcpy(dst, destMax, src, count, kind). The kind is
// checked but the direction comes from the addresses (ABI section 7).
func memcpySync(c *Call) error {
	dst, destMax, src, n, kind := c.u64(0), c.u64(1), c.u64(2), c.u64(3), c.kind(4)
	if done, err := c.copySmall(dst, destMax, src, n, kind); done { // every step below passes (smallcopy.go)
		return err
	}
	if done, err := acl.CheckMemcpy(dst, destMax, src, n, kind); done || err != nil { // count0, null, kind, destMax
		return err
	}
	if dst == src { // same
		return nil
	}
	if err := c.needDevice(); err != nil { // context
		return err
	}
	var d, s span
	if err := c.resolveTo(&d, "dst", dst, n, true); err != nil { // range
		return err
	}
	if err := c.resolveTo(&s, "src", src, n, false); err != nil {
		return err
	}
	if err := c.peerCheck(&d, &s); err != nil { // peer
		return err
	}
	if err := c.budget(n); err != nil { // bytes
		return err
	}
	if err := c.s.b.Memcpy(c.ctx, d.buf, s.buf, n); err != nil { // direction
		return be(err)
	}
	c.moved(direction(&d, &s), n)
	return nil
}

// memcpyAsync is aclrtMemcpyAsync and aclrtMemcpyAsyncWithCondition(dst,
// destMax, src, count, kind, stream).
func memcpyAsync(c *Call) error {
	dst, destMax, src, n, kind := c.u64(0), c.u64(1), c.u64(2), c.u64(3), c.kind(4)
	if done, err := acl.CheckMemcpyArgs(dst, src, n, kind); done || err != nil { // count0, null, kind
		return err
	}
	st, err := c.streamHandle(c.u32(5)) // stream
	if err != nil {
		return err
	}
	if err := acl.CheckDestMax(destMax, n); err != nil { // destMax
		return err
	}
	if st, err = c.bindStream(st); err != nil { // context
		return err
	}
	var d, s span
	if err := c.resolveTo(&d, "dst", dst, n, true); err != nil { // range
		return err
	}
	if err := c.resolveTo(&s, "src", src, n, false); err != nil {
		return err
	}
	if _, err := acl.CorrectKind(kind, d.loc().Type, s.loc().Type); err != nil { // kind5, kindloc
		return err
	}
	dir := direction(&d, &s)
	if err := acl.CheckAsyncSides(d.buf, s.buf); err != nil { // h2h
		return acl.Unrecorded(err) // a 207000 from below the entry point
	}
	if dst == src { // same
		return nil
	}
	if err := c.peerCheck(&d, &s); err != nil { // peer
		return err
	}
	if err := c.budget(n); err != nil { // bytes
		return err
	}
	if acl.Queues(d.buf, s.buf) { // not pageable
		if err := c.streamCtx(st); err != nil { // streamctx
			return err
		}
		if err := c.enqueue(st); err != nil { // queue
			return err
		}
		if c.s.ck != nil {
			return c.checkedCopy(st, &d, &s, dst, src, n, dir)
		}
	}
	// pageable: the backend waits for the stream and returns its pending
	// error, or copies before returning.
	if err := c.s.b.MemcpyAsync(c.ctx, d.buf, s.buf, n, st.h); err != nil {
		return be(err)
	}
	c.movedWhenRun(st, acl.Queues(d.buf, s.buf), dir, n)
	return nil
}
