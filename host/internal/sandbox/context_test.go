package sandbox_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
)

// plainHarness is a harness over a simulator seen through bare: a
// runtime without forced destruction, run modes or failure modes.
func plainHarness(t *testing.T) *harness {
	b := sim.New()
	t.Cleanup(func() { b.Close() })
	return newHarness(t, host.Policy{}, host.WithBackend(bare{b}))
}

func init() {
	for name, cases := range contextOrderCases {
		orderCases[name] = cases
	}
}

// contextOrderCases are the check-order cases of the contexts, forced
// resets, run mode and configured streams.
var contextOrderCases = map[string]map[string]orderCase{
	"aclrtResetDeviceForce": {
		"device":  {run: func(h *harness) acl.Error { return h.rc("aclrtResetDeviceForce", 9) }},
		"feature": {run: func(h *harness) acl.Error { return plainHarness(h.T).rc("aclrtResetDeviceForce", 0) }},
		"release": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.failOn(e.s) // its error dies with the work
			return h.rc("aclrtResetDeviceForce", 0)
		}},
	},
	"aclrtDestroyStreamForce": {
		"null":   {run: func(h *harness) acl.Error { return h.rc("aclrtDestroyStreamForce", 0) }},
		"stream": {run: func(h *harness) acl.Error { return h.rc("aclrtDestroyStreamForce", 999) }},
		"feature": {run: func(h *harness) acl.Error {
			p := plainHarness(h.T)
			p.OK("aclrtSetDevice", 0)
			return p.rc("aclrtDestroyStreamForce", p.Stream())
		}},
		"context": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.keepsStream(e, e.s1, func() acl.Error { h.noDevice(); return h.rc("aclrtDestroyStreamForce", e.s1) })
		}},
		"streamctx": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.keepsStream(e, e.s1, func() acl.Error { return h.rc("aclrtDestroyStreamForce", e.s1) })
		}},
		"cancel": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.gate(e.s)
			h.OK("aclrtMemcpyAsync", data, 64, e.dev, 64, 2, e.s)
			return h.rc("aclrtDestroyStreamForce", e.s)
		}},
	},
	"aclrtCreateContext": {
		"null":   {run: func(h *harness) acl.Error { return h.rc("aclrtCreateContext", 0, 9) }},
		"device": {run: func(h *harness) acl.Error { return h.rc("aclrtCreateContext", outA, 9) }},
		"count": {policy: host.Policy{MaxStreams: 1}, run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0) // the default context does not count
			h.OK("aclrtCreateContext", outA, 0)
			return h.rc("aclrtCreateContext", outA, 1)
		}},
	},
	"aclrtDestroyContext": {
		"null": {run: func(h *harness) acl.Error { return h.rc("aclrtDestroyContext", 0) }},
		"context": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtDestroyContext", e.s) // a stream
		}},
		"destroyed": {run: func(h *harness) acl.Error {
			h.OK("aclrtCreateContext", outA, 0)
			cx := uint64(h.U32(outA))
			h.OK("aclrtDestroyContext", cx)
			return h.rc("aclrtDestroyContext", cx)
		}},
		"default": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			h.OK("aclrtGetCurrentContext", outA)
			def := uint64(h.U32(outA))
			s := h.Stream()
			code := h.rc("aclrtDestroyContext", def)
			// Nothing was destroyed: the context is current, its stream lives.
			h.OK("aclrtGetCurrentContext", outA)
			require.Equal(h.T, def, uint64(h.U32(outA)))
			h.OK("aclrtSynchronizeStream", s)
			h.OK("aclrtSetCurrentContext", def)
			return code
		}},
	},
	"aclrtSetCurrentContext": {
		"null": {run: func(h *harness) acl.Error { return h.rc("aclrtSetCurrentContext", 0) }},
		"context": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtSetCurrentContext", e.ev) // an event
		}},
		"destroyed": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 1)
			h.OK("aclrtCreateContext", outA, 0)
			cx := uint64(h.U32(outA))
			h.OK("aclrtDestroyContext", cx)
			h.OK("aclrtSetDevice", 1)
			code := h.rc("aclrtSetCurrentContext", cx)
			h.OK("aclrtGetDevice", outA)
			require.Equal(h.T, uint32(1), h.U32(outA), "the current device did not change")
			return code
		}},
	},
	"aclrtGetCurrentContext": {
		"null":    {run: func(h *harness) acl.Error { return h.rc("aclrtGetCurrentContext", 0) }},
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtGetCurrentContext", outA) }},
	},
	"aclrtGetRunMode": {
		"null":    {run: func(h *harness) acl.Error { return h.rc("aclrtGetRunMode", 0) }},
		"feature": {run: func(h *harness) acl.Error { return plainHarness(h.T).rc("aclrtGetRunMode", outA) }},
	},
	"aclrtCreateStreamWithConfig": {
		"null": {run: func(h *harness) acl.Error { return h.rc("aclrtCreateStreamWithConfig", 0, 0, 0x21) }},
		"drop": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			return h.rc("aclrtCreateStreamWithConfig", outA, 99, 0x1C0|0x20) // DEVICE_USE_ONLY alone once unknown bits go
		}},
		"flags":   {run: func(h *harness) acl.Error { return h.rc("aclrtCreateStreamWithConfig", outA, 0, 0x21) }}, // no device
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtCreateStreamWithConfig", outA, 0, 0x3) }},
		"count": {policy: host.Policy{MaxStreams: 1}, run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			h.Stream()
			return h.rc("aclrtCreateStreamWithConfig", outA, 0, 1)
		}},
	},
	"aclrtSetStreamFailureMode": {
		"stream": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.noDevice()
			return h.rc("aclrtSetStreamFailureMode", e.ev, 1)
		}},
		"nullctx": {run: func(h *harness) acl.Error { return h.rc("aclrtSetStreamFailureMode", 0, 1) }},
		"devuse": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			h.OK("aclrtCreateStreamWithConfig", outA, 0, 0x20)
			s := uint64(h.U32(outA))
			h.noDevice()
			return h.rc("aclrtSetStreamFailureMode", s, 1)
		}},
		"context": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.noDevice()
			return h.rc("aclrtSetStreamFailureMode", e.s, 1)
		}},
		"same": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtSetStreamFailureMode", e.s1, 2) // bit 0 clear: continue, the mode it has; before the stream's context
		}},
		"back": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.OK("aclrtSetDevice", 1)
			h.OK("aclrtSetStreamFailureMode", e.s1, 1)
			h.OK("aclrtSetDevice", 0)
			return h.rc("aclrtSetStreamFailureMode", e.s1, 0) // before the stream's context
		}},
		"streamctx": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtSetStreamFailureMode", e.s1, 1)
		}},
		"feature": {run: func(h *harness) acl.Error {
			p := plainHarness(h.T)
			p.OK("aclrtSetDevice", 0)
			return p.rc("aclrtSetStreamFailureMode", 0, 1)
		}},
	},
}

