package host_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// closedPlugin loads closeWAT (close_test.go) on a runtime of its own,
// closed at the end of the test.
func closedPlugin(t *testing.T) (*host.Runtime, *host.Plugin, chan struct{}) {
	t.Helper()
	ctx := context.Background()
	fns, started := closeFuncs()
	rt, err := host.NewRuntime(ctx, append(proxytest.Backend(t), host.WithEngine(testsupport.Engine()), host.WithHostFuncs(fns...))...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })
	pl, err := rt.Load(ctx, testsupport.WAT(t, closeWAT), host.Policy{Timeout: time.Minute})
	require.NoError(t, err)
	return rt, pl, started
}

// requireClosed asserts that err says closed, and is none of the kinds a
// Close must not be mistaken for: an exit, a trap, a timeout, a refused
// load.
func requireClosed(t *testing.T, err error, what string) {
	t.Helper()
	require.ErrorIs(t, err, host.ErrClosed, what)
	var ee *host.ExitError
	require.False(t, errors.As(err, &ee), "%s: not an exit: %v", what, err)
	require.NotErrorIs(t, err, host.ErrTrap, what)
	require.NotErrorIs(t, err, host.ErrTimeout, what)
	require.NotErrorIs(t, err, host.ErrLoad, what)
}

// poolOps are every way of calling through a pool.
func poolOps(ctx context.Context, p *host.Pool) map[string]error {
	_, call := p.Call(ctx, "wait")
	_, bytes := p.CallBytes(ctx, "wait", []byte("x"), host.MaxOutput(16))
	return map[string]error{
		"Do":        p.Do(ctx, func(*host.Instance) error { return nil }),
		"Call":      call,
		"CallBytes": bytes,
	}
}

// TestPoolCloseErrClosed: after Pool.Close every call through the pool
// fails with ErrClosed (and ErrPoolClosed), its idle instances closed.
func TestPoolCloseErrClosed(t *testing.T) {
	ctx := context.Background()
	_, pl, _ := closedPlugin(t)
	p, err := pl.NewPool(host.PoolConfig{Size: 2})
	require.NoError(t, err)
	var idle *host.Instance
	require.NoError(t, p.Do(ctx, func(i *host.Instance) error { idle = i; return nil }))
	require.NoError(t, p.Close(ctx))
	for op, err := range poolOps(ctx, p) {
		requireClosed(t, err, op)
		require.ErrorIs(t, err, host.ErrPoolClosed, op)
	}
	_, err = idle.Call(ctx, "wait")
	requireClosed(t, err, "the idle instance")
	require.NoError(t, p.Close(ctx), "twice")
}

// TestPoolPluginClose: Plugin.Close stops a pool's call in flight with
// ErrClosed, and the pool's later calls, on an idle instance Close ended
// or on a new one, fail with ErrClosed, as does its Close's wait.
func TestPoolPluginClose(t *testing.T) {
	ctx := context.Background()
	_, pl, started := closedPlugin(t)
	p, err := pl.NewPool(host.PoolConfig{Size: 2})
	require.NoError(t, err)
	// One idle instance, one busy.
	require.NoError(t, p.Do(ctx, func(*host.Instance) error { return nil }))
	inflight := make(chan error, 1)
	go func() { _, err := p.CallBytes(ctx, "wait", nil); inflight <- err }()
	<-started
	require.NoError(t, pl.Close(ctx))
	requireClosed(t, <-inflight, "the call in flight")
	for range 2 { // the idle instance Close ended, then a new one
		for op, err := range poolOps(ctx, p) {
			requireClosed(t, err, op)
		}
	}
	require.NoError(t, p.Close(ctx))
	for op, err := range poolOps(ctx, p) {
		requireClosed(t, err, op)
	}
}

