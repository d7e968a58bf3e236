package sandbox_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
	"github.com/aclwasm/aclwasm/internal/testsupport"
	"github.com/aclwasm/aclwasm/internal/testsupport/kerneltest"
)

// kernelHarness is a harness over the guest of the launchers ls
// (kerneltest.GuestWAT), with the test kernels registered and p granting
// them; out receives the plugin's stdout.
func kernelHarness(t *testing.T, prof abi.Profile, p host.Policy, out *testsupport.Logs, ls []kerneltest.Launcher, opts ...host.Option) *harness {
	t.Helper()
	h := &harness{Harness: &proxytest.Harness{T: t, Prof: prof, RT: kerneltest.Runtime(t, opts...)}}
	wasm := testsupport.WAT(t, kerneltest.GuestWAT(prof, ls...))
	ctx := context.Background()
	pl, err := h.RT.Load(ctx, wasm, p)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pl.Close(ctx)) })
	cfg := host.Config{}
	if out != nil {
		cfg.Stdout = out
	}
	inst, err := pl.Instantiate(ctx, cfg)
	require.NoError(t, err)
	h.Inst = inst
	t.Cleanup(func() { require.NoError(t, inst.Close(ctx)) })
	return h
}

// kernelReady is the set-up most kernel tests start from: a harness over
// the wide launchers of every test kernel, all granted (out receiving the
// plugin's stdout), device 0 current. Where the backend runs no kernels
// it checks that a launch says so and returns nil: the test ends.
func kernelReady(t *testing.T, out *testsupport.Logs) *harness {
	t.Helper()
	h := kernelHarness(t, abi.Wide, kerneltest.Granted, out, kerneltest.Wide)
	h.OK("aclrtSetDevice", 0)
	if !h.runsKernels("Panic", 2) {
		return nil
	}
	return h
}

// withKernel is kernelReady with one more kernel, k, granted and its
// wide launcher (blockDim and a stream) in the guest; nil where the
// backend runs no kernels or refuses k natively: the test ends.
func withKernel(t *testing.T, k host.Kernel) *harness {
	t.Helper()
	p := kerneltest.Granted
	p.Kernels = append(p.Kernels[:len(p.Kernels):len(p.Kernels)], k.Name)
	h := kernelHarness(t, abi.Wide, p, nil, append(kerneltest.Wide, kerneltest.Launcher{Sym: k.Name, Params: "i32 i32"}), host.WithKernels(k))
	h.OK("aclrtSetDevice", 0)
	if !h.runsKernels("Panic", 2) || h.refusedNatively(k.Name, 2) {
		return nil
	}
	return h
}

// kcall calls a launcher through the guest; a status launcher's result is
// returned, a void one's is 0.
func (h *harness) kcall(sym string, args ...uint64) int32 {
	h.T.Helper()
	res, err := h.Inst.Call(context.Background(), "k_"+sym, args...)
	require.NoError(h.T, err, sym)
	if len(res) == 0 {
		return 0
	}
	return int32(uint32(res[0]))
}

func TestKernelLaunch(t *testing.T) {
	h := kernelReady(t, nil)
	if h == nil {
		return
	}
	x := h.Malloc(64)
	h.OK("aclrtMemset", x, 64, 0, 64)
	s := h.Stream()
	for range 3 {
		h.kcall("Inc", 4, s, x)
	}
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtMemcpy", outA, 16, x, 16, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, []byte{3, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0}, h.Mem()[outA:outA+16])
	require.Equal(t, uint32(0), h.U32(outA+16), "blockDim 4 touches 4 elements")

	// Fill then Copy in stream order, with statuses.
	src, dst := h.Malloc(256), h.Malloc(256)
	require.Zero(t, h.kcall("Fill", 1, s, src, 256, 0xab))
	require.Zero(t, h.kcall("Copy", 2, s, src, dst, 256))
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtMemcpy", outA, 256, dst, 256, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, bytes.Repeat([]byte{0xab}, 256), h.Mem()[outA:outA+256])
}

