package acl

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMemcpyKindString(t *testing.T) {
	for k, want := range map[MemcpyKind]string{
		MemcpyHostToHost:          "ACL_MEMCPY_HOST_TO_HOST",
		MemcpyHostToDevice:        "ACL_MEMCPY_HOST_TO_DEVICE",
		MemcpyDeviceToHost:        "ACL_MEMCPY_DEVICE_TO_HOST",
		MemcpyDeviceToDevice:      "ACL_MEMCPY_DEVICE_TO_DEVICE",
		MemcpyDefault:             "ACL_MEMCPY_DEFAULT",
		MemcpyHostToBufToDevice:   "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE",
		MemcpyInnerDeviceToDevice: "ACL_MEMCPY_INNER_DEVICE_TO_DEVICE",
		MemcpyInterDeviceToDevice: "ACL_MEMCPY_INTER_DEVICE_TO_DEVICE",
		8:                         "aclrtMemcpyKind(8)",
		-1:                        "aclrtMemcpyKind(-1)",
	} {
		require.Equal(t, want, k.String())
	}
	require.EqualValues(t, 6, MemcpyInnerDeviceToDevice, "the native numbering")
}

func TestDirection(t *testing.T) {
	for _, tc := range []struct {
		dst, src bool
		want     Direction
		name     string
	}{
		{false, false, HostToHost, "H2H"},
		{true, false, HostToDevice, "H2D"},
		{false, true, DeviceToHost, "D2H"},
		{true, true, DeviceToDevice, "D2D"},
	} {
		d := DirectionOf(tc.dst, tc.src)
		require.Equal(t, tc.want, d)
		require.Equal(t, tc.name, d.String())
	}
}

func TestMemLocationTypeString(t *testing.T) {
	require.Equal(t, "ACL_MEM_LOCATION_TYPE_HOST", MemLocationHost.String())
	require.Equal(t, "ACL_MEM_LOCATION_TYPE_DEVICE", MemLocationDevice.String())
	require.Equal(t, "ACL_MEM_LOCATION_TYPE_UNREGISTERED", MemLocationUnregistered.String())
	require.Equal(t, "ACL_MEM_LOCATION_TYPE_MANAGED", MemLocationManaged.String())
	require.Equal(t, "ACL_MEM_LOCATION_TYPE_HOST_NUMA", MemLocationHostNUMA.String())
	require.Equal(t, "aclrtMemLocationType(5)", MemLocationType(5).String())
}

func TestEnumValidity(t *testing.T) {
	require.False(t, MemAttr(-1).Valid())
	require.True(t, DDRMem.Valid())
	require.True(t, MemP2PHuge1G.Valid())
	require.EqualValues(t, 17, MemP2PHuge1G)
	require.False(t, MemAttr(18).Valid())

	for typ, valid := range map[HostRegisterType]bool{0: true, 4: true, 8: true, 12: true, 1: false, 2: false, 13: false} {
		require.Equal(t, valid, typ.Valid(), "%d", typ)
	}
	for p, huge := range map[MemMallocPolicy]bool{
		MemMallocHugeFirst: false, MemMallocHuge1GOnly: true, MemMallocHuge1GOnlyP2P: true,
		MemMallocHuge1GOnly | MemTypeHighBandWidth: true, MemTypeLowBandWidth: false, MemMallocNormalOnlyP2P: false,
	} {
		require.Equal(t, huge, p.huge1G(), "%#x", p)
	}
}

func TestAllocatedSize(t *testing.T) {
	for _, tc := range []struct {
		size   uint64
		policy MemMallocPolicy
		want   uint64
	}{
		{1, MemMallocHugeFirst, 64},
		{32, MemMallocHugeFirst, 64},
		{33, MemMallocHugeFirst, 96},
		{64, MemMallocHugeFirst, 96},
		{1 << 20, MemMallocNormalOnly, 1<<20 + 32},
		{1, MemMallocHuge1GOnly, 32},
		{32, MemMallocHuge1GOnlyP2P, 32},
		{33, MemMallocHuge1GOnly, 64},
		{1 << 62, MemMallocHugeFirst, 1<<62 + 32},
		{1<<62 + 1, MemMallocHugeFirst, ^uint64(0)},
		{^uint64(0), MemMallocHuge1GOnly, ^uint64(0)},
	} {
		require.Equal(t, tc.want, AllocatedSize(tc.size, tc.policy), "%d %#x", tc.size, tc.policy)
	}
}

func TestRunModeString(t *testing.T) {
	require.Equal(t, "ACL_DEVICE", RunModeDevice.String())
	require.Equal(t, "ACL_HOST", RunModeHost.String())
	require.Equal(t, "aclrtRunMode(7)", RunMode(7).String())
}
