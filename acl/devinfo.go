package acl

import "strconv"

// The device and product queries of ABI v1.3 section 15: what a program
// asks about the chip it runs on (its SoC name, attributes, capabilities,
// status) before it decides what to run. The values come from the
// simulated chip profile or the node's device; the codes and check order
// are the native runtime's (Order).

// DevAttr is aclrtDevAttr: the device attribute aclrtGetDeviceInfo reads.
type DevAttr int32

// The native aclrtDevAttr values (the deprecated aliases
// ACL_DEV_ATTR_LOCAL_MEM_PER_VECTOR_CORE and ACL_DEV_ATTR_SUPER_POD_DEVIDE_ID
// share their successors' values).
const (
	DevAttrAICPUCoreNum           DevAttr = 1
	DevAttrAICoreCoreNum          DevAttr = 101
	DevAttrCubeCoreNum            DevAttr = 102
	DevAttrVectorCoreNum          DevAttr = 201
	DevAttrWarpSize               DevAttr = 202
	DevAttrMaxThreadPerVectorCore DevAttr = 203
	DevAttrUbufPerVectorCore      DevAttr = 204
	DevAttrMaxGridDimX            DevAttr = 205
	DevAttrMaxGridDimY            DevAttr = 206
	DevAttrMaxGridDimZ            DevAttr = 207
	DevAttrMaxBlockPerGrid        DevAttr = 208
	DevAttrMaxThreadsPerBlock     DevAttr = 209
	DevAttrMaxBlockDimX           DevAttr = 210
	DevAttrMaxBlockDimY           DevAttr = 211
	DevAttrMaxBlockDimZ           DevAttr = 212
	DevAttrTotalGlobalMemSize     DevAttr = 301
	DevAttrL2CacheSize            DevAttr = 302
	DevAttrSMPID                  DevAttr = 401
	DevAttrPhyChipID              DevAttr = 402
	DevAttrSuperPodDeviceID       DevAttr = 403
	DevAttrSuperPodServerID       DevAttr = 404
	DevAttrSuperPodID             DevAttr = 405
	DevAttrCustOpPrivilege        DevAttr = 406
	DevAttrMainboardID            DevAttr = 407
	DevAttrHDConnectType          DevAttr = 408
	DevAttrDeviceFormFactor       DevAttr = 409
	DevAttrIsVirtual              DevAttr = 501
	DevAttrNPUArch                DevAttr = 601
)

// DevAttrs lists every aclrtDevAttr, in the header's order.
var DevAttrs = []DevAttr{
	DevAttrAICPUCoreNum, DevAttrAICoreCoreNum, DevAttrCubeCoreNum, DevAttrVectorCoreNum, DevAttrWarpSize,
	DevAttrMaxThreadPerVectorCore, DevAttrUbufPerVectorCore, DevAttrMaxGridDimX, DevAttrMaxGridDimY,
	DevAttrMaxGridDimZ, DevAttrMaxBlockPerGrid, DevAttrMaxThreadsPerBlock, DevAttrMaxBlockDimX,
	DevAttrMaxBlockDimY, DevAttrMaxBlockDimZ, DevAttrTotalGlobalMemSize, DevAttrL2CacheSize, DevAttrSMPID,
	DevAttrPhyChipID, DevAttrSuperPodDeviceID, DevAttrSuperPodServerID, DevAttrSuperPodID,
	DevAttrCustOpPrivilege, DevAttrMainboardID, DevAttrHDConnectType, DevAttrDeviceFormFactor,
	DevAttrIsVirtual, DevAttrNPUArch,
}

var devAttrNames = map[DevAttr]string{
	DevAttrAICPUCoreNum: "AICPU_CORE_NUM", DevAttrAICoreCoreNum: "AICORE_CORE_NUM",
	DevAttrCubeCoreNum: "CUBE_CORE_NUM", DevAttrVectorCoreNum: "VECTOR_CORE_NUM", DevAttrWarpSize: "WARP_SIZE",
	DevAttrMaxThreadPerVectorCore: "MAX_THREAD_PER_VECTOR_CORE", DevAttrUbufPerVectorCore: "UBUF_PER_VECTOR_CORE",
	DevAttrMaxGridDimX: "MAX_GRID_DIM_X", DevAttrMaxGridDimY: "MAX_GRID_DIM_Y", DevAttrMaxGridDimZ: "MAX_GRID_DIM_Z",
	DevAttrMaxBlockPerGrid: "MAX_BLOCK_PER_GRID", DevAttrMaxThreadsPerBlock: "MAX_THREADS_PER_BLOCK",
	DevAttrMaxBlockDimX: "MAX_BLOCK_DIM_X", DevAttrMaxBlockDimY: "MAX_BLOCK_DIM_Y", DevAttrMaxBlockDimZ: "MAX_BLOCK_DIM_Z",
	DevAttrTotalGlobalMemSize: "TOTAL_GLOBAL_MEM_SIZE", DevAttrL2CacheSize: "L2_CACHE_SIZE", DevAttrSMPID: "SMP_ID",
	DevAttrPhyChipID: "PHY_CHIP_ID", DevAttrSuperPodDeviceID: "SUPER_POD_DEVICE_ID",
	DevAttrSuperPodServerID: "SUPER_POD_SERVER_ID", DevAttrSuperPodID: "SUPER_POD_ID",
	DevAttrCustOpPrivilege: "CUST_OP_PRIVILEGE", DevAttrMainboardID: "MAINBOARD_ID",
	DevAttrHDConnectType: "HD_CONNECT_TYPE", DevAttrDeviceFormFactor: "DEVICE_FORM_FACTOR",
	DevAttrIsVirtual: "IS_VIRTUAL", DevAttrNPUArch: "NPU_ARCH",
}

