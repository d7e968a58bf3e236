//go:build darwin || freebsd || linux || netbsd

package cann

import "github.com/aclwasm/aclwasm/acl"

// Traits implements [acl.Runtime]: the native backend registers host
// memory per device, keeps stream limits and overflow switches in the
// node's runtime, and runs operators, kernel binaries, random numbers and
// reduces through the node's libraries; each role's methods refuse with
// ACL_ERROR_RT_FEATURE_NOT_SUPPORT where the library lacks the function
// (Supports). It promises neither zeroed allocations (the runtime does
// not) nor copies between devices without peer access.
func (b *Backend) Traits() acl.Traits {
	return acl.Traits{
		DeviceRegisterer: b,
		StreamResLimiter: b,
		OverflowSwitcher: b,
		OpComputer:       b,
		KernelRunner:     b,
		RandomGenerator:  b,
		Reducer:          b,
		ModelRunner:      b,
	}
}
