package sandbox_test

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
)

// The configured streams and stream getters of ABI v1.3 section 15.

func init() {
	for name, cases := range streamConfigOrderCases {
		orderCases[name] = cases
	}
}

// putStreamConfig writes an aclrtStreamConfigHandle at off in the
// profile's layout and returns off.
func (h *harness) putStreamConfig(off uint32, c acl.StreamConfig) uint64 {
	m := h.Mem()[off:]
	ptr := 8
	if h.Prof == abi.Native32 {
		ptr = 4
	}
	clear(m[:acl.StreamConfigSize(ptr)])
	for i, v := range []uint64{c.WorkPtr, c.WorkSize, c.Flag} {
		if ptr == 8 {
			binary.LittleEndian.PutUint64(m[8*i:], v)
		} else {
			binary.LittleEndian.PutUint32(m[4*i:], uint32(v))
		}
	}
	binary.LittleEndian.PutUint32(m[3*ptr:], c.Priority)
	return uint64(off)
}

// streamInfo reads a stream's priority and flags.
func (h *harness) streamInfo(s uint64) (prio, flags uint32) {
	h.T.Helper()
	h.OK("aclrtStreamGetPriority", s, outB)
	h.OK("aclrtStreamGetFlags", s, outC)
	return h.U32(outB), h.U32(outC)
}

var streamConfigOrderCases = map[string]map[string]orderCase{
	"aclrtCreateStreamV2": {
		"null": {run: func(h *harness) acl.Error { return h.rc("aclrtCreateStreamV2", 0, uint64(len(h.Mem()))-8) }},
		"handle": {run: func(h *harness) acl.Error {
			require.Equal(h.T, acl.ErrInvalidParam, h.rc("aclrtCreateStreamV2", outA, uint64(len(h.Mem()))-31), "one byte short")
			return h.rc("aclrtCreateStreamV2", outA, uint64(len(h.Mem()))-8) // no device too
		}},
		"flags": {run: func(h *harness) acl.Error {
			return h.rc("aclrtCreateStreamV2", outA, h.putStreamConfig(data, acl.StreamConfig{Flag: 0x21})) // no device too
		}},
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtCreateStreamV2", outA, 0) }},
		"count": {policy: host.Policy{MaxStreams: 1}, run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			h.OK("aclrtCreateStreamV2", outA, 0)
			return h.rc("aclrtCreateStreamV2", outA, 0)
		}},
	},
	"aclrtStreamGetPriority": {
		"null":   {run: func(h *harness) acl.Error { return h.rc("aclrtStreamGetPriority", 999, 0) }},
		"stream": {run: func(h *harness) acl.Error { return h.rc("aclrtStreamGetPriority", 999, outA) }},
		"context": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			s := h.Stream()
			h.noDevice()
			return h.rc("aclrtStreamGetPriority", s, outA)
		}},
		"read": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			for _, tc := range []struct{ prio, want uint32 }{{3, 3}, {9, 7}, {1<<32 - 1, 0}} {
				h.OK("aclrtCreateStreamWithConfig", outA, uint64(tc.prio), 0)
				p, _ := h.streamInfo(uint64(h.U32(outA)))
				require.Equal(h.T, tc.want, p, "priority %d", tc.prio)
			}
			p, _ := h.streamInfo(h.Stream())
			require.Zero(h.T, p, "aclrtCreateStream's")
			code := h.rc("aclrtStreamGetPriority", 0, outA)
			require.Zero(h.T, h.U32(outA), "the default stream's")
			return code
		}},
	},
	"aclrtStreamGetFlags": {
		"null":   {run: func(h *harness) acl.Error { return h.rc("aclrtStreamGetFlags", 999, 0) }},
		"stream": {run: func(h *harness) acl.Error { return h.rc("aclrtStreamGetFlags", 999, outA) }},
		"context": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			s := h.Stream()
			h.noDevice()
			return h.rc("aclrtStreamGetFlags", s, outA)
		}},
		"read": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			h.OK("aclrtCreateStreamWithConfig", outA, 0, 0x103) // an unknown bit, dropped
			code := h.rc("aclrtStreamGetFlags", uint64(h.U32(outA)), outB)
			require.Equal(h.T, uint32(acl.StreamFastLaunch|acl.StreamFastSync), h.U32(outB))
			h.OK("aclrtStreamGetFlags", 0, outB)
			require.Zero(h.T, h.U32(outB), "the default stream's")
			return code
		}},
	},
	"aclrtStreamGetId": {
		"null":    {run: func(h *harness) acl.Error { return h.rc("aclrtStreamGetId", 999, 0) }},
		"stream":  {run: func(h *harness) acl.Error { return h.rc("aclrtStreamGetId", 999, outA) }},
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtStreamGetId", 0, outA) }},
		"id": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			s := h.Stream()
			h.OK("aclrtGetCurrentContext", outC)
			h.OK("aclrtStreamGetId", 0, outB)
			require.Equal(h.T, h.U32(outC), h.U32(outB), "the default stream: its context's number")
			h.noDevice()
			code := h.rc("aclrtStreamGetId", s, outA) // no context needed
			require.Equal(h.T, uint32(s), h.U32(outA))
			return code
		}},
	},
}

