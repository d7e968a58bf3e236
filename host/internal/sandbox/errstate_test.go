package sandbox_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// The error state and resource queries of ABI v1.2 section 12.

func init() {
	for name, cases := range errstateOrderCases {
		orderCases[name] = cases
	}
}

// DeviceResLimit implements acl.Backend for bare: a library without
// aclrtGetDeviceResLimit.
func (bare) DeviceResLimit(int32, acl.DevResLimitType) (uint32, error) {
	return 0, acl.Errorf(acl.ErrRTFeatureNotSupport, "this libascendcl.so does not export aclrtGetDeviceResLimit")
}

// fillGuest sets n bytes of guest memory at off to b.
func (h *harness) fillGuest(off uint64, n int, b byte) {
	m := h.Mem()[off : off+uint64(n)]
	for i := range m {
		m[i] = b
	}
}

// The cores the simulator and the stand-in report per device.
const cubeCores, vectorCores = 24, 48

var errstateOrderCases = map[string]map[string]orderCase{
	"aclrtGetLastError": {
		"level": {run: func(h *harness) acl.Error {
			h.Code(acl.ErrRTInvalidDeviceID, "aclrtSetDevice", 99)
			code := h.rc("aclrtGetLastError", 1)
			require.Equal(h.T, acl.ErrRTInvalidDeviceID, h.rc("aclrtPeekAtLastError", 0), "a refused level neither clears nor replaces the last error")
			return code
		}},
		"read": {run: func(h *harness) acl.Error {
			require.Equal(h.T, acl.Success, h.rc("aclrtGetLastError", 0), "none yet")
			h.Code(acl.ErrRTInvalidDeviceID, "aclrtSetDevice", 99)
			h.Code(acl.ErrInvalidParam, "aclrtMalloc", 0, 64, 0) // the ACL layer's: not recorded
			require.Equal(h.T, acl.ErrRTInvalidDeviceID, h.rc("aclrtGetLastError", 0))
			return h.rc("aclrtGetLastError", 0) // cleared
		}},
	},
	"aclrtPeekAtLastError": {
		"level": {run: func(h *harness) acl.Error { return h.rc("aclrtPeekAtLastError", 1<<32-1) }},
		"read": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			h.Code(acl.ErrRTInvalidHandle, "aclrtSynchronizeStream", 999)
			require.Equal(h.T, acl.ErrRTInvalidHandle, h.rc("aclrtPeekAtLastError", 0))
			require.Equal(h.T, acl.ErrRTInvalidHandle, h.rc("aclrtPeekAtLastError", 0), "kept")
			require.Equal(h.T, acl.ErrRTInvalidHandle, h.rc("aclrtGetLastError", 0))
			return h.rc("aclrtPeekAtLastError", 0)
		}},
	},
	"aclrtGetErrorVerbose": {
		"null": {run: func(h *harness) acl.Error {
			end := uint64(len(h.Mem()))
			require.Equal(h.T, acl.ErrInvalidParam, h.rc("aclrtGetErrorVerbose", 0, end-acl.ErrorInfoSize+1), "the struct runs past guest memory")
			return h.rc("aclrtGetErrorVerbose", 99, 0) // bad device too
		}},
		"feature": {run: func(h *harness) acl.Error { return bareHarness(h).rc("aclrtGetErrorVerbose", 99, data) }},
		"device": {run: func(h *harness) acl.Error {
			require.Equal(h.T, acl.ErrRTInvalidDeviceID, h.rc("aclrtGetErrorVerbose", 1<<32-1, data))
			return h.rc("aclrtGetErrorVerbose", 2, data)
		}},
		"none": {run: func(h *harness) acl.Error {
			h.fillGuest(data, acl.ErrorInfoSize, 0xaa)
			code := h.rc("aclrtGetErrorVerbose", 1, data) // no current device needed
			m := h.Mem()[data:]
			require.Equal(h.T, []byte{0, 0, 0xaa, 0xaa, 0, 0, 0, 0, 0, 0, 0, 0, 0xaa}, m[:13], "tryRepair, hasDetail, errorType, aicoreErrType written; reserved and the rest of the union untouched")
			return code
		}},
	},
	"aclrtCtxGetCurrentDefaultStream": {
		"null": {run: func(h *harness) acl.Error { return h.rc("aclrtCtxGetCurrentDefaultStream", 0) }}, // no context too
		"context": {run: func(h *harness) acl.Error {
			le.PutUint32(h.Mem()[outA:], 0x5a5a)
			code := h.rc("aclrtCtxGetCurrentDefaultStream", outA)
			require.Equal(h.T, uint32(0x5a5a), h.U32(outA), "untouched")
			return code
		}},
		"handle": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			le.PutUint32(h.Mem()[outA:], 0x5a5a)
			code := h.rc("aclrtCtxGetCurrentDefaultStream", outA)
			require.Equal(h.T, uint32(0), h.U32(outA), "NULL names the default stream")
			h.OK("aclrtSynchronizeStream", uint64(h.U32(outA)))
			return code
		}},
	},
	"aclrtGetResInCurrentThread": {
		"null":    {run: func(h *harness) acl.Error { return h.rc("aclrtGetResInCurrentThread", 7, 0) }},    // bad type, no device
		"type":    {run: func(h *harness) acl.Error { return h.rc("aclrtGetResInCurrentThread", 2, outA) }}, // no device
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtGetResInCurrentThread", 0, outA) }},
		"feature": {run: func(h *harness) acl.Error { return bareHarness(h).rc("aclrtGetResInCurrentThread", 0, outA) }},
	},
	"aclrtGetDeviceResLimit": {
		"null":     {run: func(h *harness) acl.Error { return h.rc("aclrtGetDeviceResLimit", 1<<32-1, 7, 0) }},
		"negative": {run: func(h *harness) acl.Error { return h.rc("aclrtGetDeviceResLimit", 1<<32-1, 7, outA) }}, // bad type too
		"type":     {run: func(h *harness) acl.Error { return h.rc("aclrtGetDeviceResLimit", 99, 7, outA) }},      // bad device too
		"device":   {run: func(h *harness) acl.Error { return h.rc("aclrtGetDeviceResLimit", 99, 0, outA) }},
		"unset": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			return h.rc("aclrtGetDeviceResLimit", 1, 0, outA)
		}},
		"feature": {run: func(h *harness) acl.Error { return bareHarness(h).rc("aclrtGetDeviceResLimit", 0, 0, outA) }},
	},
	"aclrtSetDeviceResLimit": {
		"negative": {run: func(h *harness) acl.Error { return h.rc("aclrtSetDeviceResLimit", 1<<32-1, 7, 999) }},
		"type":     {run: func(h *harness) acl.Error { return h.rc("aclrtSetDeviceResLimit", 99, 7, 999) }},
		"device":   {run: func(h *harness) acl.Error { return h.rc("aclrtSetDeviceResLimit", 99, 0, 999) }},
		"unset":    {run: func(h *harness) acl.Error { return h.rc("aclrtSetDeviceResLimit", 1, 0, 999) }},
		"feature":  {run: func(h *harness) acl.Error { return bareHarness(h).rc("aclrtSetDeviceResLimit", 0, 0, 999) }},
		"value": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			code := h.rc("aclrtSetDeviceResLimit", 0, 0, cubeCores+1)
			h.OK("aclrtGetDeviceResLimit", 0, 0, outA)
			require.Equal(h.T, uint32(cubeCores), h.U32(outA), "not set")
			return code
		}},
	},
	"aclrtGetStreamAvailableNum": {
		"null":    {run: func(h *harness) acl.Error { return h.rc("aclrtGetStreamAvailableNum", 0) }}, // no device too
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtGetStreamAvailableNum", outA) }},
		"policy": {policy: host.Policy{MaxStreams: 3}, run: func(h *harness) acl.Error {
			avail := func() uint32 { h.OK("aclrtGetStreamAvailableNum", outA); return h.U32(outA) }
			h.OK("aclrtSetDevice", 0)
			require.Equal(h.T, uint32(3), avail())
			s := h.Stream()
			require.Equal(h.T, uint32(2), avail())
			h.OK("aclrtSetDevice", 1)
			h.Stream()
			require.Equal(h.T, uint32(1), avail(), "streams of every device count")
			h.OK("aclrtCreateContext", outB, 1)
			require.Equal(h.T, uint32(1), avail(), "a context's default stream does not")
			h.OK("aclrtSetDevice", 0)
			h.OK("aclrtDestroyStream", s)
			return h.rc("aclrtGetStreamAvailableNum", outA)
		}},
	},
}

