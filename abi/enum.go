package abi

import "github.com/aclwasm/aclwasm/acl"

// Enum is a native enum of the ABI: one whose values a parameter takes or
// writes ([Param.Enum]), or that a struct it points to holds. Its members'
// names are package acl's, read through their String methods, so each is
// written once.
type Enum struct {
	// C is the enum's type name in the native header: "aclrtMemcpyKind";
	// empty for Macros.
	C string
	// Doc says what the values mean, for the SDKs' doc comments.
	Doc string
	// Members are its values, in the order the header lists them.
	Members []int64
	// Signed is true for an enum whose values are int32 natively, false
	// for one kept in a uint32_t (struct fields, out-parameters).
	Signed bool
	// Macros is true when the header defines the values as macros of a
	// uint32_t rather than as an enum type: a parameter of it is that
	// integer, and its members are flags.
	Macros bool

	name func(uint32) string
}

// Name returns the header's name of v (its low 32 bits, the i32 on the
// wire): "ACL_MEMCPY_HOST_TO_DEVICE", flags joined by "|", or the type
// and the number for a value the header does not name,
// "aclrtMemcpyKind(99)".
func (e *Enum) Name(v uint64) string { return e.name(uint32(v)) }

// Member returns the header's name of one member: the last "|"-separated
// part of Name, which is the flag's own name for a member that is a flag.
func (e *Enum) Member(v int64) string {
	s := e.Name(uint64(v))
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '|' {
			return s[i+1:]
		}
	}
	return s
}

// newEnum describes the acl enum T under its C name.
func newEnum[T interface {
	~int32 | ~uint32
	String() string
}](c, doc string, members ...T) *Enum {
	var zero, one T = 0, 1
	e := &Enum{C: c, Doc: doc, Signed: zero-one < zero, name: func(v uint32) string { return T(v).String() }}
	for _, m := range members {
		e.Members = append(e.Members, int64(m))
	}
	return e
}

