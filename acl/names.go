package acl

import (
	"strconv"
	"strings"
)

// The header's names of the enums whose types are declared elsewhere in
// this package, one table per enum. String returns a value's name; a value
// the header does not name reads as the C type and the number, as
// "aclrtMemAttr(77)". The trace and the guest SDK generator read names
// only through String, so each is written here once.

// named is one value of a sparse enum and its name in the header.
type named[T ~int32 | ~uint32] struct {
	v    T
	name string
}

// nameOf returns v's name in table, or "typ(v)".
func nameOf[T ~int32 | ~uint32](typ string, v T, table []named[T]) string {
	for _, n := range table {
		if n.v == v {
			return n.name
		}
	}
	if v < 0 {
		return typ + "(" + strconv.FormatInt(int64(v), 10) + ")"
	}
	return typ + "(" + strconv.FormatUint(uint64(v), 10) + ")"
}

// flagNames returns the names of v's bits in table joined by "|", then
// any other bits in hex; "" for none.
func flagNames[T ~uint32](v T, table []named[T]) string {
	var parts []string
	for _, n := range table {
		if v&n.v != 0 {
			parts = append(parts, n.name)
			v &^= n.v
		}
	}
	if v != 0 {
		parts = append(parts, "0x"+strconv.FormatUint(uint64(v), 16))
	}
	return strings.Join(parts, "|")
}

var memAttrNames = [...]string{
	"ACL_DDR_MEM", "ACL_HBM_MEM", "ACL_DDR_MEM_HUGE", "ACL_DDR_MEM_NORMAL", "ACL_HBM_MEM_HUGE",
	"ACL_HBM_MEM_NORMAL", "ACL_DDR_MEM_P2P_HUGE", "ACL_DDR_MEM_P2P_NORMAL", "ACL_HBM_MEM_P2P_HUGE",
	"ACL_HBM_MEM_P2P_NORMAL", "ACL_HBM_MEM_HUGE1G", "ACL_HBM_MEM_P2P_HUGE1G", "ACL_MEM_NORMAL",
	"ACL_MEM_HUGE", "ACL_MEM_HUGE1G", "ACL_MEM_P2P_NORMAL", "ACL_MEM_P2P_HUGE", "ACL_MEM_P2P_HUGE1G",
}

var _ = [1]int{}[len(memAttrNames)-int(memAttrEnd)] // one name per value

// String returns the native name, or "aclrtMemAttr(N)" for other values.
func (a MemAttr) String() string {
	if a.Valid() {
		return memAttrNames[a]
	}
	return "aclrtMemAttr(" + strconv.FormatInt(int64(a), 10) + ")"
}

// mallocPageNames are the page policies, the low byte of an
// aclrtMemMallocPolicy; mallocFlagNames its flags above it.
var (
	mallocPageNames = []named[MemMallocPolicy]{
		{MemMallocHugeFirst, "ACL_MEM_MALLOC_HUGE_FIRST"},
		{MemMallocHugeOnly, "ACL_MEM_MALLOC_HUGE_ONLY"},
		{MemMallocNormalOnly, "ACL_MEM_MALLOC_NORMAL_ONLY"},
		{MemMallocHugeFirstP2P, "ACL_MEM_MALLOC_HUGE_FIRST_P2P"},
		{MemMallocHugeOnlyP2P, "ACL_MEM_MALLOC_HUGE_ONLY_P2P"},
		{MemMallocNormalOnlyP2P, "ACL_MEM_MALLOC_NORMAL_ONLY_P2P"},
		{MemMallocHuge1GOnly, "ACL_MEM_MALLOC_HUGE1G_ONLY"},
		{MemMallocHuge1GOnlyP2P, "ACL_MEM_MALLOC_HUGE1G_ONLY_P2P"},
	}
	mallocFlagNames = []named[MemMallocPolicy]{
		{MemTypeLowBandWidth, "ACL_MEM_TYPE_LOW_BAND_WIDTH"},
		{MemTypeHighBandWidth, "ACL_MEM_TYPE_HIGH_BAND_WIDTH"},
		{MemAccessUserSpaceReadonly, "ACL_MEM_ACCESS_USER_SPACE_READONLY"},
	}
)

