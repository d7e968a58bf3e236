// Package proxytest is the harness of the proxy guest (testsupport.Proxy)
// that the external tests of package host and of package sandbox share:
// one instance of the guest, whose exports call the imports with any
// arguments, on the test engine and backend, with helpers that lay out
// and read guest memory as the imports' parameters have it. It imports
// host (and reaches the guest's memory through sandbox.Peek), so host's
// internal tests cannot use it: the tests that need the harness are
// external (package host_test).
package proxytest

import (
	"context"
	"encoding/binary"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

var le = binary.LittleEndian

// Backend returns the backend options of the guest tests: the default
// simulator, or the native backend over the library ACLWASM_TEST_ACL_LIB
// names (CI points it at the stand-in libascendcl.so of acl/cann).
func Backend(t testing.TB) []host.Option {
	if b := testsupport.Native(t); b != nil {
		return []host.Option{host.WithBackend(b)}
	}
	return nil
}

// Runtime is a runtime on the test engine and backend with opts after
// them, closed at the test's end.
func Runtime(t testing.TB, opts ...host.Option) *host.Runtime {
	t.Helper()
	rt, err := host.NewRuntime(context.Background(), append(append(Backend(t), host.WithEngine(testsupport.Engine())), opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(context.Background())) })
	return rt
}

// Load loads wasm into rt under p, closed at the test's end.
func Load(t testing.TB, rt *host.Runtime, wasm []byte, p host.Policy) *host.Plugin {
	t.Helper()
	pl, err := rt.Load(context.Background(), wasm, p)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pl.Close(context.Background())) })
	return pl
}

// FreeMem returns the free device memory of each device of rt's backend.
func FreeMem(t testing.TB, rt *host.Runtime) []uint64 {
	t.Helper()
	var out []uint64
	for d := 0; d < rt.Backend().DeviceCount(); d++ {
		free, _, err := rt.Backend().MemInfo(int32(d), acl.HBMMem)
		require.NoError(t, err)
		out = append(out, free)
	}
	return out
}

// Harness is one reactor instance of the proxy guest. A test may also
// make one of an instance of its own guest (the fields alone): the
// methods need T, RT and Inst, and Prof where they lay out words.
type Harness struct {
	T      *testing.T
	RT     *host.Runtime
	Plugin *host.Plugin // nil where the test made the instance
	Inst   *host.Instance
	Log    []host.CallRecord // the trace of the harness's runtime (New)
	Prof   abi.Profile
}

var proxies struct {
	sync.Mutex
	m map[abi.Profile][]byte
}

// Proxy returns the proxy guest of prof with 4 pages (testsupport.Proxy),
// built once.
func Proxy(prof abi.Profile) []byte {
	proxies.Lock()
	defer proxies.Unlock()
	if proxies.m == nil {
		proxies.m = map[abi.Profile][]byte{}
	}
	wasm, ok := proxies.m[prof]
	if !ok {
		wasm = testsupport.Proxy(prof, 4)
		proxies.m[prof] = wasm
	}
	return wasm
}

// New is a harness of the wide profile's proxy under p, on a runtime with
// opts after the test engine, backend and a trace into Log (NewUntraced:
// none); all is closed at the test's end.
func New(t *testing.T, p host.Policy, opts ...host.Option) *Harness {
	t.Helper()
	return NewIn(t, abi.Wide, p, opts...)
}

// NewIn is New with the proxy guest importing from the module of profile
// prof.
func NewIn(t *testing.T, prof abi.Profile, p host.Policy, opts ...host.Option) *Harness {
	t.Helper()
	return NewCfg(t, prof, p, host.Config{}, opts...)
}

// NewCfg is NewIn with the instance made with cfg.
func NewCfg(t *testing.T, prof abi.Profile, p host.Policy, cfg host.Config, opts ...host.Option) *Harness {
	t.Helper()
	return newHarness(t, prof, p, cfg, true, opts...)
}

// NewUntraced is NewIn without the trace (Log stays empty): a session
// that nothing follows, whose calls may take the ways the trace rules
// out (a small copy's one pass).
func NewUntraced(t *testing.T, prof abi.Profile, p host.Policy, opts ...host.Option) *Harness {
	t.Helper()
	return newHarness(t, prof, p, host.Config{}, false, opts...)
}

