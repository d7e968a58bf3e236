//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// TestDeviceQueries: the device and product queries of ABI v1.3 section
// 15 call the library with the arguments given and pass its answers and
// codes through.
func TestDeviceQueries(t *testing.T) {
	b, s := open(t, full)
	name, err := b.SocName()
	require.NoError(t, err)
	require.Equal(t, "Ascend910B1", name)

	ok, err := b.ArchCompatible("Ascend910B3")
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = b.ArchCompatible("Ascend950PR_9579")
	require.NoError(t, err)
	require.False(t, ok)
	_, err = b.ArchCompatible("Nope")
	code(t, err, acl.ErrRTParamInvalid)

	v, err := b.CannAttribute(acl.CannAttrJITCompile)
	require.NoError(t, err)
	require.Equal(t, int32(0), v)

	info, err := b.DeviceInfo(1, acl.DevAttrVectorCoreNum)
	require.NoError(t, err)
	require.Equal(t, int64(48), info)
	_, err = b.DeviceInfo(1, 103)
	code(t, err, acl.ErrRTParamInvalid)

	cap, err := b.DeviceCapability(0, acl.FeatureTaskUpdateAICAIV)
	require.NoError(t, err)
	require.Equal(t, acl.FeatureSupported, cap)

	st, err := b.DeviceStatus(1)
	require.NoError(t, err)
	require.Equal(t, acl.DeviceStatusNormal, st)
	_, err = b.DeviceStatus(9)
	code(t, err, acl.ErrRTInvalidDeviceID) // a device the library does not have: not asked

	match(t, []string{
		"aclrtGetSocName() = 0",
		"aclrtCheckArchCompatibility(socVersion=Ascend910B3, canCompatible=*) = 0",
		"aclrtCheckArchCompatibility(socVersion=Ascend950PR_9579, canCompatible=*) = 0",
		"aclrtCheckArchCompatibility(socVersion=Nope, canCompatible=*) = 107000",
		"aclGetCannAttribute(attr=2, value=*) = 0",
		"aclrtGetDeviceInfo(deviceId=1, attr=201, value=*) = 0",
		"aclrtGetDeviceInfo(deviceId=1, attr=103, value=*) = 107000",
		"aclrtGetDeviceCapability(deviceId=0, featureType=1, value=*) = 0",
		"aclrtQueryDeviceStatus(deviceId=1, deviceStatus=*) = 0",
	}, s.calls("aclrtGetSocName", "aclrtCheckArchCompatibility", "aclGetCannAttribute", "aclrtGetDeviceInfo",
		"aclrtGetDeviceCapability", "aclrtQueryDeviceStatus"))
}