// TestContexts: aclrtSetDevice creates and makes current the device's
// default context; a created context is a device with a default stream of
// its own, current at once; NULL streams target the current context's
// default stream, and a stream of another context is refused (107003).
func TestContexts(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	h.OK("aclrtGetCurrentContext", outA)
	def0 := uint64(h.U32(outA))
	require.NotZero(t, def0)
	h.OK("aclrtSetDevice", 0)
	h.OK("aclrtGetCurrentContext", outA)
	require.Equal(t, def0, uint64(h.U32(outA)), "one default context per device")

	h.OK("aclrtCreateContext", outA, 1)
	cx := uint64(h.U32(outA))
	require.NotEqual(t, def0, cx)
	h.OK("aclrtGetDevice", outB)
	require.Equal(t, uint32(1), h.U32(outB), "a created context is current, and its device")
	h.OK("aclrtGetCurrentContext", outB)
	require.Equal(t, cx, uint64(h.U32(outB)))

	// Each context has its own NULL stream: work queued on the created
	// context's default stream is not what a synchronize of the default
	// context's default stream waits for.
	src, dst := h.Malloc(64), h.Malloc(64)
	want := h.Fill(data, 64, 9)
	h.OK("aclrtMemcpy", src, 64, data, 64, 1)
	release := h.gate(0)
	h.OK("aclrtMemcpyAsync", dst, 64, src, 64, 3, 0)
	h.OK("aclrtSetDevice", 1) // device 1's default context: another NULL stream
	h.OK("aclrtStreamQuery", 0, outC)
	require.Equal(t, uint32(acl.StreamStatusComplete), h.U32(outC), "the default context's NULL stream is idle")
	h.OK("aclrtSetCurrentContext", cx)
	h.OK("aclrtStreamQuery", 0, outC)
	require.Equal(t, uint32(acl.StreamStatusNotReady), h.U32(outC), "the created context's NULL stream holds the copy")
	release()
	h.OK("aclrtSynchronizeStream", 0)
	h.OK("aclrtMemcpy", data2, 64, dst, 64, 2)
	require.Equal(t, want, h.Mem()[data2:data2+64])

	// A stream belongs to the context it was created in.
	s := h.Stream()
	h.OK("aclrtSetDevice", 1)
	h.OK("aclrtSynchronizeStream", s) // natively in the stream's own context
	msg := h.Code(acl.ErrRTStreamContext, "aclrtDestroyStream", s)
	require.Contains(t, msg, "belongs to context")
	h.OK("aclrtSetCurrentContext", cx)
	h.OK("aclrtSynchronizeStream", s)

	// Destroying the current context destroys its streams and leaves no
	// current context; its handle is stale from then on, and never reused.
	h.OK("aclrtDestroyContext", cx)
	h.Code(acl.ErrRTContextNull, "aclrtGetCurrentContext", outA)
	require.Contains(t, h.Code(acl.ErrRTInvalidHandle, "aclrtSynchronizeStream", s), "unknown or destroyed")
	require.Contains(t, h.Code(acl.ErrRTParamInvalid, "aclrtSetCurrentContext", cx), "has been destroyed")
	require.Contains(t, h.Code(acl.ErrRTContextNull, "aclrtDestroyContext", cx), "has already been destroyed")
	require.Contains(t, h.Code(acl.ErrRTInvalidHandle, "aclrtSynchronizeStream", def0), "is a context, not a stream")
	require.Contains(t, h.Code(acl.ErrRTInvalidHandle, "aclrtRecordEvent", def0, 0), "is a context, not an event")
	h.OK("aclrtSetCurrentContext", def0)
	h.OK("aclrtCreateContext", outA, 0)
	require.Greater(t, uint64(h.U32(outA)), cx, "handles are never reused")

	// aclrtResetDevice releases the device's contexts, default one included.
	h.OK("aclrtResetDevice", 0)
	h.Code(acl.ErrRTContextNull, "aclrtGetCurrentContext", outA)
	h.Code(acl.ErrRTParamInvalid, "aclrtSetCurrentContext", def0)
	h.Code(acl.ErrRTContextNull, "aclrtDestroyContext", def0)
	h.OK("aclrtSetDevice", 0)
	h.OK("aclrtGetCurrentContext", outA)
	require.NotEqual(t, def0, uint64(h.U32(outA)), "a new default context")
}