// The enums the table's rows name.
var (
	memcpyKind = newEnum("aclrtMemcpyKind", "The direction a copy is declared to take.",
		acl.MemcpyHostToHost, acl.MemcpyHostToDevice, acl.MemcpyDeviceToHost, acl.MemcpyDeviceToDevice,
		acl.MemcpyDefault, acl.MemcpyHostToBufToDevice, acl.MemcpyInnerDeviceToDevice, acl.MemcpyInterDeviceToDevice)
	memLocationType = newEnum("aclrtMemLocationType", "Where memory lives: in a batch attribute and in aclrtPtrAttributes.",
		acl.MemLocationHost, acl.MemLocationDevice, acl.MemLocationUnregistered, acl.MemLocationManaged, acl.MemLocationHostNUMA)
	memMallocPolicy = newEnum("aclrtMemMallocPolicy", "The page policy of aclrtMalloc (low byte) and its flags (higher bits).",
		acl.MemMallocHugeFirst, acl.MemMallocHugeOnly, acl.MemMallocNormalOnly, acl.MemMallocHugeFirstP2P,
		acl.MemMallocHugeOnlyP2P, acl.MemMallocNormalOnlyP2P, acl.MemMallocHuge1GOnly, acl.MemMallocHuge1GOnlyP2P,
		acl.MemTypeLowBandWidth, acl.MemTypeHighBandWidth, acl.MemAccessUserSpaceReadonly)
	memAttr = newEnum("aclrtMemAttr", "The memory class aclrtGetMemInfo reports on.",
		acl.DDRMem, acl.HBMMem, acl.DDRMemHuge, acl.DDRMemNormal, acl.HBMMemHuge, acl.HBMMemNormal,
		acl.DDRMemP2PHuge, acl.DDRMemP2PNormal, acl.HBMMemP2PHuge, acl.HBMMemP2PNormal, acl.HBMMemHuge1G,
		acl.HBMMemP2PHuge1G, acl.MemNormal, acl.MemHuge, acl.MemHuge1G, acl.MemP2PNormal, acl.MemP2PHuge, acl.MemP2PHuge1G)
	streamStatus = newEnum("aclrtStreamStatus", "What aclrtStreamQuery reports.",
		acl.StreamStatusComplete, acl.StreamStatusNotReady, acl.StreamStatusReserved)
	eventRecordedStatus = newEnum("aclrtEventRecordedStatus", "What aclrtQueryEventStatus reports.",
		acl.EventRecordedStatusNotReady, acl.EventRecordedStatusComplete)
	hostRegisterType = newEnum("aclrtHostRegisterType", "How aclrtHostRegister pins guest memory.",
		acl.HostRegisterMapped, acl.HostRegisterIOMemory, acl.HostRegisterReadOnly)
	runMode = newEnum("aclrtRunMode", "What aclrtGetRunMode reports: where the application runs.",
		acl.RunModeDevice, acl.RunModeHost)
	lastErrLevel = newEnum("aclrtLastErrLevel", "Whose last error aclrtGetLastError and aclrtPeekAtLastError read.",
		acl.ThreadLevel)
	devResLimitType = newEnum("aclrtDevResLimitType", "The cores a device resource limit counts.",
		acl.DevResCubeCore, acl.DevResVectorCore)
	eventWaitStatus = newEnum("aclrtEventWaitStatus", "What aclrtQueryEventWaitStatus reports.",
		acl.EventWaitStatusComplete, acl.EventWaitStatusNotReady, acl.EventWaitStatusReserved)
	// ABI v1.3 section 15: device and product queries.
	cannAttr = newEnum("aclCannAttr", "The CANN attributes aclGetCannAttribute reports on.",
		acl.CannAttrUndefined, acl.CannAttrInfNaN, acl.CannAttrBF16, acl.CannAttrJITCompile)
	devAttr        = newEnum("aclrtDevAttr", "The device attributes aclrtGetDeviceInfo reads.", acl.DevAttrs...)
	devFeatureType = newEnum("aclrtDevFeatureType", "The device features aclrtGetDeviceCapability reports on.",
		acl.FeatureTaskUpdateAICAIV, acl.FeatureMemQEventCrossDev)
	deviceStatus = newEnum("aclrtDeviceStatus", "What aclrtQueryDeviceStatus reports.",
		acl.DeviceStatusNormal, acl.DeviceStatusAbnormal, acl.DeviceStatusEnd)
	reduceKind = newEnum("aclrtReduceKind", "How aclrtReduceAsync combines each source element into its destination.",
		acl.ReduceSum, acl.ReduceMax, acl.ReduceMin, acl.ReduceEqual)
	floatOverflowMode = newEnum("aclrtFloatOverflowMode", "What a float result out of range becomes on the device (aclrtSetDeviceSatMode).",
		acl.OverflowSaturation, acl.OverflowInfNan, acl.OverflowUndef)
	streamFlag = func() *Enum {
		e := newEnum("", "The flags of aclrtCreateStreamWithConfig (ACL_STREAM_*).",
			acl.StreamFastLaunch, acl.StreamFastSync, acl.StreamPersistent, acl.StreamHuge,
			acl.StreamCPUSchedule, acl.StreamDeviceUseOnly)
		e.Macros = true
		return e
	}()
)

// Enums lists the native enums of the ABI, in the order the guest SDKs
// declare them.
var Enums = []*Enum{
	memcpyKind, memLocationType, memMallocPolicy, memAttr, streamStatus, eventRecordedStatus,
	hostRegisterType, runMode, lastErrLevel, devResLimitType, eventWaitStatus, streamFlag,
	dataType, format, // the operator library's (tensor.go)
	cannAttr, devAttr, devFeatureType, deviceStatus, // ABI v1.3 section 15
	reduceKind,        // ABI v1.3 section 15: reduce and random
	floatOverflowMode, // ABI v1.3 section 15: saturation mode and overflow status
}
