package sandbox_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
)

// The per-stream core limits of ABI v1.3 section 15.

func init() {
	for name, cases := range streamResOrderCases {
		orderCases[name] = cases
	}
	orderCases["aclrtGetResInCurrentThread"]["stream"] = orderCase{run: func(h *harness) acl.Error {
		h.OK("aclrtSetDevice", 0)
		s := h.Stream()
		h.OK("aclrtSetStreamResLimit", s, 0, 4)
		h.OK("aclrtUseStreamResInCurrentThread", s)
		h.noDevice()
		require.Equal(h.T, acl.ErrRTContextNull, h.rc("aclrtGetResInCurrentThread", 1, outA), "no limit of that type on the stream: the device's, which needs one")
		code := h.rc("aclrtGetResInCurrentThread", 0, outA)
		require.Equal(h.T, uint32(4), h.U32(outA))
		return code
	}}
}

// streamLimit reads aclrtGetStreamResLimit(s, typ).
func (h *harness) streamLimit(s, typ uint64) uint32 {
	h.T.Helper()
	h.OK("aclrtGetStreamResLimit", s, typ, outA)
	return h.U32(outA)
}

// threadLimit reads aclrtGetResInCurrentThread(typ).
func (h *harness) threadLimit(typ uint64) uint32 {
	h.T.Helper()
	h.OK("aclrtGetResInCurrentThread", typ, outA)
	return h.U32(outA)
}

var streamResOrderCases = map[string]map[string]orderCase{
	"aclrtGetStreamResLimit": {
		"null":    {run: func(h *harness) acl.Error { return h.rc("aclrtGetStreamResLimit", 999, 7, 0) }},
		"stream":  {run: func(h *harness) acl.Error { return h.rc("aclrtGetStreamResLimit", 999, 7, outA) }},
		"type":    {run: func(h *harness) acl.Error { return h.rc("aclrtGetStreamResLimit", 0, 2, outA) }}, // no context too
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtGetStreamResLimit", 0, 0, outA) }},
		"feature": {run: func(h *harness) acl.Error { return bareHarness(h).rc("aclrtGetStreamResLimit", 0, 0, outA) }},
		"read": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			s := h.Stream()
			h.OK("aclrtSetStreamResLimit", s, 0, 5)
			require.Equal(h.T, uint32(vectorCores), h.streamLimit(s, 1), "the other type: the device's")
			code := h.rc("aclrtGetStreamResLimit", s, 0, outA)
			require.Equal(h.T, uint32(5), h.U32(outA))
			return code
		}},
	},
	"aclrtSetStreamResLimit": {
		"stream":  {run: func(h *harness) acl.Error { return h.rc("aclrtSetStreamResLimit", 999, 7, 999) }},
		"type":    {run: func(h *harness) acl.Error { return h.rc("aclrtSetStreamResLimit", 0, 2, 999) }}, // no context too
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtSetStreamResLimit", 0, 0, 999) }},
		"feature": {run: func(h *harness) acl.Error { return bareHarness(h).rc("aclrtSetStreamResLimit", 0, 0, 999) }},
		"value": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			code := h.rc("aclrtSetStreamResLimit", 0, 0, cubeCores+1)
			require.Equal(h.T, uint32(cubeCores), h.streamLimit(0, 0), "unchanged")
			return code
		}},
	},
	"aclrtResetStreamResLimit": {
		"stream":  {run: func(h *harness) acl.Error { return h.rc("aclrtResetStreamResLimit", 999) }},
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtResetStreamResLimit", 0) }},
		"reset": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			h.OK("aclrtSetStreamResLimit", 0, 0, 3)
			h.OK("aclrtSetStreamResLimit", 0, 1, 3)
			code := h.rc("aclrtResetStreamResLimit", 0)
			require.Equal(h.T, uint32(cubeCores), h.streamLimit(0, 0))
			require.Equal(h.T, uint32(vectorCores), h.streamLimit(0, 1))
			return code
		}},
	},
	"aclrtUseStreamResInCurrentThread": {
		"stream":  {run: func(h *harness) acl.Error { return h.rc("aclrtUseStreamResInCurrentThread", 999) }},
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtUseStreamResInCurrentThread", 0) }},
		"use": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			s := h.Stream()
			h.OK("aclrtSetStreamResLimit", s, 0, 4)
			code := h.rc("aclrtUseStreamResInCurrentThread", s)
			require.Equal(h.T, uint32(4), h.threadLimit(0))
			require.Equal(h.T, uint32(vectorCores), h.threadLimit(1), "no limit of that type on the stream")
			return code
		}},
	},
	"aclrtUnuseStreamResInCurrentThread": {
		"stream":  {run: func(h *harness) acl.Error { return h.rc("aclrtUnuseStreamResInCurrentThread", 999) }},
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtUnuseStreamResInCurrentThread", 0) }},
		"other": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			s := h.Stream()
			h.OK("aclrtSetStreamResLimit", s, 0, 4)
			h.OK("aclrtUseStreamResInCurrentThread", s)
			code := h.rc("aclrtUnuseStreamResInCurrentThread", 0)
			require.Equal(h.T, uint32(4), h.threadLimit(0), "still in use")
			h.OK("aclrtUnuseStreamResInCurrentThread", s)
			require.Equal(h.T, uint32(cubeCores), h.threadLimit(0))
			return code
		}},
	},
}