// TestPoolCloseDuringCall: a Pool.Close that stops waiting for a call in
// progress says so; the pool refuses calls from then on, and the call in
// progress, ended by Plugin.Close, ends with ErrClosed.
func TestPoolCloseDuringCall(t *testing.T) {
	ctx := context.Background()
	_, pl, started := closedPlugin(t)
	p, err := pl.NewPool(host.PoolConfig{Size: 1})
	require.NoError(t, err)
	inflight := make(chan error, 1)
	go func() { _, err := p.Call(ctx, "wait"); inflight <- err }()
	<-started
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	err = p.Close(cctx)
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "1 calls still in progress")
	wctx, wcancel := context.WithCancel(ctx)
	wcancel() // the pool's one instance is busy: the wait ends at once
	for op, err := range poolOps(wctx, p) {
		// Waiting for an instance, the caller's context ends the wait:
		// either way the call is refused without running.
		if !errors.Is(err, context.Canceled) {
			requireClosed(t, err, op)
		}
	}
	require.NoError(t, pl.Close(ctx))
	requireClosed(t, <-inflight, "the call in flight")
	for op, err := range poolOps(ctx, p) {
		requireClosed(t, err, op)
	}
}

// TestInstantiateRacesPluginClose: Instantiates, Runs and calls racing
// Plugin.Close either succeed or fail with ErrClosed, never with a trap,
// an exit or a load error.
func TestInstantiateRacesPluginClose(t *testing.T) {
	ctx := context.Background()
	_, pl, started := closedPlugin(t)
	const workers, rounds = 4, 50
	errs := make(chan error, 2*workers)
	for w := range workers {
		go func() {
			if w == 0 { // a run that spins until Close stops it
				_, err := pl.Run(ctx, host.Config{})
				errs <- err
				return
			}
			for range rounds {
				inst, err := pl.Instantiate(ctx, host.Config{})
				if err != nil {
					errs <- err
					return
				}
				if err := inst.Close(ctx); err != nil {
					errs <- err
					return
				}
			}
			// Still open after its rounds: wait in a call for Close.
			inst, err := pl.Instantiate(ctx, host.Config{})
			if err == nil {
				_, err = inst.Call(ctx, "wait")
			}
			errs <- err
		}()
	}
	<-started // the run, or a waiting call, is in guest code
	require.NoError(t, pl.Close(ctx))
	for range workers {
		requireClosed(t, <-errs, "racing Close")
	}
	_, err := pl.Instantiate(ctx, host.Config{})
	requireClosed(t, err, "Instantiate after Close")
	_, err = pl.Run(ctx, host.Config{})
	requireClosed(t, err, "Run after Close")
}

// TestInstanceOpsAfterPluginClose: every operation of an instance that
// Plugin.Close ended says ErrClosed; revoking its lease returns nil, as
// the memory is no longer reachable by the guest (Lease.Revoke).
func TestInstanceOpsAfterPluginClose(t *testing.T) {
	ctx := context.Background()
	rt, pl, _ := closedPlugin(t)
	inst, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(t, err)
	ptr, _ := lent(t, rt, 4096)
	l, err := inst.Lend(ptr, 4096, host.LendOptions{})
	require.NoError(t, err)
	require.NotZero(t, inst.MemorySize())
	require.NoError(t, pl.Close(ctx))

	_, err = inst.Call(ctx, "wait")
	requireClosed(t, err, "Call")
	_, err = inst.CallBytes(ctx, "wait", nil)
	requireClosed(t, err, "CallBytes")
	_, err = inst.Lend(ptr, 4096, host.LendOptions{})
	requireClosed(t, err, "Lend")
	_, err = inst.ReadMemory(0, 1)
	requireClosed(t, err, "ReadMemory")
	requireClosed(t, inst.WriteMemory(0, []byte{1}), "WriteMemory")
	require.Zero(t, inst.MemorySize())
	require.NoError(t, l.Revoke(ctx))
	require.NoError(t, inst.Close(ctx), "closing again")
}
