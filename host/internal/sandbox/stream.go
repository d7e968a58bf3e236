package sandbox

import (
	"strconv"

	"github.com/aclwasm/aclwasm/acl"
)

// createStream is aclrtCreateStream(stream).
func createStream(c *Call) error {
	s := c.s
	return c.create("streams", len(s.streams), s.policy.MaxStreams, func(id uint32, phys int32) error {
		h, err := s.b.CreateStream(phys)
		if err != nil {
			return be(err)
		}
		s.addStream(id, &streamRec{h: h, dev: s.dev, ctx: s.cur})
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
	return be(c.s.synced(st, c.s.b.SynchronizeStream(c.ctx, st.h, -1)))
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
	return be(c.s.synced(st, c.s.b.SynchronizeStream(c.ctx, st.h, ms)))
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
		s.addStream(id, &streamRec{h: h, dev: s.dev, ctx: s.cur, flags: flags, prio: acl.StreamPriority(prio)})
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

// streamStop is aclrtStreamStop(stream), in the runtime's order
// (api_c.cc rtsStreamStop, api_error.cc and api_impl.cc StreamStop and
// StreamClear): the handle; NULL, even with a current context (107000);
// the current context; the chip's support, here the backend's forced
// cancellation; a stream of another context (107003).
func streamStop(c *Call) error {
	st, err := c.streamHandle(c.u32(0)) // stream
	if err != nil {
		return err
	}
	if st == nil { // null
		return acl.Errorf(acl.ErrRTParamInvalid, "stream is NULL: aclrtStreamStop stops an explicit stream only")
	}
	if err := c.needDevice(); err != nil { // context
		return err
	}
	if err := c.forcer(); err != nil { // feature
		return err
	}
	if err := c.streamCtx(st); err != nil { // streamctx
		return err
	}
	return c.abortStream(st) // cancel
}

// streamAbort is aclrtStreamAbort(stream), in the runtime's order
// (api_c_stream.cc rtStreamAbort, api_error.cc and api_impl.cc
// StreamAbort, context.cc): the handle; NULL without a current context
// (107000: no default stream to name); the current context; a stream of
// another context (107003); the firmware's support, here the backend's
// forced cancellation.
func streamAbort(c *Call) error {
	st, err := c.streamHandle(c.u32(0)) // stream
	if err != nil {
		return err
	}
	if st == nil && c.s.dev < 0 { // null
		return acl.Errorf(acl.ErrRTParamInvalid, "stream is NULL and there is no current context whose default stream it would name")
	}
	if st, err = c.bindStream(st); err != nil { // context
		return err
	}
	if err := c.streamCtx(st); err != nil { // streamctx
		return err
	}
	if err := c.forcer(); err != nil { // feature
		return err
	}
	return c.abortStream(st) // cancel
}

// abortStream cancels the queued work of st that has not started and
// waits for the running operation, as aclrtDestroyStreamForce does, and
// st goes on taking work: a backend stream made first with its priority,
// flags, failure mode and core limits takes the place of the one the
// forced destruction ends, so that a failure before it leaves st as it
// was. The session's handle, and all it keeps of st, stay.
func (c *Call) abortStream(st *streamRec) error {
	s := c.s
	phys := s.phys(st.dev)
	var h acl.Stream
	var err error
	if (st.flags != 0 || st.prio != 0) && s.b.Supports("aclrtCreateStreamWithConfig") {
		h, err = s.b.CreateStreamWithConfig(phys, st.prio, st.flags)
	} else {
		h, err = s.b.CreateStream(phys)
	}
	if err != nil {
		return be(err)
	}
	if err := c.configure(h, st); err != nil {
		_ = s.b.DestroyStream(c.ctx, h)
		return be(err)
	}
	use := s.useRes // destroyStream ends the use of the stream it destroys: st lives on
	err = s.destroyStream(c.ctx, st, true)
	s.useRes = use
	if err != nil {
		_ = s.b.DestroyStream(c.ctx, h)
		return be(err)
	}
	st.h, st.queued = h, 0
	return nil
}

// configure gives the backend stream h what the session set on st: its
// failure mode and its core limits.
func (c *Call) configure(h acl.Stream, st *streamRec) error {
	b := c.s.b
	if st.mode != acl.ContinueOnFailure {
		if err := b.SetStreamFailureMode(h, st.mode); err != nil {
			return err
		}
	}
	if l := b.Traits().StreamResLimiter; l != nil && b.Supports("aclrtSetStreamResLimit") {
		for t := range acl.DevResTypes {
			if st.res.set[t] {
				if err := l.SetStreamResLimit(h, acl.DevResLimitType(t), st.res.v[t]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// regStreamStateCallback is aclrtRegStreamStateCallback(regName, callback,
// args): NULL callback unregisters regName, which nothing can have
// registered; a callback gives 207000, since the guest's dispatcher export
// calls void(void *) functions only and the runtime would call this one
// with a stream, a state and args.
func regStreamStateCallback(c *Call) error {
	name, err := c.cstring("regName", c.u32(0)) // null
	if err != nil {
		return err
	}
	if c.u32(1) == 0 { // unregister
		c.note = "regName " + strconv.Quote(name) + " unregistered: no stream state callback is registered in the sandbox"
		return nil
	}
	return acl.Errorf(acl.ErrRTFeatureNotSupport, "regName %q: the sandbox cannot call a stream state callback (the guest's callback dispatcher runs void(void *) functions only); nothing is registered", name) // callback
}
