package sandbox

import "github.com/aclwasm/aclwasm/acl"

// The resource queries of ABI v1.2 section 12: the current context's
// default stream, the device's core limits and the streams left. They
// answer from the session's view: a core limit a session sets binds that
// session's answers only (natively it is process-wide, and would bind
// every session on the device), and the streams left are what the policy
// still allows it.

// ctxGetCurrentDefaultStream is aclrtCtxGetCurrentDefaultStream(stream):
// the current context's default stream. A guest names it NULL in every
// call that takes a stream (ABI section 2), so NULL is its handle: it
// names the default stream of whichever context is current when it is
// used, where a native handle would keep naming this one's.
func ctxGetCurrentDefaultStream(c *Call) error {
	out, err := c.out(0, 4) // null
	if err != nil {
		return err
	}
	if err := c.needDevice(); err != nil { // context: a current device is a current context
		return err
	}
	le.PutUint32(out, 0)
	return nil
}

// resType checks an aclrtDevResLimitType parameter as the runtime's error
// decorator does: [0, 2), else 107000.
func (c *Call) resType(i int) (acl.DevResLimitType, error) {
	t := acl.DevResLimitType(c.i32(i))
	if t < 0 || t >= acl.DevResTypes {
		return 0, acl.Errorf(acl.ErrRTParamInvalid, "type %d is not an aclrtDevResLimitType: ACL_RT_DEV_RES_CUBE_CORE (0) or ACL_RT_DEV_RES_VECTOR_CORE (1)", int32(t))
	}
	return t, nil
}

// resDevice checks the deviceId of aclrtGetDeviceResLimit and
// aclrtSetDeviceResLimit in the runtime's order: negative (the entry
// point), then after the type, a device the session does not see, then
// one the session has no context on (natively, a device never set:
// ACL_ERROR_RT_DEV_SETUP_ERROR). check runs between the first two.
func (c *Call) resDevice(check func() error) (int32, error) {
	dev := c.i32(0)
	if dev < 0 { // negative
		return 0, acl.Errorf(acl.ErrRTInvalidDeviceID, "deviceId %d is negative", dev)
	}
	if err := check(); err != nil {
		return 0, err
	}
	if err := c.validDevice("deviceId", dev); err != nil { // device
		return 0, err
	}
	for _, cx := range c.s.ctxs {
		if cx.dev == dev {
			return dev, nil
		}
	}
	return 0, acl.Errorf(acl.ErrRTDevSetup, "device %d has not been set in this session: call aclrtSetDevice(%d) first", dev, dev) // unset
}

// resLimit returns the session's limit of cores of type t on guest device
// dev: the one it set, else the device's count from the backend.
func (c *Call) resLimit(dev int32, t acl.DevResLimitType) (uint32, error) {
	if v, ok := c.s.resLimits[resKey{dev, t}]; ok {
		return v, nil
	}
	v, err := c.s.b.DeviceResLimit(c.s.phys(dev), t)
	return v, be(err)
}

// resKey names one of a session's core limits.
type resKey struct {
	dev int32
	t   acl.DevResLimitType
}

// getDeviceResLimit is aclrtGetDeviceResLimit(deviceId, type, value).
func getDeviceResLimit(c *Call) error {
	out, err := c.out(2, 4) // null
	if err != nil {
		return err
	}
	var t acl.DevResLimitType
	dev, err := c.resDevice(func() (err error) { t, err = c.resType(1); return err }) // negative, type, device, unset
	if err != nil {
		return err
	}
	v, err := c.resLimit(dev, t) // feature
	if err != nil {
		return err
	}
	le.PutUint32(out, v)
	return nil
}

// setDeviceResLimit is aclrtSetDeviceResLimit(deviceId, type, value):
// natively it has no ACL-layer check. value may be anything up to the
// device's count (107000 above it), so a session can lower its limit and
// raise it back, never past what the device has.
func setDeviceResLimit(c *Call) error {
	var t acl.DevResLimitType
	dev, err := c.resDevice(func() (err error) { t, err = c.resType(1); return err }) // negative, type, device, unset
	if err != nil {
		return err
	}
	total, err := c.s.b.DeviceResLimit(c.s.phys(dev), t) // feature
	if err != nil {
		return be(err)
	}
	v := c.u32(2)
	if v > total { // value
		return acl.Errorf(acl.ErrRTParamInvalid, "value %d is above the %d cores of type %s that device %d has", v, total, t, dev)
	}
	if c.s.resLimits == nil {
		c.s.resLimits = map[resKey]uint32{}
	}
	c.s.resLimits[resKey{dev, t}] = v
	return nil
}

// getResInCurrentThread is aclrtGetResInCurrentThread(type, value): the
// limit of the stream aclrtUseStreamResInCurrentThread named where it has
// one of that type (no current device needed, as natively), else the
// current device's limit as the session sees it.
func getResInCurrentThread(c *Call) error {
	out, err := c.out(1, 4) // null
	if err != nil {
		return err
	}
	t, err := c.resType(0) // type
	if err != nil {
		return err
	}
	if st := c.s.useRes; st != nil && st.res.set[t] { // stream
		le.PutUint32(out, st.res.v[t])
		return nil
	}
	if err := c.needDevice(); err != nil { // context
		return err
	}
	v, err := c.resLimit(c.s.dev, t) // feature
	if err != nil {
		return err
	}
	le.PutUint32(out, v)
	return nil
}

// getStreamAvailableNum is aclrtGetStreamAvailableNum(streamCount): how
// many more streams the policy lets the session create (MaxStreams minus
// those it holds, on every device), where natively it is what the device
// has left. Default streams do not count, as natively.
func getStreamAvailableNum(c *Call) error {
	out, err := c.out(0, 4) // null
	if err != nil {
		return err
	}
	if err := c.needDevice(); err != nil { // context
		return err
	}
	le.PutUint32(out, uint32(max(c.s.policy.MaxStreams-len(c.s.streams), 0)))
	return nil
}
