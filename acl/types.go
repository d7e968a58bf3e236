package acl

import "strconv"

// MemcpyKind is aclrtMemcpyKind: the direction a copy is declared to take.
type MemcpyKind int32

// The native aclrtMemcpyKind values.
const (
	MemcpyHostToHost          MemcpyKind = 0
	MemcpyHostToDevice        MemcpyKind = 1
	MemcpyDeviceToHost        MemcpyKind = 2
	MemcpyDeviceToDevice      MemcpyKind = 3
	MemcpyDefault             MemcpyKind = 4 // direction inferred from the addresses
	MemcpyHostToBufToDevice   MemcpyKind = 5 // H2D staged in a runtime buffer
	MemcpyInnerDeviceToDevice MemcpyKind = 6 // within one device (descriptor and offset copies)
	MemcpyInterDeviceToDevice MemcpyKind = 7 // between two devices
	memcpyKindEnd             MemcpyKind = 8
)

var kindNames = [...]string{
	"ACL_MEMCPY_HOST_TO_HOST", "ACL_MEMCPY_HOST_TO_DEVICE", "ACL_MEMCPY_DEVICE_TO_HOST",
	"ACL_MEMCPY_DEVICE_TO_DEVICE", "ACL_MEMCPY_DEFAULT", "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE",
	"ACL_MEMCPY_INNER_DEVICE_TO_DEVICE", "ACL_MEMCPY_INTER_DEVICE_TO_DEVICE",
}

// String returns the native name, or "aclrtMemcpyKind(N)" for other values.
func (k MemcpyKind) String() string {
	if k >= 0 && k < memcpyKindEnd {
		return kindNames[k]
	}
	return "aclrtMemcpyKind(" + strconv.Itoa(int(k)) + ")"
}

// Direction is where a copy actually goes, decided from the addresses.
type Direction uint8

// The four directions. "Host" is any memory that is not device memory.
const (
	HostToHost Direction = iota
	HostToDevice
	DeviceToHost
	DeviceToDevice
)

// String returns "H2H", "H2D", "D2H" or "D2D".
func (d Direction) String() string {
	return [...]string{"H2H", "H2D", "D2H", "D2D"}[d&3]
}

// DirectionOf returns the direction of a copy from src to dst.
func DirectionOf(dstDevice, srcDevice bool) Direction {
	switch {
	case srcDevice && dstDevice:
		return DeviceToDevice
	case srcDevice:
		return DeviceToHost
	case dstDevice:
		return HostToDevice
	}
	return HostToHost
}

// MemLocationType is aclrtMemLocationType.
type MemLocationType uint32

// The native aclrtMemLocationType values.
const (
	MemLocationHost         MemLocationType = 0
	MemLocationDevice       MemLocationType = 1
	MemLocationUnregistered MemLocationType = 2
	MemLocationManaged      MemLocationType = 3
	MemLocationHostNUMA     MemLocationType = 4
)

// String returns the native name.
func (t MemLocationType) String() string {
	switch t {
	case MemLocationHost:
		return "ACL_MEM_LOCATION_TYPE_HOST"
	case MemLocationDevice:
		return "ACL_MEM_LOCATION_TYPE_DEVICE"
	case MemLocationUnregistered:
		return "ACL_MEM_LOCATION_TYPE_UNREGISTERED"
	case MemLocationManaged:
		return "ACL_MEM_LOCATION_TYPE_MANAGED"
	case MemLocationHostNUMA:
		return "ACL_MEM_LOCATION_TYPE_HOST_NUMA"
	}
	return "aclrtMemLocationType(" + strconv.FormatUint(uint64(t), 10) + ")"
}

// MemMallocPolicy is aclrtMemMallocPolicy. The low byte selects the page
// policy; the higher bits are flags. Unknown values fall back to the default,
// as natively.
type MemMallocPolicy uint32

// The native aclrtMemMallocPolicy values.
const (
	MemMallocHugeFirst         MemMallocPolicy = 0
	MemMallocHugeOnly          MemMallocPolicy = 1
	MemMallocNormalOnly        MemMallocPolicy = 2
	MemMallocHugeFirstP2P      MemMallocPolicy = 3
	MemMallocHugeOnlyP2P       MemMallocPolicy = 4
	MemMallocNormalOnlyP2P     MemMallocPolicy = 5
	MemMallocHuge1GOnly        MemMallocPolicy = 6
	MemMallocHuge1GOnlyP2P     MemMallocPolicy = 7
	MemTypeLowBandWidth        MemMallocPolicy = 0x0100
	MemTypeHighBandWidth       MemMallocPolicy = 0x1000
	MemAccessUserSpaceReadonly MemMallocPolicy = 0x100000
)