func TestKernelExtents(t *testing.T) {
	h := kernelReady(t, nil)
	if h == nil {
		return
	}
	a := h.Malloc(100)
	s := h.Stream()
	// Exactly at the allocation's end, then one byte past it.
	require.Zero(t, h.kcall("Fill", 1, s, a, 100, 1))
	require.Zero(t, h.kcall("Fill", 1, s, a+99, 1, 2))
	require.Equal(t, int32(acl.ErrRTParamInvalid), h.kcall("Fill", 1, s, a, 101, 3))
	require.Contains(t, h.RecentMsg(), "crosses the end of the allocation")
	require.Equal(t, int32(acl.ErrRTParamInvalid), h.kcall("Fill", 1, s, a+1, 100, 3))
	// Guest memory, a freed and a forged buffer.
	require.Equal(t, int32(acl.ErrRTParamInvalid), h.kcall("Fill", 1, s, outA, 4, 3))
	require.Contains(t, h.RecentMsg(), "is guest memory")
	b := h.Malloc(16)
	h.OK("aclrtFree", b)
	require.Equal(t, int32(acl.ErrRTParamInvalid), h.kcall("Fill", 1, s, b, 4, 3))
	require.Equal(t, int32(acl.ErrRTParamInvalid), h.kcall("Fill", 1, s, 1<<60, 4, 3))
	require.Equal(t, int32(acl.ErrInvalidParam), h.kcall("Fill", 1, s, 0, 4, 3))
	// Extent 0: nothing to validate, nothing touched.
	require.Zero(t, h.kcall("Fill", 1, s, 0, 0, 3))
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtMemcpy", outA, 100, a, 100, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, append(bytes.Repeat([]byte{1}, 99), 2), h.Mem()[outA:outA+100], "the refused launches touched nothing")
}

func TestKernelBlockDim(t *testing.T) {
	h := kernelReady(t, nil)
	if h == nil {
		return
	}
	a := h.Malloc(4096)
	s := h.Stream()
	require.Equal(t, int32(acl.ErrRTParamInvalid), h.kcall("Fill", 0, s, a, 4, 1))
	require.Contains(t, h.RecentMsg(), "blockDim 0 is out of range")
	h.OK("aclrtGetDeviceResLimit", 0, uint64(acl.DevResCubeCore), outB)
	limit := uint64(h.U32(outB))
	require.NotZero(t, limit)
	require.Zero(t, h.kcall("Fill", limit, s, a, 4, 1))
	require.Equal(t, int32(acl.ErrRTParamInvalid), h.kcall("Fill", limit+1, s, a, 4, 1))
	// A session's lower limit binds it.
	h.OK("aclrtSetDeviceResLimit", 0, uint64(acl.DevResCubeCore), 2)
	require.Equal(t, int32(acl.ErrRTParamInvalid), h.kcall("Fill", 3, s, a, 4, 1))
	require.Zero(t, h.kcall("Fill", 2, s, a, 4, 1))
	h.OK("aclrtSynchronizeStream", s)
}

func TestKernelReadOnlyLease(t *testing.T) {
	h := kernelReady(t, nil)
	if h == nil {
		return
	}
	ptr, err := h.RT.Backend().Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.RT.Backend().Free(context.Background(), ptr) })
	l, err := h.Inst.Lend(ptr, 64, host.LendOptions{ReadOnly: true})
	require.NoError(t, err)
	dst := h.Malloc(64)
	s := h.Stream()
	require.Equal(t, int32(acl.ErrRTParamInvalid), h.kcall("Fill", 1, s, l.Addr(), 64, 1), "a read-only lease is never written")
	require.Zero(t, h.kcall("Copy", 1, s, l.Addr(), dst, 64), "but it may be read")
	h.OK("aclrtSynchronizeStream", s)
	require.NoError(t, l.Revoke(context.Background()))
}

func TestKernelFaults(t *testing.T) {
	for _, k := range []string{"Panic", "Fault"} {
		t.Run(k, func(t *testing.T) {
			h := kernelReady(t, nil)
			if h == nil {
				return
			}
			s := h.Stream()
			require.Zero(t, h.kcall(k, 2, s))
			h.Code(acl.ErrRTAicoreException, "aclrtSynchronizeStream", s)
			msg := h.RecentMsg()
			if h.binaries() { // natively the runtime reports only the code
				require.Contains(t, msg, "a kernel failed on the device (ACL_ERROR_RT_AICORE_EXCEPTION): one launched on the stream since its last synchronize ("+k+")")
				h.OK("aclrtSynchronizeStream", s)
				h.kcall("Inc", 1, s, h.Malloc(4))
				h.OK("aclrtSynchronizeStream", s)
				return
			}
			require.Contains(t, msg, "kernel "+k+" failed on the device: block 0 of 2")
		})
	}
}

func TestKernelVoidLaunchErrorAtSync(t *testing.T) {
	h := kernelReady(t, nil)
	if h == nil {
		return
	}
	s := h.Stream()
	h.kcall("Inc", 1, s, 1<<60) // a void launcher: its error waits for the synchronize
	require.Contains(t, h.RecentMsg(), "Inc: x")
	h.Code(acl.ErrRTParamInvalid, "aclrtSynchronizeStream", s)
	require.Contains(t, h.RecentMsg(), "is not in guest memory or a live device allocation")
	h.OK("aclrtSynchronizeStream", s)
}

