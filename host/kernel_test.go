package host

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

// standinKernels is the stand-in's kernel binary, which names C versions
// of the test kernels that have one (acl/cann/testdata/standin): the
// native backend runs those over the stand-in, the simulator their Run.
var standinKernels = func() string {
	p, err := filepath.Abs("../acl/cann/testdata/standin/kernels.txt")
	if err != nil {
		panic(err)
	}
	return p
}()

// testKernels are the kernels of these tests: small, each doing one
// thing a conformance case needs.
func testKernels() []Kernel {
	ks := testKernelsSim()
	for i := range ks {
		switch ks[i].Name {
		case "Inc", "Fill", "Copy", "Panic", "Fault", "Spin":
			ks[i].Binary = standinKernels
		}
	}
	return ks
}

func testKernelsSim() []Kernel {
	return []Kernel{
		{
			Name:   "Inc",
			Params: []KernelParam{Buffer("x", acl.DTUint32, ReadWrite, "blockDim")},
			Run: func(_ context.Context, b *KernelBlock) error {
				b.Uint32s(0)[b.Index()]++
				return nil
			},
		},
		{
			Name: "Fill",
			Params: []KernelParam{
				Buffer("dst", acl.DTUint8, Write, "n"),
				Scalar("n", acl.DTUint32),
				Scalar("v", acl.DTUint8),
			},
			Run: func(_ context.Context, b *KernelBlock) error {
				if b.Index() == 0 {
					dst := b.Bytes(0)
					for i := range dst {
						dst[i] = byte(b.Uint(2))
					}
				}
				return nil
			},
		},
		{
			Name: "Copy",
			Params: []KernelParam{
				Buffer("src", acl.DTUint8, Read, "n"),
				Buffer("dst", acl.DTUint8, Write, "n"),
				Scalar("n", acl.DTUint32),
			},
			Run: func(_ context.Context, b *KernelBlock) error {
				copy(b.Bytes(1), b.Bytes(0))
				return nil
			},
		},
		{Name: "Panic", Run: func(_ context.Context, b *KernelBlock) error { panic("kernel bug") }},
		{Name: "Fault", Run: func(context.Context, *KernelBlock) error { return errors.New("illegal address") }},
		{Name: "Spin", Run: func(ctx context.Context, _ *KernelBlock) error { <-ctx.Done(); return ctx.Err() }},
		{Name: "Print", Run: func(_ context.Context, b *KernelBlock) error {
			b.Printf("block %d of %d\n", b.Index(), b.BlockDim)
			return nil
		}},
		{
			Name:   "Slow",
			Params: []KernelParam{Buffer("x", acl.DTUint32, ReadWrite, "blockDim")},
			Run: func(_ context.Context, b *KernelBlock) error {
				b.Uint32s(0)[b.Index()]++
				return nil
			},
			Cost: func(a *KernelArgs) time.Duration { return time.Duration(a.BlockDim) * time.Second },
		},
	}
}

// launcher is a launcher a test guest imports: from "env" as sym, with
// the wasm parameters params, returning an i32 when status.
type launcher struct {
	sym    string
	params string
	status bool
}

// kernelGuestWAT is the proxy guest of profile prof with the launchers
// imported, each re-exported as "k_" + its symbol.
func kernelGuestWAT(prof abi.Profile, ls ...launcher) string {
	var imps, exps strings.Builder
	for i, l := range ls {
		res := ""
		if l.status {
			res = " (result i32)"
		}
		fmt.Fprintf(&imps, "  (import \"env\" %q (func $l%d (param %s)%s))\n", l.sym, i, l.params, res)
		fmt.Fprintf(&exps, "  (func (export %q) (param %s)%s", "k_"+l.sym, l.params, res)
		for j := range strings.Fields(l.params) {
			fmt.Fprintf(&exps, " local.get %d", j)
		}
		fmt.Fprintf(&exps, " call $l%d)\n", i)
	}
	return strings.Replace(proxyWATIn(prof, 4, exps.String()), "(module\n", "(module\n"+imps.String(), 1)
}

// kernelHarness is a harness over kernelGuestWAT, with the test kernels
// registered and p granting them; out receives the plugin's stdout.
func kernelHarness(t *testing.T, prof abi.Profile, p Policy, out *syncBuffer, ls []launcher, opts ...Option) *harness {
	t.Helper()
	return kernelHarnessOf(t, prof, p, out, wat2wasm(t, kernelGuestWAT(prof, ls...)), opts...)
}

