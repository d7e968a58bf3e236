package host

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// TestCallNoAllocs: on wazero, Instance.Call of an empty export allocates
// nothing at all (goal 4 of the performance issue): the adapter watches
// the call's context with the instance's own watcher instead of wazero's
// goroutine per call (host/internal/engine/wazero/terminate.go). The same
// instances still stop a spinning guest at the policy's timeout, when
// the caller cancels, and when Close ends the call from another
// goroutine. On wazero whatever the test engine (the wasmtime adapter has
// its own test, TestWasmtimeAllocs).
func TestCallNoAllocs(t *testing.T) {
	ctx := context.Background()
	rt, err := NewRuntime(ctx)
	require.NoError(t, err)
	defer rt.Close(ctx)
	wasm := testsupport.WAT(t, testsupport.SpinWAT)
	timed, err := rt.Load(ctx, wasm, Policy{Timeout: 50 * time.Millisecond})
	require.NoError(t, err)
	defer timed.Close(ctx)
	untimed, err := rt.Load(ctx, wasm, Policy{Timeout: NoTimeout})
	require.NoError(t, err)
	defer untimed.Close(ctx)
	instance := func(pl *Plugin) *Instance {
		inst, err := pl.Instantiate(ctx, Config{})
		require.NoError(t, err)
		t.Cleanup(func() { inst.Close(ctx) })
		return inst
	}
	// spin calls spin and returns its error, or fails the test on a hang.
	spin := func(ctx context.Context, inst *Instance) error {
		return testsupport.Stopped(t, func() error { _, err := inst.Call(ctx, "spin"); return err })
	}

	inst := instance(timed)
	got := testing.AllocsPerRun(100, func() {
		if _, err := inst.Call(ctx, "empty"); err != nil {
			t.Fatal(err)
		}
	})
	require.Zero(t, got, "allocations per Instance.Call of an empty export on wazero")
	require.ErrorIs(t, spin(ctx, inst), ErrTimeout)

	inst = instance(untimed)
	_, err = inst.Call(ctx, "empty")
	require.NoError(t, err)
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(20*time.Millisecond, cancel)
	err = spin(cctx, inst)
	require.ErrorIs(t, err, ErrCanceled)
	require.False(t, errors.Is(err, ErrTimeout))

	inst = instance(untimed)
	_, err = inst.Call(ctx, "empty")
	require.NoError(t, err)
	time.AfterFunc(20*time.Millisecond, func() { inst.Close(ctx) })
	err = spin(context.WithoutCancel(ctx), inst)
	require.ErrorIs(t, err, ErrCanceled)
	require.ErrorIs(t, err, ErrClosed)
}
