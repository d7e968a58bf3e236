package sandbox

import (
	"cmp"
	"slices"

	"github.com/aclwasm/aclwasm/acl"
)

// A context is a guest device plus a default stream of its own (ABI v1.1
// section 10): the NULL stream of the calls made while it is current.
// aclrtSetDevice makes the device's default context current, creating it
// on first use; aclrtCreateContext makes another one, current at once as
// natively. Context handles share the session's handle numbering with
// streams and events, typed and never reused, so a stream, event, stale or
// foreign handle passed as a context gives 107017. Contexts live in the
// session only: the backend sees the streams, not the contexts.
type ctxRec struct {
	h       uint32
	dev     int32
	def     *streamRec // its NULL stream, created on first use
	primary bool       // the device's default context (aclrtSetDevice)
}

// useContext makes cx current, and its device.
func (s *Session) useContext(cx *ctxRec) {
	s.cur, s.dev = cx, cx.dev
}

// newContext records a context on guest device dev under a new handle.
// Handles only grow, so appending keeps s.ctxs in their order.
func (s *Session) newContext(dev int32, primary bool) (*ctxRec, error) {
	h, err := s.newHandle()
	if err != nil {
		return nil, err
	}
	var cx *ctxRec
	if s.ctxs == nil { // the first (aclrtSetDevice's, mostly) with room for two in one object
		first := new(struct {
			cx   ctxRec
			room [2]*ctxRec
		})
		cx, s.ctxs = &first.cx, first.room[:0]
	} else {
		cx = new(ctxRec)
	}
	*cx = ctxRec{h: h, dev: dev, primary: primary}
	s.ctxs = append(s.ctxs, cx)
	return cx, nil
}

// ctxOf returns the live context of handle h, or nil.
func (s *Session) ctxOf(h uint32) *ctxRec {
	i, ok := slices.BinarySearchFunc(s.ctxs, h, func(cx *ctxRec, h uint32) int { return cmp.Compare(cx.h, h) })
	if !ok {
		return nil
	}
	return s.ctxs[i]
}

// primaryOf returns the default context of guest device dev, or nil
// before aclrtSetDevice made it: the current context mostly, else one of
// the few the session holds (at most MaxStreams and a device's each).
func (s *Session) primaryOf(dev int32) *ctxRec {
	if cx := s.cur; cx != nil && cx.primary && cx.dev == dev {
		return cx
	}
	for _, cx := range s.ctxs {
		if cx.primary && cx.dev == dev {
			return cx
		}
	}
	return nil
}

// dropContexts forgets the contexts of guest device dev (every device when
// dev < 0), whose streams are gone: aclrtResetDevice and the session's end.
// The current one goes too, leaving no current device. At the session's
// end (dev < 0) no handle is asked about again: the destroyed ones are not
// remembered.
func (s *Session) dropContexts(dev int32) {
	if dev < 0 {
		s.ctxs, s.cur, s.dev = nil, nil, -1
		return
	}
	s.ctxs = slices.DeleteFunc(s.ctxs, func(cx *ctxRec) bool {
		if cx.dev != dev {
			return false
		}
		s.destroyed(cx.h)
		return true
	})
	if s.dev == dev { // the current context is on dev
		s.cur, s.dev = nil, -1
	}
}

// forgetContext drops cx, remembering its handle (destroyed).
func (s *Session) forgetContext(cx *ctxRec) {
	if i, ok := slices.BinarySearchFunc(s.ctxs, cx.h, func(cx *ctxRec, h uint32) int { return cmp.Compare(cx.h, h) }); ok {
		s.ctxs = slices.Delete(s.ctxs, i, i+1)
	}
	s.destroyed(cx.h)
}

// destroyed remembers context handle h as a destroyed context's: natively
// a destroyed context is told apart from a live one (107000 and 107002,
// not 107017), and handles are never reused, so the handle stays a
// destroyed context's.
func (s *Session) destroyed(h uint32) {
	if s.deadCtxs == nil {
		s.deadCtxs = map[uint32]bool{}
	}
	s.deadCtxs[h] = true
}

// notStream is the 107017 of a handle that names no stream of the session.
func (s *Session) notStream(h uint32) error {
	if _, isEvent := s.events[h]; isEvent {
		return acl.Errorf(acl.ErrRTInvalidHandle, "handle %d is an event, not a stream", h)
	}
	if s.ctxOf(h) != nil {
		return acl.Errorf(acl.ErrRTInvalidHandle, "handle %d is a context, not a stream", h)
	}
	if s.isNotify(h) {
		return acl.Errorf(acl.ErrRTInvalidHandle, "handle %d is a notify, not a stream", h)
	}
	return acl.Errorf(acl.ErrRTInvalidHandle, "stream handle %d is unknown or destroyed", h)
}