// kernelHarnessOf is kernelHarness over wasm, a kernelGuestWAT built.
func kernelHarnessOf(t *testing.T, prof abi.Profile, p Policy, out *syncBuffer, wasm []byte, opts ...Option) *harness {
	t.Helper()
	h := &harness{t: t, prof: prof}
	ctx := context.Background()
	opts = append(append(testBackend(t), WithEngine(testEngine), WithKernels(testKernels()...)), opts...)
	rt, err := NewRuntime(ctx, opts...)
	require.NoError(t, err)
	h.rt = rt
	t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })
	pl, err := rt.Load(ctx, wasm, p)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pl.Close(ctx)) })
	cfg := Config{}
	if out != nil {
		cfg.Stdout = out
	}
	inst, err := pl.Instantiate(ctx, cfg)
	require.NoError(t, err)
	h.inst = inst
	t.Cleanup(func() { require.NoError(t, inst.Close(ctx)) })
	return h
}

// syncBuffer is a bytes.Buffer safe for the writes of several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// kcall calls a launcher through the guest; a status launcher's result is
// returned, a void one's is 0.
func (h *harness) kcall(sym string, args ...uint64) int32 {
	h.t.Helper()
	res, err := h.inst.Call(context.Background(), "k_"+sym, args...)
	require.NoError(h.t, err, sym)
	if len(res) == 0 {
		return 0
	}
	return int32(uint32(res[0]))
}

// wideLaunchers are the test kernels' launchers in the wide profile.
var wideLaunchers = []launcher{
	{sym: "Inc", params: "i32 i32 i64"},
	{sym: "Fill", params: "i32 i32 i64 i32 i32", status: true},
	{sym: "Copy", params: "i32 i32 i64 i64 i32", status: true},
	{sym: "Panic", params: "i32 i32"},
	{sym: "Fault", params: "i32 i32"},
	{sym: "Spin", params: "i32 i32"},
	{sym: "Print", params: "i32 i32"},
}

var allTestKernels = Policy{Kernels: []string{"Inc", "Fill", "Copy", "Panic", "Fault", "Spin", "Print", "Slow"}}

func TestKernelLaunch(t *testing.T) {
	h := kernelHarness(t, abi.Wide, allTestKernels, nil, wideLaunchers)
	h.ok("aclrtSetDevice", 0)
	if !h.runsKernels("Panic", 2) {
		return
	}
	x := h.malloc(64)
	h.ok("aclrtMemset", x, 64, 0, 64)
	s := h.stream()
	for range 3 {
		h.kcall("Inc", 4, s, x)
	}
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtMemcpy", outA, 16, x, 16, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, []byte{3, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0}, h.mem()[outA:outA+16])
	require.Equal(t, uint32(0), h.u32(outA+16), "blockDim 4 touches 4 elements")

	// Fill then Copy in stream order, with statuses.
	src, dst := h.malloc(256), h.malloc(256)
	require.Zero(t, h.kcall("Fill", 1, s, src, 256, 0xab))
	require.Zero(t, h.kcall("Copy", 2, s, src, dst, 256))
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtMemcpy", outA, 256, dst, 256, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, bytes.Repeat([]byte{0xab}, 256), h.mem()[outA:outA+256])
}

func TestKernelExtents(t *testing.T) {
	h := kernelHarness(t, abi.Wide, allTestKernels, nil, wideLaunchers)
	h.ok("aclrtSetDevice", 0)
	if !h.runsKernels("Panic", 2) {
		return
	}
	a := h.malloc(100)
	s := h.stream()
	// Exactly at the allocation's end, then one byte past it.
	require.Zero(t, h.kcall("Fill", 1, s, a, 100, 1))
	require.Zero(t, h.kcall("Fill", 1, s, a+99, 1, 2))
	require.Equal(t, int32(acl.ErrRTParamInvalid), h.kcall("Fill", 1, s, a, 101, 3))
	require.Contains(t, h.recentMsg(), "crosses the end of the allocation")
	require.Equal(t, int32(acl.ErrRTParamInvalid), h.kcall("Fill", 1, s, a+1, 100, 3))
	// Guest memory, a freed and a forged buffer.
	require.Equal(t, int32(acl.ErrRTParamInvalid), h.kcall("Fill", 1, s, outA, 4, 3))
	require.Contains(t, h.recentMsg(), "is guest memory")
	b := h.malloc(16)
	h.ok("aclrtFree", b)
	require.Equal(t, int32(acl.ErrRTParamInvalid), h.kcall("Fill", 1, s, b, 4, 3))
	require.Equal(t, int32(acl.ErrRTParamInvalid), h.kcall("Fill", 1, s, 1<<60, 4, 3))
	require.Equal(t, int32(acl.ErrInvalidParam), h.kcall("Fill", 1, s, 0, 4, 3))
	// Extent 0: nothing to validate, nothing touched.
	require.Zero(t, h.kcall("Fill", 1, s, 0, 0, 3))
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtMemcpy", outA, 100, a, 100, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, append(bytes.Repeat([]byte{1}, 99), 2), h.mem()[outA:outA+100], "the refused launches touched nothing")
}