// TestLastErrorPerSession: a session reads its own failures only, an
// asynchronous one included (at the synchronize that reports it).
func TestLastErrorPerSession(t *testing.T) {
	h, other := newHarness(t, host.Policy{}), newHarness(t, host.Policy{})
	other.Code(acl.ErrRTInvalidDeviceID, "aclrtSetDevice", 99)
	require.Equal(t, acl.Success, h.rc("aclrtPeekAtLastError", 0), "another session's failure")
	require.Equal(t, acl.ErrRTInvalidDeviceID, other.rc("aclrtPeekAtLastError", 0))

	e := setupOrder(h)
	h.failOn(e.s)
	code := h.rc("aclrtSynchronizeStream", e.s)
	require.NotEqual(t, acl.Success, code)
	require.Equal(t, code, h.rc("aclrtGetLastError", 0))
	require.Equal(t, acl.Success, h.rc("aclrtGetLastError", 0))

	// The trace shows the code as the call's result, not as its failure.
	h.Code(acl.ErrRTInvalidHandle, "aclrtSynchronizeStream", 999)
	h.Call("aclrtGetLastError", 0)
	last := h.Log[len(h.Log)-1]
	require.Equal(t, int32(acl.ErrRTInvalidHandle), last.Result)
	require.Equal(t, acl.Success, last.Code)
	require.Equal(t, "aclrtGetLastError(level=ACL_RT_THREAD_LEVEL) = 107017", last.String())
}

