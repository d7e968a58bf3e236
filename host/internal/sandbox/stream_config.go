package sandbox

import "github.com/aclwasm/aclwasm/acl"

// The stream functions of ABI v1.1 section 10: configured streams, forced
// destruction and failure modes.

// createStreamWithConfig is aclrtCreateStreamWithConfig(stream, priority,
// flag). As natively, the ACL layer keeps only the six known flags and
// the runtime refuses ACL_STREAM_DEVICE_USE_ONLY with another one; the
// priority is clamped, never refused. The flags tune native launch paths
// the sandbox does not have: they are accepted, kept with the stream, and
// the trace names them.
func createStreamWithConfig(c *Call) error {
	s := c.s
	prio, flags := c.u32(1), acl.StreamFlag(c.u32(2)).Known()
	if _, err := c.out(0, 4); err != nil { // null
		return err
	}
	if err := acl.CheckStreamFlags(flags); err != nil { // flags
		return err
	}
	return c.create("streams", len(s.streams), s.policy.MaxStreams, func(id uint32, phys int32) error {
		var h acl.Stream
		var err error
		if s.b.Supports("aclrtCreateStreamWithConfig") {
			h, err = s.b.CreateStreamWithConfig(phys, prio, flags)
		} else { // the flags and priorities have no meaning to it
			h, err = s.b.CreateStream(phys)
		}
		if err != nil {
			return be(err)
		}
		s.streams[id] = &streamRec{h: h, dev: s.dev, ctx: s.cur, flags: flags}
		return nil
	})
}

// forcer checks that the backend can cancel a stream's queued work.
func (c *Call) forcer() error {
	if !c.s.b.Supports("aclrtDestroyStreamForce") {
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "the %s backend cannot cancel queued work", c.s.b.Name())
	}
	return nil
}

// destroyStreamForce is aclrtDestroyStreamForce(stream): the stream's
// queued work that has not started is cancelled, then the stream is
// destroyed.
func destroyStreamForce(c *Call) error {
	h := c.u32(0)
	st, err := c.lookupStream(h)
	if err != nil {
		return err
	}
	if err := c.ownContext(st); err != nil { // context, streamctx
		return err
	}
	if err := c.forcer(); err != nil {
		return err
	}
	if err := c.s.destroyStream(c.ctx, st, true); err != nil {
		return be(err)
	}
	delete(c.s.streams, h)
	return nil
}