func TestKernelBlockDim(t *testing.T) {
	h := kernelHarness(t, abi.Wide, allTestKernels, nil, wideLaunchers)
	h.ok("aclrtSetDevice", 0)
	if !h.runsKernels("Panic", 2) {
		return
	}
	a := h.malloc(4096)
	s := h.stream()
	require.Equal(t, int32(acl.ErrRTParamInvalid), h.kcall("Fill", 0, s, a, 4, 1))
	require.Contains(t, h.recentMsg(), "blockDim 0 is out of range")
	h.ok("aclrtGetDeviceResLimit", 0, uint64(acl.DevResCubeCore), outB)
	limit := uint64(h.u32(outB))
	require.NotZero(t, limit)
	require.Zero(t, h.kcall("Fill", limit, s, a, 4, 1))
	require.Equal(t, int32(acl.ErrRTParamInvalid), h.kcall("Fill", limit+1, s, a, 4, 1))
	// A session's lower limit binds it.
	h.ok("aclrtSetDeviceResLimit", 0, uint64(acl.DevResCubeCore), 2)
	require.Equal(t, int32(acl.ErrRTParamInvalid), h.kcall("Fill", 3, s, a, 4, 1))
	require.Zero(t, h.kcall("Fill", 2, s, a, 4, 1))
	h.ok("aclrtSynchronizeStream", s)
}

// recentMsg returns the session's recent error message.
func (h *harness) recentMsg() string {
	h.t.Helper()
	n := h.call("aclGetRecentErrMsg", outC, 1024)
	if n <= 0 {
		return ""
	}
	return string(h.mem()[outC : outC+uint32(n)])
}

func TestKernelReadOnlyLease(t *testing.T) {
	h := kernelHarness(t, abi.Wide, allTestKernels, nil, wideLaunchers)
	h.ok("aclrtSetDevice", 0)
	if !h.runsKernels("Panic", 2) {
		return
	}
	ptr, err := h.rt.Backend().Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.rt.Backend().Free(context.Background(), ptr) })
	l, err := h.inst.Lend(ptr, 64, LendOptions{ReadOnly: true})
	require.NoError(t, err)
	dst := h.malloc(64)
	s := h.stream()
	require.Equal(t, int32(acl.ErrRTParamInvalid), h.kcall("Fill", 1, s, l.Addr(), 64, 1), "a read-only lease is never written")
	require.Zero(t, h.kcall("Copy", 1, s, l.Addr(), dst, 64), "but it may be read")
	h.ok("aclrtSynchronizeStream", s)
	require.NoError(t, l.Revoke(context.Background()))
}

func TestKernelFaults(t *testing.T) {
	for _, k := range []string{"Panic", "Fault"} {
		t.Run(k, func(t *testing.T) {
			h := kernelHarness(t, abi.Wide, allTestKernels, nil, wideLaunchers)
			h.ok("aclrtSetDevice", 0)
			if !h.runsKernels("Panic", 2) {
				return
			}
			s := h.stream()
			require.Zero(t, h.kcall(k, 2, s))
			h.code(acl.ErrRTAicoreException, "aclrtSynchronizeStream", s)
			msg := h.recentMsg()
			if h.binaries() { // natively the runtime reports only the code
				require.Contains(t, msg, "a kernel failed on the device (ACL_ERROR_RT_AICORE_EXCEPTION): one launched on the stream since its last synchronize ("+k+")")
				h.ok("aclrtSynchronizeStream", s)
				h.kcall("Inc", 1, s, h.malloc(4))
				h.ok("aclrtSynchronizeStream", s)
				return
			}
			require.Contains(t, msg, "kernel "+k+" failed on the device: block 0 of 2")
		})
	}
}

func TestKernelVoidLaunchErrorAtSync(t *testing.T) {
	h := kernelHarness(t, abi.Wide, allTestKernels, nil, wideLaunchers)
	h.ok("aclrtSetDevice", 0)
	if !h.runsKernels("Panic", 2) {
		return
	}
	s := h.stream()
	h.kcall("Inc", 1, s, 1<<60) // a void launcher: its error waits for the synchronize
	require.Contains(t, h.recentMsg(), "Inc: x")
	h.code(acl.ErrRTParamInvalid, "aclrtSynchronizeStream", s)
	require.Contains(t, h.recentMsg(), "is not in guest memory or a live device allocation")
	h.ok("aclrtSynchronizeStream", s)
}

