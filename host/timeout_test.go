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

// TestRunOneDeadline: the policy's timeout bounds a command's run as a
// whole: the start function and _start see one deadline, the policy's
// timeout from the run's start (not one per part), and a deadline of the
// caller's that comes first is theirs.
func TestRunOneDeadline(t *testing.T) {
	ctx := context.Background()
	var seen []time.Time
	fns := []host.HostFunc{{Module: "test", Name: "deadline", Fn: func(c *host.HostCall) (int32, error) {
		dl, ok := c.Context().Deadline()
		require.True(t, ok, "a run has a deadline")
		seen = append(seen, dl)
		return 0, nil
	}}}
	rt, err := host.NewRuntime(ctx, append(proxytest.Backend(t), host.WithEngine(testsupport.Engine()), host.WithHostFuncs(fns...))...)
	require.NoError(t, err)
	defer rt.Close(ctx)
	const timeout = time.Hour
	pl, err := rt.Load(ctx, testsupport.WAT(t, `(module
  (import "test" "deadline" (func $deadline (result i32)))
  (memory (export "memory") 1)
  (func $init (drop (call $deadline)))
  (start $init)
  (func (export "_start") (drop (call $deadline))))`), host.Policy{Timeout: timeout})
	require.NoError(t, err)

	before := time.Now()
	_, err = pl.Run(ctx, host.Config{})
	after := time.Now()
	require.NoError(t, err)
	require.Len(t, seen, 2)
	require.Equal(t, seen[0], seen[1], "the start function's deadline is _start's")
	require.False(t, seen[0].Before(before.Add(timeout)) || seen[0].After(after.Add(timeout)), "the policy's timeout from the run's start: %v", seen[0])

	seen = nil
	dctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	want, _ := dctx.Deadline()
	_, err = pl.Run(dctx, host.Config{})
	require.NoError(t, err)
	require.Equal(t, []time.Time{want, want}, seen, "the caller's earlier deadline")
}
