package sandbox_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
)

// The device and product queries of ABI v1.3 section 15.

func init() {
	for name, cases := range devinfoOrderCases {
		orderCases[name] = cases
	}
}

// native reports whether the harness runs on the native backend (the
// stand-in library), whose answers differ from the simulator's where the
// sandbox passes the library's through.
func (h *harness) native() bool { return h.RT.Backend().Name() == "cann" }

// The device attributes of Atlas A2 (Ascend910B1) that both the simulator
// and the stand-in report.
const (
	a2AICPU = 6
	a2L2    = 201326592
	a2Arch  = 2201
)

const (
	devAttrCube   = uint64(acl.DevAttrCubeCoreNum)
	devAttrMem    = uint64(acl.DevAttrTotalGlobalMemSize)
	devAttrChipID = uint64(acl.DevAttrPhyChipID)
	featureTask   = uint64(acl.FeatureTaskUpdateAICAIV)
)

var devinfoOrderCases = map[string]map[string]orderCase{
	"aclGetCannAttribute": {
		"null": {run: func(h *harness) acl.Error { return h.rc("aclGetCannAttribute", 7, 0) }}, // bad attribute too
		"attr": {run: func(h *harness) acl.Error {
			require.Equal(h.T, acl.ErrInvalidParam, h.rc("aclGetCannAttribute", 1<<32-1, outA), "UNDEFINED is no attribute")
			return bareHarness(h).rc("aclGetCannAttribute", 3, outA) // before the backend is asked
		}},
		"feature": {run: func(h *harness) acl.Error { return bareHarness(h).rc("aclGetCannAttribute", 1, outA) }},
		"value": {run: func(h *harness) acl.Error {
			for a, want := range map[acl.CannAttr]uint32{acl.CannAttrInfNaN: 1, acl.CannAttrBF16: 1, acl.CannAttrJITCompile: 0} {
				le.PutUint32(h.Mem()[outA:], 0x5a5a)
				h.OK("aclGetCannAttribute", uint64(a), outA) // no device needed
				require.Equal(h.T, want, h.U32(outA), "%s", a)
			}
			return acl.Success
		}},
	},
	"aclrtCheckArchCompatibility": {
		"null": {run: func(h *harness) acl.Error {
			require.Equal(h.T, acl.ErrRTParamInvalid, h.rc("aclrtCheckArchCompatibility", 0, outA), "socVersion NULL")
			end := uint64(len(h.Mem()))
			h.Mem()[end-1] = 'A'
			require.Equal(h.T, acl.ErrRTParamInvalid, h.rc("aclrtCheckArchCompatibility", end-1, outA), "no NUL before the end of guest memory")
			h.PutStr(data, "")
			return h.rc("aclrtCheckArchCompatibility", data, 0) // canCompatible NULL, before the empty name
		}},
		"empty": {run: func(h *harness) acl.Error {
			h.PutStr(data, "")
			return bareHarness(h).rc("aclrtCheckArchCompatibility", data, outA)
		}},
		"feature": {run: func(h *harness) acl.Error {
			b := bareHarness(h)
			b.PutStr(data, "NoSuchSoc")
			return b.rc("aclrtCheckArchCompatibility", data, outA)
		}},
		"soc": {run: func(h *harness) acl.Error {
			h.PutStr(data, "Ascend910B99")
			le.PutUint32(h.Mem()[outA:], 0x5a5a)
			code := h.rc("aclrtCheckArchCompatibility", data, outA)
			require.Equal(h.T, uint32(0x5a5a), h.U32(outA), "untouched")
			return code
		}},
		"value": {run: func(h *harness) acl.Error {
			for soc, want := range map[string]uint32{"Ascend910B1": 1, "Ascend910B3": 1, "Ascend910_9391": 1, "Ascend950PR_9579": 0, "Ascend310P3": 0, "Ascend910B": 0} {
				h.PutStr(data, soc)
				h.OK("aclrtCheckArchCompatibility", data, outA) // no device needed
				require.Equal(h.T, want, h.U32(outA), "%s", soc)
			}
			return acl.Success
		}},
	},
	"aclrtGetDeviceCapability": {
		"null":     {run: func(h *harness) acl.Error { return h.rc("aclrtGetDeviceCapability", 99, 1<<32-1, 0) }}, // bad type and device too
		"type":     {run: func(h *harness) acl.Error { return h.rc("aclrtGetDeviceCapability", 99, 20002, outA) }},
		"unknown":  {run: func(h *harness) acl.Error { return h.rc("aclrtGetDeviceCapability", 99, 0, outA) }},
		"internal": {run: func(h *harness) acl.Error { return h.rc("aclrtGetDeviceCapability", 99, 10001, outA) }},
		"device": {run: func(h *harness) acl.Error {
			require.Equal(h.T, acl.ErrRTInvalidDeviceID, h.rc("aclrtGetDeviceCapability", 1<<32-1, featureTask, outA))
			return bareHarness(h).rc("aclrtGetDeviceCapability", 2, featureTask, outA)
		}},
		"feature": {run: func(h *harness) acl.Error { return bareHarness(h).rc("aclrtGetDeviceCapability", 0, featureTask, outA) }},
		"value": {run: func(h *harness) acl.Error {
			want := uint32(acl.FeatureNotSupported) // the simulator has no model task updates
			if h.native() {
				want = uint32(acl.FeatureSupported) // the stand-in's device has them: the answer is the library's
			}
			le.PutUint32(h.Mem()[outA:], 0x5a5a)
			h.OK("aclrtGetDeviceCapability", 1, featureTask, outA) // no current device needed
			require.Equal(h.T, want, h.U32(outA))
			h.OK("aclrtGetDeviceCapability", 0, uint64(acl.FeatureMemQEventCrossDev), outA)
			require.Equal(h.T, uint32(acl.FeatureNotSupported), h.U32(outA), "no memory queues")
			return acl.Success
		}},
	},
	"aclrtGetDeviceInfo": {
		"null": {run: func(h *harness) acl.Error {
			end := uint64(len(h.Mem()))
			require.Equal(h.T, acl.ErrInvalidParam, h.rc("aclrtGetDeviceInfo", 0, devAttrCube, end-7), "8 bytes in both profiles")
			return h.rc("aclrtGetDeviceInfo", 99, 9999, 0) // bad device and attribute too
		}},
		"device": {run: func(h *harness) acl.Error {
			require.Equal(h.T, acl.ErrRTParamInvalid, h.rc("aclrtGetDeviceInfo", 1<<32-1, 9999, outA))
			return h.rc("aclrtGetDeviceInfo", 2, 9999, outA) // not 107001
		}},
		"attr": {run: func(h *harness) acl.Error {
			require.Equal(h.T, acl.ErrRTParamInvalid, h.rc("aclrtGetDeviceInfo", 0, 0, outA))
			return bareHarness(h).rc("aclrtGetDeviceInfo", 0, 103, outA) // before the backend is asked
		}},
		"identity": {run: func(h *harness) acl.Error {
			b := bareHarness(h) // answered by the sandbox, whatever the library
			b.PutU64s(outA, 0x5a5a)
			code := b.rc("aclrtGetDeviceInfo", 1, devAttrChipID, outA)
			require.Equal(h.T, uint64(1), b.U64(outA), "the guest's device id")
			for _, a := range []acl.DevAttr{acl.DevAttrSMPID, acl.DevAttrSuperPodDeviceID, acl.DevAttrSuperPodServerID, acl.DevAttrSuperPodID, acl.DevAttrMainboardID} {
				b.PutU64s(outA, 0x5a5a)
				b.OK("aclrtGetDeviceInfo", 0, uint64(a), outA)
				require.Zero(h.T, b.U64(outA), "%s", a)
			}
			return code
		}},
		"memory": {run: func(h *harness) acl.Error {
			b := bareHarness(h)
			code := b.rc("aclrtGetDeviceInfo", 0, devAttrMem, outA)
			require.Equal(h.T, uint64(host.DefaultDeviceMemory), b.U64(outA), "the session's quota")
			h2 := newHarness(h.T, host.Policy{DeviceMemory: 3 << 20})
			h2.OK("aclrtGetDeviceInfo", 1, devAttrMem, outA)
			require.Equal(h.T, uint64(3<<20), h2.U64(outA))
			return code
		}},
		"feature": {run: func(h *harness) acl.Error { return bareHarness(h).rc("aclrtGetDeviceInfo", 0, devAttrCube, outA) }},
	},
	"aclrtQueryDeviceStatus": {
		"null": {run: func(h *harness) acl.Error { return h.rc("aclrtQueryDeviceStatus", 99, 0) }},
		"device": {run: func(h *harness) acl.Error {
			require.Equal(h.T, acl.ErrRTInvalidDeviceID, h.rc("aclrtQueryDeviceStatus", 1<<32-1, outA))
			return bareHarness(h).rc("aclrtQueryDeviceStatus", 2, outA)
		}},
		"feature": {run: func(h *harness) acl.Error { return bareHarness(h).rc("aclrtQueryDeviceStatus", 0, outA) }},
		"value": {run: func(h *harness) acl.Error {
			le.PutUint32(h.Mem()[outA:], 0x5a5a)
			code := h.rc("aclrtQueryDeviceStatus", 1, outA) // no current device needed
			require.Equal(h.T, uint32(acl.DeviceStatusNormal), h.U32(outA))
			return code
		}},
	},
	"aclrtGetDeviceUtilizationRate": {
		"null": {run: func(h *harness) acl.Error {
			end := uint64(len(h.Mem()))
			require.Equal(h.T, acl.ErrInvalidParam, h.rc("aclrtGetDeviceUtilizationRate", 0, end-acl.UtilizationInfoSize32+1), "the struct runs past guest memory")
			return h.rc("aclrtGetDeviceUtilizationRate", 0, 0)
		}},
		"extend": {run: func(h *harness) acl.Error {
			h.fillGuest(data, acl.UtilizationInfoSize32, 0x11)
			code := h.rc("aclrtGetDeviceUtilizationRate", 0, data)
			require.Equal(h.T, words(0x11111111, 5), h.Mem()[data:data+acl.UtilizationInfoSize32], "nothing written")
			return code
		}},
		"value": {run: func(h *harness) acl.Error {
			h.fillGuest(data, acl.UtilizationInfoSize32, 0x11)
			le.PutUint32(h.Mem()[data+acl.UtilizationExtendOff:], 0)
			code := h.rc("aclrtGetDeviceUtilizationRate", 99, data) // any device, as natively
			require.Equal(h.T, append(words(0xFFFFFFFF, 4), 0, 0, 0, 0), h.Mem()[data:data+acl.UtilizationInfoSize32], "-1 for every unit; the reserved pointer stays NULL")
			return code
		}},
	},
	"aclrtDeviceGetStreamPriorityRange": {
		"range": {run: func(h *harness) acl.Error {
			end := uint64(len(h.Mem()))
			le.PutUint32(h.Mem()[outA:], 0x5a5a)
			code := h.rc("aclrtDeviceGetStreamPriorityRange", outA, end-3)
			require.Equal(h.T, uint32(0x5a5a), h.U32(outA), "nothing written")
			return code
		}},
		"value": {run: func(h *harness) acl.Error {
			h.OK("aclrtDeviceGetStreamPriorityRange", outA, outB) // no device needed
			require.Equal(h.T, []uint32{7, 0}, []uint32{h.U32(outA), h.U32(outB)})
			le.PutUint32(h.Mem()[outA:], 0x5a5a)
			h.OK("aclrtDeviceGetStreamPriorityRange", 0, outB)
			h.OK("aclrtDeviceGetStreamPriorityRange", outA, 0)
			require.Equal(h.T, uint32(7), h.U32(outA))
			return h.rc("aclrtDeviceGetStreamPriorityRange", 0, 0)
		}},
	},
	"aclrtResetDeviceResLimit": {
		"negative": {run: func(h *harness) acl.Error { return h.rc("aclrtResetDeviceResLimit", 1<<32-1) }},
		"device":   {run: func(h *harness) acl.Error { return h.rc("aclrtResetDeviceResLimit", 2) }},
		"unset": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			return h.rc("aclrtResetDeviceResLimit", 1)
		}},
		"reset": {run: func(h *harness) acl.Error {
			other := newHarness(h.T, host.Policy{})
			for _, x := range []*harness{h, other} {
				x.OK("aclrtSetDevice", 1)
				x.OK("aclrtSetDevice", 0)
				x.OK("aclrtSetDeviceResLimit", 0, 0, 3)
				x.OK("aclrtSetDeviceResLimit", 0, 1, 5)
				x.OK("aclrtSetDeviceResLimit", 1, 0, 7)
			}
			code := h.rc("aclrtResetDeviceResLimit", 0)
			get := func(x *harness, dev, typ uint64) uint32 {
				x.OK("aclrtGetDeviceResLimit", dev, typ, outA)
				return x.U32(outA)
			}
			require.Equal(h.T, []uint32{cubeCores, vectorCores, 7}, []uint32{get(h, 0, 0), get(h, 0, 1), get(h, 1, 0)}, "device 0's limits are the device's counts again; device 1 keeps its own")
			require.Equal(h.T, []uint32{3, 5}, []uint32{get(other, 0, 0), get(other, 0, 1)}, "another session's limits")
			h.OK("aclrtResetDeviceResLimit", 0) // twice is fine
			return code
		}},
	},
}

