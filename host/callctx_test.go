package host_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// TestCallAllocs: Instance.Call of an empty export allocates nothing of
// its own: no more than the bare engine's call of it, looked up once
// (goal 4 of the performance issue; BenchmarkGoal4Call measures the
// time). What the bare call allocates is wazero's: with
// WithCloseOnContextDone, which the host needs to stop a spinning guest,
// every call starts a goroutine that watches the context (a channel, the
// goroutine's closure and the stop function: 3 allocations in wazero
// 1.12), even for a context whose Done is nil; without it the bare call
// allocates nothing. On wazero whatever the test engine: wasmtime-go
// allocates per call itself.
func TestCallAllocs(t *testing.T) {
	ctx := context.Background()
	wasm := testsupport.WAT(t, testsupport.SmallWAT)
	bareCall := func(watch bool) float64 {
		r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCloseOnContextDone(watch))
		defer r.Close(ctx)
		_, err := r.NewHostModuleBuilder("acl").NewFunctionBuilder().
			WithGoModuleFunction(api.GoModuleFunc(func(context.Context, api.Module, []uint64) {}),
				[]api.ValueType{api.ValueTypeI64, api.ValueTypeI64, api.ValueTypeI64, api.ValueTypeI64, api.ValueTypeI32}, []api.ValueType{api.ValueTypeI32}).
			Export("aclrtMemcpy").Instantiate(ctx)
		require.NoError(t, err)
		mod, err := r.Instantiate(ctx, wasm)
		require.NoError(t, err)
		fn := mod.ExportedFunction("empty")
		return testing.AllocsPerRun(100, func() {
			if err := fn.CallWithStack(ctx, nil); err != nil {
				t.Fatal(err)
			}
		})
	}
	require.Zero(t, bareCall(false), "allocations per call of the bare engine without its context watcher")
	bare := bareCall(true)

	rt, err := host.NewRuntime(ctx)
	require.NoError(t, err)
	defer rt.Close(ctx)
	got, inst := emptyCallAllocs(t, rt)
	require.LessOrEqual(t, got, bare, "allocations per call: the sandbox's over the bare engine's (its context watcher's)")
	_, err = inst.Call(ctx, "nope")
	require.True(t, errors.Is(err, engine.ErrNoExport))
}

// emptyCallAllocs returns the allocations of one Instance.Call of
// testsupport.SmallWAT's empty export on rt, and the instance, closed with the test.
func emptyCallAllocs(t *testing.T, rt *host.Runtime) (float64, *host.Instance) {
	ctx := context.Background()
	pl, err := rt.Load(ctx, testsupport.WAT(t, testsupport.SmallWAT), host.Policy{})
	require.NoError(t, err)
	t.Cleanup(func() { pl.Close(ctx) })
	inst, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(t, err)
	t.Cleanup(func() { inst.Close(ctx) })
	return testing.AllocsPerRun(100, func() {
		if _, err := inst.Call(ctx, "empty"); err != nil {
			t.Fatal(err)
		}
	}), inst
}

// TestRunAllocs pins the allocations of Plugin.Run of a command that does
// nothing, under a context that can be cancelled (a server's request's):
// the instance's call context is armed once for the whole run, the policy's
// timeout its own timer, so that a run makes no context of its own and
// follows the caller's once (47 allocations when the run had a timeout
// context and armed the call context for the instantiation and again for
// _start; 38 since, on wazero 1.12, most of them the engine's instance;
// 33 once the policy's timer was a pooled one, not one per instance; 32
// once wazero's instance held its instantiation's state; 30 once its
// module configuration was lent, not copied per instance; 29 once its
// watcher's action was no method value; 27 once its export's call engine
// was a closed instance's, taken over).
func TestRunAllocs(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rt, err := host.NewRuntime(ctx)
	require.NoError(t, err)
	defer rt.Close(ctx)
	pl, err := rt.Load(ctx, testsupport.WAT(t, `(module (memory 1) (func (export "_start")))`), host.Policy{})
	require.NoError(t, err)
	defer pl.Close(ctx)
	got := testing.AllocsPerRun(100, func() {
		if _, err := pl.Run(ctx, host.Config{NoStats: true}); err != nil {
			t.Fatal(err)
		}
	})
	want := 27.0
	if testsupport.Race {
		want = 34 // the race detector's pools drop records
	}
	require.LessOrEqual(t, got, want, "allocations per Run")
}

// TestRunStreamsAllocs pins the allocations of Plugin.Run of a command
// with the streams a server gives one per request (stdin the request's
// body, stdout and stderr its buffers, a logger), which does what serve's
// echo does: reads its input, sets a device, allocates two buffers,
// copies the input through them and back, frees them and writes it out.
// On wazero (the default engine) the instance's module configuration
// with its streams and sleep is lent (engine/wazero's stdio), not copied
// four times per run (60 allocations then, 52 since; 50 once the
// engine's watcher had no method value of its own and a session's
// allocations room for a few at their first; 45 once _start's call engine
// was a closed instance's, taken over, not made anew; 43 once a run
// with NoStats made no call counters; 40 once the session's contexts were
// a slice, not maps by handle and by device; 38 once the simulator made a
// small allocation's record and bytes one object; 36 once a session's
// first two allocation records and their room were one object; 35 once
// its first context and the list of contexts were one).
func TestRunStreamsAllocs(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rt, err := host.NewRuntime(ctx)
	require.NoError(t, err)
	defer rt.Close(ctx)
	pl, err := rt.Load(ctx, testsupport.WAT(t, testsupport.DeviceEchoWAT), host.Policy{})
	require.NoError(t, err)
	defer pl.Close(ctx)
	body := []byte("0123456789abcdef")
	var in bytes.Reader
	var out, errw bytes.Buffer
	cfg := host.Config{Args: []string{"echo"}, Logger: slog.New(slog.DiscardHandler), Stdin: &in, Stdout: &out, Stderr: &errw, NoStats: true}
	got := testing.AllocsPerRun(100, func() {
		in.Reset(body)
		out.Reset()
		if _, err := pl.Run(ctx, cfg); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), body) {
			t.Fatalf("stdout %q", out.Bytes())
		}
	})
	want := 35.0
	if testsupport.Race {
		want = 44 // the race detector's pools drop records
	}
	require.LessOrEqual(t, got, want, "allocations per Run")
}
