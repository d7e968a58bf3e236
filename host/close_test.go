package host_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// closeWAT is a command and a reactor in one module: each export reports
// that it runs (test.started), then spins or blocks in a host function
// that waits for its call's context.
const closeWAT = `(module
  (import "test" "started" (func $started (result i32)))
  (import "test" "block" (func $block (result i32)))
  (memory (export "memory") 1)
  (func (export "_start") (drop (call $started)) (loop $l (br $l)))
  (func (export "spin") (drop (call $started)) (loop $l (br $l)))
  (func (export "wait") (drop (call $started)) (drop (call $block))))`

// closeFuncs returns the host functions of closeWAT: started signals on
// the channel it returns, block waits for its call's context.
func closeFuncs() ([]host.HostFunc, chan struct{}) {
	started := make(chan struct{}, 16)
	return []host.HostFunc{
		{Module: "test", Name: "started", Fn: func(*host.HostCall) (int32, error) { started <- struct{}{}; return 0, nil }},
		{Module: "test", Name: "block", Fn: func(c *host.HostCall) (int32, error) { <-c.Context().Done(); return 0, nil }},
	}, started
}

// TestRuntimeCloseDuringCalls: Runtime.Close stops the runs and calls in
// flight, spinning and blocked in a host function alike; each ends with
// ErrClosed, never as an exit or a trap, and nothing panics when their
// timeouts would have fired. Afterwards every operation says ErrClosed.
func TestRuntimeCloseDuringCalls(t *testing.T) {
	ctx := context.Background()
	fns, started := closeFuncs()
	rt, err := host.NewRuntime(ctx, append(proxytest.Backend(t), host.WithEngine(testsupport.Engine()), host.WithHostFuncs(fns...))...)
	require.NoError(t, err)
	wasm := testsupport.WAT(t, closeWAT)
	const timeout = 3 * time.Second
	pl, err := rt.Load(ctx, wasm, host.Policy{Timeout: timeout})
	require.NoError(t, err)
	spin, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(t, err)
	wait, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(t, err)

	errs := make(chan error, 3)
	go func() {
		res, err := pl.Run(ctx, host.Config{})
		require.Zero(t, res.ExitCode)
		errs <- err
	}()
	go func() { _, err := spin.Call(ctx, "spin"); errs <- err }()
	go func() { _, err := wait.Call(ctx, "wait"); errs <- err }()
	for range 3 {
		<-started
	}
	t0 := time.Now()
	require.NoError(t, rt.Close(ctx))
	for range 3 {
		err := <-errs
		require.ErrorIs(t, err, host.ErrClosed)
		var ee *host.ExitError
		require.False(t, errors.As(err, &ee), "not an exit: %v", err)
		require.NotErrorIs(t, err, host.ErrTrap)
		require.NotErrorIs(t, err, host.ErrTimeout)
	}
	// Past the calls' timeouts: a timer of theirs firing now must find
	// nothing to touch.
	time.Sleep(timeout - time.Since(t0) + 200*time.Millisecond)

	_, err = rt.Load(ctx, wasm, host.Policy{})
	require.ErrorIs(t, err, host.ErrClosed)
	require.NotErrorIs(t, err, host.ErrLoad)
	_, err = pl.Run(ctx, host.Config{})
	require.ErrorIs(t, err, host.ErrClosed)
	_, err = pl.Instantiate(ctx, host.Config{})
	require.ErrorIs(t, err, host.ErrClosed)
	require.NotErrorIs(t, err, host.ErrTrap)
	_, err = spin.Call(ctx, "spin")
	require.ErrorIs(t, err, host.ErrClosed)
	require.NoError(t, rt.Close(ctx), "twice")
}

// TestCloseFromHostFunc: an instance closed from a host function of its
// own call is closed when the call returns, without a deadlock; closing
// the plugin or the runtime from there is refused, and closes nothing.
func TestCloseFromHostFunc(t *testing.T) {
	ctx := context.Background()
	var inst *host.Instance
	var pl *host.Plugin
	var rt *host.Runtime
	var pluginErr, runtimeErr, instErr error
	fns := []host.HostFunc{
		{Module: "test", Name: "started", Fn: func(*host.HostCall) (int32, error) {
			pluginErr = pl.Close(ctx)
			runtimeErr = rt.Close(ctx)
			instErr = inst.Close(ctx)
			return 0, nil
		}},
		{Module: "test", Name: "block", Fn: func(*host.HostCall) (int32, error) { return 0, nil }},
	}
	rt, err := host.NewRuntime(ctx, append(proxytest.Backend(t), host.WithEngine(testsupport.Engine()), host.WithHostFuncs(fns...))...)
	require.NoError(t, err)
	defer rt.Close(ctx)
	pl, err = rt.Load(ctx, testsupport.WAT(t, closeWAT), host.Policy{Timeout: time.Minute})
	require.NoError(t, err)
	inst, err = pl.Instantiate(ctx, host.Config{})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { _, err := inst.Call(ctx, "spin"); done <- err }()
	select {
	case err = <-done:
	case <-time.After(time.Minute): // a watchdog, not a timing assertion
		t.Fatal("Instance.Close from its own host function deadlocked")
	}
	require.ErrorIs(t, err, host.ErrClosed, "the call ends as closed")
	require.NoError(t, instErr)
	require.ErrorIs(t, pluginErr, host.ErrBusy)
	require.ErrorIs(t, runtimeErr, host.ErrBusy)
	_, err = inst.Call(ctx, "spin")
	require.ErrorIs(t, err, host.ErrClosed)
	// The plugin and runtime were left open: they still work.
	i2, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(t, err)
	require.NoError(t, i2.Close(ctx))
}

// TestCloseWaitsForHostFunc: Close from another goroutine while the guest
// is inside a host function is no re-entrant Close: it cancels the call
// and returns only once the host function and the call have returned.
// The host function holds on after its context ends until release, which
// is closed after a while or once Close returned: Close returning first
// would find the function not yet returned.
func TestCloseWaitsForHostFunc(t *testing.T) {
	ctx := context.Background()
	// inBlock, not the guest's "started": Close must come while block
	// runs, not between the two host calls (it would then cancel the
	// call before block starts, and nothing would be waited for).
	inBlock, release, closed := make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
	var returned atomic.Bool
	fns := []host.HostFunc{
		{Module: "test", Name: "started", Fn: func(*host.HostCall) (int32, error) { return 0, nil }},
		{Module: "test", Name: "block", Fn: func(c *host.HostCall) (int32, error) {
			inBlock <- struct{}{}
			<-c.Context().Done()
			<-release
			returned.Store(true)
			return 0, nil
		}},
	}
	rt, err := host.NewRuntime(ctx, append(proxytest.Backend(t), host.WithEngine(testsupport.Engine()), host.WithHostFuncs(fns...))...)
	require.NoError(t, err)
	defer rt.Close(ctx)
	pl, err := rt.Load(ctx, testsupport.WAT(t, closeWAT), host.Policy{Timeout: time.Minute})
	require.NoError(t, err)
	inst, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { _, err := inst.Call(ctx, "wait"); done <- err }()
	<-inBlock
	go func() {
		select {
		case <-closed:
		case <-time.After(100 * time.Millisecond): // not a timing assertion: either way Close must wait
		}
		close(release)
	}()
	require.NoError(t, inst.Close(ctx))
	require.True(t, returned.Load(), "Close returned before the host function did")
	close(closed)
	require.ErrorIs(t, <-done, host.ErrClosed)
}
