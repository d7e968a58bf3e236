package host

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// waitStatus queries ev's wait status and returns it.
func (h *harness) waitStatus(ev uint64) acl.EventWaitStatus {
	h.t.Helper()
	h.ok("aclrtQueryEventWaitStatus", ev, outB)
	return acl.EventWaitStatus(h.u32(outB))
}

// TestQueryEventWaitStatus: an event no stream waited on is COMPLETE, its
// record pending or not; a wait held behind a gated record is NOT_READY
// until the record runs; a wait cancelled by its stream's forced
// destruction counts as finished; waits on several streams are all
// needed.
func TestQueryEventWaitStatus(t *testing.T) {
	h := newHarness(t, Policy{})
	h.ok("aclrtSetDevice", 0)
	rec, s, s2, ev := h.stream(), h.stream(), h.stream(), h.event()
	require.Equal(t, acl.EventWaitStatusComplete, h.waitStatus(ev)) // never waited on

	release := h.gate(rec)
	h.ok("aclrtRecordEvent", ev, rec)
	require.Equal(t, acl.EventWaitStatusComplete, h.waitStatus(ev)) // a record pending, no wait
	h.ok("aclrtStreamWaitEvent", s, ev)
	h.ok("aclrtStreamWaitEvent", s2, ev)
	require.Equal(t, acl.EventWaitStatusNotReady, h.waitStatus(ev))
	require.Equal(t, acl.EventWaitStatusNotReady, h.waitStatus(ev)) // asking changes nothing
	release()
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtSynchronizeStream", s2)
	require.Equal(t, acl.EventWaitStatusComplete, h.waitStatus(ev))

	// A wait on the default stream (0) counts too.
	release = h.gate(rec)
	h.ok("aclrtRecordEvent", ev, rec)
	h.ok("aclrtStreamWaitEvent", 0, ev)
	require.Equal(t, acl.EventWaitStatusNotReady, h.waitStatus(ev))
	release()
	h.ok("aclrtSynchronizeStream", 0)
	require.Equal(t, acl.EventWaitStatusComplete, h.waitStatus(ev))

	// A wait cancelled with its stream's work never runs its mark.
	release = h.gate(rec)
	defer release()
	h.ok("aclrtRecordEvent", ev, rec)
	s3 := h.stream()
	h.ok("aclrtStreamWaitEvent", s3, ev)
	require.Equal(t, acl.EventWaitStatusNotReady, h.waitStatus(ev))
	h.ok("aclrtDestroyStreamForce", s3)
	require.Equal(t, acl.EventWaitStatusComplete, h.waitStatus(ev))

	// Another event's waits are its own.
	other := h.event()
	h.ok("aclrtStreamWaitEvent", s, ev)
	require.Equal(t, acl.EventWaitStatusNotReady, h.waitStatus(ev))
	require.Equal(t, acl.EventWaitStatusComplete, h.waitStatus(other))
	release()
	h.ok("aclrtSynchronizeStream", s)
	require.Equal(t, acl.EventWaitStatusComplete, h.waitStatus(ev))

	// Many waits, past the length at which the sandbox prunes its list.
	release = h.gate(rec)
	h.ok("aclrtRecordEvent", ev, rec)
	for range 100 {
		h.ok("aclrtStreamWaitEvent", s, ev)
	}
	require.Equal(t, acl.EventWaitStatusNotReady, h.waitStatus(ev))
	release()
	h.ok("aclrtSynchronizeStream", s)
	require.Equal(t, acl.EventWaitStatusComplete, h.waitStatus(ev))

	// Codes, in the native order; a failed call writes nothing.
	binary.LittleEndian.PutUint32(h.mem()[outB:], 7)
	h.code(acl.ErrInvalidParam, "aclrtQueryEventWaitStatus", 0, 0)
	h.code(acl.ErrInvalidParam, "aclrtQueryEventWaitStatus", ev, 0)
	h.code(acl.ErrRTInvalidHandle, "aclrtQueryEventWaitStatus", s, outB)
	h.ok("aclrtCreateEventExWithFlag", outA, 1)
	h.code(acl.ErrRTFeatureNotSupport, "aclrtQueryEventWaitStatus", uint64(h.u32(outA)), outB)
	require.Equal(t, uint32(7), h.u32(outB))
	h.ok("aclrtDestroyEvent", other)
	h.code(acl.ErrRTInvalidHandle, "aclrtQueryEventWaitStatus", other, outB)

	// No device need be current.
	h.ok("aclrtResetDevice", 0)
	n := newHarness(t, Policy{})
	n.code(acl.ErrRTInvalidHandle, "aclrtQueryEventWaitStatus", 5, outB)
}

func init() {
	orderCases["aclrtQueryEventWaitStatus"] = map[string]orderCase{
		"null":  {run: func(h *harness) acl.Error { return h.rc("aclrtQueryEventWaitStatus", setupOrder(h).ev, 0) }},
		"event": {run: func(h *harness) acl.Error { return h.rc("aclrtQueryEventWaitStatus", setupOrder(h).s, outB) }},
		"newmode": {run: func(h *harness) acl.Error {
			h.ok("aclrtSetDevice", 0)
			h.ok("aclrtCreateEventExWithFlag", outA, 1)
			return h.rc("aclrtQueryEventWaitStatus", uint64(h.u32(outA)), outB)
		}},
	}
}