// TestStreamConfig: aclrtCreateStreamV2 reads the configuration in the
// profile's layout, keeps its priority (clamped) and flags for the getters,
// and the trace says that the work area is unused; in both profiles.
func TestStreamConfig(t *testing.T) {
	for _, prof := range abi.Profiles {
		t.Run(prof.String(), func(t *testing.T) {
			h := newHarnessIn(t, prof, host.Policy{})
			h.OK("aclrtSetDevice", 1)
			h.OK("aclrtCreateStreamV2", outA, h.putStreamConfig(data, acl.StreamConfig{Flag: uint64(acl.StreamFastLaunch | acl.StreamHuge), Priority: 5}))
			s := uint64(h.U32(outA))
			p, f := h.streamInfo(s)
			require.Equal(t, uint32(5), p)
			require.Equal(t, uint32(acl.StreamFastLaunch|acl.StreamHuge), f)
			h.OK("aclrtSetDevice", 0)
			p, f = h.streamInfo(s) // another device's stream
			require.Equal(t, [2]uint32{5, uint32(acl.StreamFastLaunch | acl.StreamHuge)}, [2]uint32{p, f})

			h.OK("aclrtCreateStreamV2", outA, h.putStreamConfig(data, acl.StreamConfig{WorkPtr: 0x4000, WorkSize: 256, Flag: 1 << 40, Priority: 12}))
			last := h.Log[len(h.Log)-1]
			require.Equal(t, "work area 0x4000 (256 bytes) unused: no model runs in the sandbox", last.Msg)
			s2 := uint64(h.U32(outA))
			p, f = h.streamInfo(s2)
			require.Equal(t, [2]uint32{7, 0}, [2]uint32{p, f}, "priority clamped; flag bits past the six dropped")
			h.OK("aclrtMemsetAsync", h.Malloc(64), 64, 1, 64, s2) // a stream like any other
			h.OK("aclrtSynchronizeStream", s2)

			h.OK("aclrtCreateStreamV2", outA, 0) // NULL: defaults
			p, f = h.streamInfo(uint64(h.U32(outA)))
			require.Equal(t, [2]uint32{0, 0}, [2]uint32{p, f})
			require.Equal(t, "aclrtCreateStreamV2: flag ACL_STREAM_FAST_LAUNCH|ACL_STREAM_DEVICE_USE_ONLY: ACL_STREAM_DEVICE_USE_ONLY cannot be combined with other flags",
				h.Code(acl.ErrRTParamInvalid, "aclrtCreateStreamV2", outA, h.putStreamConfig(data, acl.StreamConfig{Flag: 0x21})))
			h.OK("aclrtStreamGetId", s2, outB)
			require.Equal(t, uint32(s2), h.U32(outB))
		})
	}
}