// String returns the native name, "ACL_DEV_ATTR_CUBE_CORE_NUM".
func (a DevAttr) String() string {
	if n, ok := devAttrNames[a]; ok {
		return "ACL_DEV_ATTR_" + n
	}
	return "aclrtDevAttr(" + strconv.FormatInt(int64(a), 10) + ")"
}

// Known reports whether a is an aclrtDevAttr the runtime answers.
func (a DevAttr) Known() bool { _, ok := devAttrNames[a]; return ok }

// Identifying reports whether a identifies the physical machine (its
// chip, board, server or pod) rather than describing what the device can
// do. The sandbox answers none of them: a guest sees devices by the ids
// its policy maps, and learns nothing of where they are.
func (a DevAttr) Identifying() bool {
	switch a {
	case DevAttrSMPID, DevAttrPhyChipID, DevAttrSuperPodDeviceID, DevAttrSuperPodServerID,
		DevAttrSuperPodID, DevAttrMainboardID:
		return true
	}
	return false
}

// DevFeature is aclrtDevFeatureType: the feature aclrtGetDeviceCapability
// reports on.
type DevFeature int32

// The native aclrtDevFeatureType values.
const (
	FeatureTaskUpdateAICAIV  DevFeature = 1  // ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV
	FeatureMemQEventCrossDev DevFeature = 21 // ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV
	// DevFeatureEnd is the runtime's bound: a type at or above it, or
	// negative, gives 107000 before anything else (RT_DEV_FEATURE_MAX,
	// after the runtime's own types 10001 and 20001).
	DevFeatureEnd DevFeature = 20002
)

// String returns the native name.
func (f DevFeature) String() string {
	switch f {
	case FeatureTaskUpdateAICAIV:
		return "ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV"
	case FeatureMemQEventCrossDev:
		return "ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV"
	}
	return "aclrtDevFeatureType(" + strconv.FormatInt(int64(f), 10) + ")"
}

// The values aclrtGetDeviceCapability writes.
const (
	FeatureNotSupported int32 = 0
	FeatureSupported    int32 = 1
)

// DeviceStatus is aclrtDeviceStatus: what aclrtQueryDeviceStatus reports.
type DeviceStatus int32

// The native aclrtDeviceStatus values.
const (
	DeviceStatusNormal   DeviceStatus = 0      // ACL_RT_DEVICE_STATUS_NORMAL
	DeviceStatusAbnormal DeviceStatus = 1      // ACL_RT_DEVICE_STATUS_ABNORMAL
	DeviceStatusEnd      DeviceStatus = 0xFFFF // ACL_RT_DEVICE_STATUS_END
)

// String returns the native name.
func (s DeviceStatus) String() string {
	switch s {
	case DeviceStatusNormal:
		return "ACL_RT_DEVICE_STATUS_NORMAL"
	case DeviceStatusAbnormal:
		return "ACL_RT_DEVICE_STATUS_ABNORMAL"
	case DeviceStatusEnd:
		return "ACL_RT_DEVICE_STATUS_END"
	}
	return "aclrtDeviceStatus(" + strconv.FormatInt(int64(s), 10) + ")"
}

// CannAttr is aclCannAttr: a property of the installed CANN software
// aclGetCannAttribute reports as available (1) or not (0).
type CannAttr int32

// The native aclCannAttr values.
const (
	CannAttrUndefined  CannAttr = -1 // ACL_CANN_ATTR_UNDEFINED
	CannAttrInfNaN     CannAttr = 0  // ACL_CANN_ATTR_INF_NAN
	CannAttrBF16       CannAttr = 1  // ACL_CANN_ATTR_BF16
	CannAttrJITCompile CannAttr = 2  // ACL_CANN_ATTR_JIT_COMPILE
)

// CannAttrs are the attributes the runtime knows, in its order; any other
// value (ACL_CANN_ATTR_UNDEFINED included) gives 100000.
var CannAttrs = []CannAttr{CannAttrInfNaN, CannAttrBF16, CannAttrJITCompile}

// String returns the native name.
func (a CannAttr) String() string {
	switch a {
	case CannAttrUndefined:
		return "ACL_CANN_ATTR_UNDEFINED"
	case CannAttrInfNaN:
		return "ACL_CANN_ATTR_INF_NAN"
	case CannAttrBF16:
		return "ACL_CANN_ATTR_BF16"
	case CannAttrJITCompile:
		return "ACL_CANN_ATTR_JIT_COMPILE"
	}
	return "aclCannAttr(" + strconv.FormatInt(int64(a), 10) + ")"
}

// UtilizationNotSupported is what aclrtGetDeviceUtilizationRate writes for
// a unit it cannot measure (the native ACL layer writes it for memory
// always, and for a unit whose query fails).
const UtilizationNotSupported int32 = -1

// UtilizationInfoSize32 is the size of aclrtUtilizationInfo on wasm32:
// four int32 utilisations and the reserved utilizationExtend pointer,
// which must be NULL. UtilizationExtendOff is that pointer's offset.
const (
	UtilizationInfoSize32 = 20
	UtilizationExtendOff  = 16
)

// SocNameMax bounds a SoC name with its NUL (the ACL layer's
// SOC_VERSION_LEN, acl_rt_impl_base.cpp:29).
const SocNameMax = 128