// TestContextsForeign: another session's context handle is unknown here.
func TestContextsForeign(t *testing.T) {
	a, b := newHarness(t, host.Policy{}), newHarness(t, host.Policy{})
	a.OK("aclrtCreateContext", outA, 0)
	cx := uint64(a.U32(outA))
	b.OK("aclrtSetDevice", 1)
	b.OK("aclrtCreateStream", outB) // b's handles pass cx without naming a context
	b.OK("aclrtCreateEvent", outB)
	require.Contains(t, b.Code(acl.ErrRTInvalidHandle, "aclrtSetCurrentContext", cx+10), "unknown or destroyed")
	b.OK("aclrtGetCurrentContext", outC)
	require.NotEqual(t, cx+10, uint64(b.U32(outC)))
}

// TestResetDeviceForce: the session's queued work on the device is
// cancelled, not awaited, even work that could never complete, and what
// the device held is released.
func TestResetDeviceForce(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	src := h.Malloc(64)
	h.Fill(data2, 64, 5)
	h.OK("aclrtMemcpy", src, 64, data2, 64, 1)
	h.OK("aclrtHostRegister", data, 4096, 0, outB)
	s, never := h.Stream(), h.Waitable()
	h.OK("aclrtStreamWaitEvent", s, never) // for a record that never comes: a plain reset would wait forever
	h.OK("aclrtMemcpyAsync", data, 64, src, 64, 2, s)
	h.OK("aclrtResetDeviceForce", 0)
	h.Code(acl.ErrRTContextNull, "aclrtGetDevice", outA)
	h.Code(acl.ErrRTInvalidHandle, "aclrtSynchronizeStream", s)
	h.Code(acl.ErrRTParamInvalid, "aclrtFree", src)
	// The streams go before the events: destroying the event first would
	// release the wait and let the copy run.
	require.Equal(t, make([]byte, 64), h.Mem()[data:data+64], "the queued copy never ran")
	require.Zero(t, h.Inst.Session().Stats().Funcs["aclrtMemcpyAsync"].Bytes["D2H"])
}

