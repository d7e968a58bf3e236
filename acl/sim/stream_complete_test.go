package sim

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// TestStreamCompleteOnceItsLastEventIs: once an event recorded last on a
// stream has completed, the stream reports complete too.
func TestStreamCompleteOnceItsLastEventIs(t *testing.T) {
	b := New()
	defer b.Close()
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	e, err := b.CreateEvent(0)
	require.NoError(t, err)
	for range 2000 {
		require.NoError(t, b.LaunchHostFunc(s, func() error { return nil }))
		require.NoError(t, b.RecordEvent(e, s))
		require.NoError(t, b.SynchronizeEvent(context.Background(), e, -1))
		st, err := b.StreamQuery(s)
		require.NoError(t, err)
		require.Equal(t, acl.StreamStatusComplete, st)
	}
}
