package sim

import "github.com/aclwasm/aclwasm/acl"

// The device and product queries of ABI v1.3 section 15, answered for
// the chip profile.

// socArch is the NPU architecture of each SoC the native platform
// description knows (the NpuArch field of src/platform/platform_config
// at the audited tree): two SoCs are compatible when theirs are equal,
// and a name it does not list is not a SoC (aclrtCheckArchCompatibility).
var socArch = map[string]int64{
	"Ascend031": 3004, "Ascend035": 3505, "Ascend035A": 3505, "Ascend035B": 3505,
	"Ascend310B1": 3002, "Ascend310B2": 3002, "Ascend310B3": 3002, "Ascend310B4": 3002,
	"Ascend310P1": 2002, "Ascend310P3": 2002, "Ascend310P5": 2002, "Ascend310P7": 2002,
	"Ascend350_354f": 3510, "Ascend350_355e": 3510,
	"Ascend910A": 1001, "Ascend910B": 1001, "Ascend910PremiumA": 1001, "Ascend910ProA": 1001, "Ascend910ProB": 1001,
	"Ascend910B1": 2201, "Ascend910B2": 2201, "Ascend910B2C": 2201, "Ascend910B3": 2201, "Ascend910B4": 2201, "Ascend910B4-1": 2201,
	"Ascend910_9362": 2201, "Ascend910_9363": 2201, "Ascend910_9372": 2201, "Ascend910_9381": 2201,
	"Ascend910_9382": 2201, "Ascend910_9391": 2201, "Ascend910_9392": 2201,
	"Ascend950DT_950x": 3510, "Ascend950DT_950y": 3510, "Ascend950DT_9571": 3510, "Ascend950DT_9572": 3510,
	"Ascend950DT_9573": 3510, "Ascend950DT_9574": 3510, "Ascend950DT_9575": 3510, "Ascend950DT_9576": 3510,
	"Ascend950DT_9577": 3510, "Ascend950DT_9578": 3510, "Ascend950DT_9581": 3510, "Ascend950DT_9581x": 3510,
	"Ascend950DT_9582": 3510, "Ascend950DT_9582x": 3510, "Ascend950DT_9583": 3510, "Ascend950DT_9584": 3510,
	"Ascend950DT_9585": 3510, "Ascend950DT_9586": 3510, "Ascend950DT_9587": 3510, "Ascend950DT_9588": 3510,
	"Ascend950DT_9591": 3510, "Ascend950DT_9592": 3510, "Ascend950DT_9595": 3510, "Ascend950DT_9596": 3510,
	"Ascend950DT_95A1": 3510, "Ascend950DT_95A2": 3510,
	"Ascend950PR_950z": 3510, "Ascend950PR_9579": 3510, "Ascend950PR_957b": 3510, "Ascend950PR_957bx": 3510,
	"Ascend950PR_957c": 3510, "Ascend950PR_957d": 3510, "Ascend950PR_9589": 3510, "Ascend950PR_958b": 3510,
	"Ascend950PR_9599": 3510,
	"KirinDev0000":     5101, "KirinDev0001": 5161, "KirinDev0002": 5165, "KirinDev0003": 5163,
	"Kirin9030": 3113, "KirinX90": 3003,
}

// simtAttrs are what a chip with SIMT vector cores reports (the 950's
// dev_info_reg.cc and base_david.hpp): 32 threads a warp, 64 warps a
// core, 256 KiB of UB less 32 KiB of data cache and 8 KiB for the
// compiler, grids of 65535 and blocks of 2048.
var simtAttrs = map[acl.DevAttr]int64{
	acl.DevAttrWarpSize: 32, acl.DevAttrMaxThreadPerVectorCore: 2048, acl.DevAttrUbufPerVectorCore: 221184,
	acl.DevAttrMaxGridDimX: 65535, acl.DevAttrMaxGridDimY: 65535, acl.DevAttrMaxGridDimZ: 65535,
	acl.DevAttrMaxBlockPerGrid: 65535, acl.DevAttrMaxThreadsPerBlock: 2048,
	acl.DevAttrMaxBlockDimX: 2048, acl.DevAttrMaxBlockDimY: 2048, acl.DevAttrMaxBlockDimZ: 2048,
}

