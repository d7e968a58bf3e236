package host

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// testEngine is the engine the guest tests run on: wazero, or the one
// named by ACLWASM_TEST_ENGINE (CI runs the suite once per engine).
var testEngine = testsupport.Engine()

// testBackend returns the backend options of the guest tests: the default
// simulator, or the native backend over the library ACLWASM_TEST_ACL_LIB
// names (CI points it at the stand-in libascendcl.so of acl/cann).
func testBackend(t testing.TB) []Option {
	if b := testsupport.Native(t); b != nil {
		return []Option{WithBackend(b)}
	}
	return nil
}

var le = binary.LittleEndian

// wat2wasm compiles WebAssembly text (testsupport.WAT).
func wat2wasm(t testing.TB, src string) []byte { t.Helper(); return testsupport.WAT(t, src) }

// proxyWAT is the proxy guest's text (testsupport.ProxyWAT) with extra
// module fields.
func proxyWAT(pages int, extra string) string { return testsupport.ProxyWAT(abi.Wide, pages, extra) }

// proxyWATIn is proxyWAT importing from the module of profile prof, with
// its wire types.
func proxyWATIn(prof abi.Profile, pages int, extra string) string {
	return testsupport.ProxyWAT(prof, pages, extra)
}

// harness is one reactor instance of the proxy guest.
type harness struct {
	T    *testing.T
	RT   *Runtime
	Inst *Instance
	Log  []CallRecord
	Prof abi.Profile
}

var proxyCache = map[string][]byte{}

func newHarness(t *testing.T, p Policy, opts ...Option) *harness {
	t.Helper()
	return newHarnessIn(t, abi.Wide, p, opts...)
}

// newHarnessIn is newHarness with the proxy guest importing from the
// module of profile prof.
func newHarnessIn(t *testing.T, prof abi.Profile, p Policy, opts ...Option) *harness {
	t.Helper()
	return newHarnessCfg(t, prof, p, Config{}, opts...)
}

// newHarnessCfg is newHarnessIn with the instance made with cfg.
func newHarnessCfg(t *testing.T, prof abi.Profile, p Policy, cfg Config, opts ...Option) *harness {
	t.Helper()
	h := &harness{T: t, Prof: prof}
	ctx := context.Background()
	opts = append(append(testBackend(t), WithEngine(testEngine), WithTrace(func(r CallRecord) { h.Log = append(h.Log, r) })), opts...)
	rt, err := NewRuntime(ctx, opts...)
	require.NoError(t, err)
	h.RT = rt
	key := "" // the wide proxy, which other tests load too
	if prof != abi.Wide {
		key = prof.Module()
	}
	wasm, ok := proxyCache[key]
	if !ok {
		wasm = testsupport.Proxy(prof, 4)
		proxyCache[key] = wasm
	}
	pl, err := rt.Load(ctx, wasm, p)
	require.NoError(t, err)
	inst, err := pl.Instantiate(ctx, cfg)
	require.NoError(t, err)
	h.Inst = inst
	t.Cleanup(func() {
		require.NoError(t, inst.Close(ctx))
		require.NoError(t, pl.Close(ctx))
		require.NoError(t, rt.Close(ctx))
	})
	return h
}

// call calls import name through the guest and returns its i32 result.
func (h *harness) Call(name string, args ...uint64) int32 {
	h.T.Helper()
	res, err := h.Inst.Call(context.Background(), name, args...)
	require.NoError(h.T, err, name)
	return int32(uint32(res[0]))
}

// ok calls and requires success.
func (h *harness) OK(name string, args ...uint64) {
	h.T.Helper()
	require.Zero(h.T, h.Call(name, args...), "%s: %s", name, h.Inst.Session().LastError())
}

// code calls and requires the native error code, returning the message.
func (h *harness) Code(want acl.Error, name string, args ...uint64) string {
	h.T.Helper()
	got := acl.Error(h.Call(name, args...))
	msg := h.Inst.Session().LastError()
	require.Equal(h.T, want, got, "%s: %s", name, msg)
	return msg
}

func (h *harness) Mem() []byte { return h.Inst.inst.Memory() }

func (h *harness) U64(off uint32) uint64 { return binary.LittleEndian.Uint64(h.Mem()[off:]) }
func (h *harness) U32(off uint32) uint32 { return binary.LittleEndian.Uint32(h.Mem()[off:]) }