func newHarness(t *testing.T, prof abi.Profile, p host.Policy, cfg host.Config, traced bool, opts ...host.Option) *Harness {
	t.Helper()
	h := &Harness{T: t, Prof: prof}
	ctx := context.Background()
	if traced {
		opts = append([]host.Option{host.WithTrace(func(r host.CallRecord) { h.Log = append(h.Log, r) })}, opts...)
	}
	h.RT = Runtime(t, opts...)
	h.Plugin = Load(t, h.RT, Proxy(prof), p)
	inst, err := h.Plugin.Instantiate(ctx, cfg)
	require.NoError(t, err)
	h.Inst = inst
	t.Cleanup(func() { require.NoError(t, inst.Close(ctx)) })
	return h
}

// Call calls import name through the guest and returns its i32 result.
func (h *Harness) Call(name string, args ...uint64) int32 {
	h.T.Helper()
	res, err := h.Inst.Call(context.Background(), name, args...)
	require.NoError(h.T, err, name)
	return int32(uint32(res[0]))
}

// Result calls import name (or another export) through the guest and
// returns its first result, failing tb on an error: for benchmarks, whose
// harness has no T.
func (h *Harness) Result(tb testing.TB, name string, args ...uint64) uint64 {
	res, err := h.Inst.Call(context.Background(), name, args...)
	require.NoError(tb, err)
	return res[0]
}

// OK calls and requires success.
func (h *Harness) OK(name string, args ...uint64) {
	h.T.Helper()
	require.Zero(h.T, h.Call(name, args...), "%s: %s", name, h.Inst.Session().LastError())
}

// Code calls and requires the native error code, returning the message.
func (h *Harness) Code(want acl.Error, name string, args ...uint64) string {
	h.T.Helper()
	got := acl.Error(h.Call(name, args...))
	msg := h.Inst.Session().LastError()
	require.Equal(h.T, want, got, "%s: %s", name, msg)
	return msg
}

// RecentMsg reads the message aclGetRecentErrMsg gives the guest ("" for
// none), through testsupport.OutC.
func (h *Harness) RecentMsg() string {
	h.T.Helper()
	n := h.Call("aclGetRecentErrMsg", testsupport.OutC, 1024)
	if n <= 0 {
		return ""
	}
	return string(h.Mem()[testsupport.OutC : testsupport.OutC+uint32(n)])
}

// Session returns the sandbox session of inst.
func Session(inst *host.Instance) *sandbox.Session { s, _, _ := sandbox.Peek(inst); return s }

// Mem returns the guest's linear memory (the package function).
func (h *Harness) Mem() []byte { return Mem(h.Inst) }

// Mem returns the linear memory of inst as the engine holds it now:
// writes to it are the guest's.
func Mem(inst *host.Instance) []byte { _, _, m := sandbox.Peek(inst); return m }

func (h *Harness) U64(off uint32) uint64 { return le.Uint64(h.Mem()[off:]) }
func (h *Harness) U32(off uint32) uint32 { return le.Uint32(h.Mem()[off:]) }

func (h *Harness) PutU64s(off uint32, vs ...uint64) {
	for i, v := range vs {
		le.PutUint64(h.Mem()[off+uint32(8*i):], v)
	}
}

func (h *Harness) PutI64s(off uint32, vs ...int64) {
	for i, v := range vs {
		le.PutUint64(h.Mem()[off+uint32(8*i):], uint64(v))
	}
}

// PutStr writes s and a NUL at off in guest memory.
func (h *Harness) PutStr(off uint32, s string) {
	m := h.Mem()
	copy(m[off:], s)
	m[off+uint32(len(s))] = 0
}

// CStr is PutStr returning off, the string's address.
func (h *Harness) CStr(off uint32, s string) uint64 {
	h.PutStr(off, s)
	return uint64(off)
}

// Word reads an address or size out-parameter: 8 bytes in the wide
// profile, 4 in acl32.
func (h *Harness) Word(off uint32) uint64 {
	if h.Prof == abi.Native32 {
		return uint64(h.U32(off))
	}
	return h.U64(off)
}

// PutWords writes an array of addresses or sizes as the profile lays it
// out: 8-byte elements in the wide profile, 4-byte ones in acl32.
func (h *Harness) PutWords(off uint32, vs ...uint64) {
	if h.Prof != abi.Native32 {
		h.PutU64s(off, vs...)
		return
	}
	for i, v := range vs {
		le.PutUint32(h.Mem()[off+uint32(4*i):], uint32(v))
	}
}