// bare serves none of the device and product queries.
func init() {
	for _, fn := range []string{"aclGetCannAttribute", "aclrtCheckArchCompatibility", "aclrtGetDeviceCapability",
		"aclrtGetDeviceInfo", "aclrtQueryDeviceStatus", "aclrtGetSocName"} {
		bareLacks[fn] = true
	}
}

// TestDeviceInfo: aclrtGetDeviceInfo answers for the chip, in both
// profiles (the value is an int64 in both), over the simulator or the
// stand-in.
func TestDeviceInfo(t *testing.T) {
	want := map[acl.DevAttr]uint64{
		acl.DevAttrAICPUCoreNum: a2AICPU, acl.DevAttrAICoreCoreNum: cubeCores, acl.DevAttrCubeCoreNum: cubeCores,
		acl.DevAttrVectorCoreNum: vectorCores, acl.DevAttrL2CacheSize: a2L2, acl.DevAttrNPUArch: a2Arch,
		acl.DevAttrWarpSize: 0, acl.DevAttrMaxBlockDimZ: 0, // no SIMT on the A2
		acl.DevAttrIsVirtual: 0, acl.DevAttrDeviceFormFactor: 3, // a PCIe card
		acl.DevAttrTotalGlobalMemSize: 5 << 20, acl.DevAttrPhyChipID: 1,
	}
	for _, prof := range abi.Profiles {
		t.Run(prof.Module(), func(t *testing.T) {
			h := newHarnessIn(t, prof, host.Policy{DeviceMemory: 5 << 20})
			for a, v := range want {
				h.PutU64s(outA, 0x5a5a5a5a5a5a5a5a)
				h.OK("aclrtGetDeviceInfo", 1, uint64(a), outA)
				require.Equal(t, v, h.U64(outA), "%s", a)
			}
			require.Equal(t, "aclrtGetDeviceInfo: attr 103 is not an aclrtDevAttr", h.Code(acl.ErrRTParamInvalid, "aclrtGetDeviceInfo", 0, 103, outA))
			require.Equal(t, "aclrtGetDeviceInfo: deviceId 2 does not exist: this session sees 2 devices", h.Code(acl.ErrRTParamInvalid, "aclrtGetDeviceInfo", 2, devAttrCube, outA))
		})
	}
}

