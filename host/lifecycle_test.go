package host_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Scratch addresses in guest memory (testsupport's), as this package's
// external tests and package sandbox's name them.
const (
	outA  = testsupport.OutA
	outB  = testsupport.OutB
	outC  = testsupport.OutC
	data  = testsupport.Data
	data2 = testsupport.Data2
)

var le = binary.LittleEndian

func TestRunCommand(t *testing.T) {
	rt := proxytest.Runtime(t)
	base := proxytest.FreeMem(t, rt)
	pl := proxytest.Load(t, rt, testsupport.WAT(t, fmt.Sprintf(testsupport.RoundtripWAT, 0)), host.Policy{})
	res, err := pl.Run(context.Background(), host.Config{})
	require.NoError(t, err)
	require.Equal(t, uint32(0), res.ExitCode)
	require.Equal(t, uint64(4096), res.Stats.Bytes["D2H"])
	require.Equal(t, base, proxytest.FreeMem(t, rt), "the session released its allocation b")
}

// TestRunNoStats: Config.NoStats leaves Result.Stats empty and changes
// nothing else: the run's answer, what it released, and the metrics,
// which count every call as without it; the next run without it has its
// own statistics, none of the first's. A run with NoStats counts nothing
// at all, not even the bytes of work its stream workers finish after the
// guest has exited.
func TestRunNoStats(t *testing.T) {
	ctx := context.Background()
	m, err := host.NewMetrics(prometheus.NewRegistry())
	require.NoError(t, err)
	rt := proxytest.Runtime(t, host.WithMetrics(m))
	base := proxytest.FreeMem(t, rt)
	pl, err := rt.Load(ctx, testsupport.WAT(t, fmt.Sprintf(testsupport.RoundtripWAT, 0)), host.Policy{}, host.LoadName("rt"))
	require.NoError(t, err)
	defer pl.Close(ctx)
	res, err := pl.Run(ctx, host.Config{NoStats: true})
	require.NoError(t, err)
	require.Zero(t, res.ExitCode)
	require.Equal(t, host.Stats{}, res.Stats)
	require.Equal(t, base, proxytest.FreeMem(t, rt), "the session released its allocation b")
	require.Equal(t, 3.0, testutil.ToFloat64(host.SandboxMetrics(m).Calls.WithLabelValues("rt", "aclrtMemcpy")), "metrics count without the statistics")
	res, err = pl.Run(ctx, host.Config{})
	require.NoError(t, err)
	require.Equal(t, uint64(3), res.Stats.Funcs["aclrtMemcpy"].Calls, "this run's copies alone")
	require.Equal(t, uint64(4096), res.Stats.Bytes["D2H"])

	queued, err := rt.Load(ctx, testsupport.WAT(t, fmt.Sprintf(testsupport.RoundtripWAT, 1)), host.Policy{}, host.LoadName("queued"))
	require.NoError(t, err)
	defer queued.Close(ctx)
	res, err = queued.Run(ctx, host.Config{NoStats: true})
	require.NoError(t, err)
	require.Equal(t, uint32(3), res.ExitCode, "exited with its copy queued")
	require.Equal(t, host.Stats{}, res.Stats)
	require.Equal(t, base, proxytest.FreeMem(t, rt), "the session released everything once its copy ran")
}

func TestExitWithQueuedWorkReleasesEverything(t *testing.T) {
	rt := proxytest.Runtime(t)
	base := proxytest.FreeMem(t, rt)
	pl := proxytest.Load(t, rt, testsupport.WAT(t, fmt.Sprintf(testsupport.RoundtripWAT, 1)), host.Policy{})
	res, err := pl.Run(context.Background(), host.Config{})
	require.NoError(t, err)
	require.Equal(t, uint32(3), res.ExitCode)
	require.Equal(t, base, proxytest.FreeMem(t, rt))
}

func TestTrapMidWorkReleasesEverything(t *testing.T) {
	rt := proxytest.Runtime(t)
	base := proxytest.FreeMem(t, rt)
	pl := proxytest.Load(t, rt, testsupport.Proxy(abi.Wide, 4), host.Policy{})
	inst, err := pl.Instantiate(context.Background(), host.Config{})
	require.NoError(t, err)
	h := &proxytest.Harness{T: t, RT: rt, Inst: inst}
	h.OK("aclrtSetDevice", 0)
	s := h.Stream()
	a := h.Malloc(1 << 20)
	h.OK("aclrtHostRegister", 0x10000, 1<<17, 0, outB)
	for i := 0; i < 32; i++ {
		h.OK("aclrtMemcpyAsync", a, 1<<17, 0x10000, 1<<17, 1, s)
	}
	_, err = inst.Call(context.Background(), "trap")
	require.ErrorIs(t, err, host.ErrTrap)
	require.Equal(t, base, proxytest.FreeMem(t, rt))
	_, err = inst.Call(context.Background(), "aclrtSetDevice", 0)
	require.Error(t, err, "a trapped instance is closed")
	require.NoError(t, inst.Close(context.Background()))
}

func TestTimeoutStopsSpinningGuest(t *testing.T) {
	rt := proxytest.Runtime(t)
	pl := proxytest.Load(t, rt, testsupport.Proxy(abi.Wide, 1), host.Policy{Timeout: 200 * time.Millisecond})
	inst, err := pl.Instantiate(context.Background(), host.Config{})
	require.NoError(t, err)
	_, err = inst.Call(context.Background(), "spin")
	require.ErrorIs(t, err, host.ErrTimeout)
	require.NoError(t, inst.Close(context.Background()))
}

func TestTimeoutInterruptsBlockingHostCall(t *testing.T) {
	rt := proxytest.Runtime(t)
	base := proxytest.FreeMem(t, rt)
	pl := proxytest.Load(t, rt, testsupport.Proxy(abi.Wide, 1), host.Policy{Timeout: 300 * time.Millisecond})
	inst, err := pl.Instantiate(context.Background(), host.Config{})
	require.NoError(t, err)
	h := &proxytest.Harness{T: t, RT: rt, Inst: inst}
	h.OK("aclrtSetDevice", 0)
	s, ev := h.Stream(), h.Waitable()
	h.Malloc(64)
	h.OK("aclrtStreamWaitEvent", s, ev) // for its next record, queued behind the wait
	h.OK("aclrtRecordEvent", ev, s)
	_, err = inst.Call(context.Background(), "aclrtSynchronizeStream", s)
	require.ErrorIs(t, err, host.ErrTimeout)
	require.Equal(t, base, proxytest.FreeMem(t, rt), "the wait was cancelled and everything released")
	require.NoError(t, inst.Close(context.Background()))
}

func TestLoadRefusal(t *testing.T) {
	rt := proxytest.Runtime(t)
	for _, tc := range []struct {
		name, wat string
		policy    host.Policy
		want      string
	}{
		{"unknown function", `(module (import "acl" "aclrtMallocHost" (func (param i32 i64) (result i32))))`, host.Policy{}, "acl.aclrtMallocHost is not a function of ABI v1"},
		{"wrong signature", `(module (import "acl" "aclrtMemcpy" (func (param i32 i32 i32 i32 i32) (result i32))))`, host.Policy{}, "expects (i64, i64, i64, i64, i32) -> i32"},
		{"denied", `(module (import "acl" "aclrtMemcpy" (func (param i64 i64 i64 i64 i32) (result i32))))`, host.Policy{Deny: []string{"aclrtMemcpy"}}, "acl.aclrtMemcpy is denied by the policy"},
		{"not allowed", `(module (import "acl" "aclrtFree" (func (param i64) (result i32))))`, host.Policy{Allow: []string{"aclrtMemcpy"}}, "acl.aclrtFree is denied"},
		{"other module", `(module (import "env" "abort" (func)))`, host.Policy{}, `module "env" is not provided`},
		{"memory too large", `(module (memory 100))`, host.Policy{MemoryPages: 10}, "memory needs 100 pages at start, the policy allows 10"},
		{"imported memory", `(module (import "env" "mem" (memory 1)))`, host.Policy{}, "import env.mem is a memory: the host provides only functions"},
		{"imported global", `(module (import "acl" "bogus" (global i32)))`, host.Policy{}, "import acl.bogus is a global"},
		{"imported table", `(module (import "acl" "aclrtMemcpy" (table 1 funcref)))`, host.Policy{}, "import acl.aclrtMemcpy is a table"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := rt.Load(context.Background(), testsupport.WAT(t, tc.wat), tc.policy)
			require.ErrorIs(t, err, host.ErrLoad)
			require.Contains(t, err.Error(), tc.want)
		})
	}
	_, err := rt.Load(context.Background(), []byte("not wasm"), host.Policy{})
	require.ErrorIs(t, err, host.ErrLoad)
	_, err = rt.Load(context.Background(), testsupport.WAT(t, `(module)`), host.Policy{Allow: []string{"nope"}})
	require.ErrorContains(t, err, `"nope" is not a function`)
}

