package sandbox

import "github.com/aclwasm/aclwasm/acl"

// The device and product queries of ABI v1.3 section 15: a program asks
// what chip it runs on, what the device offers and whether it is healthy.
// The answers come from the backend (the simulated chip profile, or the
// node's runtime), through the session's view: device ids are the
// guest's, the memory is the session's quota, and nothing that locates
// the machine or tells of other sessions' load reaches a guest.

// queryFeature refuses, with 207000, a query whose native function fn the
// backend lacks (acl.Backend.Supports).
func (c *Call) queryFeature(fn string) error {
	if !c.s.b.Supports(fn) {
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "the %s backend does not offer %s", c.s.b.Name(), fn)
	}
	return nil
}

// getCannAttribute is aclGetCannAttribute(cannAttr, value): the ACL layer
// checks value, then the attribute against the ones it knows
// (cann_info_utils.cpp:111-115).
func getCannAttribute(c *Call) error {
	out, err := c.out(1, 4) // null
	if err != nil {
		return err
	}
	a := acl.CannAttr(c.i32(0))
	known := false
	for _, k := range acl.CannAttrs {
		known = known || a == k
	}
	if !known { // attr
		return acl.Errorf(acl.ErrInvalidParam, "cannAttr %s is not a CANN attribute: ACL_CANN_ATTR_INF_NAN (0), ACL_CANN_ATTR_BF16 (1) or ACL_CANN_ATTR_JIT_COMPILE (2)", a)
	}
	if err := c.queryFeature("aclGetCannAttribute"); err != nil { // feature
		return err
	}
	v, err := c.s.b.CannAttribute(a)
	if err != nil {
		return be(err)
	}
	le.PutUint32(out, uint32(v))
	return nil
}

// getSocName is aclrtGetSocName(name, nameLen): it returns the length of
// the SoC name and copies up to nameLen-1 bytes of it plus a NUL into
// name, as aclGetRecentErrMsg does with its message. Natively the
// function returns the name or NULL and has no error code: a backend
// without it, or one that cannot read the name, gives length 0 (NULL in
// the SDKs) and records nothing.
func getSocName(c *Call) error {
	var name string
	if c.s.b.Supports("aclrtGetSocName") {
		if s, err := c.s.b.SocName(); err == nil {
			name = s
		}
	}
	n := int32(len(name))
	c.ret = &n
	buf, bufLen := c.u32(0), c.i32(1)
	if buf == 0 || bufLen <= 0 {
		return nil
	}
	k := min(uint64(bufLen)-1, uint64(len(name)))
	out, err := c.guest("name", buf, k+1)
	if err != nil {
		return nil // a buffer outside guest memory gets nothing; the length still tells
	}
	copy(out, name[:k])
	out[k] = 0
	return nil
}

// checkArchCompatibility is aclrtCheckArchCompatibility(socVersion,
// canCompatible): the ACL layer checks nothing; the runtime's decorator
// refuses NULL pointers and an empty name with 107000
// (api_error.cc:5052-5059), then the runtime looks both SoCs up.
func checkArchCompatibility(c *Call) error {
	soc, err := c.cstring("socVersion", c.u32(0))
	if err != nil { // null: natively the decorator's 107000, not the ACL layer's 100000
		return acl.Errorf(acl.ErrRTParamInvalid, "%s", acl.MessageOf(err))
	}
	out, err := c.out(1, 4)
	if err != nil { // null
		return acl.Errorf(acl.ErrRTParamInvalid, "%s", acl.MessageOf(err))
	}
	if soc == "" { // empty
		return acl.Errorf(acl.ErrRTParamInvalid, "socVersion is the empty string: name a SoC, such as the one aclrtGetSocName reports")
	}
	if err := c.queryFeature("aclrtCheckArchCompatibility"); err != nil { // feature
		return err
	}
	ok, err := c.s.b.ArchCompatible(soc) // soc
	if err != nil {
		if acl.CodeOf(err) == acl.ErrRTParamInvalid {
			return acl.Errorf(acl.ErrRTParamInvalid, "socVersion %q is not a SoC the runtime knows", soc)
		}
		return be(err)
	}
	v := uint32(0)
	if ok {
		v = 1
	}
	le.PutUint32(out, v)
	return nil
}

// getDeviceCapability is aclrtGetDeviceCapability(deviceId,
// devFeatureType, value): the runtime's entry point checks the type
// (api_c_device.cc:517-555) before its decorator looks at the device.
func getDeviceCapability(c *Call) error {
	out, err := c.out(2, 4) // null
	if err != nil {
		return err
	}
	f := acl.DevFeature(c.i32(1))
	switch {
	case f < 0 || f >= acl.DevFeatureEnd: // type
		return acl.Errorf(acl.ErrRTParamInvalid, "devFeatureType %d is outside [0, %d)", int32(f), int32(acl.DevFeatureEnd))
	case f == 10001 || f == 20001: // internal
		return acl.Errorf(acl.ErrRTParamInvalid, "devFeatureType %d is one of the runtime's own features, not an aclrtDevFeatureType: ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV (1) or ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV (21)", int32(f))
	case f != acl.FeatureTaskUpdateAICAIV && f != acl.FeatureMemQEventCrossDev: // unknown
		return acl.Unrecorded(acl.Errorf(acl.ErrRTParamInvalid, "devFeatureType %d is not an aclrtDevFeatureType: ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV (1) or ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV (21)", int32(f)))
	}
	dev := c.i32(0)
	if err := c.validDevice("deviceId", dev); err != nil { // device
		return err
	}
	if err := c.queryFeature("aclrtGetDeviceCapability"); err != nil { // feature
		return err
	}
	v, err := c.s.b.DeviceCapability(c.s.phys(dev), f)
	if err != nil {
		return be(err)
	}
	le.PutUint32(out, uint32(v))
	return nil
}