// TestDeviceInfoPerChip: the simulator answers for its chip profile.
func TestDeviceInfoPerChip(t *testing.T) {
	for _, tc := range []struct {
		chip                  sim.Chip
		soc                   string
		cube, warp, arch, aic uint64
	}{
		{sim.AtlasA2, "Ascend910B1", 24, 0, 2201, 6},
		{sim.AtlasA3, "Ascend910_9391", 24, 0, 2201, 6},
		{sim.Ascend950, "Ascend950PR_9579", 28, 32, 3510, 7},
	} {
		t.Run(tc.chip.String(), func(t *testing.T) {
			b := sim.New(sim.WithChip(tc.chip))
			t.Cleanup(func() { b.Close() })
			h := newHarness(t, host.Policy{}, host.WithBackend(b))
			get := func(a acl.DevAttr) uint64 {
				h.OK("aclrtGetDeviceInfo", 0, uint64(a), outA)
				return h.U64(outA)
			}
			require.Equal(t, []uint64{tc.cube, 2 * tc.cube, tc.warp, tc.arch, tc.aic},
				[]uint64{get(acl.DevAttrCubeCoreNum), get(acl.DevAttrVectorCoreNum), get(acl.DevAttrWarpSize), get(acl.DevAttrNPUArch), get(acl.DevAttrAICPUCoreNum)})
			h.OK("aclrtSetDevice", 0)
			h.OK("aclrtGetDeviceResLimit", 0, 0, outA)
			require.Equal(t, uint32(tc.cube), h.U32(outA), "the core limit agrees with the chip")
			require.Equal(t, int32(len(tc.soc)), h.Call("aclrtGetSocName", data, 128))
			require.Equal(t, tc.soc, string(h.Mem()[data:data+uint64(len(tc.soc))]))
			h.PutStr(data2, "Ascend950DT_9591")
			h.OK("aclrtCheckArchCompatibility", data2, outA)
			require.Equal(t, tc.arch == 3510, h.U32(outA) == 1, "compatible with another 950 only on a 950")
		})
	}
}

