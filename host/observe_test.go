package host

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// recorder is an Observer that keeps what it saw.
type recorder struct{ runs []*recRun }

type recRun struct {
	info  RunInfo
	calls []string
	ends  []RunEnd
}

func (r *recorder) Begin(_ context.Context, info RunInfo) RunObserver {
	rr := &recRun{info: info}
	r.runs = append(r.runs, rr)
	return rr
}

func (r *recRun) HostCall(c CallRecord) { r.calls = append(r.calls, c.Func.Name) }
func (r *recRun) End(e RunEnd)          { r.ends = append(r.ends, e) }

// observeWAT: _start sets device 0 and exits with code 3; an _initialize
// that exits when its argument global says so; exported calls.
const observeWAT = `(module
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (func (export "_start") (drop (call $set (i32.const 0))) (call $exit (i32.const 3)))
  (func (export "set") (result i32) (call $set (i32.const 1)))
  (func (export "quit") (call $exit (i32.const 7)))
  (func (export "boom") unreachable))`

// observed is observeWAT loaded as plugin obs into a runtime whose
// observer is the recorder returned, both closed at the test's end.
func observed(t *testing.T) (*recorder, *Plugin) {
	rec := &recorder{}
	rt := newRuntime(t, WithObserver(rec))
	pl, err := rt.Load(context.Background(), testsupport.WAT(t, observeWAT), Policy{}, LoadName("obs"))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pl.Close(context.Background())) })
	return rec, pl
}

// TestObserver: every Run, Instantiate and Call begins a run that gets
// its host calls and ends once, with the outcome the metrics would count.
func TestObserver(t *testing.T) {
	ctx := context.Background()
	rec, pl := observed(t)

	res, err := pl.Run(ctx, Config{})
	require.NoError(t, err)
	require.Equal(t, uint32(3), res.ExitCode)
	inst, err := pl.Instantiate(ctx, Config{})
	require.NoError(t, err)
	_, err = inst.Call(ctx, "set")
	require.NoError(t, err)
	_, err = inst.Call(ctx, "nope")
	require.Error(t, err)
	_, err = inst.Call(ctx, "quit")
	var ee *ExitError
	require.ErrorAs(t, err, &ee)
	inst2, err := pl.Instantiate(ctx, Config{})
	require.NoError(t, err)
	_, err = inst2.Call(ctx, "boom")
	require.ErrorIs(t, err, ErrTrap)
	_, err = pl.Run(ctx, Config{Env: []string{"bad"}})
	require.Error(t, err)

	want := []struct {
		export  string
		calls   []string
		outcome string
		code    uint32
	}{
		{"_start", []string{"aclrtSetDevice"}, "exit", 3},
		{"_initialize", nil, "ok", 0},
		{"set", []string{"aclrtSetDevice"}, "ok", 0},
		{"nope", nil, "error", 0},
		{"quit", nil, "exit", 7},
		{"_initialize", nil, "ok", 0},
		{"boom", nil, "trap", 0},
		{"_start", nil, "error", 0}, // refused before a session
	}
	require.Len(t, rec.runs, len(want))
	for i, w := range want {
		r := rec.runs[i]
		require.Equal(t, RunInfo{Plugin: "obs", Export: w.export}, r.info, "run %d", i)
		require.Equal(t, w.calls, r.calls, "run %d", i)
		require.Len(t, r.ends, 1, "run %d ends once", i)
		e := r.ends[0]
		require.Equal(t, w.outcome, e.Outcome, "run %d: %v", i, e.Err)
		require.Equal(t, w.code, e.ExitCode, "run %d", i)
		require.Equal(t, i != len(want)-1, e.Session != 0, "run %d has a session", i)
		require.Equal(t, w.outcome != "ok" && w.outcome != "exit" || w.export == "quit", e.Err != nil, "run %d", i)
	}
	require.Equal(t, rec.runs[1].ends[0].Session, rec.runs[4].ends[0].Session, "an instance's runs share its session")
	require.NotEqual(t, rec.runs[0].ends[0].Session, rec.runs[1].ends[0].Session)
	require.Nil(t, inst.Session().obs, "no run observed after the last ends")
}

// TestObserverPrepared: a prepared run is observed from its run on, as
// a Run is: one run of _start with its host calls and its session, none
// for its preparation, and a closed one's refused run ends with its
// error and no session.
func TestObserverPrepared(t *testing.T) {
	ctx := context.Background()
	rec, pl := observed(t)
	r, err := pl.Prepare(ctx, Config{})
	require.NoError(t, err)
	require.Empty(t, rec.runs, "the preparation is no run")
	res, err := r.Run(ctx, Stdio{})
	require.NoError(t, err)
	require.Equal(t, uint32(3), res.ExitCode)
	closed, err := pl.Prepare(ctx, Config{})
	require.NoError(t, err)
	require.NoError(t, closed.Close(ctx))
	_, err = closed.Run(ctx, Stdio{})
	require.ErrorIs(t, err, ErrClosed)

	require.Len(t, rec.runs, 2)
	run := rec.runs[0]
	require.Equal(t, RunInfo{Plugin: "obs", Export: "_start"}, run.info)
	require.Equal(t, []string{"aclrtSetDevice"}, run.calls)
	require.Len(t, run.ends, 1)
	require.Equal(t, "exit", run.ends[0].Outcome)
	require.Equal(t, r.i.s.ID(), run.ends[0].Session)
	refused := rec.runs[1]
	require.Len(t, refused.ends, 1)
	require.Equal(t, "error", refused.ends[0].Outcome)
	require.Zero(t, refused.ends[0].Session)
	require.Nil(t, r.i.s.obs, "no run observed after it ends")
}