func TestKernelPrint(t *testing.T) {
	var out syncBuffer
	h := kernelHarness(t, abi.Wide, allTestKernels, &out, wideLaunchers)
	h.ok("aclrtSetDevice", 0)
	if !h.runsKernels("Panic", 2) || h.refusedNatively("Print", 2) {
		return
	}
	s := h.stream()
	h.kcall("Print", 3, s)
	h.ok("aclrtSynchronizeStream", s)
	require.Equal(t, "block 0 of 3\nblock 1 of 3\nblock 2 of 3\n", out.String())
}

func TestKernelRevokedBeforeRun(t *testing.T) {
	gate := make(chan struct{})
	g := Kernel{Name: "Gate", Run: func(ctx context.Context, _ *KernelBlock) error {
		select {
		case <-gate:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}}
	p := allTestKernels
	p.Kernels = append(p.Kernels[:len(p.Kernels):len(p.Kernels)], "Gate")
	h := kernelHarness(t, abi.Wide, p, nil, append(wideLaunchers, launcher{sym: "Gate", params: "i32 i32"}), WithKernels(g))
	h.ok("aclrtSetDevice", 0)
	if !h.runsKernels("Panic", 2) || h.refusedNatively("Gate", 2) {
		return
	}
	ptr, err := h.rt.Backend().Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	l, err := h.inst.Lend(ptr, 64, LendOptions{})
	require.NoError(t, err)
	s := h.stream()
	h.kcall("Gate", 1, s)
	h.kcall("Inc", 1, s, l.Addr()) // valid now: queued behind the gate
	done, cancel := context.WithCancel(context.Background())
	cancel() // Revoke takes the lease out of the table, then gives up waiting
	require.Error(t, l.Revoke(done))
	close(gate)
	h.code(acl.ErrRTParamInvalid, "aclrtSynchronizeStream", s)
	require.Contains(t, h.recentMsg(), "was freed before the kernel ran")
	var b [4]byte
	require.NoError(t, h.rt.Backend().Memcpy(context.Background(), acl.Host(b[:], 0), acl.Device(ptr), 4))
	require.Equal(t, [4]byte{}, b, "the launch touched nothing")
	require.NoError(t, h.rt.Backend().Free(context.Background(), ptr))
}

func TestKernelLoadBinding(t *testing.T) {
	ctx := context.Background()
	rt, err := NewRuntime(ctx, append(testBackend(t), WithEngine(testEngine), WithKernels(testKernels()...))...)
	require.NoError(t, err)
	defer rt.Close(ctx)
	load := func(prof abi.Profile, p Policy, ls ...launcher) error {
		pl, err := rt.Load(ctx, wat2wasm(t, kernelGuestWAT(prof, ls...)), p)
		if err == nil {
			require.NoError(t, pl.Close(ctx))
		}
		return err
	}
	for _, c := range []struct {
		name string
		prof abi.Profile
		p    Policy
		l    launcher
		want string // "" binds
	}{
		{"c", abi.Native32, allTestKernels, launcher{sym: "Inc", params: "i32 i32 i32"}, ""},
		{"c wide", abi.Wide, allTestKernels, launcher{sym: "Inc", params: "i32 i32 i64"}, ""},
		{"status", abi.Native32, allTestKernels, launcher{sym: "Inc", params: "i32 i32 i32", status: true}, ""},
		{"c++", abi.Native32, allTestKernels, launcher{sym: "_Z3IncjPvPj", params: "i32 i32 i32"}, ""},
		{"c++ void*", abi.Native32, allTestKernels, launcher{sym: "_Z3IncjPvS_", params: "i32 i32 i32"}, ""},
		{"c++ scalars", abi.Native32, allTestKernels, launcher{sym: "_Z4FilljPvPhjh", params: "i32 i32 i32 i32 i32"}, ""},
		{"aclrtlaunch", abi.Native32, allTestKernels, launcher{sym: "aclrtlaunch_Inc", params: "i32 i32 i32", status: true}, ""},
		{"_do", abi.Native32, allTestKernels, launcher{sym: "_Z6Inc_dojPvPh", params: "i32 i32 i32"}, ""},
		{"missing", abi.Native32, allTestKernels, launcher{sym: "Nope", params: "i32 i32"},
			"import env.Nope is undefined: no kernel Nope for its launcher: the runtime registers no kernel of that name (granted: Copy, Fault, Fill, Inc, Panic, Print, Slow, Spin)"},
		{"ungranted", abi.Native32, Policy{Kernels: []string{"Fill"}}, launcher{sym: "Inc", params: "i32 i32 i32"},
			"no kernel Inc for its launcher: it is not granted to the plugin (Policy.Kernels, --kernels) (granted: Fill)"},
		{"none granted", abi.Native32, Policy{}, launcher{sym: "Inc", params: "i32 i32 i32"}, "(granted: none)"},
		{"wasm type", abi.Native32, allTestKernels, launcher{sym: "Inc", params: "i32 i32"},
			"import env.Inc has wasm type (i32, i32) -> (), but kernel Inc is launched as (i32, i32, i32) -> () (Inc(uint32_t blockDim, void* stream, uint32_t* x)) in profile acl32"},
		{"wide pointer in acl32", abi.Native32, allTestKernels, launcher{sym: "Inc", params: "i32 i32 i64"}, "has wasm type (i32, i32, i64)"},
		{"result", abi.Native32, allTestKernels, launcher{sym: "Inc", params: "i32 i32 i32", status: false}, ""},
		{"c++ element type", abi.Native32, allTestKernels, launcher{sym: "_Z3IncjPvPf", params: "i32 i32 i32"},
			"import env._Z3IncjPvPf (Inc(unsigned int, void*, float*)) does not match kernel Inc(uint32_t blockDim, void* stream, uint32_t* x): parameter 3 (x) is float*, want uint32_t* or void*"},
		{"c++ stream", abi.Native32, allTestKernels, launcher{sym: "_Z3IncjiPj", params: "i32 i32 i32"}, "parameter 2 (the stream) is int, want void* (aclrtStream)"},
		{"c++ count", abi.Native32, allTestKernels, launcher{sym: "_Z3IncjPvPjS0_", params: "i32 i32 i32 i32"}, "has wasm type"},
		{"c++ scalar", abi.Native32, allTestKernels, launcher{sym: "_Z4FilljPvPhjf", params: "i32 i32 i32 i32 f32"}, "has wasm type"},
		{"c++ namespace", abi.Native32, allTestKernels, launcher{sym: "_ZN2ns3IncEjPvPj", params: "i32 i32 i32"}, "names ns::Inc: a launcher is a function at namespace scope"},
		{"reserved", abi.Native32, allTestKernels, launcher{sym: "x", params: "i32"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "reserved" {
				wat := strings.Replace(proxyWATIn(abi.Native32, 1, ""), "(module\n", "(module\n  (import \"aclwasm:kernel\" \"Inc/acl32/void\" (func (param i32 i32 i32)))\n", 1)
				_, err := rt.Load(ctx, wat2wasm(t, wat), allTestKernels)
				require.ErrorContains(t, err, `import aclwasm:kernel.Inc/acl32/void is refused: module "aclwasm:kernel" is the host's own`)
				return
			}
			err := load(c.prof, c.p, c.l)
			if c.want == "" {
				require.NoError(t, err)
				return
			}
			var le *LoadError
			require.ErrorAs(t, err, &le)
			require.Contains(t, err.Error(), c.want)
		})
	}
	_, err = rt.Load(ctx, wat2wasm(t, kernelGuestWAT(abi.Wide)), Policy{Kernels: []string{"Unknown"}})
	require.ErrorContains(t, err, `policy: Kernels: "Unknown" names no kernel or kernel set of the runtime (it has Copy, Fault, Fill, Inc, Panic, Print, Slow, Spin)`)
}

func TestKernelImportStatus(t *testing.T) {
	ctx := context.Background()
	rt, err := NewRuntime(ctx, WithEngine(testEngine), WithKernels(testKernels()...))
	require.NoError(t, err)
	defer rt.Close(ctx)
	wasm := wat2wasm(t, kernelGuestWAT(abi.Native32, launcher{sym: "_Z3IncjPvPj", params: "i32 i32 i32"}, launcher{sym: "Nope", params: "i32"}))
	sts, err := rt.Imports(ctx, wasm, allTestKernels)
	require.NoError(t, err)
	got := map[string]ImportStatus{}
	for _, s := range sts {
		got[s.Module+"."+s.Name] = s
	}
	require.Equal(t, "kernel launcher", got["env._Z3IncjPvPj"].Status)
	require.Equal(t, "no matching kernel", got["env.Nope"].Status)
	require.Contains(t, got["env.Nope"].Problem, "no kernel Nope")
}

func TestKernelRegistration(t *testing.T) {
	run := func(context.Context, *KernelBlock) error { return nil }
	for _, c := range []struct {
		k    Kernel
		want string
	}{
		{Kernel{Name: "k", Run: run, Params: []KernelParam{Buffer("x", acl.DTFloat, Read, "n")}}, `kernel "k": buffer x: extent "n": n is neither blockDim nor a parameter`},
		{Kernel{Name: "k", Run: run, Params: []KernelParam{Buffer("x", acl.DTFloat, Read, "a"), Scalar("a", acl.DTFloat)}}, "a is not an integer scalar"},
		{Kernel{Name: "k", Run: run, Params: []KernelParam{Buffer("x", acl.DTFloat, Read, "blockDim *")}}, "unexpected end"},
		{Kernel{Name: "k", Run: run, Params: []KernelParam{Buffer("x", acl.DTFloat, Read, "(blockDim")}}, "missing )"},
		{Kernel{Name: "k", Run: run, Params: []KernelParam{Buffer("x", acl.DTFloat, Read, "99999999999999999999")}}, "value out of range"},
		{Kernel{Name: "k", Run: run, Params: []KernelParam{Buffer("x", acl.DTFloat, Read, "")}}, "unexpected end"},
		{Kernel{Name: "k", Run: run, Params: []KernelParam{Buffer("x", acl.DTString, Read, "1")}}, "element type ACL_STRING has no size"},
		{Kernel{Name: "k", Run: run, Params: []KernelParam{Buffer("x", acl.DTFloat, 4, "1")}}, "Access(4): want Read, Write or ReadWrite"},
		{Kernel{Name: "k", Run: run, Params: []KernelParam{Scalar("s", acl.DTComplex64)}}, "scalar s: type ACL_COMPLEX64 is not a scalar type"},
		{Kernel{Name: "k", Run: run, Params: []KernelParam{Scalar("s", acl.DTInt32), Scalar("s", acl.DTInt32)}}, `parameter 1: name "s"`},
		{Kernel{Name: "k", Run: run, Params: []KernelParam{Scalar("blockDim", acl.DTInt32)}}, `parameter 0: name "blockDim"`},
		{Kernel{Name: "k-1", Run: run}, "the name must be a C identifier"},
		{Kernel{Name: "k"}, "neither Run nor Binary: the kernel would run on no backend"},
	} {
		_, err := NewRuntime(context.Background(), WithKernels(c.k))
		require.ErrorContains(t, err, c.want)
	}
	_, err := NewRuntime(context.Background(), WithKernels(Kernel{Name: "k", Run: run}, Kernel{Name: "k", Run: run}))
	require.ErrorContains(t, err, "kernel k is registered twice")
	_, err = NewRuntime(context.Background(), WithKernelSet("k", Kernel{Name: "k", Run: run}))
	require.ErrorContains(t, err, "kernel set k has the name of a kernel")
}

func TestKernelExtentOverflow(t *testing.T) {
	e, err := parseExtent("n * n * 8 - 1", func(string) (int, error) { return 0, nil })
	require.NoError(t, err)
	v, err := e.eval(1, func(int) (uint64, error) { return 1 << 20, nil })
	require.NoError(t, err)
	require.Equal(t, uint64(1<<43-1), v)
	_, err = e.eval(1, func(int) (uint64, error) { return 1 << 32, nil })
	require.ErrorContains(t, err, "overflows")
	_, err = e.eval(1, func(int) (uint64, error) { return 0, nil })
	require.ErrorContains(t, err, "0 - 1 is negative")
	d, err := parseExtent("blockDim / (n - n)", func(string) (int, error) { return 0, nil })
	require.NoError(t, err)
	_, err = d.eval(4, func(int) (uint64, error) { return 3, nil })
	require.ErrorContains(t, err, "4 / 0")
	p, err := parseExtent("(n + 7) / 8 * 8 + blockDim", func(string) (int, error) { return 0, nil })
	require.NoError(t, err)
	v, err = p.eval(2, func(int) (uint64, error) { return 9, nil })
	require.NoError(t, err)
	require.Equal(t, uint64(18), v)
}

func TestKernelStreamOrder(t *testing.T) {
	h := kernelHarness(t, abi.Wide, allTestKernels, nil, wideLaunchers)
	h.ok("aclrtSetDevice", 0)
	if !h.runsKernels("Panic", 2) {
		return
	}
	a, b, c := h.malloc(64), h.malloc(64), h.malloc(64)
	s1, s2 := h.stream(), h.stream()
	ev := h.event()
	// s1: fill a, copy a to b; s2 waits for it, then copies b to c by kernel.
	require.Zero(t, h.kcall("Fill", 1, s1, a, 64, 7))
	h.ok("aclrtMemcpyAsync", b, 64, a, 64, uint64(acl.MemcpyDeviceToDevice), s1)
	h.ok("aclrtRecordEvent", ev, s1)
	h.ok("aclrtStreamWaitEvent", s2, ev)
	require.Zero(t, h.kcall("Copy", 1, s2, b, c, 64))
	h.ok("aclrtMemcpyAsync", outA, 64, c, 64, uint64(acl.MemcpyDeviceToHost), s2)
	h.ok("aclrtSynchronizeStream", s2)
	require.Equal(t, bytes.Repeat([]byte{7}, 64), h.mem()[outA:outA+64])
}

func TestKernelACL32(t *testing.T) {
	h := kernelHarness(t, abi.Native32, allTestKernels, nil, []launcher{{sym: "_Z3IncjPvPj", params: "i32 i32 i32"}})
	h.ok("aclrtSetDevice", 0)
	if !h.runsKernels("_Z3IncjPvPj", 3) {
		return
	}
	x := h.malloc(16)
	require.Less(t, x, uint64(1)<<32)
	h.ok("aclrtMemset", x, 16, 0, 16)
	h.kcall("_Z3IncjPvPj", 2, 0, x) // the default stream
	h.ok("aclrtSynchronizeDevice")
	h.ok("aclrtMemcpy", outA, 16, x, 16, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, []uint32{1, 1, 0, 0}, []uint32{h.u32(outA), h.u32(outA + 4), h.u32(outA + 8), h.u32(outA + 12)})
}

func TestKernelForceCancel(t *testing.T) {
	h := kernelHarness(t, abi.Wide, allTestKernels, nil, wideLaunchers)
	h.ok("aclrtSetDevice", 0)
	if !h.runsKernels("Panic", 2) {
		return
	}
	s := h.stream()
	h.kcall("Spin", 1, s) // runs until its stream's work is cancelled
	h.kcall("Spin", 1, s)
	h.ok("aclrtDestroyStreamForce", s)
	h.ok("aclrtSynchronizeDevice")
}

func TestKernelTimeout(t *testing.T) {
	h := kernelHarness(t, abi.Wide, Policy{Kernels: []string{"Spin"}, Timeout: 300 * time.Millisecond}, nil, []launcher{{sym: "Spin", params: "i32 i32"}})
	h.ok("aclrtSetDevice", 0)
	if !h.runsKernels("Spin", 2) {
		return
	}
	s := h.stream()
	h.kcall("Spin", 1, s)
	// Each call here is a run of its own, with its own time limit. The
	// kernel stops at the limit of the run that launched it (507014 at the
	// synchronize), which comes first unless the synchronize's own run
	// ends sooner (then ErrTimeout): either way nothing hangs, and the
	// session's end finds the kernel stopped (the cleanup's Close would
	// hang otherwise).
	res, err := h.inst.Call(context.Background(), "aclrtSynchronizeStream", s)
	if err != nil {
		require.ErrorIs(t, err, ErrTimeout)
		return
	}
	require.Equal(t, uint64(acl.ErrRTAicoreTimeout), res[0], h.inst.Session().LastError())
}

// TestKernelStoppedByRunDeadline checks that a launch is bounded by the
// deadline of the run that queued it, not only by the end of the session:
// the launching call's deadline passes while the session lives on, and a
// later synchronize (with no deadline of its own but a watchdog) returns
// because the kernel was stopped, with the launch's failure.
func TestKernelStoppedByRunDeadline(t *testing.T) {
	h := kernelHarness(t, abi.Wide, Policy{Kernels: []string{"Spin"}}, nil, []launcher{{sym: "Spin", params: "i32 i32"}})
	h.ok("aclrtSetDevice", 0)
	if !h.runsKernels("Spin", 2) {
		return
	}
	s := h.stream()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := h.inst.Call(ctx, "k_Spin", 1, s)
	require.NoError(t, err)
	watchdog, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	res, err := h.inst.Call(watchdog, "aclrtSynchronizeStream", s)
	require.NoError(t, err, "the kernel outlived the deadline of the run that launched it")
	require.Equal(t, uint64(acl.ErrRTAicoreTimeout), res[0], "a kernel stopped by its deadline fails its stream")
	if h.binaries() { // the device's timeout (the run's time left and deviceGrace) stopped it
		require.Contains(t, h.inst.Session().LastError(), "a kernel failed on the device (ACL_ERROR_RT_AICORE_TIMEOUT): one launched on the stream since its last synchronize (Spin)")
		return
	}
	require.Contains(t, h.inst.Session().LastError(), "kernel Spin was stopped at the run's time limit")
}

func TestKernelCost(t *testing.T) {
	b := sim.New(sim.WithTiming())
	t.Cleanup(func() { b.Close() })
	h := kernelHarness(t, abi.Wide, allTestKernels, nil, []launcher{{sym: "Slow", params: "i32 i32 i64"}}, WithBackend(b))
	h.ok("aclrtSetDevice", 0)
	x := h.malloc(64)
	s := h.stream()
	start, end := h.event(), h.event()
	h.ok("aclrtRecordEvent", start, s)
	h.kcall("Slow", 3, s, x)
	h.ok("aclrtRecordEvent", end, s)
	h.ok("aclrtSynchronizeStream", s)
	h.ok("aclrtEventElapsedTime", outA, start, end)
	ms := math.Float32frombits(h.u32(outA))
	require.GreaterOrEqual(t, ms, float32(3000), "the declared cost: a second a block")
	require.Less(t, ms, float32(3001))
}

// runsKernels reports whether the harness's backend runs kernels: Go
// compute, or kernel binaries (the native backend). On one that runs
// neither it checks instead that a launch says so with 207000.
func (h *harness) runsKernels(sym string, nargs int) bool {
	h.t.Helper()
	if h.rt.Backend().Traits().Computer != nil {
		return true
	}
	if h.binaries() {
		return true
	}
	s := h.stream()
	h.kcall(sym, append([]uint64{1, s}, make([]uint64, nargs-2)...)...)
	h.code(acl.ErrRTFeatureNotSupport, "aclrtSynchronizeStream", s)
	require.Contains(h.t, h.recentMsg(), "this backend runs no registered kernels")
	return false
}

// binaries reports whether the harness's backend runs kernel binaries
// (the native backend), not the kernels' Go implementations.
func (h *harness) binaries() bool {
	ok := h.rt.Backend().Traits().KernelRunner != nil
	return ok
}

// refusedNatively checks, on the native backend, that a launch of sym (a
// kernel without a binary) is refused with 207000, and reports whether it
// was: the test's Go-only part then ends.
func (h *harness) refusedNatively(sym string, nargs int) bool {
	h.t.Helper()
	if !h.binaries() {
		return false
	}
	s := h.stream()
	h.kcall(sym, append([]uint64{1, s}, make([]uint64, nargs-2)...)...)
	h.code(acl.ErrRTFeatureNotSupport, "aclrtSynchronizeStream", s)
	require.Contains(h.t, h.recentMsg(), "kernel "+sym+" has no native binary (host.Kernel.Binary)")
	return true
}

// TestKernelAccounting: a kernel's launches count in the statistics and
// the metrics by its name when they have executed (on a backend that runs
// kernel binaries, when queued: the runtime fails and times streams), and
// the trace names it with its arguments, buffers as addresses.
func TestKernelAccounting(t *testing.T) {
	m := newMetrics(t)
	var mu sync.Mutex
	var recs []string
	h := kernelHarness(t, abi.Wide, allTestKernels, nil, wideLaunchers, WithMetrics(m), WithTrace(func(r CallRecord) {
		mu.Lock()
		recs = append(recs, r.String())
		mu.Unlock()
	}))
	h.ok("aclrtSetDevice", 0)
	a := h.malloc(256)
	s := h.stream()
	require.Zero(t, h.kcall("Fill", 2, s, a, 100, 7))
	require.Zero(t, h.kcall("Fill", 1, s, a, 10, 8))
	h.kcall("Fault", 3, s)
	h.code(acl.ErrRTAicoreException, "aclrtSynchronizeStream", s)
	mu.Lock()
	require.Contains(t, recs, fmt.Sprintf("Fill(blockDim=2, stream=%d, dst=%#x, n=100, v=7) = 0", s, a))
	mu.Unlock()
	st := h.inst.Session().Stats().Funcs
	require.Equal(t, uint64(2), st["Fill"].Calls)
	require.Equal(t, uint64(2), st["Fill"].Launches)
	require.Zero(t, st["Fill"].LaunchFailures)
	require.Equal(t, uint64(1), st["Fault"].Launches)
	if h.binaries() {
		require.Zero(t, st["Fault"].LaunchFailures, "natively a fault fails the stream, not a launch")
		require.Zero(t, testutil.CollectAndCount(m.m.Compute), "natively launches are not timed")
		return
	}
	require.Equal(t, uint64(1), st["Fault"].LaunchFailures)
	require.Equal(t, 2, testutil.CollectAndCount(m.m.Compute), "one series per kernel and outcome")
	require.True(t, m.m.Compute.DeleteLabelValues("", "Fill", "ok"))
	require.True(t, m.m.Compute.DeleteLabelValues("", "Fault", "failed"))
}

// TestKernelViewAligned: a kernel's typed view of a buffer shares its
// memory, and one of a misaligned buffer panics (a device fault when in a
// launch) rather than reading misaligned elements.
func TestKernelViewAligned(t *testing.T) {
	mem := make([]uint64, 2)
	buf := unsafe.Slice((*byte)(unsafe.Pointer(&mem[0])), 16)
	kb := &KernelBlock{b: &sandbox.Block{Mem: [][]byte{buf, buf[4:12], buf[1:9]}}}
	kb.Float32s(0)[1] = 1.5
	require.Equal(t, uint32(0x3fc00000), binary.LittleEndian.Uint32(buf[4:]))
	require.Len(t, kb.Uint32s(1), 2)
	require.Len(t, kb.Bytes(2), 8)
	require.PanicsWithValue(t, fmt.Sprintf("buffer at %p is not aligned to its 4-byte elements", &buf[1]), func() { kb.Float32s(2) })
	require.Panics(t, func() { kb.Int64s(1) })
}