func TestGuestMemoryLimit(t *testing.T) {
	rt := proxytest.Runtime(t)
	pl := proxytest.Load(t, rt, testsupport.Proxy(abi.Wide, 1), host.Policy{MemoryPages: 4})
	inst, err := pl.Instantiate(context.Background(), host.Config{})
	require.NoError(t, err)
	defer inst.Close(context.Background())
	res, err := inst.Call(context.Background(), "grow", 3)
	require.NoError(t, err)
	require.Equal(t, uint64(1), res[0])
	res, err = inst.Call(context.Background(), "grow", 1)
	require.NoError(t, err)
	require.Equal(t, uint64(0xffffffff), res[0], "growing past the policy fails")
}

func TestSessionsAreIsolated(t *testing.T) {
	rt := proxytest.Runtime(t)
	wasm := testsupport.Proxy(abi.Wide, 4)
	pl := proxytest.Load(t, rt, wasm, host.Policy{})
	var hs [2]*proxytest.Harness
	for i := range hs {
		inst, err := pl.Instantiate(context.Background(), host.Config{})
		require.NoError(t, err)
		t.Cleanup(func() { inst.Close(context.Background()) })
		hs[i] = &proxytest.Harness{T: t, RT: rt, Inst: inst}
		hs[i].OK("aclrtSetDevice", 0)
	}
	a := hs[0].Malloc(64)
	s := hs[0].Stream()
	hs[1].Malloc(64)
	hs[1].Code(acl.ErrRTParamInvalid, "aclrtMemcpy", a, 8, data, 8, 1)
	hs[1].Code(acl.ErrRTParamInvalid, "aclrtFree", a)
	hs[1].Code(acl.ErrRTInvalidHandle, "aclrtSynchronizeStream", s)
	hs[1].OK("aclrtGetMemInfo", 0, outB, outC)
	require.Equal(t, uint64(host.DefaultDeviceMemory-96), hs[1].U64(outB), "only its own allocation counts")
}

