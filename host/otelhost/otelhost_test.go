package otelhost_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.uber.org/goleak"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/otelhost"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// guestWAT calls aclrtSetDevice(0) then the slow host function, as a
// command (_start) and as a reactor export (work); boom traps.
const guestWAT = `(module
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (import "test" "slow" (func $slow (result i32)))
  (memory (export "memory") 1)
  (func $work (export "work")
    (drop (call $set (i32.const 0)))
    (drop (call $slow)))
  (func (export "_start") (call $work))
  (func (export "boom") unreachable))`

const sleep = 30 * time.Millisecond

// slow sleeps: the host call a threshold below sleep always traces.
var slow = host.HostFunc{Module: "test", Name: "slow", Fn: func(*host.HostCall) (int32, error) {
	time.Sleep(sleep)
	return 0, nil
}}

// setup loads the guest, named "g", on the engine ACLWASM_TEST_ENGINE
// names, traced into an in-memory exporter.
func setup(t *testing.T, threshold time.Duration) (*sdktrace.TracerProvider, *tracetest.InMemoryExporter, *host.Plugin) {
	t.Helper()
	return setupWAT(t, threshold, guestWAT)
}

// setupWAT is setup with the guest src.
func setupWAT(t *testing.T, threshold time.Duration, src string) (*sdktrace.TracerProvider, *tracetest.InMemoryExporter, *host.Plugin) {
	t.Helper()
	ctx := context.Background()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { require.NoError(t, tp.Shutdown(ctx)) })
	rt, err := host.NewRuntime(ctx, host.WithEngine(testsupport.Engine()), host.WithHostFuncs(slow), otelhost.Option(tp, threshold))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })
	pl, err := rt.Load(ctx, testsupport.WAT(t, src), host.Policy{}, host.LoadName("g"))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pl.Close(ctx)) })
	return tp, exp, pl
}

func attrs(s tracetest.SpanStub) map[string]any {
	m := map[string]any{}
	for _, a := range s.Attributes {
		m[string(a.Key)] = a.Value.AsInterface()
	}
	return m
}

func byName(t *testing.T, spans tracetest.SpanStubs, name string) tracetest.SpanStub {
	t.Helper()
	for _, s := range spans {
		if s.Name == name {
			return s
		}
	}
	require.Failf(t, "no span", "%q among %d spans", name, len(spans))
	return tracetest.SpanStub{}
}

// requireChild checks that c is a child of p and lies within it in time.
func requireChild(t *testing.T, p, c tracetest.SpanStub) {
	t.Helper()
	require.Equal(t, p.SpanContext.SpanID(), c.Parent.SpanID(), "%s is a child of %s", c.Name, p.Name)
	require.Equal(t, p.SpanContext.TraceID(), c.SpanContext.TraceID())
	require.False(t, c.StartTime.Before(p.StartTime), "%s starts within %s", c.Name, p.Name)
	require.False(t, c.EndTime.After(p.EndTime), "%s ends within %s", c.Name, p.Name)
}

// TestRunSpans: a command's run is a span under the caller's, and the slow
// host call a span under it; host calls under the threshold make none.
func TestRunSpans(t *testing.T) {
	tp, exp, pl := setup(t, sleep-10*time.Millisecond)
	ctx, root := tp.Tracer("test").Start(context.Background(), "root")
	res, err := pl.Run(ctx, host.Config{})
	root.End()
	require.NoError(t, err)
	require.Zero(t, res.ExitCode)

	spans := exp.GetSpans()
	run := byName(t, spans, "aclwasm _start")
	requireChild(t, byName(t, spans, "root"), run)
	a := attrs(run)
	require.Equal(t, "g", a["aclwasm.plugin"])
	require.Equal(t, "_start", a["aclwasm.export"])
	require.Equal(t, "ok", a["aclwasm.outcome"])
	require.Equal(t, int64(0), a["aclwasm.exit_code"])
	require.Equal(t, codes.Unset, run.Status.Code)

	sl := byName(t, spans, "test.slow")
	requireChild(t, run, sl)
	require.GreaterOrEqual(t, sl.EndTime.Sub(sl.StartTime), sleep, "the span is timed by the call")
	require.Equal(t, "test.slow", attrs(sl)["aclwasm.function"])
	require.Equal(t, int64(0), attrs(sl)["aclwasm.code"])
	for _, s := range spans {
		if s.Parent.SpanID() == run.SpanContext.SpanID() {
			require.GreaterOrEqual(t, s.EndTime.Sub(s.StartTime), sleep-10*time.Millisecond, "%s is under the threshold", s.Name)
		}
	}
}

