package host

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

func newMetrics(t *testing.T) *Metrics {
	t.Helper()
	m, err := NewMetrics(prometheus.NewRegistry())
	require.NoError(t, err)
	return m
}

// TestMetrics runs plugins under metrics and checks each series against
// what the guests did.
func TestMetrics(t *testing.T) {
	ctx := context.Background()
	m := newMetrics(t)
	rt := newRuntime(t, WithMetrics(m))
	calls := func(plugin, fn string) float64 { return testutil.ToFloat64(m.m.Calls.WithLabelValues(plugin, fn)) }
	runs := func(plugin, out string) float64 { return testutil.ToFloat64(m.m.Runs.WithLabelValues(plugin, out)) }

	// A command: two H2D/D2D copies and one D2H, 4096 bytes each.
	pl, err := rt.Load(ctx, testsupport.WAT(t, fmt.Sprintf(testsupport.RoundtripWAT, 0)), Policy{}, LoadName("rt"))
	require.NoError(t, err)
	defer pl.Close(ctx)
	res, err := pl.Run(ctx, Config{})
	require.NoError(t, err)
	require.Zero(t, res.ExitCode)
	require.Equal(t, 3.0, calls("rt", "aclrtMemcpy"))
	require.Equal(t, 2.0, calls("rt", "aclrtMalloc"))
	for _, d := range []string{"H2D", "D2D", "D2H"} {
		require.Equal(t, 4096.0, testutil.ToFloat64(m.m.Bytes.WithLabelValues("rt", "aclrtMemcpy", d)), d)
	}
	require.Equal(t, 1.0, runs("rt", "ok"))
	require.Equal(t, 4, testutil.CollectAndCount(m.m.Latency), "a latency series per function called: set, malloc, memcpy, free")
	require.Equal(t, 0.0, testutil.ToFloat64(m.m.Sessions.WithLabelValues("rt")))

	// The same module queueing a copy, then exiting 3 with it queued.
	pl2, err := rt.Load(ctx, testsupport.WAT(t, fmt.Sprintf(testsupport.RoundtripWAT, 1)), Policy{}, LoadName("rt"))
	require.NoError(t, err)
	defer pl2.Close(ctx)
	res, err = pl2.Run(ctx, Config{})
	require.NoError(t, err)
	require.Equal(t, uint32(3), res.ExitCode)
	require.Equal(t, 1.0, runs("rt", "exit"))
	require.Equal(t, 1.0, testutil.ToFloat64(m.m.Queued.WithLabelValues("rt", "aclrtMemcpyAsync")))
	// Bytes of a queued copy count when it runs, in the statistics and
	// the metrics alike (the run's end finishes it).
	require.Equal(t, uint64(4096), res.Stats.Funcs["aclrtMemcpyAsync"].Bytes["D2H"])
	require.Equal(t, 4096.0, testutil.ToFloat64(m.m.Bytes.WithLabelValues("rt", "aclrtMemcpyAsync", "D2H")))
	require.Equal(t, 0.0, testutil.ToFloat64(m.m.Registered), "pinned bytes released with the session")

	// A reactor: memory held while it lives, an error by code, a trap.
	px, err := rt.Load(ctx, testsupport.Proxy(abi.Wide, 4), Policy{Timeout: 300 * time.Millisecond}, LoadName("proxy"))
	require.NoError(t, err)
	defer px.Close(ctx)
	inst, err := px.Instantiate(ctx, Config{})
	require.NoError(t, err)
	require.Equal(t, 1.0, testutil.ToFloat64(m.m.Sessions.WithLabelValues("proxy")))
	for _, c := range []struct {
		fn   string
		args []uint64
	}{{"aclrtSetDevice", []uint64{1}}, {"aclrtMalloc", []uint64{testsupport.OutA, 1000, 0}}, {"aclrtMalloc", []uint64{testsupport.OutA, 0, 0}}} {
		_, err := inst.Call(ctx, c.fn, c.args...)
		require.NoError(t, err)
	}
	require.Equal(t, 1.0, testutil.ToFloat64(m.m.Errs.WithLabelValues("proxy", "aclrtMalloc", "100000")))
	require.Equal(t, 0.0, testutil.ToFloat64(m.m.Device(0)))
	require.Greater(t, testutil.ToFloat64(m.m.Device(1)), 1000.0, "native rounding and padding are charged")
	_, err = inst.Call(ctx, "trap")
	require.ErrorIs(t, err, ErrTrap)
	require.Equal(t, 1.0, runs("proxy", "trap"))
	require.Equal(t, 0.0, testutil.ToFloat64(m.m.Device(1)), "the trapped session released its memory")
	require.Equal(t, 0.0, testutil.ToFloat64(m.m.Sessions.WithLabelValues("proxy")))

	inst, err = px.Instantiate(ctx, Config{})
	require.NoError(t, err)
	_, err = inst.Call(ctx, "spin")
	require.ErrorIs(t, err, ErrTimeout)
	require.Equal(t, 1.0, runs("proxy", "timeout"))

	_, err = rt.Load(ctx, testsupport.WAT(t, `(module (import "acl" "nope" (func)))`), Policy{}, LoadName("bad"))
	require.ErrorIs(t, err, ErrLoad)
	require.Equal(t, 1.0, runs("bad", "refused"))

	_, err = NewMetrics(nil)
	require.Error(t, err)
	reg := prometheus.NewRegistry()
	_, err = NewMetrics(reg)
	require.NoError(t, err)
	_, err = NewMetrics(reg)
	require.Error(t, err, "a second Metrics on one registry")
}

// TestMetricsNoAllocPerCall: metrics add no allocation to a host call
// once its function's series are resolved: 1000 calls allocate as much with
// metrics as without (whatever the engine itself allocates per call).
func TestMetricsNoAllocPerCall(t *testing.T) {
	ctx := context.Background()
	allocs := func(opts ...Option) float64 {
		rt := newRuntime(t, opts...)
		pl := load(t, rt, testsupport.WAT(t, testsupport.ProxyWAT(abi.Wide, 4, testsupport.MemcpyLoopWAT)), Policy{})
		inst, err := pl.Instantiate(ctx, Config{})
		require.NoError(t, err)
		defer inst.Close(ctx)
		call := func(name string, args ...uint64) {
			res, err := inst.Call(ctx, name, args...)
			require.NoError(t, err)
			require.Zero(t, res[0], "%s: %s", name, inst.Session().LastError())
		}
		call("aclrtSetDevice", 0)
		call("aclrtMalloc", testsupport.OutA, 64, 0)
		dst := le.Uint64(inst.inst.Memory()[testsupport.OutA:])
		loop := func() { call("memcpy_loop", dst, testsupport.Data, 64, 1, 1000) }
		loop() // resolves the series
		return testing.AllocsPerRun(10, loop)
	}
	without := allocs()
	with := allocs(WithMetrics(newMetrics(t)))
	// One allocation per call would add 1000; the slack (1%) absorbs what
	// a backend allocates irregularly (cann's purego calls).
	require.LessOrEqual(t, with, without*1.01+1, "1000 host calls allocate %v times with metrics, %v without", with, without)
}