func TestKernelPrint(t *testing.T) {
	var out testsupport.Logs
	h := kernelReady(t, &out)
	if h == nil || h.refusedNatively("Print", 2) {
		return
	}
	s := h.Stream()
	h.kcall("Print", 3, s)
	h.OK("aclrtSynchronizeStream", s)
	require.Equal(t, "block 0 of 3\nblock 1 of 3\nblock 2 of 3\n", out.String())
}

func TestKernelRevokedBeforeRun(t *testing.T) {
	gate := make(chan struct{})
	g := host.Kernel{Name: "Gate", Run: func(ctx context.Context, _ *host.KernelBlock) error {
		select {
		case <-gate:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}}
	h := withKernel(t, g)
	if h == nil {
		return
	}
	ptr, err := h.RT.Backend().Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	l, err := h.Inst.Lend(ptr, 64, host.LendOptions{})
	require.NoError(t, err)
	s := h.Stream()
	h.kcall("Gate", 1, s)
	h.kcall("Inc", 1, s, l.Addr()) // valid now: queued behind the gate
	done, cancel := context.WithCancel(context.Background())
	cancel() // Revoke takes the lease out of the table, then gives up waiting
	require.Error(t, l.Revoke(done))
	close(gate)
	h.Code(acl.ErrRTParamInvalid, "aclrtSynchronizeStream", s)
	require.Contains(t, h.RecentMsg(), "was freed before the kernel ran")
	var b [4]byte
	require.NoError(t, h.RT.Backend().Memcpy(context.Background(), acl.Host(b[:], 0), acl.Device(ptr), 4))
	require.Equal(t, [4]byte{}, b, "the launch touched nothing")
	require.NoError(t, h.RT.Backend().Free(context.Background(), ptr))
}

func TestKernelStreamOrder(t *testing.T) {
	h := kernelReady(t, nil)
	if h == nil {
		return
	}
	a, b, c := h.Malloc(64), h.Malloc(64), h.Malloc(64)
	s1, s2 := h.Stream(), h.Stream()
	ev := h.Event()
	// s1: fill a, copy a to b; s2 waits for it, then copies b to c by kernel.
	require.Zero(t, h.kcall("Fill", 1, s1, a, 64, 7))
	h.OK("aclrtMemcpyAsync", b, 64, a, 64, uint64(acl.MemcpyDeviceToDevice), s1)
	h.OK("aclrtRecordEvent", ev, s1)
	h.OK("aclrtStreamWaitEvent", s2, ev)
	require.Zero(t, h.kcall("Copy", 1, s2, b, c, 64))
	h.OK("aclrtMemcpyAsync", outA, 64, c, 64, uint64(acl.MemcpyDeviceToHost), s2)
	h.OK("aclrtSynchronizeStream", s2)
	require.Equal(t, bytes.Repeat([]byte{7}, 64), h.Mem()[outA:outA+64])
}

// TestKernelACL32: an acl32 launcher launches with its i32 arguments,
// whose upper halves the engine's stack leaves undefined: called as the
// engine calls it (Invoke, the path a plain session takes) with garbage
// above each, the buffer's address is still the buffer.
func TestKernelACL32(t *testing.T) {
	h := kernelHarness(t, abi.Native32, kerneltest.Granted, nil, []kerneltest.Launcher{{Sym: "_Z3IncjPvPj", Params: "i32 i32 i32"}})
	h.OK("aclrtSetDevice", 0)
	if !h.runsKernels("_Z3IncjPvPj", 3) {
		return
	}
	x := h.Malloc(16)
	require.Less(t, x, uint64(1)<<32)
	h.OK("aclrtMemset", x, 16, 0, 16)
	counts := func() []uint32 {
		h.OK("aclrtSynchronizeDevice")
		h.OK("aclrtMemcpy", outA, 16, x, 16, uint64(acl.MemcpyDeviceToHost))
		return []uint32{h.U32(outA), h.U32(outA + 4), h.U32(outA + 8), h.U32(outA + 12)}
	}
	h.kcall("_Z3IncjPvPj", 2, 0, x) // the default stream
	require.Equal(t, []uint32{1, 1, 0, 0}, counts())

	s, sh, mem := sandbox.Peek(h.Inst)
	name := sandbox.KernelFuncName("Inc", abi.Native32, true) // _Z3IncjPvPj is Inc's mangled name
	fn := slices.IndexFunc(sh.HostFuncs(), func(f *sandbox.HostFunc) bool { return f.Name == name })
	require.GreaterOrEqual(t, fn, 0, name)
	const garbage = 0xdead << 32
	stack := []uint64{2 | garbage, 0 | garbage, x | garbage}
	s.Invoker().Invoke(context.Background(), sandbox.HostFuncBase+fn, mem, stack)
	require.Zero(t, stack[0], h.RecentMsg())
	require.Equal(t, []uint32{2, 2, 0, 0}, counts())
}

func TestKernelForceCancel(t *testing.T) {
	h := kernelReady(t, nil)
	if h == nil {
		return
	}
	s := h.Stream()
	h.kcall("Spin", 1, s) // runs until its stream's work is cancelled
	h.kcall("Spin", 1, s)
	h.OK("aclrtDestroyStreamForce", s)
	h.OK("aclrtSynchronizeDevice")
}

// TestKernelForceCancelPolled: a kernel that asks its context's Err, never
// its Done, is stopped by its stream's cancellation as one that waits on
// Done is (TestKernelForceCancel): on the stream's worker, Err answers the
// stream's work too, which only a launch run in its call may skip.
func TestKernelForceCancelPolled(t *testing.T) {
	started := make(chan struct{}, 1)
	poll := host.Kernel{Name: "Poll", Run: func(ctx context.Context, _ *host.KernelBlock) error {
		select {
		case started <- struct{}{}:
		default:
		}
		for end := time.Now().Add(30 * time.Second); ctx.Err() == nil; runtime.Gosched() {
			if time.Now().After(end) {
				return errors.New("never cancelled")
			}
		}
		return ctx.Err()
	}}
	h := withKernel(t, poll)
	if h == nil {
		return
	}
	s := h.Stream()
	h.kcall("Poll", 1, s)
	<-started
	h.OK("aclrtDestroyStreamForce", s)
	h.OK("aclrtSynchronizeDevice")
}

func TestKernelTimeout(t *testing.T) {
	h := kernelHarness(t, abi.Wide, host.Policy{Kernels: []string{"Spin"}, Timeout: 300 * time.Millisecond}, nil, []kerneltest.Launcher{{Sym: "Spin", Params: "i32 i32"}})
	h.OK("aclrtSetDevice", 0)
	if !h.runsKernels("Spin", 2) {
		return
	}
	s := h.Stream()
	h.kcall("Spin", 1, s)
	// Each call here is a run of its own, with its own time limit. The
	// kernel stops at the limit of the run that launched it (507014 at the
	// synchronize), which comes first unless the synchronize's own run
	// ends sooner (then ErrTimeout): either way nothing hangs, and the
	// session's end finds the kernel stopped (the cleanup's Close would
	// hang otherwise).
	res, err := h.Inst.Call(context.Background(), "aclrtSynchronizeStream", s)
	if err != nil {
		require.ErrorIs(t, err, host.ErrTimeout)
		return
	}
	require.Equal(t, uint64(acl.ErrRTAicoreTimeout), res[0], h.Inst.Session().LastError())
}

// TestKernelStoppedByRunDeadline checks that a launch is bounded by the
// deadline of the run that queued it, not only by the end of the session:
// the launching call's deadline passes while the session lives on, and a
// later synchronize (with no deadline of its own but a watchdog) returns
// because the kernel was stopped, with the launch's failure.
func TestKernelStoppedByRunDeadline(t *testing.T) {
	h := kernelHarness(t, abi.Wide, host.Policy{Kernels: []string{"Spin"}}, nil, []kerneltest.Launcher{{Sym: "Spin", Params: "i32 i32"}})
	h.OK("aclrtSetDevice", 0)
	if !h.runsKernels("Spin", 2) {
		return
	}
	s := h.Stream()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := h.Inst.Call(ctx, "k_Spin", 1, s)
	require.NoError(t, err)
	watchdog, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	res, err := h.Inst.Call(watchdog, "aclrtSynchronizeStream", s)
	require.NoError(t, err, "the kernel outlived the deadline of the run that launched it")
	require.Equal(t, uint64(acl.ErrRTAicoreTimeout), res[0], "a kernel stopped by its deadline fails its stream")
	if h.binaries() { // the device's timeout (the run's time left and deviceGrace) stopped it
		require.Contains(t, h.Inst.Session().LastError(), "a kernel failed on the device (ACL_ERROR_RT_AICORE_TIMEOUT): one launched on the stream since its last synchronize (Spin)")
		return
	}
	require.Contains(t, h.Inst.Session().LastError(), "kernel Spin was stopped at the run's time limit")
}

func TestKernelCost(t *testing.T) {
	b := sim.New(sim.WithTiming())
	t.Cleanup(func() { b.Close() })
	h := kernelHarness(t, abi.Wide, kerneltest.Granted, nil, []kerneltest.Launcher{{Sym: "Slow", Params: "i32 i32 i64"}}, host.WithBackend(b))
	h.OK("aclrtSetDevice", 0)
	x := h.Malloc(64)
	s := h.Stream()
	start, end := h.Event(), h.Event()
	h.OK("aclrtRecordEvent", start, s)
	h.kcall("Slow", 3, s, x)
	h.OK("aclrtRecordEvent", end, s)
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtEventElapsedTime", outA, start, end)
	ms := math.Float32frombits(h.U32(outA))
	require.GreaterOrEqual(t, ms, float32(3000), "the declared cost: a second a block")
	require.Less(t, ms, float32(3001))
}

// runsKernels reports whether the harness's backend runs kernels: Go
// compute, or kernel binaries (the native backend). On one that runs
// neither it checks instead that a launch says so with 207000.
func (h *harness) runsKernels(sym string, nargs int) bool {
	h.T.Helper()
	if h.RT.Backend().Traits().Computer != nil {
		return true
	}
	if h.binaries() {
		return true
	}
	s := h.Stream()
	h.kcall(sym, append([]uint64{1, s}, make([]uint64, nargs-2)...)...)
	h.Code(acl.ErrRTFeatureNotSupport, "aclrtSynchronizeStream", s)
	require.Contains(h.T, h.RecentMsg(), "this backend runs no registered kernels")
	return false
}

// binaries reports whether the harness's backend runs kernel binaries
// (the native backend), not the kernels' Go implementations.
func (h *harness) binaries() bool {
	ok := h.RT.Backend().Traits().KernelRunner != nil
	return ok
}

// refusedNatively checks, on the native backend, that a launch of sym (a
// kernel without a binary) is refused with 207000, and reports whether it
// was: the test's Go-only part then ends.
func (h *harness) refusedNatively(sym string, nargs int) bool {
	h.T.Helper()
	if !h.binaries() {
		return false
	}
	s := h.Stream()
	h.kcall(sym, append([]uint64{1, s}, make([]uint64, nargs-2)...)...)
	h.Code(acl.ErrRTFeatureNotSupport, "aclrtSynchronizeStream", s)
	require.Contains(h.T, h.RecentMsg(), "kernel "+sym+" has no native binary (host.Kernel.Binary)")
	return true
}

// TestKernelAccounting: a kernel's launches count in the statistics and
// the metrics by its name when they have executed (on a backend that runs
// kernel binaries, when queued: the runtime fails and times streams), and
// the trace names it with its arguments, buffers as addresses.
func TestKernelAccounting(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := host.NewMetrics(reg)
	require.NoError(t, err)
	var mu sync.Mutex
	var recs []string
	h := kernelHarness(t, abi.Wide, kerneltest.Granted, nil, kerneltest.Wide, host.WithMetrics(m), host.WithTrace(func(r host.CallRecord) {
		mu.Lock()
		recs = append(recs, r.String())
		mu.Unlock()
	}))
	h.OK("aclrtSetDevice", 0)
	a := h.Malloc(256)
	s := h.Stream()
	require.Zero(t, h.kcall("Fill", 2, s, a, 100, 7))
	require.Zero(t, h.kcall("Fill", 1, s, a, 10, 8))
	h.kcall("Fault", 3, s)
	h.Code(acl.ErrRTAicoreException, "aclrtSynchronizeStream", s)
	mu.Lock()
	require.Contains(t, recs, fmt.Sprintf("Fill(blockDim=2, stream=%d, dst=%#x, n=100, v=7) = 0", s, a))
	mu.Unlock()
	st := h.Inst.Session().Stats().Funcs
	require.Equal(t, uint64(2), st["Fill"].Calls)
	require.Equal(t, uint64(2), st["Fill"].Launches)
	require.Zero(t, st["Fill"].LaunchFailures)
	require.Equal(t, uint64(1), st["Fault"].Launches)
	if h.binaries() {
		require.Zero(t, st["Fault"].LaunchFailures, "natively a fault fails the stream, not a launch")
		require.Empty(t, series(t, reg, "aclwasm_compute_duration_seconds"), "natively launches are not timed")
		return
	}
	require.Equal(t, uint64(1), st["Fault"].LaunchFailures)
	got := series(t, reg, "aclwasm_compute_duration_seconds")
	require.Len(t, got, 2, "one series per kernel and outcome")
	require.Contains(t, got, "[function=Fill outcome=ok plugin=]")
	require.Contains(t, got, "[function=Fault outcome=failed plugin=]")
}

// nativeOnlyKernels declare only a native binary (the stand-in's Inc and
// Fill, under names of their own), as a kernels file does: no Run.
func nativeOnlyKernels() []host.Kernel {
	return []host.Kernel{
		{Name: "NInc", Params: []host.KernelParam{host.Buffer("x", acl.DTUint32, host.ReadWrite, "blockDim")}, Binary: kerneltest.StandinBinary, Entry: "Inc"},
		{Name: "NFill", Params: []host.KernelParam{
			host.Buffer("dst", acl.DTUint8, host.Write, "n"),
			host.Scalar("n", acl.DTUint32),
			host.Scalar("v", acl.DTUint8),
		}, Binary: kerneltest.StandinBinary, Entry: "Fill"},
	}
}

// TestKernelNativeOnly: a kernel with only a native binary binds to its
// launchers and is found by the kernel API on every backend; the native
// backend runs it (by its Entry), the simulator refuses each launch with
// 207000 and a message naming the backend, touching nothing.
func TestKernelNativeOnly(t *testing.T) {
	ls := []kerneltest.Launcher{{Sym: "NInc", Params: "i32 i32 i64"}, {Sym: "NFill", Params: "i32 i32 i64 i32 i32", Status: true}}
	h := kernelHarness(t, abi.Wide, host.Policy{Kernels: []string{"NInc", "NFill"}}, nil, ls, host.WithKernels(nativeOnlyKernels()...))
	h.OK("aclrtSetDevice", 0)
	x, a := h.Malloc(16), h.Malloc(16)
	h.OK("aclrtMemset", x, 16, 0, 16)
	h.OK("aclrtMemset", a, 16, 0, 16)
	s := h.Stream()
	// The kernel API: the binary holds them, and a function is found.
	h.PutStr(kBinName, filepath.Base(kerneltest.StandinBinary))
	h.PutStr(kFnName, "NInc")
	bin := h.handleOut("aclrtBinaryLoadFromFile", kBinName, 0, outA)
	fn := h.handleOut("aclrtBinaryGetFunction", bin, kFnName, outA)
	args := h.handleOut("aclrtKernelArgsInit", fn, outA)
	require.Zero(t, h.appendArg(args, x, 8))
	h.OK("aclrtKernelArgsFinalize", args)

	if h.binaries() {
		h.kcall("NInc", 2, s, x)
		require.Zero(t, h.kcall("NFill", 1, s, a, 3, 7))
		require.Zero(t, h.rc("aclrtLaunchKernelWithConfig", fn, 1, s, 0, args, 0))
		h.OK("aclrtSynchronizeStream", s)
		h.OK("aclrtMemcpy", outB, 8, x, 8, uint64(acl.MemcpyDeviceToHost))
		require.Equal(t, []byte{2, 0, 0, 0, 1, 0, 0, 0}, h.Mem()[outB:outB+8])
		h.OK("aclrtMemcpy", outB, 4, a, 4, uint64(acl.MemcpyDeviceToHost))
		require.Equal(t, []byte{7, 7, 7, 0}, h.Mem()[outB:outB+4])
		return
	}
	const msg = "has only a native binary (kernels.txt), no simulator implementation (host.Kernel.Run): the sim backend runs only kernels implemented in Go"
	require.Equal(t, int32(acl.ErrRTFeatureNotSupport), h.kcall("NFill", 1, s, a, 3, 7))
	require.Contains(t, h.RecentMsg(), "kernel NFill "+msg)
	require.Equal(t, int(acl.ErrRTFeatureNotSupport), int(h.rc("aclrtLaunchKernelWithConfig", fn, 1, s, 0, args, 0)))
	require.Contains(t, h.RecentMsg(), "kernel NInc "+msg)
	h.kcall("NInc", 2, s, x) // void: the stream fails at its synchronize
	h.Code(acl.ErrRTFeatureNotSupport, "aclrtSynchronizeStream", s)
	require.Contains(t, h.RecentMsg(), "kernel NInc "+msg)
	h.OK("aclrtMemcpy", outB, 16, x, 16, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, make([]byte, 16), h.Mem()[outB:outB+16], "nothing touched")
	h.OK("aclrtMemcpy", outB, 16, a, 16, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, make([]byte, 16), h.Mem()[outB:outB+16], "nothing touched")

	err := host.RunKernel(context.Background(), nativeOnlyKernels()[0], 1, make([]byte, 4))
	require.ErrorContains(t, err, "host: kernel NInc has no Run: RunKernel runs the simulator's implementation")
}

// TestKernelFileLaunch: a file's kernels, granted by its set, launch on
// the native backend (the stand-in's binary, copied beside the file and
// named relatively), and are refused on the simulator.
func TestKernelFileLaunch(t *testing.T) {
	dir := t.TempDir()
	bin, err := os.ReadFile(kerneltest.StandinBinary)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mine.o"), bin, 0o644))
	path := filepath.Join(dir, "mine.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`set: mine
kernels:
  - name: Bump
    binary: mine.o
    entry: Inc
    params:
      - {name: x, buffer: ACL_UINT32, access: read-write, extent: blockDim}
`), 0o644))
	kf, err := host.ReadKernelFile(path)
	require.NoError(t, err)
	h := kernelHarness(t, abi.Wide, host.Policy{Kernels: []string{"mine"}}, nil, []kerneltest.Launcher{{Sym: "Bump", Params: "i32 i32 i64", Status: true}}, host.WithKernelSet(kf.Set, kf.Kernels...))
	h.OK("aclrtSetDevice", 0)
	x := h.Malloc(16)
	h.OK("aclrtMemset", x, 16, 0, 16)
	s := h.Stream()
	if !h.binaries() {
		require.Equal(t, int32(acl.ErrRTFeatureNotSupport), h.kcall("Bump", 3, s, x))
		require.Contains(t, h.RecentMsg(), "kernel Bump has only a native binary (mine.o), no simulator implementation (host.Kernel.Run): the sim backend runs only kernels implemented in Go")
		return
	}
	require.Zero(t, h.kcall("Bump", 3, s, x))
	require.Zero(t, h.kcall("Bump", 2, s, x))
	h.OK("aclrtSynchronizeStream", s)
	h.OK("aclrtMemcpy", outB, 16, x, 16, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, []byte{2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}, h.Mem()[outB:outB+16])
}

// recheckPanicSim is the simulator whose launches' recheck
// (acl.Launch.Check, the sandbox's) panics while panics is above zero,
// and whose Compute panics while computes is: host bugs, not the
// kernel's.
type recheckPanicSim struct {
	*sim.Backend
	panics, computes atomic.Int32
}

func (b *recheckPanicSim) Traits() acl.Traits {
	t := b.Backend.Traits()
	t.Computer = b
	return t
}

func (b *recheckPanicSim) Compute(h acl.Stream, l *acl.Launch) error {
	if b.computes.Add(-1) >= 0 {
		panic("the backend's bug")
	}
	if b.panics.Add(-1) >= 0 {
		check := l.Check
		l.Check = func() error {
			l.Check = check // the launch record is reused
			panic("the recheck's bug")
		}
	}
	return b.Backend.Compute(h, l)
}

// TestKernelRecheckHostBug: a panic in the sandbox's recheck of a launch's
// buffers as it runs is a host bug, ACL_ERROR_INTERNAL_ERROR at the
// stream's synchronize, not a device fault of the kernel:
// for a quick launch run in its call on an idle stream (its check and the
// kernel's run under one guard) and for one the stream's worker runs; the
// kernel did not run, and the launches after it do.
func TestKernelRecheckHostBug(t *testing.T) {
	b := &recheckPanicSim{Backend: sim.New()}
	t.Cleanup(func() { b.Close() })
	q := host.Kernel{Name: "QInc", Quick: true, Params: []host.KernelParam{host.Buffer("x", acl.DTUint32, host.ReadWrite, "blockDim")},
		Run: func(_ context.Context, b *host.KernelBlock) error {
			b.Uint32s(0)[b.Index()]++
			return nil
		}}
	p := host.Policy{Kernels: []string{"Inc", "QInc"}}
	ls := []kerneltest.Launcher{{Sym: "Inc", Params: "i32 i32 i64"}, {Sym: "QInc", Params: "i32 i32 i64"}}
	h := kernelHarness(t, abi.Wide, p, nil, ls, host.WithKernels(q), host.WithBackend(b))
	h.OK("aclrtSetDevice", 0)
	x := h.Malloc(16)
	h.OK("aclrtMemset", x, 16, 0, 16)
	s := h.Stream()
	for _, k := range []string{"QInc", "Inc"} {
		b.panics.Store(1)
		h.kcall(k, 1, s, x)
		h.Code(acl.ErrInternal, "aclrtSynchronizeStream", s)
		require.Equal(t, "aclrtSynchronizeStream: the runtime failed (ACL_ERROR_INTERNAL_ERROR)", h.RecentMsg(), k) // the simulator's message is the host's (be)
		h.kcall(k, 2, s, x)
		h.OK("aclrtSynchronizeStream", s)
	}
	h.OK("aclrtMemcpy", outA, 8, x, 8, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, []uint32{2, 2}, []uint32{h.U32(outA), h.U32(outA + 4)}, "only the launches after the bug ran")
}

// TestKernelLaunchHostBug: a panic while a launcher's call queues its
// launch (here the backend's) fails the call with ACL_ERROR_INTERNAL_ERROR
// and a host bug's message, counted as the launcher's error: a status
// launcher returns the code, a void one leaves it to aclGetRecentErrMsg.
// The guest goes on, and the launches after it run. A plain session's
// launch takes the fast path, whose panic the engine recovers on wasmtime
// (engine.Recoverer); a traced session's takes invokeHost.
func TestKernelLaunchHostBug(t *testing.T) {
	for _, traced := range []bool{false, true} {
		t.Run(fmt.Sprintf("traced=%v", traced), func(t *testing.T) {
			b := &recheckPanicSim{Backend: sim.New()}
			t.Cleanup(func() { b.Close() })
			opts := []host.Option{host.WithBackend(b)}
			if traced {
				opts = append(opts, host.WithTrace(func(host.CallRecord) {}))
			}
			h := kernelHarness(t, abi.Wide, kerneltest.Granted, nil, kerneltest.Wide, opts...)
			h.OK("aclrtSetDevice", 0)
			x := h.Malloc(64)
			h.OK("aclrtMemset", x, 64, 0, 64)
			s := h.Stream()
			b.computes.Store(1)
			require.Equal(t, int32(acl.ErrInternal), h.kcall("Fill", 1, s, x, 64, 7))
			require.Equal(t, "Fill: host bug: the backend's bug", h.Inst.Session().LastError())
			b.computes.Store(1)
			h.kcall("Inc", 1, s, x)
			require.Equal(t, "Inc: host bug: the backend's bug", h.RecentMsg())
			require.Zero(t, h.kcall("Fill", 1, s, x, 64, 7))
			h.kcall("Inc", 2, s, x)
			h.OK("aclrtSynchronizeStream", s)
			h.OK("aclrtMemcpy", outA, 8, x, 8, uint64(acl.MemcpyDeviceToHost))
			require.Equal(t, []uint32{0x07070708, 0x07070708}, []uint32{h.U32(outA), h.U32(outA + 4)})
			st := h.Inst.Session().Stats().Funcs
			for _, k := range []string{"Fill", "Inc"} {
				require.Equal(t, uint64(2), st[k].Calls, k)
				require.Equal(t, map[acl.Error]uint64{acl.ErrInternal: 1}, st[k].Errors, k)
			}
		})
	}
}

// TestKernelBlockPanic: a block's panic fails its launch as a device
// fault naming the block, counted as the launch's failure; the blocks
// before it ran, those after it did not, and the stream and the kernel go
// on. For a quick launch, which the simulator runs in its call on an idle
// stream without a guard of its own (the launch recovers its panics,
// acl.Launch.Recovers), one the stream's worker runs, and a quick one
// with a buffer, which the simulator checks again as it runs.
func TestKernelBlockPanic(t *testing.T) {
	b := sim.New()
	t.Cleanup(func() { b.Close() })
	ran := map[string]*[3]atomic.Int32{}
	kernel := func(name string, quick bool, params ...host.KernelParam) host.Kernel {
		ran[name] = new([3]atomic.Int32)
		return host.Kernel{Name: name, Quick: quick, Params: params, Run: func(_ context.Context, b *host.KernelBlock) error {
			ran[name][b.Index()].Add(1)
			if b.BlockDim == 3 && b.Index() == 1 {
				panic("block bug")
			}
			return nil
		}}
	}
	ks := []host.Kernel{
		kernel("QPanic", true), kernel("WPanic", false),
		kernel("BPanic", true, host.Buffer("x", acl.DTUint32, host.ReadWrite, "blockDim")),
	}
	ls := []kerneltest.Launcher{{Sym: "QPanic", Params: "i32 i32"}, {Sym: "WPanic", Params: "i32 i32"}, {Sym: "BPanic", Params: "i32 i32 i64"}}
	h := kernelHarness(t, abi.Wide, host.Policy{Kernels: []string{"QPanic", "WPanic", "BPanic"}}, nil, ls, host.WithKernels(ks...), host.WithBackend(b))
	h.OK("aclrtSetDevice", 0)
	x := h.Malloc(16)
	s := h.Stream()
	for _, k := range []string{"QPanic", "WPanic", "BPanic"} {
		args := func(blockDim uint64) []uint64 {
			if k == "BPanic" {
				return []uint64{blockDim, s, x}
			}
			return []uint64{blockDim, s}
		}
		h.kcall(k, args(3)...)
		h.Code(acl.ErrRTAicoreException, "aclrtSynchronizeStream", s)
		require.Contains(t, h.RecentMsg(), "kernel "+k+" failed on the device: block 1 of 3 panicked: block bug", k)
		h.kcall(k, args(2)...)
		h.OK("aclrtSynchronizeStream", s)
		require.Equal(t, []int32{2, 2, 0}, []int32{ran[k][0].Load(), ran[k][1].Load(), ran[k][2].Load()}, k)
		st := h.Inst.Session().Stats().Funcs[k]
		require.Equal(t, uint64(2), st.Launches, k)
		require.Equal(t, uint64(1), st.LaunchFailures, k)
	}
}
