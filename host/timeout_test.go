package host_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// TestTimeoutNamesLimit: a call or run the policy's timeout stopped says
// which limit it was, so that the operator knows what to raise; one the
// caller's deadline stopped is a cancellation and says no limit.
func TestTimeoutNamesLimit(t *testing.T) {
	ctx := context.Background()
	fns, _ := closeFuncs()
	rt, err := host.NewRuntime(ctx, append(proxytest.Backend(t), host.WithEngine(testsupport.Engine()), host.WithHostFuncs(fns...))...)
	require.NoError(t, err)
	defer rt.Close(ctx)
	pl, err := rt.Load(ctx, testsupport.WAT(t, closeWAT), host.Policy{Timeout: 150 * time.Millisecond})
	require.NoError(t, err)

	_, err = pl.Run(ctx, host.Config{})
	require.ErrorIs(t, err, host.ErrTimeout)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorContains(t, err, "guest timed out after 150ms (the policy's timeout)")

	for _, export := range []string{"spin", "wait"} { // in guest code, in a host function
		inst, err := pl.Instantiate(ctx, host.Config{})
		require.NoError(t, err)
		_, err = inst.Call(ctx, export)
		require.ErrorIs(t, err, host.ErrTimeout, export)
		require.ErrorContains(t, err, export+": guest timed out after 150ms (the policy's timeout)")
		require.NoError(t, inst.Close(ctx))
	}

	inst, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(t, err)
	dctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err = inst.Call(dctx, "spin")
	require.ErrorIs(t, err, host.ErrCanceled)
	require.NotErrorIs(t, err, host.ErrTimeout)
	require.NotContains(t, err.Error(), "policy")
	require.NoError(t, inst.Close(ctx))
}