// getDeviceInfo is aclrtGetDeviceInfo(deviceId, attr, value): a device
// the session does not see gives 107000 here (the decorator turns the
// device-id failure into an invalid value, api_error.cc:7914-7928), then
// the runtime refuses an attribute it does not know.
func getDeviceInfo(c *Call) error {
	out, err := c.out(2, 8) // null
	if err != nil {
		return err
	}
	dev := c.u32(0)
	if uint64(dev) >= uint64(len(c.s.policy.Devices)) { // device
		return acl.Errorf(acl.ErrRTParamInvalid, "deviceId %d does not exist: this session sees %d devices", dev, len(c.s.policy.Devices))
	}
	attr := acl.DevAttr(c.i32(1))
	if !attr.Known() { // attr
		return acl.Errorf(acl.ErrRTParamInvalid, "attr %d is not an aclrtDevAttr", int32(attr))
	}
	var v int64
	switch {
	case attr.Identifying(): // identity: the session's own view of one machine
		if attr == acl.DevAttrPhyChipID {
			v = int64(dev)
		}
	case attr == acl.DevAttrTotalGlobalMemSize: // memory
		v = int64(min(c.s.policy.DeviceMemory, 1<<63-1))
	default:
		if err := c.queryFeature("aclrtGetDeviceInfo"); err != nil { // feature
			return err
		}
		if v, err = c.s.b.DeviceInfo(c.s.phys(int32(dev)), attr); err != nil {
			return be(err)
		}
	}
	le.PutUint64(out, uint64(v))
	return nil
}

// queryDeviceStatus is aclrtQueryDeviceStatus(deviceId, deviceStatus).
func queryDeviceStatus(c *Call) error {
	out, err := c.out(1, 4) // null
	if err != nil {
		return err
	}
	dev := c.i32(0)
	if err := c.validDevice("deviceId", dev); err != nil { // device
		return err
	}
	if err := c.queryFeature("aclrtQueryDeviceStatus"); err != nil { // feature
		return err
	}
	st, err := c.s.b.DeviceStatus(c.s.phys(dev))
	if err != nil {
		return be(err)
	}
	le.PutUint32(out, uint32(st))
	return nil
}

// getDeviceUtilizationRate is aclrtGetDeviceUtilizationRate(deviceId,
// utilizationInfo): after the ACL layer's checks of the struct, every
// unit reads -1, not measured. A device's load is what the sessions
// sharing it do, so no session may read it; natively -1 is what a unit
// whose query fails reads (device.cpp:28-45), and memory always reads it.
func getDeviceUtilizationRate(c *Call) error {
	out, err := c.out(1, acl.UtilizationInfoSize32) // null
	if err != nil {
		return err
	}
	if ext := le.Uint32(out[acl.UtilizationExtendOff:]); ext != 0 { // extend
		return acl.Errorf(acl.ErrInvalidParam, "utilizationInfo->utilizationExtend is %#x: it is a reserved parameter and must be NULL", ext)
	}
	v := acl.UtilizationNotSupported
	for i := 0; i < acl.UtilizationExtendOff; i += 4 { // value
		le.PutUint32(out[i:], uint32(v))
	}
	return nil
}

// deviceGetStreamPriorityRange is aclrtDeviceGetStreamPriorityRange(
// leastPriority, greatestPriority): either pointer may be NULL, as
// natively (api_impl.cc:3828-3838); one that is not must lie in guest
// memory.
func deviceGetStreamPriorityRange(c *Call) error {
	var outs [2][]byte
	for i := range outs {
		if c.u32(i) == 0 {
			continue
		}
		b, err := c.out(i, 4) // range
		if err != nil {
			return err
		}
		outs[i] = b
	}
	for i, v := range [2]int32{acl.StreamPriorityLeast, acl.StreamPriorityGreatest} { // value
		if outs[i] != nil {
			le.PutUint32(outs[i], uint32(v))
		}
	}
	return nil
}

// resetDeviceResLimit is aclrtResetDeviceResLimit(deviceId): the session's
// own core limits on the device (aclrtSetDeviceResLimit) are dropped, so
// it sees the device's counts again. Natively the limits are the
// process's; here each session has its own (resource.go).
func resetDeviceResLimit(c *Call) error {
	dev, err := c.resDevice(func() error { return nil }) // negative, device, unset
	if err != nil {
		return err
	}
	for t := acl.DevResLimitType(0); t < acl.DevResTypes; t++ { // reset
		delete(c.s.resLimits, resKey{dev, t})
	}
	return nil
}
