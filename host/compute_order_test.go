package host

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// The check-order suite of the families whose tests have not moved beside
// the sandbox yet (testsupport.HostOrderCases): the rest, and the suite's
// history, are in host/internal/sandbox/order_test.go.

// rc calls and returns the code, whatever it is.
func (h *harness) rc(name string, args ...uint64) acl.Error { return acl.Error(h.call(name, args...)) }

// gate blocks stream s (0: the current context's default stream) until
// the returned function runs, or the test ends. s waits for an event
// recorded on a stream of the backend's own, behind a host function that
// the test controls: a wait on an event that has been recorded, as
// natively, and one that a forced destruction can cancel (a running host
// function cannot be). A wait on an event nobody records would not do:
// natively that wait is refused.
func (h *harness) gate(s uint64) func() {
	h.t.Helper()
	sess := h.inst.s.s
	st, dev, err := sess.Stream(uint32(s))
	require.NoError(h.t, err, "gate: stream %d is not one of the session's", s)
	b := sess.Backend()
	hold, err := b.CreateStream(dev)
	require.NoError(h.t, err)
	ev, err := b.CreateEvent(dev)
	require.NoError(h.t, err)
	open := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(open) }) }
	h.t.Cleanup(func() {
		release()
		require.NoError(h.t, b.DestroyStream(context.Background(), hold))
		require.NoError(h.t, b.DestroyEvent(ev))
	})
	require.NoError(h.t, b.LaunchHostFunc(hold, func() error { <-open; return nil }))
	require.NoError(h.t, b.RecordEvent(ev, hold))
	require.NoError(h.t, b.StreamWaitEvent(st, ev))
	// The session counts what it queued itself: tell it of the wait.
	require.NoError(h.t, sess.Recount(uint32(s)))
	return release
}

// orderCase is one step's case: run makes a call that the step decides
// and returns its code. A case violates later steps too where it can, so
// that it shows the step comes before them.
type orderCase struct {
	policy Policy
	run    func(h *harness) acl.Error
}

// orderCases are the check-order cases of the functions whose families'
// tests are still here, added by their test files.
var orderCases = map[string]map[string]orderCase{}

// TestCheckOrder runs one case per step of acl.Order, on a fresh session
// each: the step's code must be what the guest reads. Cases violate later
// steps where they can, so they also show the order. Every step has a
// case and every case a step: the steps of the functions whose cases are
// here (testsupport.HostOrderCases); package sandbox's tests hold the rest.
func TestCheckOrder(t *testing.T) {
	for _, fo := range acl.Order {
		if !testsupport.HostOrderCases(fo.Func) {
			require.Nil(t, orderCases[fo.Func], "cases of %s, which package sandbox's tests hold", fo.Func)
			continue
		}
		cases := orderCases[fo.Func]
		require.NotNil(t, cases, "%s has no cases", fo.Func)
		ids := map[string]bool{}
		for _, st := range fo.Steps {
			require.False(t, ids[st.ID], "%s: step %s twice", fo.Func, st.ID)
			ids[st.ID] = true
			tc, ok := cases[st.ID]
			if !ok {
				t.Errorf("%s: step %s (%s) has no case", fo.Func, st.ID, st.Check)
				continue
			}
			t.Run(fo.Func+"/"+st.ID, func(t *testing.T) {
				h := newHarness(t, tc.policy)
				got := tc.run(h)
				require.Equal(t, st.Code, got, "%s: %s\nmessage: %s", st.ID, st.Check, h.inst.Session().LastError())
				// The last error as the native call path records it (the
				// sandbox's own steps may run on a harness of their own).
				_, quiet := acl.UnrecordedSteps[fo.Func][st.ID]
				if acl.SetsLastError(st.Code) && (st.Basis != acl.Sandbox || quiet) {
					on := h
					if h.peer != nil {
						on = h.peer
					}
					last := on.rc("aclrtPeekAtLastError", 0)
					if quiet {
						require.NotEqual(t, st.Code, last, "%s: natively not recorded as the last error", st.ID)
					} else {
						require.Equal(t, st.Code, last, "%s: natively recorded as the last error", st.ID)
					}
				}
			})
		}
		for id := range cases {
			require.True(t, ids[id], "%s: case %s has no step", fo.Func, id)
		}
	}
	for name := range orderCases {
		require.NotNil(t, acl.OrderOf(name), "cases of %s, which acl.Order does not list", name)
	}
}

// waitable returns an event of the current device that has been recorded
// and then reset: a wait for it is queued and lasts until its next record.
// (Natively a wait for an event never recorded is refused, 107000.) A wait
// for it followed by its record on the same stream never ends: the record
// waits behind the wait.
func (h *harness) waitable() uint64 {
	h.t.Helper()
	ev := h.event()
	h.ok("aclrtRecordEvent", ev, 0)
	h.ok("aclrtResetEvent", ev, 0)
	h.ok("aclrtSynchronizeStream", 0)
	return ev
}

// bare is a backend over a native library without the optional functions
// (acl.Backend.Supports false for each; the methods that call them return
// 207000): the sandbox must refuse what needs them with 207000 in its
// place in the check order, never do nothing. It has no optional role
// and makes no promise (acl.Traits).
type bare struct{ acl.Backend }

// Traits implements acl.Runtime: none.
func (bare) Traits() acl.Traits { return acl.Traits{} }

// Supports implements acl.Backend: a library of the required functions only.
func (bare) Supports(fn string) bool {
	switch fn {
	case "aclrtMemsetD32", "aclrtMemsetD32Async", "aclrtResetEvent", "aclrtStreamWaitEventWithTimeout",
		"aclrtGetOpTimeOutInterval", "aclrtDestroyStreamForce", "aclrtCreateStreamWithConfig",
		"aclrtSetStreamFailureMode", "aclrtGetRunMode":
		return false
	case "aclrtGetErrorVerbose", "aclrtGetDeviceResLimit": // ABI v1.2 section 12
		return false
	}
	return !bareLacks[fn]
}

// bareLacks are more functions bare lacks, added by the test files of
// their families.
var bareLacks = map[string]bool{}

// putStr writes s and a NUL at off in guest memory.
func (h *harness) putStr(off uint32, s string) {
	m := h.mem()
	copy(m[off:], s)
	m[off+uint32(len(s))] = 0
}

// noDevice makes the session have no current device while it keeps its
// streams: the native runtime can get there (a context of another thread),
// the sandbox's guests cannot, but the check must still sit in its place.
func (h *harness) noDevice() { h.inst.s.s.LeaveDevice() }