// TestCallSpans: with threshold 0 every host call of a reactor call is a
// span, in order, and a trapping call's span says so.
func TestCallSpans(t *testing.T) {
	_, exp, pl := setup(t, 0)
	ctx := context.Background()
	inst, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(t, err)
	defer inst.Close(ctx)
	_, err = inst.Call(ctx, "work")
	require.NoError(t, err)
	_, err = inst.Call(ctx, "boom")
	require.ErrorIs(t, err, host.ErrTrap)

	spans := exp.GetSpans()
	init := byName(t, spans, "aclwasm _initialize")
	require.Equal(t, "ok", attrs(init)["aclwasm.outcome"])
	require.False(t, init.Parent.IsValid(), "no span in the caller's context: a root")

	work := byName(t, spans, "aclwasm work")
	require.Equal(t, "work", attrs(work)["aclwasm.export"])
	require.Equal(t, "ok", attrs(work)["aclwasm.outcome"])
	var kids []tracetest.SpanStub
	for _, s := range spans {
		if s.Parent.SpanID() == work.SpanContext.SpanID() {
			requireChild(t, work, s)
			kids = append(kids, s)
		}
	}
	require.Len(t, kids, 2)
	require.Equal(t, "aclrtSetDevice", kids[0].Name)
	require.Equal(t, "aclrtSetDevice(deviceId=0) = 0", attrs(kids[0])["aclwasm.call"])
	require.Equal(t, "test.slow", kids[1].Name)
	require.False(t, kids[1].StartTime.Before(kids[0].EndTime), "in call order")
	require.Equal(t, attrs(work)["aclwasm.session"], attrs(init)["aclwasm.session"], "one session")

	boom := byName(t, spans, "aclwasm boom")
	require.Equal(t, "trap", attrs(boom)["aclwasm.outcome"])
	require.Equal(t, codes.Error, boom.Status.Code)
	require.NotEmpty(t, boom.Events, "the error is recorded")
}

// markerWAT creates a stamp, marks it, pushes and pops it, and pops once
// more with nothing pushed (a failure: no event).
const markerWAT = `(module
  (import "acl" "aclprofCreateStamp" (func $create (result i32)))
  (import "acl" "aclprofMark" (func $mark (param i32) (result i32)))
  (import "acl" "aclprofPush" (func $push (param i32) (result i32)))
  (import "acl" "aclprofPop" (func $pop (result i32)))
  (memory (export "memory") 1)
  (func (export "_start") (local $s i32)
    (local.set $s (call $create))
    (drop (call $mark (local.get $s)))
    (drop (call $push (local.get $s)))
    (drop (call $pop))
    (drop (call $pop))))`

// TestMarkerEvents: the profiling markers are events of the run's span,
// in call order, even under a threshold that makes no call span; a
// failed marker is none.
func TestMarkerEvents(t *testing.T) {
	_, exp, pl := setupWAT(t, time.Hour, markerWAT)
	res, err := pl.Run(context.Background(), host.Config{})
	require.NoError(t, err)
	require.Zero(t, res.ExitCode)
	run := byName(t, exp.GetSpans(), "aclwasm _start")
	var names []string
	for _, e := range run.Events {
		names = append(names, e.Name)
	}
	require.Equal(t, []string{`mark ""`, `push ""`, `pop ""`}, names)
	require.Len(t, exp.GetSpans(), 1, "no call span under the threshold")
}
