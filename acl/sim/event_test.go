package sim_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
)

// TestResetEventInStreamOrder: a reset never changes what the record
// before it reports (status, time, synchronize), as natively, before it
// runs, after it, and when it is cancelled with its stream's work.
func TestResetEventInStreamOrder(t *testing.T) {
	b := sim.New()
	t.Cleanup(func() { b.Close() })
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	ev, err := b.CreateEvent(0)
	require.NoError(t, err)
	require.NoError(t, b.RecordEvent(ev, s))
	require.NoError(t, b.SynchronizeStream(t.Context(), s, -1))

	release := gate(t, b, s)
	require.NoError(t, b.ResetEvent(ev, s))
	st, err := b.QueryEvent(ev)
	require.NoError(t, err)
	require.Equal(t, acl.EventRecordedStatusComplete, st, "the reset has not run yet")
	_, err = b.EventElapsedTime(ev, ev)
	require.NoError(t, err, "the record before the reset still has its time")
	release()
	require.NoError(t, b.SynchronizeStream(t.Context(), s, -1))
	st, err = b.QueryEvent(ev)
	require.NoError(t, err)
	require.Equal(t, acl.EventRecordedStatusComplete, st, "the reset has run: the record before it still counts")
	_, err = b.EventElapsedTime(ev, ev)
	require.NoError(t, err, "the reset has run: the record before it still has its time")
	require.NoError(t, b.SynchronizeEvent(t.Context(), ev, -1), "a reset event returns at once")

	// A reset dropped with its stream's queued work changes nothing.
	o, err := b.CreateStream(0)
	require.NoError(t, err)
	require.NoError(t, b.RecordEvent(ev, o))
	require.NoError(t, b.SynchronizeStream(t.Context(), o, -1))
	never := waitable(t, b, 0)
	require.NoError(t, b.StreamWaitEvent(o, never)) // holds the reset back; a cancel ends it
	require.NoError(t, b.ResetEvent(ev, o))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	require.NoError(t, b.DestroyStream(ctx, o))
	st, err = b.QueryEvent(ev)
	require.NoError(t, err)
	require.Equal(t, acl.EventRecordedStatusComplete, st, "the cancelled reset did not happen")
}
