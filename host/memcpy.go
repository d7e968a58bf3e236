package host

import "github.com/aclwasm/aclwasm/acl"

// copyArgs are the validated sides of a one-dimensional copy.
type copyArgs struct {
	dst, src span
	n        uint64
	dir      acl.Direction
	noop     bool // dst == src: succeeds without copying, as natively
}

// prepareCopy applies the native checks of the memcpy family, then the
// sandbox's range checks; parameters are (dst, destMax, src, count, kind).
func (c *call) prepareCopy() (copyArgs, bool, error) {
	dst, destMax, src, n, kind := c.u64(0), c.u64(1), c.u64(2), c.u64(3), c.kind(4)
	done, err := acl.CheckMemcpy(dst, destMax, src, n, kind)
	if done || err != nil {
		return copyArgs{}, done, err
	}
	if err := c.needDevice(); err != nil {
		return copyArgs{}, false, err
	}
	d, err := c.resolve("dst", dst, n, true)
	if err != nil {
		return copyArgs{}, false, err
	}
	s, err := c.resolve("src", src, n, false)
	if err != nil {
		return copyArgs{}, false, err
	}
	if err := c.peerCheck(d, s); err != nil {
		return copyArgs{}, false, err
	}
	return copyArgs{dst: d, src: s, n: n, dir: direction(d, s), noop: dst == src}, false, nil
}

// peerCheck applies the peer rule per session: a copy between two devices
// needs this session to have enabled peer access between them (either
// way, as the simulator's chips do), on hardware that needs it at all.
func (c *call) peerCheck(d, s span) error {
	if d.a == nil || s.a == nil || d.a.dev == s.a.dev || !c.s.rt.peerRequired {
		return nil
	}
	x, y := d.a.dev, s.a.dev
	if c.s.peers[[2]int32{x, y}] || c.s.peers[[2]int32{y, x}] {
		return nil
	}
	return acl.Errorf(acl.ErrRTParamInvalid, "dst is on device %d and src on device %d: enable peer access between them first (aclrtDeviceEnablePeerAccess)", x, y)
}

func direction(dst, src span) acl.Direction {
	return acl.DirectionOf(dst.buf.IsDevice(), src.buf.IsDevice())
}

// memcpySync is aclrtMemcpy. The kind is checked but the direction comes
// from the addresses (ABI section 7).
func memcpySync(c *call) error {
	a, done, err := c.prepareCopy()
	if done || err != nil || a.noop {
		return err
	}
	if err := c.budget(a.n); err != nil {
		return err
	}
	if err := c.s.b.Memcpy(c.ctx, a.dst.buf, a.src.buf, a.n); err != nil {
		return be(err)
	}
	c.moved(a.dir, a.n)
	return nil
}

// memcpyAsync is aclrtMemcpyAsync and aclrtMemcpyAsyncWithCondition.
func memcpyAsync(c *call) error {
	a, done, err := c.prepareCopy()
	if done || err != nil {
		return err
	}
	st, err := c.stream(c.u32(5))
	if err != nil || a.noop {
		return err
	}
	if a.dir == acl.HostToHost {
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "asynchronous host-to-host copies are not supported (PCIe-attached card)")
	}
	if err := c.budget(a.n); err != nil {
		return err
	}
	if err := c.enqueue(st); err != nil {
		return err
	}
	if err := c.s.b.MemcpyAsync(c.ctx, a.dst.buf, a.src.buf, a.n, st.h); err != nil {
		return be(err)
	}
	c.movedWhenRun(st, a.dst.buf.Pinned() && a.src.buf.Pinned(), a.dir, a.n)
	return nil
}
