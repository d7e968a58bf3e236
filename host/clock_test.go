package host

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// watClock's measure(ns) reads the monotonic clock, sleeps ns nanoseconds
// with poll_oneoff (one clock subscription), reads the monotonic clock
// again, then the wall clock: it returns the three readings.
const watClock = `(module
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock (param i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func $now (param $id i32) (result i64)
    (drop (call $clock (local.get $id) (i64.const 1) (i32.const 0)))
    (i64.load (i32.const 0)))
  (func (export "measure") (param $ns i64) (result i64 i64 i64)
    (local $t0 i64)
    (local.set $t0 (call $now (i32.const 1)))
    ;; the subscription at 64: userdata 0, tag 0 (clock), clock id 1,
    ;; timeout $ns (relative), precision 0, flags 0
    (i64.store (i32.const 64) (i64.const 0))
    (i32.store8 (i32.const 72) (i32.const 0))
    (i32.store (i32.const 80) (i32.const 1))
    (i64.store (i32.const 88) (local.get $ns))
    (i64.store (i32.const 96) (i64.const 0))
    (i32.store16 (i32.const 104) (i32.const 0))
    (drop (call $poll (i32.const 64) (i32.const 128) (i32.const 1) (i32.const 8)))
    (local.get $t0) (call $now (i32.const 1)) (call $now (i32.const 0))))`

func measureClocks(t *testing.T, p Policy, cfg Config, sleep time.Duration) (mono0, mono1, wall uint64, err error) {
	t.Helper()
	ctx := context.Background()
	rt, err := NewRuntime(ctx, append(testBackend(t), WithEngine(testEngine))...)
	require.NoError(t, err)
	defer rt.Close(ctx)
	pl, err := rt.Load(ctx, testsupport.WAT(t, watClock), p)
	require.NoError(t, err)
	defer pl.Close(ctx)
	inst, err := pl.Instantiate(ctx, cfg)
	if err != nil {
		return 0, 0, 0, err
	}
	defer inst.Close(ctx)
	res, err := inst.Call(ctx, "measure", uint64(sleep))
	if err != nil {
		return 0, 0, 0, err
	}
	return res[0], res[1], res[2], nil
}

// TestClocksAreReal: by default a guest sees the host's wall clock, a
// monotonic clock, and sleeps that take their time, on every engine.
func TestClocksAreReal(t *testing.T) {
	before := uint64(time.Now().UnixNano())
	mono0, mono1, wall, err := measureClocks(t, Policy{}, Config{}, 50*time.Millisecond)
	require.NoError(t, err)
	after := uint64(time.Now().UnixNano())
	require.GreaterOrEqual(t, mono1-mono0, uint64(50*time.Millisecond), "the sleep slept, and the monotonic clock saw it")
	require.GreaterOrEqual(t, wall, before, "the wall clock is the host's")
	require.LessOrEqual(t, wall, after, "the wall clock is the host's")
}

// TestSleepEndsAtTimeout: a guest sleeping past the policy's timeout is
// stopped by it (the test would hang for an hour otherwise).
func TestSleepEndsAtTimeout(t *testing.T) {
	_, _, _, err := measureClocks(t, Policy{Timeout: 100 * time.Millisecond}, Config{}, time.Hour)
	require.ErrorIs(t, err, ErrTimeout)
}

// TestDeterministicClocks: with Config.DeterministicClocks, two runs read
// the same values and a sleep returns at once (wazero's fake clocks).
func TestDeterministicClocks(t *testing.T) {
	cfg := Config{DeterministicClocks: true}
	if testEngine != "wazero" {
		_, _, _, err := measureClocks(t, Policy{}, cfg, time.Hour)
		require.ErrorContains(t, err, "deterministic clocks need the wazero engine")
		return
	}
	a0, a1, aw, err := measureClocks(t, Policy{}, cfg, time.Hour)
	require.NoError(t, err)
	b0, b1, bw, err := measureClocks(t, Policy{}, cfg, time.Hour)
	require.NoError(t, err)
	require.Equal(t, []uint64{a0, a1, aw}, []uint64{b0, b1, bw})
	require.Less(t, aw, uint64(time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()), "a fixed wall clock, not the host's")
}

// watRandom's draw fills 16 bytes at 0 with random_get and returns them.
const watRandom = `(module
  (import "wasi_snapshot_preview1" "random_get" (func $rand (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "draw") (result i64 i64)
    (drop (call $rand (i32.const 0) (i32.const 16)))
    (i64.load (i32.const 0)) (i64.load (i32.const 8))))`

// TestRandomGet: random_get reads the host's generator, so two instances
// draw different bytes; with DeterministicClocks (wazero) every instance
// draws the same ones, so that runs repeat.
func TestRandomGet(t *testing.T) {
	ctx := context.Background()
	rt := newRuntime(t)
	pl := load(t, rt, testsupport.WAT(t, watRandom), Policy{})
	draw := func(cfg Config) [2]uint64 {
		inst, err := pl.Instantiate(ctx, cfg)
		require.NoError(t, err)
		defer inst.Close(ctx)
		res, err := inst.Call(ctx, "draw")
		require.NoError(t, err)
		return [2]uint64{res[0], res[1]}
	}
	a, b := draw(Config{}), draw(Config{})
	require.NotEqual(t, a, b, "two instances drew the same 16 random bytes")
	require.NotEqual(t, [2]uint64{}, a)
	if testEngine == "wazero" {
		require.Equal(t, draw(Config{DeterministicClocks: true}), draw(Config{DeterministicClocks: true}), "deterministic runs repeat")
	}
}
