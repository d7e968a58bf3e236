//go:build darwin || freebsd || linux || netbsd

package cann

import "github.com/aclwasm/aclwasm/acl"

// DeviceResLimit implements [acl.Backend] with aclrtGetDeviceResLimit, in
// dev's context (natively the device must be set); a library without it
// gives 207000.
func (b *Backend) DeviceResLimit(dev int32, t acl.DevResLimitType) (uint32, error) {
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.exit()
	if err := b.checkDevice(dev); err != nil {
		return 0, err
	}
	f := b.api.aclrtGetDeviceResLimit
	if f == nil {
		return 0, b.missing("aclrtGetDeviceResLimit")
	}
	var v uint32
	if err := b.call(dev, "aclrtGetDeviceResLimit", func() int32 { return f(dev, int32(t), &v) }); err != nil {
		return 0, err
	}
	return v, nil
}
