package sim

import "github.com/aclwasm/aclwasm/acl"

// DeviceResLimit implements [acl.Backend]: the chip's cores (an Atlas A2
// or A3 device has 24 cube cores, each with two vector cores), as
// aclrtGetDeviceResLimit reports them before any limit is set. A session
// may only lower its own view of them.
func (b *Backend) DeviceResLimit(dev int32, t acl.DevResLimitType) (uint32, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return 0, errClosed()
	}
	if _, err := b.device(dev); err != nil {
		return 0, err
	}
	if t < 0 || t >= acl.DevResTypes {
		return 0, acl.Errorf(acl.ErrRTParamInvalid, "type %d is not an aclrtDevResLimitType: [0, %d)", t, acl.DevResTypes)
	}
	if t == acl.DevResCubeCore {
		return b.prof.cube, nil
	}
	return b.prof.vec, nil
}