// TestGetRunMode: the simulator is ACL_HOST.
func TestGetRunMode(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtGetRunMode", outA)
	require.Equal(t, uint32(acl.RunModeHost), h.U32(outA))
	require.Contains(t, plainHarness(t).Code(acl.ErrRTFeatureNotSupport, "aclrtGetRunMode", outA), "does not report a run mode")
}

// TestSec10Messages: the exact code and message of bad input to the
// section 10 functions this file covers.
func TestSec10Messages(t *testing.T) {
	h := newHarness(t, host.Policy{})
	for _, tc := range []struct {
		name string
		args []uint64
		code acl.Error
		msg  string
	}{
		{"aclrtCreateContext", []uint64{0, 0}, acl.ErrInvalidParam, "aclrtCreateContext: context is NULL"},
		{"aclrtCreateContext", []uint64{outA, 9}, acl.ErrRTInvalidDeviceID, "aclrtCreateContext: deviceId 9 does not exist: this session sees 2 devices"},
		{"aclrtDestroyContext", []uint64{0}, acl.ErrInvalidParam, "aclrtDestroyContext: context is NULL"},
		{"aclrtDestroyContext", []uint64{999}, acl.ErrRTInvalidHandle, "aclrtDestroyContext: context handle 999 is unknown or destroyed"},
		{"aclrtSetCurrentContext", []uint64{0}, acl.ErrInvalidParam, "aclrtSetCurrentContext: context is NULL"},
		{"aclrtGetCurrentContext", []uint64{outA}, acl.ErrRTContextNull, "aclrtGetCurrentContext: no current device: call aclrtSetDevice first"},
		{"aclrtGetRunMode", []uint64{0}, acl.ErrInvalidParam, "aclrtGetRunMode: runMode is NULL"},
		{"aclrtGetRunMode", []uint64{0xFFFF_FFFF}, acl.ErrInvalidParam, "aclrtGetRunMode: runMode [0xffffffff, +4) is outside guest memory (262144 bytes)"},
		{"aclrtResetDeviceForce", []uint64{2}, acl.ErrRTInvalidDeviceID, "aclrtResetDeviceForce: deviceId 2 does not exist: this session sees 2 devices"},
		{"aclrtDestroyStreamForce", []uint64{0}, acl.ErrInvalidParam, "aclrtDestroyStreamForce: stream is NULL"},
		{"aclrtDestroyStreamForce", []uint64{77}, acl.ErrRTInvalidHandle, "aclrtDestroyStreamForce: stream handle 77 is unknown or destroyed"},
		{"aclrtCreateStreamWithConfig", []uint64{outA, 0, 0x21}, acl.ErrRTParamInvalid,
			"aclrtCreateStreamWithConfig: flag ACL_STREAM_FAST_LAUNCH|ACL_STREAM_DEVICE_USE_ONLY: ACL_STREAM_DEVICE_USE_ONLY cannot be combined with other flags"},
		{"aclrtCreateStreamWithConfig", []uint64{outA, 0, 0x100}, acl.ErrRTContextNull, "aclrtCreateStreamWithConfig: no current device: call aclrtSetDevice first"},
		{"aclrtSetStreamFailureMode", []uint64{0, 1}, acl.ErrRTParamInvalid,
			"aclrtSetStreamFailureMode: stream is NULL and there is no current context whose default stream it would name"},
		{"aclrtSetStreamFailureMode", []uint64{5, 1}, acl.ErrRTInvalidHandle, "aclrtSetStreamFailureMode: stream handle 5 is unknown or destroyed"},
	} {
		require.Equal(t, tc.msg, h.Code(tc.code, tc.name, tc.args...), "%s%v", tc.name, tc.args)
	}
	h.OK("aclrtSetDevice", 0)
	h.OK("aclrtGetCurrentContext", outA)
	def := uint64(h.U32(outA))
	require.Equal(t, fmt.Sprintf("aclrtDestroyContext: context %d is the primary context of device 0: it cannot be destroyed explicitly (aclrtResetDevice releases it)", def),
		h.Code(acl.ErrRTContextNull, "aclrtDestroyContext", def))
	s := h.Stream()
	require.Equal(t, fmt.Sprintf("aclrtSetCurrentContext: handle %d is a stream, not a context", s), h.Code(acl.ErrRTInvalidHandle, "aclrtSetCurrentContext", s))
	h.OK("aclrtSetStreamFailureMode", s, 1)
	require.Equal(t, "aclrtSetStreamFailureMode: the stream is in ACL_STOP_ON_FAILURE mode, which cannot be changed back to ACL_CONTINUE_ON_FAILURE",
		h.Code(acl.ErrRTFeatureNotSupport, "aclrtSetStreamFailureMode", s, 0))
	s2 := h.Stream()
	h.OK("aclrtSetDevice", 1)
	h.OK("aclrtSetStreamFailureMode", s, 3) // bit 0: the mode it has, before the stream's context
	require.Equal(t, "aclrtSetStreamFailureMode: the stream belongs to device 0, the current device is 1",
		h.Code(acl.ErrRTStreamContext, "aclrtSetStreamFailureMode", s2, 1))
	h.OK("aclrtCreateContext", outA, 0)
	cx := uint64(h.U32(outA))
	require.Equal(t, fmt.Sprintf("aclrtSetStreamFailureMode: the stream belongs to context %d of device 0, the current context is %d", def, cx),
		h.Code(acl.ErrRTStreamContext, "aclrtSetStreamFailureMode", s2, 1))
}

func TestNoDeviceGives107002(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.Code(acl.ErrRTContextNull, "aclrtMemcpy", data2, 8, data, 8, 0)
	h.Code(acl.ErrRTContextNull, "aclrtMalloc", outA, 8, 0)
	h.Code(acl.ErrRTContextNull, "aclrtCreateStream", outA)
	h.Code(acl.ErrRTInvalidDeviceID, "aclrtSetDevice", 7)
}
