package acl

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEnumNames: every enum of names.go reads as the header names its
// values; other values as the C type and the number; flags joined by "|",
// unknown bits in hex.
func TestEnumNames(t *testing.T) {
	for _, tc := range []struct {
		v    fmt.Stringer
		want string
	}{
		{DDRMem, "ACL_DDR_MEM"},
		{HBMMem, "ACL_HBM_MEM"},
		{HBMMemP2PHuge1G, "ACL_HBM_MEM_P2P_HUGE1G"},
		{MemP2PHuge1G, "ACL_MEM_P2P_HUGE1G"},
		{memAttrEnd, "aclrtMemAttr(18)"},
		{MemAttr(-1), "aclrtMemAttr(-1)"},

		{MemMallocHugeFirst, "ACL_MEM_MALLOC_HUGE_FIRST"},
		{MemMallocHuge1GOnlyP2P, "ACL_MEM_MALLOC_HUGE1G_ONLY_P2P"},
		{MemMallocNormalOnly | MemTypeHighBandWidth | 0x40000, "ACL_MEM_MALLOC_NORMAL_ONLY|ACL_MEM_TYPE_HIGH_BAND_WIDTH|0x40000"},
		{MemTypeLowBandWidth, "ACL_MEM_MALLOC_HUGE_FIRST|ACL_MEM_TYPE_LOW_BAND_WIDTH"},
		{MemAccessUserSpaceReadonly | 9, "aclrtMemMallocPolicy(9)|ACL_MEM_ACCESS_USER_SPACE_READONLY"},

		{StreamStatusComplete, "ACL_STREAM_STATUS_COMPLETE"},
		{StreamStatusNotReady, "ACL_STREAM_STATUS_NOT_READY"},
		{StreamStatusReserved, "ACL_STREAM_STATUS_RESERVED"},
		{StreamStatus(2), "aclrtStreamStatus(2)"},

		{EventRecordedStatusNotReady, "ACL_EVENT_RECORDED_STATUS_NOT_READY"},
		{EventRecordedStatusComplete, "ACL_EVENT_RECORDED_STATUS_COMPLETE"},
		{EventRecordedStatus(2), "aclrtEventRecordedStatus(2)"},

		{EventWaitStatusComplete, "ACL_EVENT_WAIT_STATUS_COMPLETE"},
		{EventWaitStatusNotReady, "ACL_EVENT_WAIT_STATUS_NOT_READY"},
		{EventWaitStatusReserved, "ACL_EVENT_WAIT_STATUS_RESERVED"},
		{EventWaitStatus(7), "aclrtEventWaitStatus(7)"},

		{HostRegisterMapped, "ACL_HOST_REGISTER_MAPPED"},
		{HostRegisterIOMemory, "ACL_HOST_REGISTER_IOMEMORY"},
		{HostRegisterIOMemory | HostRegisterReadOnly | 1, "ACL_HOST_REGISTER_IOMEMORY|ACL_HOST_REGISTER_READONLY|0x1"},

		{ErrorTypeNone, "ACL_RT_NO_ERROR"},
		{ErrorTypeL3Port, "ACL_RT_ERROR_L3_PORT"},
		{ErrorTypeOthers, "ACL_RT_ERROR_OTHERS"},
		{ErrorType(6), "aclrtErrorType(6)"},
	} {
		require.Equal(t, tc.want, tc.v.String(), "%T", tc.v)
	}
}