// String returns the page policy's name (the low byte; an unknown one as
// "aclrtMemMallocPolicy(N)"), then each flag's, joined by "|"; unknown
// bits above the low byte in hex. The last part of a single flag's String
// is the flag's own name.
func (p MemMallocPolicy) String() string {
	s := nameOf("aclrtMemMallocPolicy", p&0xff, mallocPageNames)
	if f := flagNames(p&^0xff, mallocFlagNames); f != "" {
		s += "|" + f
	}
	return s
}

var streamStatusNames = []named[StreamStatus]{
	{StreamStatusComplete, "ACL_STREAM_STATUS_COMPLETE"},
	{StreamStatusNotReady, "ACL_STREAM_STATUS_NOT_READY"},
	{StreamStatusReserved, "ACL_STREAM_STATUS_RESERVED"},
}

// String returns the native name, or "aclrtStreamStatus(N)" for other values.
func (s StreamStatus) String() string { return nameOf("aclrtStreamStatus", s, streamStatusNames) }

var eventRecordedStatusNames = []named[EventRecordedStatus]{
	{EventRecordedStatusNotReady, "ACL_EVENT_RECORDED_STATUS_NOT_READY"},
	{EventRecordedStatusComplete, "ACL_EVENT_RECORDED_STATUS_COMPLETE"},
}

// String returns the native name, or "aclrtEventRecordedStatus(N)" for
// other values.
func (s EventRecordedStatus) String() string {
	return nameOf("aclrtEventRecordedStatus", s, eventRecordedStatusNames)
}

var eventWaitStatusNames = []named[EventWaitStatus]{
	{EventWaitStatusComplete, "ACL_EVENT_WAIT_STATUS_COMPLETE"},
	{EventWaitStatusNotReady, "ACL_EVENT_WAIT_STATUS_NOT_READY"},
	{EventWaitStatusReserved, "ACL_EVENT_WAIT_STATUS_RESERVED"},
}

// String returns the native name, or "aclrtEventWaitStatus(N)" for other
// values.
func (s EventWaitStatus) String() string {
	return nameOf("aclrtEventWaitStatus", s, eventWaitStatusNames)
}

var hostRegisterFlagNames = []named[HostRegisterType]{
	{HostRegisterIOMemory, "ACL_HOST_REGISTER_IOMEMORY"},
	{HostRegisterReadOnly, "ACL_HOST_REGISTER_READONLY"},
}

// String returns "ACL_HOST_REGISTER_MAPPED" for 0, else the flags' names
// joined by "|", unknown bits in hex.
func (t HostRegisterType) String() string {
	if t == HostRegisterMapped {
		return "ACL_HOST_REGISTER_MAPPED"
	}
	return flagNames(t, hostRegisterFlagNames)
}

var errorTypeNames = []named[ErrorType]{
	{ErrorTypeNone, "ACL_RT_NO_ERROR"},
	{ErrorTypeMemory, "ACL_RT_ERROR_MEMORY"},
	{ErrorTypeL2, "ACL_RT_ERROR_L2"},
	{ErrorTypeAicore, "ACL_RT_ERROR_AICORE"},
	{ErrorTypeLink, "ACL_RT_ERROR_LINK"},
	{ErrorTypeL3Port, "ACL_RT_ERROR_L3_PORT"},
	{ErrorTypeOthers, "ACL_RT_ERROR_OTHERS"},
}

// String returns the native name, or "aclrtErrorType(N)" for other values.
func (t ErrorType) String() string { return nameOf("aclrtErrorType", t, errorTypeNames) }
