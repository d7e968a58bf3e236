package tests

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
// alone (the SDK's include path and its library, from which the launchers
// link the dispatcher), run in stream order against the copies around
// them, on the simulator with and without its timing model; a callback that
// traps ends the run. The macros that once switched the dispatcher on and
// off (ACLWASM_CALLBACKS, ACLWASM_NO_CALLBACKS) change nothing. Without the
// library the link fails naming the dispatcher, and a module linked
// anyway (--allow-undefined) is refused at load, saying what to do.
func TestNativeCallbacks(t *testing.T) {
	dir := t.TempDir()
	wasm := buildNative(t, dir, "callback.c")
	require.Equal(t, wasm, buildNative(t, t.TempDir(), "callback.c", "-DACLWASM_CALLBACKS"), "-DACLWASM_CALLBACKS changes nothing")
	require.Equal(t, wasm, buildNative(t, t.TempDir(), "callback.c", "-DACLWASM_NO_CALLBACKS"), "-DACLWASM_NO_CALLBACKS changes nothing")
	for _, tc := range []struct {
		name string
		opts []sim.Option
	}{{"default", nil}, {"timing", []sim.Option{sim.WithTiming()}}} {
		t.Run(tc.name, func(t *testing.T) {
			sb := newSandbox(t, tc.opts...)
			pl, err := sb.rt.Load(context.Background(), wasm, testCompile(host.Policy{Timeout: time.Minute}))
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, pl.Close(context.Background())) })
			require.Contains(t, pl.Exports(), "aclwasm_dispatch_callback")

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

	cflags := append(nativeCflags(t), "-o", filepath.Join(t.TempDir(), "nolib.wasm"), filepath.Join("native", "callback.c"))
	out, err := exec.Command(nativeTool(t, "clang"), cflags...).CombinedOutput()
	require.Error(t, err, "linked without the SDK's library:\n%s", out)
	require.Contains(t, string(out), "undefined symbol: aclwasm_dispatch_callback")

	sb := newSandbox(t)
	lenient := filepath.Join(t.TempDir(), "lenient.wasm")
	cflags = append(nativeCflags(t), "-Wl,--allow-undefined", "-o", lenient, filepath.Join("native", "callback.c"))
	out, err = exec.Command(nativeTool(t, "clang"), cflags...).CombinedOutput()
	require.NoError(t, err, "%s", out)
	b, err := os.ReadFile(lenient)
	require.NoError(t, err)
	_, err = sb.rt.Load(context.Background(), b, testCompile(host.Policy{}))
	var le *host.LoadError
	require.True(t, errors.As(err, &le), "%v", err)
	require.ErrorContains(t, err, "acl32.aclrtLaunchHostFunc needs the export aclwasm_dispatch_callback")
	require.ErrorContains(t, err, "C/C++: link the SDK's library libaclwasm.a, as `pkg-config --libs aclwasm` says (-laclwasm)")
	require.ErrorContains(t, err, `Go: import _ "github.com/aclwasm/aclwasm/guest-sdk/go/acl/callback"`, "the Go SDK's option")
	require.ErrorContains(t, err, `AssemblyScript: export { aclwasm_dispatch_callback } from "@aclwasm/sdk/assembly/callback"`, "the AssemblyScript SDK's option")
}

// dispatcherFree is the native program of the dispatcher's cost: one that
// launches no callback.
const dispatcherFree = "events.c"

// forceDispatcher links the dispatcher into a module that launches no
// callback, as the SDK's headers did before it moved into libaclwasm.a:
// the baseline of TestNativeDispatcherOnlyWhenLaunched and
// BenchmarkNativeDispatcher.
const forceDispatcher = "-Wl,--undefined=aclwasm_dispatch_callback"

// TestNativeDispatcherOnlyWhenLaunched: a program that launches no
// callback, built with the native flags (the SDK's library on the link
// line), has no dispatcher and is smaller than with it, in both profiles,
// as C and as C++; it runs the same either way.
func TestNativeDispatcherOnlyWhenLaunched(t *testing.T) {
	sb := newSandbox(t)
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"c", nil},
		{"c-wide", []string{"-DACLWASM_WIDE"}},
		{"c++", []string{"-x", "c++"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wasm := buildNative(t, t.TempDir(), dispatcherFree, tc.flags...)
			old := buildNative(t, t.TempDir(), dispatcherFree, append(tc.flags, forceDispatcher)...)
			require.Less(t, len(wasm), len(old), "the dispatcher costs a module that launches no callback")
			for _, m := range []struct {
				wasm     []byte
				exported bool
			}{{wasm, false}, {old, true}} {
				pl, err := sb.rt.Load(context.Background(), m.wasm, testCompile(host.Policy{}))
				require.NoError(t, err)
				require.Equal(t, m.exported, slices.Contains(pl.Exports(), "aclwasm_dispatch_callback"), "%v", pl.Exports())
				o := mustRun(t, pl, "events")
				require.Equal(t, nativeEventsWant, o.stdout)
				require.NoError(t, pl.Close(context.Background()))
			}
			t.Logf("%s: %d bytes, %d with the dispatcher", tc.name, len(wasm), len(old))
		})
	}
}

// BenchmarkNativeDispatcher: instantiating (and closing) a native program
// that launches no callback, built as the SDK builds it now (no
// dispatcher) against the same program with the dispatcher linked in, as
// the SDK's headers did before: x-old is now/before, measured in
// alternating rounds of the same run; bytes and bytes-old are the two
// modules' sizes.
func BenchmarkNativeDispatcher(b *testing.B) {
	ctx := context.Background()
	wasm := buildNative(b, b.TempDir(), dispatcherFree)
	old := buildNative(b, b.TempDir(), dispatcherFree, forceDispatcher)
	be := sim.New()
	b.Cleanup(func() { require.NoError(b, be.Close()) })
	rt, err := host.NewRuntime(ctx, host.WithBackend(be), host.WithEngine(engine))
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, rt.Close(ctx)) })
	load := func(wasm []byte) func() {
		pl, err := rt.Load(ctx, wasm, testCompile(host.Policy{}))
		require.NoError(b, err)
		b.Cleanup(func() { require.NoError(b, pl.Close(ctx)) })
		return func() {
			inst, err := pl.Instantiate(ctx, host.Config{})
			if err != nil {
				b.Fatal(err)
			}
			if err := inst.Close(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	now, before := load(wasm), load(old)
	// Rounds of each in turn, the first of a round alternating, so that
	// neither gets the warmer caches or the quieter moments.
	const round = 10
	var tNow, tOld time.Duration
	timed := func(k int, f func()) time.Duration {
		t := time.Now()
		for range k {
			f()
		}
		return time.Since(t)
	}
	b.ResetTimer()
	for done, i := 0, 0; done < b.N; done, i = done+round, i+1 {
		k := min(round, b.N-done)
		if i%2 == 0 {
			tOld += timed(k, before)
			tNow += timed(k, now)
		} else {
			tNow += timed(k, now)
			tOld += timed(k, before)
		}
	}
	b.ReportMetric(float64(tNow.Nanoseconds())/float64(b.N), "ns/instantiate")
	b.ReportMetric(float64(tOld.Nanoseconds())/float64(b.N), "old-ns/instantiate")
	b.ReportMetric(float64(tNow)/float64(tOld), "x-old")
	b.ReportMetric(float64(len(wasm)), "bytes")
	b.ReportMetric(float64(len(old)), "bytes-old")
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
