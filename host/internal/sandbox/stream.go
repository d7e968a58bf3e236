package sandbox

import "github.com/aclwasm/aclwasm/acl"

// createStream is aclrtCreateStream(stream).
func createStream(c *Call) error {
	s := c.s
	return c.create("streams", len(s.streams), s.policy.MaxStreams, func(id uint32, phys int32) error {
		h, err := s.b.CreateStream(phys)
		if err != nil {
			return be(err)
		}
		s.streams[id] = &streamRec{h: h, dev: s.dev, ctx: s.cur}
		return nil
	})
}

// create is what aclrtCreateStream and aclrtCreateEvent share: the handle
// out-parameter (parameter 0), the current device, the policy's count
// limit and a handle never handed out before; newObj creates the backend
// object on the physical device and records it under the handle.
func (c *Call) create(what string, held, limit int, newObj func(id uint32, phys int32) error) error {
	out, err := c.out(0, 4)
	if err != nil {
		return err
	}
	if err := c.needDevice(); err != nil {
		return err
	}
	if held >= limit {
		return acl.Errorf(acl.ErrRTOverLimit, "the session already holds %d %s, the policy's limit", held, what)
	}
	id, err := c.s.newHandle()
	if err != nil {
		return err
	}
	if err := newObj(id, c.s.phys(c.s.dev)); err != nil {
		return err
	}
	le.PutUint32(out, id)
	return nil
}

// lookupStream resolves an explicit stream handle for destroy: NULL gives
// 100000 natively, unknown ones 107017.
func (c *Call) lookupStream(h uint32) (*streamRec, error) {
	if h == 0 {
		return nil, acl.Errorf(acl.ErrInvalidParam, "stream is NULL")
	}
	st, ok := c.s.streams[h]
	if !ok {
		return nil, c.s.notStream(h)
	}
	return st, nil
}

// destroyStream is aclrtDestroyStream(stream): waits for its queued work.
func destroyStream(c *Call) error {
	h := c.u32(0)
	st, err := c.lookupStream(h)
	if err != nil {
		return err
	}
	if err := c.ownContext(st); err != nil { // context, streamctx
		return err
	}
	if err := c.s.destroyStream(c.ctx, st, false); err != nil {
		return be(err)
	}
	delete(c.s.streams, h)
	return nil
}

// ownContext is the check of aclrtDestroyStream[Force] after the handle:
// a current device (107002), and the stream in the current context
// (107003); nothing is destroyed otherwise.
func (c *Call) ownContext(st *streamRec) error {
	if err := c.needDevice(); err != nil {
		return err
	}
	return c.streamCtx(st)
}

// synchronizeStream is aclrtSynchronizeStream(stream). A stream of
// another device or context is synchronized as natively: the runtime
// switches to the stream's context for the wait (the backend's streams
// know their device).
func synchronizeStream(c *Call) error {
	st, err := c.streamHandle(c.u32(0)) // stream
	if err != nil {
		return err
	}
	if st, err = c.bindStream(st); err != nil { // context
		return err
	}
	return be(c.s.b.SynchronizeStream(c.ctx, st.h, -1))
}

// synchronizeStreamWithTimeout is aclrtSynchronizeStreamWithTimeout(stream, timeoutMs).
func synchronizeStreamWithTimeout(c *Call) error {
	ms := c.i32(1)
	if err := acl.CheckTimeoutRange(ms); err != nil { // timeout
		return acl.Unrecorded(err) // the ACL layer's own 107000
	}
	st, err := c.streamHandle(c.u32(0)) // stream
	if err != nil {
		return err
	}
	if err := acl.CheckTimeoutZero(ms); err != nil { // zero
		return err
	}
	if st, err = c.bindStream(st); err != nil { // context (another device's stream is waited for, as natively)
		return err
	}
	return be(c.s.b.SynchronizeStream(c.ctx, st.h, ms))
}

// streamQuery is aclrtStreamQuery(stream, status).
func streamQuery(c *Call) error {
	out, err := c.out(1, 4)
	if err != nil {
		return err
	}
	st, err := c.streamHandle(c.u32(0)) // stream
	if err != nil {
		return err
	}
	if st, err = c.bindStream(st); err != nil { // context (no stream-context check natively)
		return err
	}
	status, err := c.s.b.StreamQuery(st.h)
	if err != nil {
		return be(err)
	}
	le.PutUint32(out, uint32(status))
	return nil
}

// createStreamWithConfig is aclrtCreateStreamWithConfig(stream, priority,
// flag). As natively, the ACL layer keeps only the six known flags and
// the runtime refuses ACL_STREAM_DEVICE_USE_ONLY with another one; the
// priority is clamped, never refused. The flags tune native launch paths
// the sandbox does not have: they are accepted, kept with the stream, and
// the trace names them.
func createStreamWithConfig(c *Call) error {
	prio, flags := c.u32(1), acl.StreamFlag(c.u32(2)).Known()
	if _, err := c.out(0, 4); err != nil { // null
		return err
	}
	if err := acl.CheckStreamFlags(flags); err != nil { // flags
		return err
	}
	return c.createConfigured(prio, flags)
}

// createConfigured is the creation of aclrtCreateStreamWithConfig and
// aclrtCreateStreamV2 once their own checks have passed.
func (c *Call) createConfigured(prio uint32, flags acl.StreamFlag) error {
	s := c.s
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
		s.streams[id] = &streamRec{h: h, dev: s.dev, ctx: s.cur, flags: flags, prio: acl.StreamPriority(prio)}
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

// setStreamFailureMode is aclrtSetStreamFailureMode(stream, mode), in the
// runtime's order (api_c_stream.cc rtStreamSetMode, api_error.cc and
// api_impl.cc StreamSetMode): the handle; NULL without a current context
// (there is no stream to resolve it to: 107000); a DEVICE_USE_ONLY stream
// (207000); the current context (107002); only bit 0 of mode counts, and
// the same mode again succeeds at once; stop back to continue (207000);
// a stream of another context (107003).
func setStreamFailureMode(c *Call) error {
	st, err := c.streamHandle(c.u32(0)) // stream
	if err != nil {
		return err
	}
	if st == nil && c.s.dev < 0 { // nullctx
		return acl.Errorf(acl.ErrRTParamInvalid, "stream is NULL and there is no current context whose default stream it would name")
	}
	if st != nil && st.flags&acl.StreamDeviceUseOnly != 0 { // devuse
		return acl.Unrecorded(acl.Errorf(acl.ErrRTFeatureNotSupport, "the stream was created with ACL_STREAM_DEVICE_USE_ONLY, whose failure mode cannot be set"))
	}
	if st, err = c.bindStream(st); err != nil { // context
		return err
	}
	mode := acl.FailureModeOf(c.u64(1))
	if mode == st.mode { // same
		return nil
	}
	if err := acl.CheckFailureModeChange(st.mode, mode); err != nil { // back
		return acl.Unrecorded(err) // a 207000 from below the entry point
	}
	if err := c.streamCtx(st); err != nil { // streamctx
		return err
	}
	if !c.s.b.Supports("aclrtSetStreamFailureMode") {
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "the %s backend has no stream failure modes", c.s.b.Name())
	}
	if err := c.s.b.SetStreamFailureMode(st.h, mode); err != nil {
		return be(err)
	}
	st.mode = mode
	return nil
}
