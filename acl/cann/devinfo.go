//go:build darwin || freebsd || linux || netbsd

package cann

import "github.com/aclwasm/aclwasm/acl"

// The device and product queries of ABI v1.3 section 15, answered by the
// node's runtime. A library without a function gives 207000 (Supports
// reports it beforehand).

// SocName implements [acl.Backend] with aclrtGetSocName, in device 0's
// context (the runtime reads the SoC of the devices it has opened). A
// NULL answer, the runtime's failure, gives 507000.
func (b *Backend) SocName() (string, error) {
	if err := b.enter(); err != nil {
		return "", err
	}
	defer b.exit()
	f := b.api.aclrtGetSocName
	if f == nil {
		return "", b.missing("aclrtGetSocName")
	}
	var name string
	if err := b.onDevice(0, func() { name = f() }); err != nil {
		return "", err
	}
	if name == "" {
		return "", acl.Errorf(acl.ErrRTInternal, "aclrtGetSocName returned NULL: the runtime could not read the SoC version")
	}
	return name, nil
}

// ArchCompatible implements [acl.Backend] with aclrtCheckArchCompatibility.
func (b *Backend) ArchCompatible(soc string) (bool, error) {
	if err := b.enter(); err != nil {
		return false, err
	}
	defer b.exit()
	f := b.api.aclrtCheckArchCompatibility
	if f == nil {
		return false, b.missing("aclrtCheckArchCompatibility")
	}
	var can int32
	if err := b.call(0, "aclrtCheckArchCompatibility", func() int32 { return f(soc, &can) }); err != nil {
		return false, err
	}
	return can != 0, nil
}

// CannAttribute implements [acl.Backend] with aclGetCannAttribute.
func (b *Backend) CannAttribute(a acl.CannAttr) (int32, error) {
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.exit()
	f := b.api.aclGetCannAttribute
	if f == nil {
		return 0, b.missing("aclGetCannAttribute")
	}
	var v int32
	if err := b.call(0, "aclGetCannAttribute", func() int32 { return f(int32(a), &v) }); err != nil {
		return 0, err
	}
	return v, nil
}

// DeviceInfo implements [acl.Backend] with aclrtGetDeviceInfo, in dev's
// context.
func (b *Backend) DeviceInfo(dev int32, attr acl.DevAttr) (int64, error) {
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.exit()
	f := b.api.aclrtGetDeviceInfo
	if f == nil {
		return 0, b.missing("aclrtGetDeviceInfo")
	}
	var v int64
	if err := b.call(dev, "aclrtGetDeviceInfo", func() int32 { return f(uint32(dev), int32(attr), &v) }); err != nil {
		return 0, err
	}
	return v, nil
}

// DeviceCapability implements [acl.Backend] with aclrtGetDeviceCapability,
// in dev's context.
func (b *Backend) DeviceCapability(dev int32, feat acl.DevFeature) (int32, error) {
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.exit()
	f := b.api.aclrtGetDeviceCapability
	if f == nil {
		return 0, b.missing("aclrtGetDeviceCapability")
	}
	var v int32
	if err := b.call(dev, "aclrtGetDeviceCapability", func() int32 { return f(dev, int32(feat), &v) }); err != nil {
		return 0, err
	}
	return v, nil
}

// DeviceStatus implements [acl.Backend] with aclrtQueryDeviceStatus, in
// dev's context.
func (b *Backend) DeviceStatus(dev int32) (acl.DeviceStatus, error) {
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.exit()
	f := b.api.aclrtQueryDeviceStatus
	if f == nil {
		return 0, b.missing("aclrtQueryDeviceStatus")
	}
	var v int32
	if err := b.call(dev, "aclrtQueryDeviceStatus", func() int32 { return f(dev, &v) }); err != nil {
		return 0, err
	}
	return acl.DeviceStatus(v), nil
}
