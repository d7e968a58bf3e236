package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// testKernels are the kernels of these tests: small, each doing one
// thing a conformance case needs.
func testKernels() []Kernel {
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
	h := &harness{t: t, prof: prof}
	ctx := context.Background()
	opts = append(append(testBackend(t), WithEngine(testEngine), WithKernels(testKernels()...)), opts...)
	rt, err := NewRuntime(ctx, opts...)
	require.NoError(t, err)
	h.rt = rt
	t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })
	pl, err := rt.Load(ctx, wat2wasm(t, kernelGuestWAT(prof, ls...)), p)
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
			s := h.stream()
			require.Zero(t, h.kcall(k, 2, s))
			h.code(acl.ErrRTAicoreException, "aclrtSynchronizeStream", s)
			msg := h.recentMsg()
			require.Contains(t, msg, "kernel "+k+" failed on the device: block 0 of 2")
		})
	}
}

func TestKernelVoidLaunchErrorAtSync(t *testing.T) {
	h := kernelHarness(t, abi.Wide, allTestKernels, nil, wideLaunchers)
	h.ok("aclrtSetDevice", 0)
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