// TestSocName: aclrtGetSocName returns the name's length and copies what
// fits, NUL-terminated, in both profiles; no failure is recorded.
func TestSocName(t *testing.T) {
	for _, prof := range abi.Profiles {
		t.Run(prof.Module(), func(t *testing.T) {
			h := newHarnessIn(t, prof, host.Policy{})
			const soc = "Ascend910B1"
			n := int32(len(soc))
			require.Equal(t, n, h.Call("aclrtGetSocName", 0, 0), "a length query")
			h.fillGuest(data, 32, 0xaa)
			require.Equal(t, n, h.Call("aclrtGetSocName", data, 32))
			require.Equal(t, soc+"\x00", string(h.Mem()[data:data+uint64(n)+1]))
			h.fillGuest(data, 32, 0xaa)
			require.Equal(t, n, h.Call("aclrtGetSocName", data, 5), "truncated")
			require.Equal(t, "Asce\x00\xaa", string(h.Mem()[data:data+6]))
			end := uint64(len(h.Mem()))
			require.Equal(t, n, h.Call("aclrtGetSocName", end-2, 32), "a buffer past guest memory gets nothing")
			require.Equal(t, acl.Success, h.rc("aclrtPeekAtLastError", 0))
			require.Empty(t, h.Inst.Session().LastError())
			require.Equal(t, int32(0), bareHarness(h).Call("aclrtGetSocName", data, 32), "a library without it: NULL")
		})
	}
}

