package acltest

import (
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// resourceTests cover the backend side of ABI v1.2 section 12: the
// device's core counts, which bound a session's own limits.
var resourceTests = []test{
	{"DeviceResLimit", func(e *env) {
		e.stream(0) // natively the device must be set: a stream sets it
		for _, t := range []acl.DevResLimitType{acl.DevResCubeCore, acl.DevResVectorCore} {
			v, err := e.b.DeviceResLimit(0, t)
			require.NoError(e, err, "%s", t)
			require.NotZero(e, v, "%s", t)
		}
		_, err := e.b.DeviceResLimit(0, acl.DevResTypes)
		code(e, err, acl.ErrRTParamInvalid)
		_, err = e.b.DeviceResLimit(99, acl.DevResCubeCore)
		code(e, err, acl.ErrRTInvalidDeviceID)
	}},
}