// TestErrorVerbose32: aclrtErrorInfo is 1292 bytes in acl32, 2576 in the
// wide profile: the native layouts of 4- and 8-byte pointers.
func TestErrorVerbose32(t *testing.T) {
	for _, prof := range []abi.Profile{abi.Wide, abi.Native32} {
		h := newHarnessIn(t, prof, host.Policy{})
		end := uint64(len(h.Mem()))
		size := uint64(acl.ErrorInfoSize)
		if prof == abi.Native32 {
			size = acl.ErrorInfoSize32
		}
		h.OK("aclrtGetErrorVerbose", 0, end-size)
		h.Code(acl.ErrInvalidParam, "aclrtGetErrorVerbose", 0, end-size+1)
	}
}

// TestDeviceResLimit: a session's core limit binds its own view only, may
// be lowered and raised back, never above the device's count.
func TestDeviceResLimit(t *testing.T) {
	h, other := newHarness(t, host.Policy{}), newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	other.OK("aclrtSetDevice", 0)
	get := func(h *harness, dev, typ uint64) uint32 {
		h.OK("aclrtGetDeviceResLimit", dev, typ, outA)
		return h.U32(outA)
	}
	cur := func(h *harness, typ uint64) uint32 {
		h.OK("aclrtGetResInCurrentThread", typ, outA)
		return h.U32(outA)
	}
	require.Equal(t, uint32(cubeCores), get(h, 0, 0))
	require.Equal(t, uint32(vectorCores), get(h, 0, 1))
	h.OK("aclrtSetDeviceResLimit", 0, 0, 10)
	require.Equal(t, uint32(10), get(h, 0, 0))
	require.Equal(t, uint32(10), cur(h, 0))
	require.Equal(t, uint32(vectorCores), cur(h, 1), "the other type keeps its count")
	require.Equal(t, uint32(cubeCores), get(other, 0, 0), "another session's view")
	require.Equal(t, uint32(cubeCores), cur(other, 0))
	require.Equal(t, `aclrtSetDeviceResLimit: value 49 is above the 48 cores of type ACL_RT_DEV_RES_VECTOR_CORE that device 0 has`,
		h.Code(acl.ErrRTParamInvalid, "aclrtSetDeviceResLimit", 0, 1, vectorCores+1))
	h.OK("aclrtSetDeviceResLimit", 0, 0, cubeCores) // back up to the device's count
	require.Equal(t, uint32(cubeCores), cur(h, 0))
	h.OK("aclrtSetDevice", 1)
	require.Equal(t, uint32(cubeCores), cur(h, 0), "device 1 has its own")
	require.Equal(t, `aclrtGetDeviceResLimit: type 2 is not an aclrtDevResLimitType: ACL_RT_DEV_RES_CUBE_CORE (0) or ACL_RT_DEV_RES_VECTOR_CORE (1)`,
		h.Code(acl.ErrRTParamInvalid, "aclrtGetDeviceResLimit", 0, 2, outA))
	require.Equal(t, `aclrtGetDeviceResLimit: device 1 has not been set in this session: call aclrtSetDevice(1) first`,
		other.Code(acl.ErrRTDevSetup, "aclrtGetDeviceResLimit", 1, 0, outA))
	h.OK("aclrtResetDevice", 1)
	h.Code(acl.ErrRTDevSetup, "aclrtGetDeviceResLimit", 1, 0, outA)
}