// formFactorPCIeCard is ACL_DEVICE_FORM_FACTOR_PCIE_CARD: the simulator
// models a PCIe-attached card (ABI section 7).
const formFactorPCIeCard = 3

// open fails once the backend is closed.
func (b *Backend) open() error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return errClosed()
	}
	return nil
}

// SocName implements [acl.Backend]: the chip profile's SoC.
func (b *Backend) SocName() (string, error) {
	if err := b.open(); err != nil {
		return "", err
	}
	return b.prof.soc, nil
}

// ArchCompatible implements [acl.Backend]: soc and the profile's SoC have
// the same NPU architecture.
func (b *Backend) ArchCompatible(soc string) (bool, error) {
	if err := b.open(); err != nil {
		return false, err
	}
	a, ok := socArch[soc]
	if !ok {
		return false, acl.Errorf(acl.ErrRTParamInvalid, "SoC version %q is invalid: the platform description has no such SoC", soc)
	}
	return a == b.prof.arch, nil
}

// CannAttribute implements [acl.Backend]: INF_NAN and BF16 follow the
// SoC (every profile's supports both); JIT_COMPILE is 0, because no
// operator compiler runs in the simulator.
func (b *Backend) CannAttribute(a acl.CannAttr) (int32, error) {
	if err := b.open(); err != nil {
		return 0, err
	}
	switch a {
	case acl.CannAttrInfNaN, acl.CannAttrBF16:
		return 1, nil
	case acl.CannAttrJITCompile:
		return 0, nil
	}
	return 0, acl.Errorf(acl.ErrInvalidParam, "cannAttr %s is not a CANN attribute", a)
}

// DeviceInfo implements [acl.Backend] from the chip profile.
func (b *Backend) DeviceInfo(dev int32, attr acl.DevAttr) (int64, error) {
	d, err := b.device(dev)
	if err != nil {
		return 0, err
	}
	if err := b.open(); err != nil {
		return 0, err
	}
	p := &b.prof
	switch attr {
	case acl.DevAttrAICPUCoreNum:
		return int64(p.aicpu), nil
	case acl.DevAttrAICoreCoreNum, acl.DevAttrCubeCoreNum:
		return int64(p.cube), nil
	case acl.DevAttrVectorCoreNum:
		return int64(p.vec), nil
	case acl.DevAttrTotalGlobalMemSize:
		return int64(d.total), nil
	case acl.DevAttrL2CacheSize:
		return p.l2, nil
	case acl.DevAttrNPUArch:
		return p.arch, nil
	case acl.DevAttrIsVirtual, acl.DevAttrCustOpPrivilege, acl.DevAttrHDConnectType:
		return 0, nil // not split, no custom operators, PCIe
	case acl.DevAttrDeviceFormFactor:
		return formFactorPCIeCard, nil
	}
	if v, ok := simtAttrs[attr]; ok {
		if !p.simt {
			return 0, nil
		}
		return v, nil
	}
	if attr.Identifying() {
		return 0, nil // one machine, one chip: every id is 0
	}
	return 0, acl.Errorf(acl.ErrRTParamInvalid, "attr %s is not an aclrtDevAttr", attr)
}

// DeviceCapability implements [acl.Backend]: the simulator has neither
// feature (no model task updates, no memory queues).
func (b *Backend) DeviceCapability(dev int32, f acl.DevFeature) (int32, error) {
	if _, err := b.device(dev); err != nil {
		return 0, err
	}
	if err := b.open(); err != nil {
		return 0, err
	}
	switch f {
	case acl.FeatureTaskUpdateAICAIV, acl.FeatureMemQEventCrossDev:
		return acl.FeatureNotSupported, nil
	}
	return 0, acl.Errorf(acl.ErrRTParamInvalid, "devFeatureType %s is not an aclrtDevFeatureType", f)
}

// DeviceStatus implements [acl.Backend]: a simulated device never fails.
func (b *Backend) DeviceStatus(dev int32) (acl.DeviceStatus, error) {
	if _, err := b.device(dev); err != nil {
		return 0, err
	}
	if err := b.open(); err != nil {
		return 0, err
	}
	return acl.DeviceStatusNormal, nil
}
