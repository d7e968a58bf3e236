package sim

import "github.com/aclwasm/aclwasm/acl"

// The simulated device's cores, as aclrtGetDeviceResLimit reports them
// before any limit is set: the AI Cores of an Atlas A2 or A3 device (24
// cube cores, each with two vector cores). The counts bound nothing (no
// kernel runs); a session may only lower its own view of them.
var resLimits = [acl.DevResTypes]uint32{acl.DevResCubeCore: 24, acl.DevResVectorCore: 48}

// DeviceResLimit implements [acl.Backend].
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
	return resLimits[t], nil
}
