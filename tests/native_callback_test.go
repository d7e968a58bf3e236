package tests

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// TestNativeCallbacks: tests/native/callback.c, stream callbacks as native
// programs launch them (aclrtLaunchHostFunc; aclrtLaunchCallback with
// aclrtSubscribeReport and aclrtProcessReport), built with the native flags
// alone (the SDK's headers export the dispatcher by default), run in stream
// order against the copies around them, on the simulator with and without
// its timing model; a callback that traps ends the run. The option it once
// needed, -DACLWASM_CALLBACKS, changes nothing; with the dispatcher left out
// (-DACLWASM_NO_CALLBACKS) Load refuses the module and says what to do.
func TestNativeCallbacks(t *testing.T) {
	dir := t.TempDir()
	wasm := buildNative(t, dir, "callback.c")
	require.Equal(t, wasm, buildNative(t, t.TempDir(), "callback.c", "-DACLWASM_CALLBACKS"), "-DACLWASM_CALLBACKS changes nothing")
	for _, tc := range []struct {
		name string
		opts []sim.Option
	}{{"default", nil}, {"timing", []sim.Option{sim.WithTiming()}}} {
		t.Run(tc.name, func(t *testing.T) {
			sb := newSandbox(t, tc.opts...)
			pl, err := sb.rt.Load(context.Background(), wasm, testCompile(host.Policy{Timeout: time.Minute}))
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, pl.Close(context.Background())) })

			o := mustRun(t, pl, "callback")
			require.Contains(t, o.stdout, "order: 1 2 3\n", "%v", o)
			require.Contains(t, o.stdout, "seen: abababab\n", "the callback ran after the memset before it")
			require.Contains(t, o.stdout, "after: 11111111\n", "the memset after it ran after it")
			require.Contains(t, o.stdout, "reports: 4 5\n", "aclrtLaunchCallback's, run by aclrtProcessReport")
			require.Contains(t, o.stdout, "callback: OK (5 callbacks in stream order)\n")
			require.Equal(t, "atexit: ctors ran 1 time(s)", lastLine(o.stdout), "no constructor or atexit handler around the callbacks")
			require.Equal(t, 1, strings.Count(o.stdout, "atexit:"))
			require.Equal(t, uint64(4), o.res.Stats.Funcs["aclrtLaunchHostFunc"].Calls)
			require.Equal(t, uint64(2), o.res.Stats.Funcs["aclrtLaunchCallback"].Calls)

			o = run(context.Background(), pl, "callback", "trap")
			require.ErrorIs(t, o.err, host.ErrTrap, "%v", o)
			var te *host.TrapError
			require.True(t, errors.As(o.err, &te))
			require.NotContains(t, o.stdout, "did not end the run")
		})
	}

	sb := newSandbox(t)
	_, err := sb.rt.Load(context.Background(), buildNative(t, t.TempDir(), "callback.c", "-DACLWASM_NO_CALLBACKS"), testCompile(host.Policy{}))
	var le *host.LoadError
	require.True(t, errors.As(err, &le), "%v", err)
	require.ErrorContains(t, err, "acl32.aclrtLaunchHostFunc needs the export aclwasm_dispatch_callback")
	require.ErrorContains(t, err, "C/C++: the SDK's acl/acl.h exports it unless ACLWASM_NO_CALLBACKS is defined")
	require.ErrorContains(t, err, `Go: import _ "github.com/aclwasm/aclwasm/guest-sdk/go/acl/callback"`, "the Go SDK's option")
	require.ErrorContains(t, err, `AssemblyScript: export { aclwasm_dispatch_callback } from "@aclwasm/sdk/assembly/callback"`, "the AssemblyScript SDK's option")
}

// TestRustCallbacks: the Rust SDK's callbacks feature (examples/callback.rs):
// its dispatcher export runs a host function and a report callback.
func TestRustCallbacks(t *testing.T) {
	sb := newSandbox(t)
	pl, err := sb.rt.Load(context.Background(), testsupport.Guest(t, "rust-callback"), testCompile(host.Policy{Timeout: time.Minute}))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pl.Close(context.Background())) })
	o := mustRun(t, pl, "rust-callback")
	require.Equal(t, "rust callbacks: OK (sum 12)", lastLine(o.stdout))
	require.Equal(t, uint64(1), o.res.Stats.Funcs["aclrtLaunchHostFunc"].Calls)
	require.Equal(t, uint64(1), o.res.Stats.Funcs["aclrtLaunchCallback"].Calls)
}

// TestGoCallbacks: the Go SDK's callbacks (guest-sdk/go/examples/callback):
// Go closures queued with Stream.LaunchHostFunc and Stream.LaunchCallback,
// run through the export of the package acl/callback, re-entrantly inside
// the command's synchronize and ProcessReport.
func TestGoCallbacks(t *testing.T) {
	sb := newSandbox(t)
	pl, err := sb.rt.Load(context.Background(), testsupport.Guest(t, "go-callback"), testCompile(host.Policy{Timeout: time.Minute}))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pl.Close(context.Background())) })
	o := mustRun(t, pl, "go-callback")
	require.Equal(t, "go callbacks: OK (sum 12)", lastLine(o.stdout))
	require.Equal(t, uint64(3), o.res.Stats.Funcs["aclrtLaunchHostFunc"].Calls, "one run, one NULL fn, one on the subscribed stream")
	require.Equal(t, uint64(1), o.res.Stats.Funcs["aclrtLaunchCallback"].Calls)
}

// TestASCallbacks: the AssemblyScript SDK's callbacks
// (guest-sdk/assemblyscript/examples/callback.ts): top-level functions
// queued by their table index, run through the dispatcher export that the
// entry file re-exports from assembly/callback.ts.
func TestASCallbacks(t *testing.T) {
	sb := newSandbox(t)
	pl, err := sb.rt.Load(context.Background(), testsupport.Guest(t, "as-callback"), testCompile(host.Policy{Timeout: time.Minute}))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pl.Close(context.Background())) })
	var logs bytes.Buffer
	res, err := pl.Run(context.Background(), host.Config{
		Args:   []string{"as-callback"},
		Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
	})
	require.NoError(t, err, "logs:\n%s", logs.String())
	require.Zero(t, res.ExitCode, "logs:\n%s", logs.String())
	require.Contains(t, logs.String(), `"msg":"as callbacks: OK (sum 12)"`)
	require.Equal(t, uint64(2), res.Stats.Funcs["aclrtLaunchHostFunc"].Calls, "one run, one refused on the subscribed stream")
	require.Equal(t, uint64(1), res.Stats.Funcs["aclrtLaunchCallback"].Calls)
}