// Fill writes n bytes at off, seed + 7i, and returns a copy of them.
func (h *Harness) Fill(off uint32, n int, seed byte) []byte {
	b := h.Mem()[off : off+uint32(n)]
	for i := range b {
		b[i] = seed + byte(i*7)
	}
	return append([]byte(nil), b...)
}

// Malloc allocates n device bytes on the current device.
func (h *Harness) Malloc(n uint64) uint64 {
	h.T.Helper()
	h.OK("aclrtMalloc", testsupport.OutA, n, 0)
	return h.Word(testsupport.OutA)
}

// RoundTrip copies n bytes of a pattern (Fill's, seed) from the guest's
// Data area to device memory, from there within the device (at dev+1024)
// and back to Data2, each by aclrtMemcpy, and checks the bytes arrived.
// The device buffer dev must hold 1024+n bytes.
func (h *Harness) RoundTrip(dev uint64, n int, seed byte) {
	h.T.Helper()
	want := h.Fill(testsupport.Data, n, seed)
	h.OK("aclrtMemcpy", dev, uint64(n), testsupport.Data, uint64(n), uint64(acl.MemcpyHostToDevice))
	h.OK("aclrtMemcpy", dev+1024, uint64(n), dev, uint64(n), uint64(acl.MemcpyDeviceToDevice))
	h.OK("aclrtMemcpy", testsupport.Data2, uint64(n), dev+1024, uint64(n), uint64(acl.MemcpyDeviceToHost))
	require.Equal(h.T, want, h.Mem()[testsupport.Data2:testsupport.Data2+uint32(n)])
}

// Stream creates a stream of the current device.
func (h *Harness) Stream() uint64 {
	h.T.Helper()
	h.OK("aclrtCreateStream", testsupport.OutA)
	return uint64(h.U32(testsupport.OutA))
}

// Event creates an event of the current device.
func (h *Harness) Event() uint64 {
	h.T.Helper()
	h.OK("aclrtCreateEvent", testsupport.OutA)
	return uint64(h.U32(testsupport.OutA))
}

// Waitable returns an event of the current device that has been recorded
// and then reset: a wait for it is queued and lasts until its next record.
// (Natively a wait for an event never recorded is refused, 107000.) A wait
// for it followed by its record on the same stream never ends: the record
// waits behind the wait.
func (h *Harness) Waitable() uint64 {
	h.T.Helper()
	ev := h.Event()
	h.OK("aclrtRecordEvent", ev, 0)
	h.OK("aclrtResetEvent", ev, 0)
	h.OK("aclrtSynchronizeStream", 0)
	return ev
}

// BatchArgs are the guest addresses of a batch's arrays (Batch).
type BatchArgs struct{ Dsts, DestMaxs, Srcs, Sizes, Attrs, Idx, Fail uint64 }

// Batch lays out a batch in guest memory and returns the pointers. Arrays
// are laid out as the harness's profile has them: 8-byte elements, 4-byte
// ones in acl32.
func (h *Harness) Batch(dsts, srcs, sizes []uint64, attrs []acl.MemcpyBatchAttr, idx []uint64) BatchArgs {
	const base = 0x20000
	n, w := uint64(len(dsts)), uint64(8)
	if h.Prof == abi.Native32 {
		w = 4
	}
	b := BatchArgs{Dsts: base, DestMaxs: base + w*n, Srcs: base + 2*w*n, Sizes: base + 3*w*n, Attrs: base + 4*w*n}
	b.Idx = b.Attrs + uint64(32*len(attrs))
	b.Fail = b.Idx + w*uint64(len(idx))
	h.PutWords(uint32(b.Dsts), dsts...)
	h.PutWords(uint32(b.DestMaxs), sizes...)
	h.PutWords(uint32(b.Srcs), srcs...)
	h.PutWords(uint32(b.Sizes), sizes...)
	for i, a := range attrs {
		a.Encode(h.Mem()[b.Attrs+uint64(32*i):])
	}
	h.PutWords(uint32(b.Idx), idx...)
	h.PutU64s(uint32(b.Fail), 12345)
	return b
}

// H2D is a batch attribute of a host-to-device copy to device dev.
func H2D(dev uint32) acl.MemcpyBatchAttr {
	return acl.MemcpyBatchAttr{DstLoc: acl.MemLocation{ID: dev, Type: acl.MemLocationDevice}, SrcLoc: acl.MemLocation{Type: acl.MemLocationHost}}
}
