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
		"feature": {run: func(h *harness) acl.Error { return plainHarness(h.t).rc("aclrtResetDeviceForce", 0) }},
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
			p := plainHarness(h.t)
			p.ok("aclrtSetDevice", 0)
			return p.rc("aclrtDestroyStreamForce", p.stream())
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
			h.ok("aclrtMemcpyAsync", data, 64, e.dev, 64, 2, e.s)
			return h.rc("aclrtDestroyStreamForce", e.s)
		}},
	},
	"aclrtCreateContext": {
		"null":   {run: func(h *harness) acl.Error { return h.rc("aclrtCreateContext", 0, 9) }},
		"device": {run: func(h *harness) acl.Error { return h.rc("aclrtCreateContext", outA, 9) }},
		"count": {policy: host.Policy{MaxStreams: 1}, run: func(h *harness) acl.Error {
			h.ok("aclrtSetDevice", 0) // the default context does not count
			h.ok("aclrtCreateContext", outA, 0)
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
			h.ok("aclrtCreateContext", outA, 0)
			cx := uint64(h.u32(outA))
			h.ok("aclrtDestroyContext", cx)
			return h.rc("aclrtDestroyContext", cx)
		}},
		"default": {run: func(h *harness) acl.Error {
			h.ok("aclrtSetDevice", 0)
			h.ok("aclrtGetCurrentContext", outA)
			def := uint64(h.u32(outA))
			s := h.stream()
			code := h.rc("aclrtDestroyContext", def)
			// Nothing was destroyed: the context is current, its stream lives.
			h.ok("aclrtGetCurrentContext", outA)
			require.Equal(h.t, def, uint64(h.u32(outA)))
			h.ok("aclrtSynchronizeStream", s)
			h.ok("aclrtSetCurrentContext", def)
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
			h.ok("aclrtSetDevice", 1)
			h.ok("aclrtCreateContext", outA, 0)
			cx := uint64(h.u32(outA))
			h.ok("aclrtDestroyContext", cx)
			h.ok("aclrtSetDevice", 1)
			code := h.rc("aclrtSetCurrentContext", cx)
			h.ok("aclrtGetDevice", outA)
			require.Equal(h.t, uint32(1), h.u32(outA), "the current device did not change")
			return code
		}},
	},
	"aclrtGetCurrentContext": {
		"null":    {run: func(h *harness) acl.Error { return h.rc("aclrtGetCurrentContext", 0) }},
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtGetCurrentContext", outA) }},
	},
	"aclrtGetRunMode": {
		"null":    {run: func(h *harness) acl.Error { return h.rc("aclrtGetRunMode", 0) }},
		"feature": {run: func(h *harness) acl.Error { return plainHarness(h.t).rc("aclrtGetRunMode", outA) }},
	},
	"aclrtCreateStreamWithConfig": {
		"null": {run: func(h *harness) acl.Error { return h.rc("aclrtCreateStreamWithConfig", 0, 0, 0x21) }},
		"drop": {run: func(h *harness) acl.Error {
			h.ok("aclrtSetDevice", 0)
			return h.rc("aclrtCreateStreamWithConfig", outA, 99, 0x1C0|0x20) // DEVICE_USE_ONLY alone once unknown bits go
		}},
		"flags":   {run: func(h *harness) acl.Error { return h.rc("aclrtCreateStreamWithConfig", outA, 0, 0x21) }}, // no device
		"context": {run: func(h *harness) acl.Error { return h.rc("aclrtCreateStreamWithConfig", outA, 0, 0x3) }},
		"count": {policy: host.Policy{MaxStreams: 1}, run: func(h *harness) acl.Error {
			h.ok("aclrtSetDevice", 0)
			h.stream()
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
			h.ok("aclrtSetDevice", 0)
			h.ok("aclrtCreateStreamWithConfig", outA, 0, 0x20)
			s := uint64(h.u32(outA))
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
			h.ok("aclrtSetDevice", 1)
			h.ok("aclrtSetStreamFailureMode", e.s1, 1)
			h.ok("aclrtSetDevice", 0)
			return h.rc("aclrtSetStreamFailureMode", e.s1, 0) // before the stream's context
		}},
		"streamctx": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.rc("aclrtSetStreamFailureMode", e.s1, 1)
		}},
		"feature": {run: func(h *harness) acl.Error {
			p := plainHarness(h.t)
			p.ok("aclrtSetDevice", 0)
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
	h.ok("aclrtSetDevice", 0)
	h.ok("aclrtGetCurrentContext", outA)
	def0 := uint64(h.u32(outA))
	require.NotZero(t, def0)
	h.ok("aclrtSetDevice", 0)
	h.ok("aclrtGetCurrentContext", outA)
	require.Equal(t, def0, uint64(h.u32(outA)), "one default context per device")

	h.ok("aclrtCreateContext", outA, 1)
	cx := uint64(h.u32(outA))
	require.NotEqual(t, def0, cx)
	h.ok("aclrtGetDevice", outB)
	require.Equal(t, uint32(1), h.u32(outB), "a created context is current, and its device")
	h.ok("aclrtGetCurrentContext", outB)
	require.Equal(t, cx, uint64(h.u32(outB)))

	// Each context has its own NULL stream: work queued on the created
	// context's default stream is not what a synchronize of the default
	// context's default stream waits for.
	src, dst := h.malloc(64), h.malloc(64)
	want := h.fill(data, 64, 9)
	h.ok("aclrtMemcpy", src, 64, data, 64, 1)
	release := h.gate(0)
	h.ok("aclrtMemcpyAsync", dst, 64, src, 64, 3, 0)
	h.ok("aclrtSetDevice", 1) // device 1's default context: another NULL stream
	h.ok("aclrtStreamQuery", 0, outC)
	require.Equal(t, uint32(acl.StreamStatusComplete), h.u32(outC), "the default context's NULL stream is idle")
	h.ok("aclrtSetCurrentContext", cx)
	h.ok("aclrtStreamQuery", 0, outC)
	require.Equal(t, uint32(acl.StreamStatusNotReady), h.u32(outC), "the created context's NULL stream holds the copy")
	release()
	h.ok("aclrtSynchronizeStream", 0)
	h.ok("aclrtMemcpy", data2, 64, dst, 64, 2)
	require.Equal(t, want, h.mem()[data2:data2+64])

	// A stream belongs to the context it was created in.
	s := h.stream()
	h.ok("aclrtSetDevice", 1)
	h.ok("aclrtSynchronizeStream", s) // natively in the stream's own context
	msg := h.code(acl.ErrRTStreamContext, "aclrtDestroyStream", s)
	require.Contains(t, msg, "belongs to context")
	h.ok("aclrtSetCurrentContext", cx)
	h.ok("aclrtSynchronizeStream", s)

	// Destroying the current context destroys its streams and leaves no
	// current context; its handle is stale from then on, and never reused.
	h.ok("aclrtDestroyContext", cx)
	h.code(acl.ErrRTContextNull, "aclrtGetCurrentContext", outA)
	require.Contains(t, h.code(acl.ErrRTInvalidHandle, "aclrtSynchronizeStream", s), "unknown or destroyed")
	require.Contains(t, h.code(acl.ErrRTParamInvalid, "aclrtSetCurrentContext", cx), "has been destroyed")
	require.Contains(t, h.code(acl.ErrRTContextNull, "aclrtDestroyContext", cx), "has already been destroyed")
	require.Contains(t, h.code(acl.ErrRTInvalidHandle, "aclrtSynchronizeStream", def0), "is a context, not a stream")
	require.Contains(t, h.code(acl.ErrRTInvalidHandle, "aclrtRecordEvent", def0, 0), "is a context, not an event")
	h.ok("aclrtSetCurrentContext", def0)
	h.ok("aclrtCreateContext", outA, 0)
	require.Greater(t, uint64(h.u32(outA)), cx, "handles are never reused")

	// aclrtResetDevice releases the device's contexts, default one included.
	h.ok("aclrtResetDevice", 0)
	h.code(acl.ErrRTContextNull, "aclrtGetCurrentContext", outA)
	h.code(acl.ErrRTParamInvalid, "aclrtSetCurrentContext", def0)
	h.code(acl.ErrRTContextNull, "aclrtDestroyContext", def0)
	h.ok("aclrtSetDevice", 0)
	h.ok("aclrtGetCurrentContext", outA)
	require.NotEqual(t, def0, uint64(h.u32(outA)), "a new default context")
}

// TestContextsForeign: another session's context handle is unknown here.
func TestContextsForeign(t *testing.T) {
	a, b := newHarness(t, host.Policy{}), newHarness(t, host.Policy{})
	a.ok("aclrtCreateContext", outA, 0)
	cx := uint64(a.u32(outA))
	b.ok("aclrtSetDevice", 1)
	b.ok("aclrtCreateStream", outB) // b's handles pass cx without naming a context
	b.ok("aclrtCreateEvent", outB)
	require.Contains(t, b.code(acl.ErrRTInvalidHandle, "aclrtSetCurrentContext", cx+10), "unknown or destroyed")
	b.ok("aclrtGetCurrentContext", outC)
	require.NotEqual(t, cx+10, uint64(b.u32(outC)))
}

// TestResetDeviceForce: the session's queued work on the device is
// cancelled, not awaited, even work that could never complete, and what
// the device held is released.
func TestResetDeviceForce(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.ok("aclrtSetDevice", 0)
	src := h.malloc(64)
	h.fill(data2, 64, 5)
	h.ok("aclrtMemcpy", src, 64, data2, 64, 1)
	h.ok("aclrtHostRegister", data, 4096, 0, outB)
	s, never := h.stream(), h.waitable()
	h.ok("aclrtStreamWaitEvent", s, never) // for a record that never comes: a plain reset would wait forever
	h.ok("aclrtMemcpyAsync", data, 64, src, 64, 2, s)
	h.ok("aclrtResetDeviceForce", 0)
	h.code(acl.ErrRTContextNull, "aclrtGetDevice", outA)
	h.code(acl.ErrRTInvalidHandle, "aclrtSynchronizeStream", s)
	h.code(acl.ErrRTParamInvalid, "aclrtFree", src)
	// The streams go before the events: destroying the event first would
	// release the wait and let the copy run.
	require.Equal(t, make([]byte, 64), h.mem()[data:data+64], "the queued copy never ran")
	require.Zero(t, h.inst.Session().Stats().Funcs["aclrtMemcpyAsync"].Bytes["D2H"])
}

// TestGetRunMode: the simulator is ACL_HOST.
func TestGetRunMode(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.ok("aclrtGetRunMode", outA)
	require.Equal(t, uint32(acl.RunModeHost), h.u32(outA))
	require.Contains(t, plainHarness(t).code(acl.ErrRTFeatureNotSupport, "aclrtGetRunMode", outA), "does not report a run mode")
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
		require.Equal(t, tc.msg, h.code(tc.code, tc.name, tc.args...), "%s%v", tc.name, tc.args)
	}
	h.ok("aclrtSetDevice", 0)
	h.ok("aclrtGetCurrentContext", outA)
	def := uint64(h.u32(outA))
	require.Equal(t, fmt.Sprintf("aclrtDestroyContext: context %d is the primary context of device 0: it cannot be destroyed explicitly (aclrtResetDevice releases it)", def),
		h.code(acl.ErrRTContextNull, "aclrtDestroyContext", def))
	s := h.stream()
	require.Equal(t, fmt.Sprintf("aclrtSetCurrentContext: handle %d is a stream, not a context", s), h.code(acl.ErrRTInvalidHandle, "aclrtSetCurrentContext", s))
	h.ok("aclrtSetStreamFailureMode", s, 1)
	require.Equal(t, "aclrtSetStreamFailureMode: the stream is in ACL_STOP_ON_FAILURE mode, which cannot be changed back to ACL_CONTINUE_ON_FAILURE",
		h.code(acl.ErrRTFeatureNotSupport, "aclrtSetStreamFailureMode", s, 0))
	s2 := h.stream()
	h.ok("aclrtSetDevice", 1)
	h.ok("aclrtSetStreamFailureMode", s, 3) // bit 0: the mode it has, before the stream's context
	require.Equal(t, "aclrtSetStreamFailureMode: the stream belongs to device 0, the current device is 1",
		h.code(acl.ErrRTStreamContext, "aclrtSetStreamFailureMode", s2, 1))
	h.ok("aclrtCreateContext", outA, 0)
	cx := uint64(h.u32(outA))
	require.Equal(t, fmt.Sprintf("aclrtSetStreamFailureMode: the stream belongs to context %d of device 0, the current context is %d", def, cx),
		h.code(acl.ErrRTStreamContext, "aclrtSetStreamFailureMode", s2, 1))
}

func TestNoDeviceGives107002(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.code(acl.ErrRTContextNull, "aclrtMemcpy", data2, 8, data, 8, 0)
	h.code(acl.ErrRTContextNull, "aclrtMalloc", outA, 8, 0)
	h.code(acl.ErrRTContextNull, "aclrtCreateStream", outA)
	h.code(acl.ErrRTInvalidDeviceID, "aclrtSetDevice", 7)
}
