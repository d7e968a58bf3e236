package sandbox

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestBoundCtxReuse: a Run's context that made no Done serves the next Run
// of its launch record as if new (no deadline of the last launch's own
// timeout left behind), and one that made a Done is not reused: the
// context package may look at it after Run.
func TestBoundCtxReuse(t *testing.T) {
	halt, stop := context.WithCancel(context.Background())
	defer stop()
	b := bounds{halt: halt}
	kl := &kernelLaunch{bc: &boundCtx{}}
	bc := kl.bc
	b.set(bc, context.Background(), time.Hour) // a launch with its own timeout
	_, ok := bc.Deadline()
	require.True(t, ok)
	kl.endCtx()
	require.Same(t, bc, kl.bc, "no Done made: kept")
	b.set(kl.bc, context.Background(), 0) // the next launch, without one
	_, ok = kl.bc.Deadline()
	require.False(t, ok, "the last launch's own timeout is gone")
	require.NoError(t, kl.bc.Err())

	done := make(chan error, 1)
	context.AfterFunc(kl.bc, func() { done <- bc.Err() }) // makes Done
	kl.endCtx()
	require.Nil(t, kl.bc, "Done made: left to the context package")
	require.ErrorIs(t, <-done, context.Canceled, "released when Run returned")
}
