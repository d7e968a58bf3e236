package sandbox_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
)

func TestDevicesAndPeers(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.ok("aclrtGetDeviceCount", outA)
	require.Equal(t, uint32(2), h.u32(outA))
	h.code(acl.ErrRTContextNull, "aclrtGetDevice", outA)
	h.ok("aclrtSetDevice", 1)
	h.ok("aclrtGetDevice", outA)
	require.Equal(t, uint32(1), h.u32(outA))
	h.ok("aclrtDeviceCanAccessPeer", outA, 0, 1)
	require.Equal(t, uint32(1), h.u32(outA))
	h.code(acl.ErrInvalidParam, "aclrtDeviceCanAccessPeer", outA, 1, 1)
	h.code(acl.ErrFeatureUnsupported, "aclrtDeviceEnablePeerAccess", 0, 1)
	h.code(acl.ErrInvalidParam, "aclrtDeviceEnablePeerAccess", 1, 0)
	b := h.malloc(64)
	h.ok("aclrtSetDevice", 0)
	a := h.malloc(64)
	h.code(acl.ErrRTParamInvalid, "aclrtMemcpy", a, 64, b, 64, 3) // Atlas A2: peer access first
	h.ok("aclrtDeviceEnablePeerAccess", 1, 0)
	h.ok("aclrtMemcpy", a, 64, b, 64, 3)
	h.ok("aclrtDeviceDisablePeerAccess", 1)
	h.code(acl.ErrRTParamInvalid, "aclrtDeviceDisablePeerAccess", 1)
	// Reset releases the device's allocations.
	h.ok("aclrtResetDevice", 0)
	h.code(acl.ErrRTParamInvalid, "aclrtFree", a)
	h.code(acl.ErrRTContextNull, "aclrtMalloc", outA, 8, 0)
}
