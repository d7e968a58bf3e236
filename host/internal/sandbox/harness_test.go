package sandbox_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// The tests of this package's imports drive them as a guest does, through
// the embedding API (package host) and the proxy guest, as wazero's WASI
// tests drive its imports through its runtime; sandbox.Peek and
// export_test.go show them what that API keeps inside.

func TestMain(m *testing.M) { goleak.VerifyTestMain(cleanupM{m}) }

// cleanupM removes what the tests share across cases (the test models)
// once they have run.
type cleanupM struct{ *testing.M }

func (m cleanupM) Run() int {
	defer removeSharedModels()
	return m.M.Run()
}

// testEngine is the engine the guest tests run on: wazero, or the one
// named by ACLWASM_TEST_ENGINE (CI runs the suite once per engine).
var testEngine = testsupport.Engine()

// testBackend returns the backend options of the guest tests: the default
// simulator, or the native backend over the library ACLWASM_TEST_ACL_LIB
// names (CI points it at the stand-in libascendcl.so of acl/cann).
func testBackend(t testing.TB) []host.Option {
	if b := testsupport.Native(t); b != nil {
		return []host.Option{host.WithBackend(b)}
	}
	return nil
}

// harness is one reactor instance of the proxy guest (testsupport.Proxy),
// whose exports call the imports with any arguments.
type harness struct {
	T    *testing.T
	RT   *host.Runtime
	Inst *host.Instance
	Log  []host.CallRecord
	Prof abi.Profile
	peer *harness // the harness of the case's own that bareHarness made, if any
}

var le = binary.LittleEndian

// wat2wasm compiles WebAssembly text (testsupport.WAT).
func wat2wasm(t testing.TB, src string) []byte { t.Helper(); return testsupport.WAT(t, src) }

var proxyCache = map[string][]byte{}

func newHarness(t *testing.T, p host.Policy, opts ...host.Option) *harness {
	t.Helper()
	return newHarnessIn(t, abi.Wide, p, opts...)
}

// newHarnessIn is newHarness with the proxy guest importing from the
// module of profile prof.
func newHarnessIn(t *testing.T, prof abi.Profile, p host.Policy, opts ...host.Option) *harness {
	t.Helper()
	return newHarnessCfg(t, prof, p, host.Config{}, opts...)
}

// newHarnessCfg is newHarnessIn with the instance made with cfg.
func newHarnessCfg(t *testing.T, prof abi.Profile, p host.Policy, cfg host.Config, opts ...host.Option) *harness {
	t.Helper()
	h := &harness{T: t, Prof: prof}
	ctx := context.Background()
	opts = append(append(testBackend(t), host.WithEngine(testEngine), host.WithTrace(func(r host.CallRecord) { h.Log = append(h.Log, r) })), opts...)
	rt, err := host.NewRuntime(ctx, opts...)
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

// sessOf returns the session of inst.
func sessOf(inst *host.Instance) *sandbox.Session { s, _, _ := sandbox.Peek(inst); return s }

// memOf returns the linear memory of inst as the engine holds it now:
// writes to it are the guest's.
func memOf(inst *host.Instance) []byte { _, _, m := sandbox.Peek(inst); return m }

// shared returns what the sessions of the harness's runtime share.
func (h *harness) shared() *sandbox.Shared { _, sh, _ := sandbox.Peek(h.RT); return sh }

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

// mem returns the guest's linear memory (memOf).
func (h *harness) Mem() []byte { return memOf(h.Inst) }

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

const sizeMax = math.MaxUint64

// newRuntime is a runtime on the test engine and backend, closed at the
// test's end.
func newRuntime(t *testing.T, opts ...host.Option) *host.Runtime {
	t.Helper()
	rt, err := host.NewRuntime(context.Background(), append(append(testBackend(t), host.WithEngine(testEngine)), opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(context.Background())) })
	return rt
}

// load loads wasm under p, closed at the test's end.
func load(t *testing.T, rt *host.Runtime, wasm []byte, p host.Policy) *host.Plugin {
	t.Helper()
	pl, err := rt.Load(context.Background(), wasm, p)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pl.Close(context.Background())) })
	return pl
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

// cstr writes s and a NUL at off in guest memory and returns off.
func (h *harness) CStr(off uint32, s string) uint64 {
	h.PutStr(off, s)
	return uint64(off)
}

// nnProfiles runs f on a harness of each profile, device 0 current.
func nnProfiles(t *testing.T, f func(t *testing.T, h *harness)) {
	for _, prof := range abi.Profiles {
		t.Run(prof.Module(), func(t *testing.T) {
			h := newHarnessIn(t, prof, host.Policy{})
			h.OK("aclrtSetDevice", 0)
			f(t, h)
		})
	}
}

// hexs is v in hex without a prefix, as messages show addresses after "0x".
func hexs(v uint64) string { return strconv.FormatUint(v, 16) }

// freeMem returns the free device memory of each device of rt's backend.
func freeMem(t *testing.T, rt *host.Runtime) []uint64 {
	t.Helper()
	var out []uint64
	for d := 0; d < rt.Backend().DeviceCount(); d++ {
		free, _, err := rt.Backend().MemInfo(int32(d), acl.HBMMem)
		require.NoError(t, err)
		out = append(out, free)
	}
	return out
}

// recentMsg reads the message aclGetRecentErrMsg gives the guest ("" for
// none).
func (h *harness) RecentMsg() string {
	h.T.Helper()
	n := h.Call("aclGetRecentErrMsg", outC, 1024)
	if n <= 0 {
		return ""
	}
	return string(h.Mem()[outC : outC+uint32(n)])
}

// series returns the series of metric name that reg holds, keyed by their
// labels ("[function=aclnnAdd outcome=ok plugin=]"): a histogram's sample
// count, a gauge's or a counter's value.
func series(t *testing.T, reg prometheus.Gatherer, name string) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	out := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, mt := range mf.GetMetric() {
			var labels []string
			for _, l := range mt.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			v := mt.GetGauge().GetValue() + mt.GetCounter().GetValue() + float64(mt.GetHistogram().GetSampleCount())
			out[fmt.Sprint(labels)] = v
		}
	}
	return out
}