// huge1G reports whether the policy asks for 1 GiB pages, which the native
// allocator does not pad.
func (p MemMallocPolicy) huge1G() bool {
	b := p & 0xff
	return b == MemMallocHuge1GOnly || b == MemMallocHuge1GOnlyP2P
}

// MemAttr is aclrtMemAttr, the memory class aclrtGetMemInfo reports on.
type MemAttr int32

// The native aclrtMemAttr values.
const (
	DDRMem MemAttr = iota
	HBMMem
	DDRMemHuge
	DDRMemNormal
	HBMMemHuge
	HBMMemNormal
	DDRMemP2PHuge
	DDRMemP2PNormal
	HBMMemP2PHuge
	HBMMemP2PNormal
	HBMMemHuge1G
	HBMMemP2PHuge1G
	MemNormal
	MemHuge
	MemHuge1G
	MemP2PNormal
	MemP2PHuge
	MemP2PHuge1G
	memAttrEnd
)

// Valid reports whether a is a defined aclrtMemAttr.
func (a MemAttr) Valid() bool { return a >= 0 && a < memAttrEnd }

// HostRegisterType is aclrtHostRegisterType, the flags of aclrtHostRegister.
type HostRegisterType uint32

// The native aclrtHostRegisterType values.
const (
	HostRegisterMapped   HostRegisterType = 0
	HostRegisterIOMemory HostRegisterType = 4
	HostRegisterReadOnly HostRegisterType = 8
)

// Valid reports whether t has only defined flags: MAPPED (0), IOMEMORY,
// READONLY, or both of them, as the native runtime accepts.
func (t HostRegisterType) Valid() bool {
	return t&^(HostRegisterIOMemory|HostRegisterReadOnly) == 0
}

// Version of the native runtime whose API this package models (ACL 1.17.0).
const (
	VersionMajor = 1
	VersionMinor = 17
	VersionPatch = 0
)

// Limits the native runtime enforces.
const (
	Memcpy2DMaxWidth    = 5000000         // aclrtMemcpy2d width limit (107000 above it)
	Memcpy2DMaxHeight   = 5 * 1024 * 1024 // aclrtMemcpy2d height limit (107000 above it)
	BatchSyncMaxCount   = 4096            // aclrtMemcpyBatch entry limit (107000 above it)
	offsetMaxDataOffset = 0xFFFFFFFFFFFF  // aclrtMemcpyAsyncWithOffset offset limit
	offsetMaxCount      = 4 << 30         // aclrtMemcpyAsyncWithOffset count limit (D2D)
	mallocAlign         = 32              // device allocations are rounded to this
	mallocPadding       = 32              // and padded by this many bytes
	FailIndexNone       = ^uint64(0)      // SIZE_MAX: a batch failure not tied to one entry
	descAlign           = 64              // copy descriptors must be aligned to this
	DescSizeA2          = 32              // the copy descriptor's size on Atlas A2 and A3
	DescSize950         = 64              // the copy descriptor's size on the Ascend 950
)

// AllocatedSize returns the bytes the native allocator reserves for a request
// of size bytes: aligned to 32 and padded by 32, except for 1 GiB pages.
func AllocatedSize(size uint64, policy MemMallocPolicy) uint64 {
	if size > 1<<62 {
		return ^uint64(0) // no device has that much; callers report out of memory
	}
	pad := uint64(mallocPadding)
	if policy.huge1G() {
		pad = 0
	}
	return (size + mallocAlign + pad - 1) / mallocAlign * mallocAlign
}

// RunMode is aclrtRunMode: where the application runs relative to the
// device.
type RunMode uint32

// The native aclrtRunMode values.
const (
	RunModeDevice RunMode = 0 // ACL_DEVICE: on the device's own CPU
	RunModeHost   RunMode = 1 // ACL_HOST: on a host, the device attached to it
)

// String returns the native name.
func (m RunMode) String() string {
	switch m {
	case RunModeDevice:
		return "ACL_DEVICE"
	case RunModeHost:
		return "ACL_HOST"
	}
	return "aclrtRunMode(" + strconv.FormatUint(uint64(m), 10) + ")"
}
