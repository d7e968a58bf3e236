package sandbox_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
)

func TestDevicesAndPeers(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtGetDeviceCount", outA)
	require.Equal(t, uint32(2), h.U32(outA))
	h.Code(acl.ErrRTContextNull, "aclrtGetDevice", outA)
	h.OK("aclrtSetDevice", 1)
	h.OK("aclrtGetDevice", outA)
	require.Equal(t, uint32(1), h.U32(outA))
	h.OK("aclrtDeviceCanAccessPeer", outA, 0, 1)
	require.Equal(t, uint32(1), h.U32(outA))
	h.Code(acl.ErrInvalidParam, "aclrtDeviceCanAccessPeer", outA, 1, 1)
	h.Code(acl.ErrFeatureUnsupported, "aclrtDeviceEnablePeerAccess", 0, 1)
	h.Code(acl.ErrInvalidParam, "aclrtDeviceEnablePeerAccess", 1, 0)
	b := h.Malloc(64)
	h.OK("aclrtSetDevice", 0)
	a := h.Malloc(64)
	h.Code(acl.ErrRTParamInvalid, "aclrtMemcpy", a, 64, b, 64, 3) // Atlas A2: peer access first
	h.OK("aclrtDeviceEnablePeerAccess", 1, 0)
	h.OK("aclrtMemcpy", a, 64, b, 64, 3)
	h.OK("aclrtDeviceDisablePeerAccess", 1)
	h.Code(acl.ErrRTParamInvalid, "aclrtDeviceDisablePeerAccess", 1)
	// Reset releases the device's allocations.
	h.OK("aclrtResetDevice", 0)
	h.Code(acl.ErrRTParamInvalid, "aclrtFree", a)
	h.Code(acl.ErrRTContextNull, "aclrtMalloc", outA, 8, 0)
}
