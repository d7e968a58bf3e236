package sandbox

import "github.com/aclwasm/aclwasm/acl"

// The per-stream core limits of ABI v1.3 section 15. Like the device's
// (resource.go), they are the session's view; a stream is the session's
// own, so a backend that can (acl.StreamResLimiter) gets them too.

// coreLimits are the core limits set on one stream.
type coreLimits struct {
	v   [acl.DevResTypes]uint32
	set [acl.DevResTypes]bool
}

// resStream resolves the stream parameter of the per-stream limit
// functions in the runtime's order: the handle at the entry point, then
// check (the error decorator's), then, for NULL only, the current context
// whose default stream it names. An explicit stream of another device or
// context is answered, as natively.
func (c *Call) resStream(check func() error) (*streamRec, error) {
	st, err := c.streamHandle(c.u32(0)) // stream
	if err != nil {
		return nil, err
	}
	if err := check(); err != nil {
		return nil, err
	}
	if st != nil {
		return st, nil
	}
	return c.bindStream(nil) // context
}

func noCheck() error { return nil }

// getStreamResLimit is aclrtGetStreamResLimit(stream, type, value).
func getStreamResLimit(c *Call) error {
	out, err := c.out(2, 4) // null
	if err != nil {
		return err
	}
	var t acl.DevResLimitType
	st, err := c.resStream(func() (err error) { t, err = c.resType(1); return err }) // stream, type, context
	if err != nil {
		return err
	}
	v := st.res.v[t]
	if !st.res.set[t] {
		if v, err = c.resLimit(st.dev, t); err != nil { // feature
			return err
		}
	}
	le.PutUint32(out, v)
	return nil
}

// setStreamResLimit is aclrtSetStreamResLimit(stream, type, value): at most
// the cores the stream's device has; natively the device limit does not
// bound it (api_impl.cc:7945).
func setStreamResLimit(c *Call) error {
	var t acl.DevResLimitType
	st, err := c.resStream(func() (err error) { t, err = c.resType(1); return err }) // stream, type, context
	if err != nil {
		return err
	}
	total, err := c.s.b.DeviceResLimit(c.s.phys(st.dev), t) // feature
	if err != nil {
		return be(err)
	}
	v := c.u32(2)
	if v > total { // value
		return acl.Errorf(acl.ErrRTParamInvalid, "value %d is above the %d cores of type %s that device %d has", v, total, t, st.dev)
	}
	if l := c.s.b.Traits().StreamResLimiter; l != nil && c.s.b.Supports("aclrtSetStreamResLimit") {
		if err := l.SetStreamResLimit(st.h, t, v); err != nil {
			return be(err)
		}
	}
	st.res.v[t], st.res.set[t] = v, true
	return nil
}

// resetStreamResLimit is aclrtResetStreamResLimit(stream).
func resetStreamResLimit(c *Call) error {
	st, err := c.resStream(noCheck) // stream, context
	if err != nil {
		return err
	}
	if l := c.s.b.Traits().StreamResLimiter; l != nil && c.s.b.Supports("aclrtResetStreamResLimit") {
		if err := l.ResetStreamResLimit(st.h); err != nil {
			return be(err)
		}
	}
	st.res = coreLimits{}
	return nil
}

// useStreamResInCurrentThread is aclrtUseStreamResInCurrentThread(stream):
// the guest has one thread, so the stream is the session's until another
// replaces it, Unuse ends it or the stream is destroyed
// (Session.destroyStream).
func useStreamResInCurrentThread(c *Call) error {
	st, err := c.resStream(noCheck) // stream, context
	if err != nil {
		return err
	}
	c.s.useRes = st
	return nil
}

// unuseStreamResInCurrentThread is aclrtUnuseStreamResInCurrentThread(stream):
// another stream than the one in use succeeds and changes nothing, as
// natively.
func unuseStreamResInCurrentThread(c *Call) error {
	st, err := c.resStream(noCheck) // stream, context
	if err != nil {
		return err
	}
	if c.s.useRes == st {
		c.s.useRes = nil
	} else {
		c.note = "the stream is not the one in use: nothing changes"
	}
	return nil
}
