package sandbox_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// launchPairWAT launches kernels A and B in turn, n times each, then
// synchronizes the device.
const launchPairWAT = `(module
  (import "acl" "aclrtSetDevice" (func $setDevice (param i32) (result i32)))
  (import "acl" "aclrtSynchronizeDevice" (func $sync (result i32)))
  (import "env" "A" (func $A (param i32 i32)))
  (import "env" "B" (func $B (param i32 i32)))
  (memory (export "memory") 1)
  (func (export "run") (param $n i32) (result i32) (local $r i32)
    (local.set $r (call $setDevice (i32.const 0)))
    (if (local.get $r) (then (return (local.get $r))))
    (loop $l
      (call $A (i32.const 1) (i32.const 0))
      (call $B (i32.const 2) (i32.const 0))
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br_if $l (local.get $n)))
    (call $sync)))
`

// launchPair runs launchPairWAT with n launches of each kernel, both
// quick and doing nothing but count their blocks, under metrics m (nil:
// none), and returns the session's statistics and the blocks run.
func launchPair(t *testing.T, n int, m *host.Metrics) (host.Stats, int64) {
	t.Helper()
	ctx := context.Background()
	var blocks atomic.Int64
	count := func(context.Context, *host.KernelBlock) error { blocks.Add(1); return nil }
	// The simulator's: it runs kernels implemented in Go.
	opts := append([]host.Option{}, host.WithEngine(testEngine),
		host.WithKernels(host.Kernel{Name: "A", Quick: true, Run: count}, host.Kernel{Name: "B", Quick: true, Run: count}))
	if m != nil {
		opts = append(opts, host.WithMetrics(m))
	}
	rt, err := host.NewRuntime(ctx, opts...)
	require.NoError(t, err)
	defer rt.Close(ctx)
	pl, err := rt.Load(ctx, testsupport.WAT(t, launchPairWAT), host.Policy{Kernels: []string{"A", "B"}, Timeout: host.NoTimeout})
	require.NoError(t, err)
	inst, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(t, err)
	defer inst.Close(ctx)
	res, err := inst.Call(ctx, "run", uint64(n))
	require.NoError(t, err)
	require.Zero(t, res[0], inst.Session().LastError())
	return inst.Session().Stats(), blocks.Load()
}

// TestLaunchCountsPerKernel: launches of two kernels in turn each count
// under their own kernel, every one of them, past the launches whose
// time is sampled too, and their time is counted.
func TestLaunchCountsPerKernel(t *testing.T) {
	const n = 300
	st, blocks := launchPair(t, n, nil)
	require.Equal(t, int64(3*n), blocks)
	for _, k := range []string{"A", "B"} {
		fs := st.Funcs[k]
		require.Equal(t, uint64(n), fs.Calls, k)
		require.Equal(t, uint64(n), fs.Launches, k)
		require.Zero(t, fs.LaunchFailures, k)
		require.Positive(t, fs.Compute, k)
	}
}

// TestLaunchTimedUnderMetrics: with metrics, every launch is timed and
// observed: the compute series counts each.
func TestLaunchTimedUnderMetrics(t *testing.T) {
	const n = 300
	reg := prometheus.NewRegistry()
	m, err := host.NewMetrics(reg)
	require.NoError(t, err)
	st, _ := launchPair(t, n, m)
	require.Equal(t, uint64(n), st.Funcs["A"].Launches)
	mfs, err := reg.Gather()
	require.NoError(t, err)
	counts := map[string]uint64{}
	for _, mf := range mfs {
		if mf.GetName() != "aclwasm_compute_duration_seconds" {
			continue
		}
		for _, s := range mf.GetMetric() {
			for _, l := range s.GetLabel() {
				if l.GetName() == "function" {
					counts[l.GetValue()] += s.GetHistogram().GetSampleCount()
				}
			}
		}
	}
	require.Equal(t, map[string]uint64{"A": n, "B": n}, counts)
}
