package sandbox_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
)

// Stopping and aborting a stream's work, and stream state callbacks (ABI
// v1.3 section 15).

func init() {
	for name, cases := range streamAbortOrderCases {
		orderCases[name] = cases
	}
}

// stopCases are the cases aclrtStreamStop and aclrtStreamAbort share.
func stopCases(fn string) map[string]orderCase {
	return map[string]orderCase{
		"stream": {run: func(h *harness) acl.Error { return h.rc(fn, 999) }},
		"context": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.keepsStream(e, e.s1, func() acl.Error { h.noDevice(); return h.rc(fn, e.s1) })
		}},
		"feature": {run: func(h *harness) acl.Error {
			b := bareHarness(h)
			return b.rc(fn, b.Stream())
		}},
		"streamctx": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			return h.keepsStream(e, e.s1, func() acl.Error { return h.rc(fn, e.s1) })
		}},
		"cancel": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.gate(e.s)
			h.OK("aclrtMemsetAsync", e.dev, 64, 7, 64, e.s)
			code := h.rc(fn, e.s)
			h.OK("aclrtSynchronizeStream", e.s)
			h.OK("aclrtMemcpy", data, 64, e.dev, 64, 2)
			require.Equal(h.T, make([]byte, 64), h.Mem()[data:data+64], "the memset was cancelled")
			return code
		}},
	}
}

var streamAbortOrderCases = map[string]map[string]orderCase{
	"aclrtStreamStop": func() map[string]orderCase {
		m := stopCases("aclrtStreamStop")
		m["null"] = orderCase{run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			return h.rc("aclrtStreamStop", 0) // even with a current context
		}}
		return m
	}(),
	"aclrtStreamAbort": func() map[string]orderCase {
		m := stopCases("aclrtStreamAbort")
		m["null"] = orderCase{run: func(h *harness) acl.Error { return h.rc("aclrtStreamAbort", 0) }}
		return m
	}(),
	"aclrtRegStreamStateCallback": {
		"null": {run: func(h *harness) acl.Error { return h.rc("aclrtRegStreamStateCallback", 0, 1, 0) }},
		"unregister": {run: func(h *harness) acl.Error {
			copy(h.Mem()[data:], "mine\x00")
			return h.rc("aclrtRegStreamStateCallback", data, 0, 0)
		}},
		"callback": {run: func(h *harness) acl.Error {
			copy(h.Mem()[data:], "mine\x00")
			return h.rc("aclrtRegStreamStateCallback", data, 1, 0)
		}},
	},
}

// TestStreamAbort: after aclrtStreamAbort or aclrtStreamStop a stream has
// lost its queued work and goes on as it was configured: the same handle, priority, flags, failure
// mode, core limits and the thread's use of them; in both profiles, on
// the default stream too.
func TestStreamAbort(t *testing.T) {
	for _, prof := range abi.Profiles {
		for _, fn := range []string{"aclrtStreamAbort", "aclrtStreamStop"} {
			t.Run(prof.String()+"/"+fn, func(t *testing.T) {
				h := newHarnessIn(t, prof, host.Policy{})
				h.OK("aclrtSetDevice", 0)
				h.OK("aclrtCreateStreamWithConfig", outA, 3, uint64(acl.StreamFastLaunch))
				s := uint64(h.U32(outA))
				h.OK("aclrtSetStreamFailureMode", s, uint64(acl.StopOnFailure))
				h.OK("aclrtSetStreamResLimit", s, 0, 5)
				h.OK("aclrtUseStreamResInCurrentThread", s)
				dev := h.Malloc(64)
				ev := h.Event()
				release := h.gate(s)
				h.OK("aclrtMemsetAsync", dev, 64, 7, 64, s)
				h.OK(fn, s)
				release()
				h.OK("aclrtSynchronizeStream", s)
				h.OK("aclrtMemcpy", data, 64, dev, 64, 2)
				require.Equal(t, make([]byte, 64), h.Mem()[data:data+64], "the memset was cancelled")

				p, f := h.streamInfo(s)
				require.Equal(t, [2]uint32{3, uint32(acl.StreamFastLaunch)}, [2]uint32{p, f})
				require.Equal(t, uint32(5), h.streamLimit(s, 0))
				require.Equal(t, uint32(5), h.threadLimit(0), "still the stream in use")
				h.OK("aclrtMemsetAsync", dev, 64, 9, 64, s)
				h.OK("aclrtRecordEvent", ev, s)
				h.OK("aclrtSynchronizeStream", s)
				h.OK("aclrtSynchronizeEvent", ev)
				h.OK("aclrtMemcpy", data, 64, dev, 64, 2)
				require.Equal(t, words(0x09090909, 16), h.Mem()[data:data+64], "the stream takes new work")
				h.OK("aclrtSetStreamFailureMode", s, uint64(acl.StopOnFailure)) // the same mode: kept
				require.Equal(t, acl.ErrRTFeatureNotSupport, h.rc("aclrtSetStreamFailureMode", s, uint64(acl.ContinueOnFailure)), "still stop-on-failure")

				if fn == "aclrtStreamAbort" { // the default stream, by NULL
					release := h.gate(0)
					h.OK("aclrtMemsetAsync", dev, 64, 1, 64, 0)
					h.OK(fn, 0)
					release()
					h.OK("aclrtSynchronizeStream", 0)
					h.OK("aclrtMemcpy", data, 64, dev, 64, 2)
					require.Equal(t, words(0x09090909, 16), h.Mem()[data:data+64])
				}
				h.OK("aclrtDestroyStream", s)
			})
		}
	}
}

// TestRegStreamStateCallback: the refusal says why, and a NULL callback
// unregisters.
func TestRegStreamStateCallback(t *testing.T) {
	h := newHarness(t, host.Policy{})
	copy(h.Mem()[data:], "mine\x00")
	require.Equal(t, `aclrtRegStreamStateCallback: regName "mine": the sandbox cannot call a stream state callback (the guest's callback dispatcher runs void(void *) functions only); nothing is registered`,
		h.Code(acl.ErrRTFeatureNotSupport, "aclrtRegStreamStateCallback", data, 7, 0))
	h.OK("aclrtRegStreamStateCallback", data, 0, 0)
	require.Equal(t, `regName "mine" unregistered: no stream state callback is registered in the sandbox`, h.Log[len(h.Log)-1].Msg)
	end := len(h.Mem())
	copy(h.Mem()[end-2:], "ab")
	h.Code(acl.ErrInvalidParam, "aclrtRegStreamStateCallback", uint64(end-2), 0, 0) // no NUL inside guest memory
}