func (h *harness) PutU64s(off uint32, vs ...uint64) {
	for i, v := range vs {
		binary.LittleEndian.PutUint64(h.Mem()[off+uint32(8*i):], v)
	}
}

// Scratch addresses in guest memory used by the tests.
const (
	outA  = 0x100
	outB  = 0x108
	outC  = 0x110
	data  = 0x1000
	data2 = 0x9000
)

// word reads an address or size out-parameter: 8 bytes in the wide
// profile, 4 in acl32.
func (h *harness) Word(off uint32) uint64 {
	if h.Prof == abi.Native32 {
		return uint64(h.U32(off))
	}
	return h.U64(off)
}

// putWords writes an array of addresses or sizes as the profile lays it
// out: 8-byte elements in the wide profile, 4-byte ones in acl32.
func (h *harness) PutWords(off uint32, vs ...uint64) {
	if h.Prof != abi.Native32 {
		h.PutU64s(off, vs...)
		return
	}
	for i, v := range vs {
		binary.LittleEndian.PutUint32(h.Mem()[off+uint32(4*i):], uint32(v))
	}
}

// malloc allocates n device bytes on the current device.
func (h *harness) Malloc(n uint64) uint64 {
	h.T.Helper()
	h.OK("aclrtMalloc", outA, n, 0)
	return h.Word(outA)
}

func (h *harness) Stream() uint64 {
	h.T.Helper()
	h.OK("aclrtCreateStream", outA)
	return uint64(h.U32(outA))
}

func (h *harness) Event() uint64 {
	h.T.Helper()
	h.OK("aclrtCreateEvent", outA)
	return uint64(h.U32(outA))
}

func (h *harness) Fill(off uint32, n int, seed byte) []byte {
	b := h.Mem()[off : off+uint32(n)]
	for i := range b {
		b[i] = seed + byte(i*7)
	}
	return append([]byte(nil), b...)
}

// batchArgs lays out a batch in guest memory and returns the pointers.
type batchArgs struct{ Dsts, DestMaxs, Srcs, Sizes, Attrs, Idx, Fail uint64 }

// Arrays are laid out as the harness's profile has them: 8-byte elements,
// 4-byte ones in acl32.
func (h *harness) Batch(dsts, srcs, sizes []uint64, attrs []acl.MemcpyBatchAttr, idx []uint64) batchArgs {
	const base = 0x20000
	n, w := uint64(len(dsts)), uint64(8)
	if h.Prof == abi.Native32 {
		w = 4
	}
	b := batchArgs{Dsts: base, DestMaxs: base + w*n, Srcs: base + 2*w*n, Sizes: base + 3*w*n, Attrs: base + 4*w*n}
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

func h2d(dev uint32) acl.MemcpyBatchAttr {
	return acl.MemcpyBatchAttr{DstLoc: acl.MemLocation{ID: dev, Type: acl.MemLocationDevice}, SrcLoc: acl.MemLocation{Type: acl.MemLocationHost}}
}

// Guest scratch of the operator benchmarks (compute_bench_test.go), as
// the sandbox's operator tests lay it out: dims and storage dims of a
// tensor, the values of arrays, and a two-phase call's out-parameters.
const (
	nnDims    = 0x2000
	nnStorage = 0x2200
	nnValues  = 0x2300
	nnWS      = 0x2400 // uint64_t workspaceSize
	nnEx      = 0x2408 // aclOpExecutor *
)

func (h *harness) PutI64s(off uint32, vs ...int64) {
	for i, v := range vs {
		le.PutUint64(h.Mem()[off+uint32(8*i):], uint64(v))
	}
}

// waitable returns an event of the current device that has been recorded
// and then reset: a wait for it is queued and lasts until its next record.
// (Natively a wait for an event never recorded is refused, 107000.) A wait
// for it followed by its record on the same stream never ends: the record
// waits behind the wait.
func (h *harness) Waitable() uint64 {
	h.T.Helper()
	ev := h.Event()
	h.OK("aclrtRecordEvent", ev, 0)
	h.OK("aclrtResetEvent", ev, 0)
	h.OK("aclrtSynchronizeStream", 0)
	return ev
}

// Guest scratch of the model benchmarks and tests: a model name, the
// data buffers of a dataset (16 bytes apart), as package sandbox's model
// tests lay it out.
const (
	mdlName = 0x2000
	mdlBufs = 0x2a00
)