func TestConcurrentSessions(t *testing.T) {
	rt := proxytest.Runtime(t)
	base := proxytest.FreeMem(t, rt)
	pl := proxytest.Load(t, rt, testsupport.WAT(t, fmt.Sprintf(testsupport.RoundtripWAT, 0)), host.Policy{MemoryPages: 8})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out bytes.Buffer
			res, err := pl.Run(context.Background(), host.Config{Stdout: &out})
			if err == nil && res.ExitCode != 0 {
				err = fmt.Errorf("exit code %d", res.ExitCode)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Equal(t, base, proxytest.FreeMem(t, rt))
}

func TestRunCanceled(t *testing.T) {
	rt := proxytest.Runtime(t)
	pl := proxytest.Load(t, rt, testsupport.Proxy(abi.Wide, 1), host.Policy{})
	inst, err := pl.Instantiate(context.Background(), host.Config{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	_, err = inst.Call(ctx, "spin")
	require.True(t, errors.Is(err, host.ErrCanceled), "%v", err)
	require.NoError(t, inst.Close(context.Background()))
}

func TestGuestCannotFakeTimeoutOrCancel(t *testing.T) {
	rt := proxytest.Runtime(t)
	for _, code := range []uint32{0xefffffff, 0xffffffff} {
		wat := fmt.Sprintf(`(module (import "wasi_snapshot_preview1" "proc_exit" (func $e (param i32))) (memory (export "memory") 1) (func (export "_start") (call $e (i32.const %d))))`, int32(code))
		pl := proxytest.Load(t, rt, testsupport.WAT(t, wat), host.Policy{})
		res, err := pl.Run(context.Background(), host.Config{})
		require.NotErrorIs(t, err, host.ErrTimeout)
		require.NotErrorIs(t, err, host.ErrCanceled)
		if err == nil { // wasmtime's WASI traps on exit codes above 125 instead
			require.Equal(t, code, res.ExitCode)
		}
	}
}

func TestBadCallsLeaveTheInstanceUsable(t *testing.T) {
	rt := proxytest.Runtime(t)
	pl := proxytest.Load(t, rt, testsupport.Proxy(abi.Wide, 1), host.Policy{})
	_, err := pl.Instantiate(context.Background(), host.Config{Env: []string{"=v"}})
	require.ErrorContains(t, err, "not KEY=VALUE")
	require.NotErrorIs(t, err, host.ErrTrap)
	inst, err := pl.Instantiate(context.Background(), host.Config{})
	require.NoError(t, err)
	defer inst.Close(context.Background())
	_, err = inst.Call(context.Background(), "aclrtSetDevice")
	require.ErrorContains(t, err, "it takes 1, got 0")
	_, err = inst.Call(context.Background(), "nope")
	require.Error(t, err)
	res, err := inst.Call(context.Background(), "aclrtSetDevice", 0)
	require.NoError(t, err)
	require.Equal(t, []uint64{0}, res)
}

// TestCloseWithCrossDeviceWork: a stream of device 1 queues work on device
// 0's memory behind a wait for a record nobody makes; closing the session must not
// hang freeing device 0's memory, and the accounting comes back.
func TestCloseWithCrossDeviceWork(t *testing.T) {
	rt := proxytest.Runtime(t)
	base := proxytest.FreeMem(t, rt)
	pl := proxytest.Load(t, rt, testsupport.Proxy(abi.Wide, 4), host.Policy{Timeout: time.Second})
	inst, err := pl.Instantiate(context.Background(), host.Config{})
	require.NoError(t, err)
	h := &proxytest.Harness{T: t, RT: rt, Inst: inst}
	h.OK("aclrtSetDevice", 0)
	a0 := h.Malloc(4096)
	h.OK("aclrtHostRegister", data, 4096, 0, outB)
	h.OK("aclrtSetDevice", 1)
	s1, e1 := h.Stream(), h.Waitable()
	h.OK("aclrtStreamWaitEvent", s1, e1) // for a record that never comes
	h.OK("aclrtMemcpyAsync", a0, 4096, data, 4096, 1, s1)
	done := make(chan error, 1)
	go func() { done <- inst.Close(context.Background()) }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second): // a hang, not a measurement
		t.Fatal("Close hangs")
	}
	require.Equal(t, base, proxytest.FreeMem(t, rt))
}

// TestPeerAccessIsPerSession: one session enabling peer access does not
// let another copy between the devices.
func TestPeerAccessIsPerSession(t *testing.T) {
	rt := proxytest.Runtime(t)
	pl := proxytest.Load(t, rt, testsupport.Proxy(abi.Wide, 4), host.Policy{})
	var hs [2]*proxytest.Harness
	bufs := [2][2]uint64{}
	for i := range hs {
		inst, err := pl.Instantiate(context.Background(), host.Config{})
		require.NoError(t, err)
		t.Cleanup(func() { inst.Close(context.Background()) })
		hs[i] = &proxytest.Harness{T: t, RT: rt, Inst: inst}
		for dev := range 2 {
			hs[i].OK("aclrtSetDevice", uint64(dev))
			bufs[i][dev] = hs[i].Malloc(64)
		}
	}
	a, b := hs[0], hs[1]
	a.OK("aclrtDeviceEnablePeerAccess", 0, 0) // from device 1 to device 0
	a.OK("aclrtMemcpy", bufs[0][0], 64, bufs[0][1], 64, 3)
	msg := b.Code(acl.ErrRTParamInvalid, "aclrtMemcpy", bufs[1][0], 64, bufs[1][1], 64, 3)
	require.Contains(t, msg, "enable peer access")
}

func TestCacheDir(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, host.WithEngine(testsupport.Engine()), host.WithCacheDir(dir))
	if testsupport.Engine() == "wasmtime" {
		require.ErrorContains(t, err, "needs the wazero engine")
		return
	}
	require.NoError(t, err)
	pl, err := rt.Load(ctx, testsupport.WAT(t, fmt.Sprintf(testsupport.RoundtripWAT, 0)), host.Policy{})
	require.NoError(t, err)
	require.NoError(t, pl.Close(ctx))
	require.NoError(t, rt.Close(ctx))
	var files int
	require.NoError(t, filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files++
		}
		return err
	}))
	require.Positive(t, files, "the compiled module is in the cache directory")
	// A second runtime loads it from there and runs it.
	rt, err = host.NewRuntime(ctx, host.WithEngine(testsupport.Engine()), host.WithCacheDir(dir))
	require.NoError(t, err)
	defer rt.Close(ctx)
	pl, err = rt.Load(ctx, testsupport.WAT(t, fmt.Sprintf(testsupport.RoundtripWAT, 0)), host.Policy{})
	require.NoError(t, err)
	defer pl.Close(ctx)
	res, err := pl.Run(ctx, host.Config{})
	require.NoError(t, err)
	require.Zero(t, res.ExitCode)
}