// TestStreamResLimit: a stream's limits are its own, answer for it from
// any context, are bounded by the device's cores and not by the session's
// device limit, and end with the stream; in both profiles.
func TestStreamResLimit(t *testing.T) {
	for _, prof := range abi.Profiles {
		t.Run(prof.String(), func(t *testing.T) {
			h := newHarnessIn(t, prof, host.Policy{})
			h.OK("aclrtSetDevice", 1)
			s1 := h.Stream()
			h.OK("aclrtSetDevice", 0)
			s, other := h.Stream(), h.Stream()

			h.OK("aclrtSetDeviceResLimit", 0, 0, 10)
			require.Equal(t, uint32(10), h.streamLimit(s, 0), "no limit of its own: the session's on its device")
			require.Equal(t, uint32(cubeCores), h.streamLimit(s1, 0), "a stream of device 1: device 1's")
			h.OK("aclrtSetStreamResLimit", s, 0, 20) // above the session's device limit, as natively
			require.Equal(t, uint32(20), h.streamLimit(s, 0))
			require.Equal(t, uint32(10), h.streamLimit(other, 0), "another stream's")
			require.Equal(t, uint32(10), h.streamLimit(0, 0), "the default stream's")
			require.Equal(t, `aclrtSetStreamResLimit: value 25 is above the 24 cores of type ACL_RT_DEV_RES_CUBE_CORE that device 1 has`,
				h.Code(acl.ErrRTParamInvalid, "aclrtSetStreamResLimit", s1, 0, cubeCores+1))
			h.OK("aclrtSetStreamResLimit", s1, 1, 7) // another device's stream, from device 0
			require.Equal(t, uint32(7), h.streamLimit(s1, 1))

			// The stream in use answers for the thread, whichever device is current.
			require.Equal(t, uint32(10), h.threadLimit(0))
			h.OK("aclrtUseStreamResInCurrentThread", s)
			require.Equal(t, uint32(20), h.threadLimit(0))
			h.OK("aclrtUseStreamResInCurrentThread", s1) // replaces it
			require.Equal(t, uint32(10), h.threadLimit(0), "s1 has no cube limit: the current device's")
			require.Equal(t, uint32(7), h.threadLimit(1))
			h.OK("aclrtSetDevice", 1)
			h.OK("aclrtDestroyStream", s1)
			require.Equal(t, uint32(vectorCores), h.threadLimit(1), "a destroyed stream is no longer in use")
			h.Code(acl.ErrRTInvalidHandle, "aclrtGetStreamResLimit", s1, 0, outA)

			// The default stream, by NULL: the current context's.
			h.OK("aclrtSetDevice", 0)
			h.OK("aclrtSetStreamResLimit", 0, 0, 2)
			h.OK("aclrtUseStreamResInCurrentThread", 0)
			require.Equal(t, uint32(2), h.threadLimit(0))
			h.OK("aclrtSetDevice", 1)
			require.Equal(t, uint32(cubeCores), h.streamLimit(0, 0), "device 1's default stream has none")
			require.Equal(t, uint32(2), h.threadLimit(0), "still device 0's default stream")
			h.OK("aclrtUnuseStreamResInCurrentThread", 0) // device 1's default stream: not the one in use
			require.Equal(t, uint32(2), h.threadLimit(0))
			h.OK("aclrtSetDevice", 0)
			h.OK("aclrtUnuseStreamResInCurrentThread", 0)
			require.Equal(t, uint32(10), h.threadLimit(0))
			h.OK("aclrtSetStreamResLimit", 0, 1, 3)
			h.OK("aclrtResetDevice", 0)
			h.OK("aclrtSetDevice", 0)
			require.Equal(t, uint32(vectorCores), h.streamLimit(0, 1), "a reset device's default stream starts afresh")
		})
	}
}