// TestInitConfigLog: the plugin's log says that aclInit ignored its
// configuration file.
func TestInitConfigLog(t *testing.T) {
	h, c := logHarness(t, host.Policy{}, "cfg")
	copy(h.Mem()[data:], "./acl.json\x00")
	h.OK("aclInit", data)
	require.Equal(t, []map[string]any{{
		"level": "WARN", "msg": "aclInit: configuration file ignored: the sandbox opens no file and none of its options has a meaning there",
		"plugin": "cfg", "session": float64(h.Inst.Session().ID()), "configPath": "./acl.json",
	}}, c.Records(t))
}

// TestInitConfigManifest: refuse_init_config in a manifest's policy makes
// aclInit with a path give 100003; the deprecated allow_init_config still
// parses and changes nothing; the two together are refused at load time.
func TestInitConfigManifest(t *testing.T) {
	for _, tc := range []struct {
		policy string
		want   acl.Error
	}{
		{"{}", acl.Success},
		{"{allow_init_config: true}", acl.Success},
		{"{refuse_init_config: true}", acl.ErrInvalidFile},
	} {
		m, err := host.ParseManifest([]byte("name: a\nmodule: {path: x.wasm}\npolicy: " + tc.policy + "\n"))
		require.NoError(t, err)
		h := newHarness(t, m.Policy)
		copy(h.Mem()[data:], "./acl.json\x00")
		require.Equal(t, tc.want, h.rc("aclInit", data), tc.policy)
	}

	m, err := host.ParseManifest([]byte("name: a\nmodule: {path: x.wasm}\npolicy: {allow_init_config: true, refuse_init_config: true}\n"))
	require.NoError(t, err)
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, append(proxytest.Backend(t), host.WithEngine(testEngine))...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })
	_, err = rt.Load(ctx, testsupport.WAT(t, `(module (memory (export "memory") 1) (func (export "_start")))`), m.Policy)
	require.ErrorContains(t, err, "policy: AllowInitConfig (deprecated, the default) and RefuseInitConfig contradict each other: set RefuseInitConfig alone")
}

// TestBackendMessagesStayInside: a backend's refusal reaches the guest with
// its native code and the host's own words: no physical device ids, backend
// handles or other sessions' usage.
func TestBackendMessagesStayInside(t *testing.T) {
	b := sim.New(sim.WithMemory(1 << 20))
	t.Cleanup(func() { b.Close() })
	h := newHarness(t, host.Policy{Devices: []int32{1, 0}, DeviceMemory: 4 << 20}, host.WithBackend(b))
	h.OK("aclrtSetDevice", 0)
	msg := h.Code(acl.ErrRTMemoryAllocation, "aclrtMalloc", outA, 2<<20, 0)
	require.Equal(t, "aclrtMalloc: the device is out of memory", msg)
	h.Event() // a backend handle that is not the guest's
	e1, e2 := h.Event(), h.Event()
	msg = h.Code(acl.ErrRTInternal, "aclrtEventElapsedTime", outA, e1, e2)
	require.Equal(t, "aclrtEventElapsedTime: an event has never been recorded", msg)
	s := h.Stream()
	h.OK("aclrtRecordEvent", e1, s)
	h.OK("aclrtSynchronizeStream", s)
	h.gate(s)
	h.OK("aclrtRecordEvent", e2, s)
	h.OK("aclrtDestroyStreamForce", s) // cancels e2's record
	msg = h.Code(acl.ErrRTEventTimestampInvalid, "aclrtEventElapsedTime", outA, e1, e2)
	require.Equal(t, "aclrtEventElapsedTime: an event has no valid timestamp (its record was cancelled)", msg)
}
