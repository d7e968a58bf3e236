package sandbox

import "github.com/aclwasm/aclwasm/acl"

// validDevice checks a guest device id (107001 when out of range).
func (c *Call) validDevice(name string, dev int32) error {
	if dev < 0 || int(dev) >= len(c.s.policy.Devices) {
		return acl.Errorf(acl.ErrRTInvalidDeviceID, "%s %d does not exist: this session sees %d devices", name, dev, len(c.s.policy.Devices))
	}
	return nil
}

// setDevice is aclrtSetDevice(deviceId): the device's default context,
// created on first use, becomes current.
func setDevice(c *Call) error {
	dev := c.i32(0)
	if err := c.validDevice("deviceId", dev); err != nil {
		return err
	}
	cx := c.s.primaryOf(dev)
	if cx == nil {
		var err error
		if cx, err = c.s.newContext(dev, true); err != nil {
			return err
		}
	}
	c.s.useContext(cx)
	return nil
}

// resetDevice is aclrtResetDevice(deviceId): waits for the session's work on
// the device, then releases everything the session holds there.
func resetDevice(c *Call) error {
	dev := c.i32(0)
	if err := c.validDevice("deviceId", dev); err != nil {
		return err
	}
	syncErr := c.s.syncStreams(c.ctx, dev, -1)
	if err := c.s.releaseDevice(c.ctx, dev, false); err != nil {
		return be(err)
	}
	return be(syncErr)
}

// resetDeviceForce is aclrtResetDeviceForce(deviceId): as aclrtResetDevice,
// but the session's queued work on the device is cancelled, not awaited:
// what had not started never runs, and its errors die with it.
func resetDeviceForce(c *Call) error {
	dev := c.i32(0)
	if err := c.validDevice("deviceId", dev); err != nil {
		return err
	}
	if err := c.forcer(); err != nil {
		return err
	}
	return be(c.s.releaseDevice(c.ctx, dev, true))
}

// getDevice is aclrtGetDevice(deviceId).
func getDevice(c *Call) error {
	out, err := c.out(0, 4)
	if err != nil {
		return err
	}
	if err := c.needDevice(); err != nil {
		return acl.Unrecorded(err) // rtGetDevice returns it without recording it
	}
	le.PutUint32(out, uint32(c.s.dev))
	return nil
}

// getDeviceCount is aclrtGetDeviceCount(count).
func getDeviceCount(c *Call) error {
	out, err := c.out(0, 4)
	if err != nil {
		return err
	}
	le.PutUint32(out, uint32(len(c.s.policy.Devices)))
	return nil
}

// synchronizeDevice is aclrtSynchronizeDevice(): the session's streams on
// the current device, not the whole physical device.
func synchronizeDevice(c *Call) error {
	if err := c.needDevice(); err != nil {
		return err
	}
	return be(c.s.syncStreams(c.ctx, c.s.dev, -1))
}

// synchronizeDeviceWithTimeout is aclrtSynchronizeDeviceWithTimeout(timeoutMs).
func synchronizeDeviceWithTimeout(c *Call) error {
	ms := c.i32(0)
	if err := acl.CheckTimeoutRange(ms); err != nil { // timeout
		return acl.Unrecorded(err) // the ACL layer's own 107000
	}
	if err := acl.CheckTimeoutZero(ms); err != nil { // zero
		return err
	}
	if err := c.needDevice(); err != nil { // context
		return err
	}
	return be(c.s.syncStreams(c.ctx, c.s.dev, ms))
}

// deviceCanAccessPeer is aclrtDeviceCanAccessPeer(canAccessPeer, deviceId, peerDeviceId).
func deviceCanAccessPeer(c *Call) error {
	dev, peer := c.i32(1), c.i32(2)
	if dev == peer { // same
		return acl.Errorf(acl.ErrInvalidParam, "deviceId and peerDeviceId are both %d", dev)
	}
	out, err := c.out(0, 4) // null: the runtime checks it (107000)
	if err != nil {
		return acl.Errorf(acl.ErrRTParamInvalid, "%s", acl.MessageOf(err))
	}
	if err := c.validDevice("deviceId", dev); err != nil { // device
		return err
	}
	if err := c.validDevice("peerDeviceId", peer); err != nil {
		return err
	}
	ok, err := c.s.b.CanAccessPeer(c.s.phys(dev), c.s.phys(peer))
	if err != nil {
		return be(err)
	}
	v := uint32(0)
	if ok {
		v = 1
	}
	le.PutUint32(out, v)
	return nil
}

// deviceEnablePeerAccess is aclrtDeviceEnablePeerAccess(peerDeviceId, flags).
func deviceEnablePeerAccess(c *Call) error {
	if err := acl.CheckEnablePeerAccess(c.u32(1)); err != nil { // flags
		return err
	}
	if err := c.needDevice(); err != nil { // context
		return err
	}
	peer := c.i32(0)
	if err := acl.CheckPeerSelf(c.s.dev, peer); err != nil { // self
		return err
	}
	if err := c.validDevice("peerDeviceId", peer); err != nil { // device
		return err
	}
	key := [2]int32{c.s.dev, peer}
	if c.s.peers[key] {
		return nil
	}
	if err := c.s.sh.peerAcquire(c.s.phys(c.s.dev), c.s.phys(peer)); err != nil {
		return be(err)
	}
	if c.s.peers == nil {
		c.s.peers = map[[2]int32]bool{}
	}
	c.s.peers[key] = true
	return nil
}

// deviceDisablePeerAccess is aclrtDeviceDisablePeerAccess(peerDeviceId).
func deviceDisablePeerAccess(c *Call) error {
	if err := c.needDevice(); err != nil {
		return err
	}
	peer := c.i32(0)
	if peer == c.s.dev {
		return acl.Errorf(acl.ErrInvalidParam, "peerDeviceId %d is the current device", peer)
	}
	if err := c.validDevice("peerDeviceId", peer); err != nil {
		return err
	}
	key := [2]int32{c.s.dev, peer}
	if !c.s.peers[key] {
		return acl.Errorf(acl.ErrRTParamInvalid, "peer access from device %d to device %d is not enabled", c.s.dev, peer)
	}
	c.s.sh.peerRelease(c.s.phys(c.s.dev), c.s.phys(peer))
	delete(c.s.peers, key)
	return nil
}