// context resolves a context handle: NULL gives 100000 (the ACL layer),
// unknown, destroyed, stream and event handles 107017.
func (c *Call) context(h uint32) (*ctxRec, error) {
	if h == 0 {
		return nil, acl.Errorf(acl.ErrInvalidParam, "context is NULL")
	}
	cx := c.s.ctxOf(h)
	switch {
	case cx != nil:
		return cx, nil
	case c.s.streams[h] != nil:
		return nil, acl.Errorf(acl.ErrRTInvalidHandle, "handle %d is a stream, not a context", h)
	case c.s.events[h] != nil:
		return nil, acl.Errorf(acl.ErrRTInvalidHandle, "handle %d is an event, not a context", h)
	case c.s.isNotify(h):
		return nil, acl.Errorf(acl.ErrRTInvalidHandle, "handle %d is a notify, not a context", h)
	}
	return nil, acl.Errorf(acl.ErrRTInvalidHandle, "context handle %d is unknown or destroyed", h)
}

// createContext is aclrtCreateContext(context, deviceId): a new context on
// the device, current from now on.
func createContext(c *Call) error {
	out, err := c.out(0, 4)
	if err != nil {
		return err
	}
	dev := c.i32(1)
	if err := c.validDevice("deviceId", dev); err != nil {
		return err
	}
	held := 0 // the contexts it created, not the devices' default ones
	for _, cx := range c.s.ctxs {
		if !cx.primary {
			held++
		}
	}
	if held >= c.s.policy.MaxStreams {
		return acl.Errorf(acl.ErrRTOverLimit, "the session already holds %d contexts, the policy's limit (MaxStreams: each has a default stream)", held)
	}
	cx, err := c.s.newContext(dev, false)
	if err != nil {
		return err
	}
	c.s.useContext(cx)
	le.PutUint32(out, cx.h)
	return nil
}

// destroyContext is aclrtDestroyContext(context): the streams created in
// it and its default stream are destroyed after their queued work; if it
// was current, no context is current any more.
func destroyContext(c *Call) error {
	h := c.u32(0)
	if c.s.deadCtxs[h] {
		return acl.Errorf(acl.ErrRTContextNull, "context %d has already been destroyed", h)
	}
	cx, err := c.context(h)
	if err != nil {
		return err
	}
	if cx.primary {
		return acl.Errorf(acl.ErrRTContextNull, "context %d is the primary context of device %d: it cannot be destroyed explicitly (aclrtResetDevice releases it)", cx.h, cx.dev)
	}
	for h, st := range c.s.streams {
		if st.ctx == cx {
			if err := c.s.destroyStream(c.ctx, st, false); err != nil {
				return be(err)
			}
			delete(c.s.streams, h)
		}
	}
	if cx.def != nil {
		if err := c.s.destroyStream(c.ctx, cx.def, false); err != nil {
			return be(err)
		}
		cx.def = nil
	}
	c.s.forgetContext(cx)
	if c.s.cur == cx {
		c.s.cur, c.s.dev = nil, -1
	}
	return nil
}

// setCurrentContext is aclrtSetCurrentContext(context): its device becomes
// current and its default stream the target of NULL streams.
func setCurrentContext(c *Call) error {
	h := c.u32(0)
	if c.s.deadCtxs[h] {
		return acl.Errorf(acl.ErrRTParamInvalid, "context %d has been destroyed", h)
	}
	cx, err := c.context(h)
	if err != nil {
		return err
	}
	c.s.useContext(cx)
	return nil
}

// getCurrentContext is aclrtGetCurrentContext(context).
func getCurrentContext(c *Call) error {
	out, err := c.out(0, 4)
	if err != nil {
		return err
	}
	if err := c.needDevice(); err != nil {
		return err
	}
	le.PutUint32(out, c.s.cur.h)
	return nil
}

// getRunMode is aclrtGetRunMode(runMode): the backend's (the simulator:
// ACL_HOST).
func getRunMode(c *Call) error {
	out, err := c.out(0, 4)
	if err != nil {
		return err
	}
	if !c.s.b.Supports("aclrtGetRunMode") {
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "the %s backend does not report a run mode", c.s.b.Name())
	}
	m, err := c.s.b.RunMode()
	if err != nil {
		return be(err)
	}
	le.PutUint32(out, uint32(m))
	return nil
}