// TestDeviceQueries32: the queries whose out-parameters are int32 values
// and structs behave alike in both profiles.
func TestDeviceQueries32(t *testing.T) {
	for _, prof := range abi.Profiles {
		t.Run(prof.Module(), func(t *testing.T) {
			h := newHarnessIn(t, prof, host.Policy{})
			h.OK("aclGetCannAttribute", uint64(acl.CannAttrBF16), outA)
			require.Equal(t, uint32(1), h.U32(outA))
			h.PutStr(data, "Ascend910B2")
			h.OK("aclrtCheckArchCompatibility", data, outA)
			require.Equal(t, uint32(1), h.U32(outA))
			h.OK("aclrtQueryDeviceStatus", 0, outA)
			require.Equal(t, uint32(0), h.U32(outA))
			h.OK("aclrtDeviceGetStreamPriorityRange", outA, outB)
			require.Equal(t, []uint32{7, 0}, []uint32{h.U32(outA), h.U32(outB)})
			h.fillGuest(data, acl.UtilizationInfoSize32, 0)
			h.OK("aclrtGetDeviceUtilizationRate", 0, data)
			require.Equal(t, words(0xFFFFFFFF, 4), h.Mem()[data:data+16])
			h.OK("aclrtGetDeviceCapability", 0, uint64(acl.FeatureMemQEventCrossDev), outA)
			h.OK("aclrtSetDevice", 0)
			h.OK("aclrtResetDeviceResLimit", 0)
		})
	}
}
