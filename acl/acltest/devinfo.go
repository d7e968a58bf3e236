package acltest

import (
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// devinfoTests cover the backend side of the device and product queries
// of ABI v1.3 section 15: every backend answers for a chip the native
// platform description knows, and refuses what the runtime refuses.
var devinfoTests = []test{
	{"DeviceQueries", func(e *env) {
		soc, err := e.b.SocName()
		require.NoError(e, err)
		require.NotEmpty(e, soc)
		ok, err := e.b.ArchCompatible(soc)
		require.NoError(e, err)
		require.True(e, ok, "%s runs its own code", soc)
		_, err = e.b.ArchCompatible("NoSuchSoc")
		code(e, err, acl.ErrRTParamInvalid)
		for _, a := range acl.CannAttrs {
			v, err := e.b.CannAttribute(a)
			require.NoError(e, err, "%s", a)
			require.Contains(e, []int32{0, 1}, v, "%s", a)
		}
		for _, a := range []acl.DevAttr{acl.DevAttrAICoreCoreNum, acl.DevAttrCubeCoreNum, acl.DevAttrVectorCoreNum, acl.DevAttrL2CacheSize, acl.DevAttrNPUArch} {
			v, err := e.b.DeviceInfo(0, a)
			require.NoError(e, err, "%s", a)
			require.Positive(e, v, "%s", a)
		}
		cube, err := e.b.DeviceInfo(0, acl.DevAttrCubeCoreNum)
		require.NoError(e, err)
		e.stream(0) // natively the core limit needs the device set
		limit, err := e.b.DeviceResLimit(0, acl.DevResCubeCore)
		require.NoError(e, err)
		require.Equal(e, int64(limit), cube, "aclrtGetDeviceInfo and aclrtGetDeviceResLimit agree on the cube cores")
		_, err = e.b.DeviceInfo(0, 103)
		code(e, err, acl.ErrRTParamInvalid)
		v, err := e.b.DeviceCapability(0, acl.FeatureMemQEventCrossDev)
		require.NoError(e, err)
		require.Contains(e, []int32{acl.FeatureNotSupported, acl.FeatureSupported}, v)
		st, err := e.b.DeviceStatus(0)
		require.NoError(e, err)
		require.Equal(e, acl.DeviceStatusNormal, st)
		_, err = e.b.DeviceStatus(99)
		code(e, err, acl.ErrRTInvalidDeviceID)
	}},
}
