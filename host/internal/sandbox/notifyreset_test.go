package sandbox_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
)

// aclrtNotifyBatchReset (ABI v1.3 section 15).

// putHandles writes an array of 4-byte handles at off.
func (h *harness) putHandles(off uint32, hs ...uint64) {
	for i, v := range hs {
		le.PutUint32(h.Mem()[off+uint32(4*i):], uint32(v))
	}
}

// failDefault queues on the current context's default stream an
// operation that fails when it runs.
func (h *harness) failDefault() {
	h.T.Helper()
	sess := proxytest.Session(h.Inst)
	st, _, err := sess.Stream(0)
	require.NoError(h.T, err)
	require.NoError(h.T, h.RT.Backend().LaunchHostFunc(st, func() error {
		return acl.Errorf(acl.ErrRTParamInvalid, "the test's failing operation")
	}))
	require.NoError(h.T, sess.Recount(0))
}

func init() {
	const fn = "aclrtNotifyBatchReset"
	bareLacks[fn] = true
	orderCases[fn] = map[string]orderCase{
		"null": {run: func(h *harness) acl.Error { return h.rc(fn, 0, 0) }},
		"num": {run: func(h *harness) acl.Error {
			if h.Prof == abi.Wide {
				require.Equal(h.T, acl.ErrRTParamInvalid, h.rc(fn, data, 1<<32), "2^32 is 0 as a uint32_t")
			}
			return h.rc(fn, uint64(len(h.Mem())), 0) // the array outside guest memory too
		}},
		"range": {run: func(h *harness) acl.Error {
			return bareHarness(h).rc(fn, uint64(len(h.Mem()))-4, 2) // before the backend is asked
		}},
		"feature": {run: func(h *harness) acl.Error {
			b := bareHarness(h)
			b.putHandles(data, 999)
			return b.rc(fn, data, 1)
		}},
		"notify": {run: func(h *harness) acl.Error {
			e := setupOrder(h)
			h.noDevice()
			h.putHandles(data, e.ev, 0)
			return h.rc(fn, data, 2) // an event; no context, a NULL entry later
		}},
		"nullentry": {run: func(h *harness) acl.Error {
			setupOrder(h)
			h.noDevice()
			h.putHandles(data, 0)
			return h.rc(fn, data, 1) // before the context
		}},
		"context": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			n := h.notify()
			h.noDevice()
			h.putHandles(data, n, 999)
			return h.rc(fn, data, 2) // a bad entry later
		}},
		"later": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			n := h.notify()
			h.OK("aclrtRecordNotify", n, 0)
			h.OK("aclrtSynchronizeStream", 0)
			h.putHandles(data, n, 0)
			require.Equal(h.T, acl.ErrRTParamInvalid, h.rc(fn, data, 2), "a NULL entry later")
			h.putHandles(data, n, 999)
			code := h.rc(fn, data, 2)
			s := h.Stream()
			h.OK("aclrtWaitAndResetNotify", n, s, 0)
			h.OK("aclrtSynchronizeStream", s) // still set: the first entry was not reset
			return code
		}},
		"stream": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			n := h.notify()
			h.OK("aclrtRecordNotify", n, 0)
			h.OK("aclrtSynchronizeStream", 0)
			h.failDefault()
			h.putHandles(data, n)
			code := h.rc(fn, data, 1)
			s := h.Stream()
			h.OK("aclrtWaitAndResetNotify", n, s, 0)
			h.OK("aclrtSynchronizeStream", s) // still set
			return code
		}},
		"reset": {run: func(h *harness) acl.Error {
			h.OK("aclrtSetDevice", 0)
			n1, n2 := h.notify(), h.notify()
			h.OK("aclrtRecordNotify", n1, 0)
			h.OK("aclrtRecordNotify", n2, 0) // queued on the default stream: the reset runs after them
			h.putHandles(data, n1, n2)
			code := h.rc(fn, data, 2)
			s := h.Stream()
			h.OK("aclrtWaitAndResetNotify", n1, s, 1)
			h.Code(acl.ErrRTWaitTimeout, "aclrtSynchronizeStream", s) // cleared: the wait expires
			h.OK("aclrtRecordNotify", n2, 0)
			h.OK("aclrtWaitAndResetNotify", n2, s, 0)
			h.OK("aclrtSynchronizeStream", s) // a record after the reset releases a wait
			return code
		}},
	}
}

// TestNotifyBatchReset: a reset clears the notifies in both profiles
// (an array of 4-byte handles in both); a record after it sets them again.
func TestNotifyBatchReset(t *testing.T) {
	for _, prof := range abi.Profiles {
		t.Run(prof.Module(), func(t *testing.T) {
			h := newHarnessIn(t, prof, host.Policy{})
			h.OK("aclrtSetDevice", 0)
			ns := []uint64{h.notify(), h.notify(), h.notify()}
			for _, n := range ns {
				h.OK("aclrtRecordNotify", n, 0)
			}
			h.putHandles(data, ns...)
			h.OK("aclrtNotifyBatchReset", data, 2) // the first two
			s := h.Stream()
			h.OK("aclrtWaitAndResetNotify", ns[2], s, 0)
			h.OK("aclrtSynchronizeStream", s) // the third is still set
			for _, n := range ns[:2] {
				h.OK("aclrtWaitAndResetNotify", n, s, 1)
				h.Code(acl.ErrRTWaitTimeout, "aclrtSynchronizeStream", s)
			}
			h.OK("aclrtNotifyBatchReset", data, 3) // clearing clear notifies is fine
		})
	}
}
