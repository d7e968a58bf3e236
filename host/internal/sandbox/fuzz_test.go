package sandbox_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// The fuzz targets (this file, fuzz_families_test.go, fuzz_diff_test.go)
// share one player: a fuzz input is a sequence of host calls, each a
// function picked from the target's family and arguments biased towards
// values that matter (addresses the session handed out, handles, prepared
// batch arrays, sizes near the edges), interleaved with scribbles on guest
// memory. Whatever the guest passes, no call may hit a host bug
// (ACL_ERROR_INTERNAL_ERROR is what invoke turns a panic into), and closing
// the session must return the device's accounting to its baseline. Seed
// corpora live in testdata/fuzz/FuzzX; `go test` runs them, `make fuzz`
// fuzzes every target for a while.

// FuzzImports drives a fresh session with arbitrary sequences of calls to
// any import, without preparing anything first.
func FuzzImports(f *testing.F) {
	f.Add([]byte{0, 18, 0, 0, 0, 0, 0, 0, 0, 0, 28, 1, 16, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte("\x12\x00\x1c\x01\x10\x00\x00\x00\x20\x00\x00\x00\x00\x00\x21\x02\x10\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Add(make([]byte, 64))
	e := newFuzzEnv(f, fuzzPolicy, append(proxytest.Backend(f), host.WithEngine(testEngine)))
	f.Fuzz(func(t *testing.T, data []byte) { e.play(t, data, fuzzAll) })
}

// fuzzPolicy is what fuzzed sessions run under: small quotas, so that short
// sequences reach every limit, and a short timeout for the sequences that
// wait for a record nobody makes (of an event reset after its record).
var fuzzPolicy = host.Policy{DeviceMemory: 1 << 20, MaxAllocations: 8, MaxStreams: 4, MaxEvents: 4, MaxRegistrations: 4, MaxQueued: 16, PinnedMemory: 1 << 16, Timeout: 300 * time.Millisecond}

// maxFuzzCalls bounds the calls one input makes.
const maxFuzzCalls = 32

// fuzzFamily is the part of the ABI a target fuzzes.
type fuzzFamily struct {
	funcs []int // indexes into abi.Funcs
	// prepare makes the session ready for the family first: a device,
	// allocations, a pinned range, a stream and an event, batch arrays,
	// a descriptor and offset slots.
	prepare bool
	// untimed makes finite timeouts (timeoutMs) at least a minute, longer
	// than the policy's: whether a short one expires depends on timing.
	untimed bool
}

// fuzzAll is every import, on a fresh session.
var fuzzAll = fuzzFamily{funcs: funcsOf()}

// funcsOf returns the indexes of the functions of the groups (every
// function when none is given).
func funcsOf(groups ...abi.Group) []int {
	var out []int
	for i, f := range abi.Funcs {
		if len(groups) == 0 || slices.Contains(groups, f.Group) {
			out = append(out, i)
		}
	}
	return out
}

// fuzzEnv is a runtime and the proxy guest loaded in it, kept across the
// inputs of one fuzz target: each input gets a new session.
type fuzzEnv struct {
	rt    *host.Runtime
	pl    *host.Plugin
	prof  abi.Profile // the module the proxy imports from
	calls []diffCall  // the trace of the input being played
}

func newFuzzEnv(tb testing.TB, p host.Policy, opts []host.Option) *fuzzEnv {
	return newFuzzEnvIn(tb, abi.Wide, p, opts)
}

// newFuzzEnvIn is newFuzzEnv with the proxy importing from the module of
// profile prof.
func newFuzzEnvIn(tb testing.TB, prof abi.Profile, p host.Policy, opts []host.Option) *fuzzEnv {
	tb.Helper()
	ctx := context.Background()
	e := &fuzzEnv{prof: prof}
	opts = append(opts, recordCalls(&e.calls))
	rt, err := host.NewRuntime(ctx, opts...)
	require.NoError(tb, err)
	pl, err := rt.Load(ctx, testsupport.Proxy(prof, 4), p)
	require.NoError(tb, err)
	tb.Cleanup(func() {
		require.NoError(tb, pl.Close(ctx))
		require.NoError(tb, rt.Close(ctx))
	})
	e.rt, e.pl = rt, pl
	return e
}

// fuzzOutcome is what playing one input showed, for the differential target.
type fuzzOutcome struct {
	Calls     []diffCall
	TimedOut  bool // a call waited past the policy's timeout, ending the instance
	Stats     host.Stats
	LastError string
	Held      []uint64 // device bytes the session held before Close
	Memory    []byte   // guest memory once queued work finished (nil if TimedOut)
	Device    []byte   // the bytes of the session's live allocations, then
}

// Scratch in guest memory that prepare lays out (besides outA.. and data).
const (
	fzPinned = 0x10000 // a registered range of fzPinLen bytes
	fzPinLen = 0x8000
	fzBatch  = 0x20000 // batch arrays of two entries (proxytest.BatchArgs)
	fzSlots  = 0x3000  // guest copy of the offset slots
)

// play plays data on a new session of e and checks that no call hit a host
// bug and that the session released everything.
func (e *fuzzEnv) play(t *testing.T, data []byte, fam fuzzFamily) fuzzOutcome {
	t.Helper()
	ctx := context.Background()
	base := proxytest.FreeMem(t, e.rt)
	e.calls = nil
	inst, err := e.pl.Instantiate(ctx, host.Config{})
	require.NoError(t, err)
	h := &harness{Harness: &proxytest.Harness{T: t, RT: e.rt, Inst: inst, Prof: e.prof}}
	// Descriptors carry a MAC under a random key per session: a fixed one
	// makes their bytes, which a guest may copy anywhere, the same on
	// every configuration.
	proxytest.Session(inst).ZeroDescKey()
	var out fuzzOutcome
	var addrs, ptrs []uint64
	if fam.prepare {
		addrs, ptrs = fuzzPrepare(h)
	}
	r := reader{b: data}
	for n := 0; n < maxFuzzCalls && !r.done(); n++ {
		fi := fam.funcs[int(r.byte())%len(fam.funcs)]
		f := &abi.Funcs[fi]
		args := make([]uint64, len(f.Params))
		for k, p := range f.Params {
			args[k] = r.arg(p.Type, addrs, ptrs)
			if !e.prof.Is64(p.Type) {
				args[k] = uint64(uint32(args[k])) // an i32 of acl32
			}
			if fam.untimed && p.Name == "timeoutMs" && int32(args[k]) >= 0 && args[k] < 60000 {
				args[k] = 60000
			}
			if fam.untimed && p.Name == "timeout" && msTimeout[f.Name] && int32(args[k]) > 0 && args[k] < 60000 {
				args[k] = 60000 // ABI v1.2 section 12: the millisecond timeouts named timeout natively
			}
		}
		if r.byte()&1 == 0 { // scribble on guest memory now and then
			off := r.u32() % uint32(len(h.Mem())-8)
			if len(ptrs) > 0 {
				if s := r.byte(); s < 64 { // on the prepared arrays
					off = uint32(ptrs[int(s)%len(ptrs)]) + uint32(s&0x18)
				}
			}
			binary.LittleEndian.PutUint64(h.Mem()[off:], r.arg(abi.Addr, addrs, ptrs))
		}
		res, err := inst.Call(ctx, f.Name, args...)
		if errors.Is(err, host.ErrTimeout) {
			out.TimedOut = true // a wait that never ends (for the next record of a reset event, which nobody makes)
			break
		}
		if err != nil {
			t.Fatalf("%s%v: %v", f.Name, args, err)
		}
		if code := acl.Error(int32(uint32(res[0]))); code == acl.ErrInternal && f.Name != "aclGetRecentErrMsg" {
			t.Fatalf("%s%v hit a host bug: %s", f.Name, args, inst.Session().LastError())
		}
		if f.Name == "aclrtMalloc" && res[0] == 0 && uint32(args[0]) < uint32(len(h.Mem())-8) {
			addrs = append(addrs, h.Word(uint32(args[0])))
		}
	}
	s := inst.Session()
	if !out.TimedOut {
		// Let queued work finish, so that what it wrote is settled: events
		// first, which releases waits for records that will never come.
		proxytest.Session(inst).Settle(ctx)
		out.Memory = bytes.Clone(h.Mem())
		dev, err := proxytest.Session(inst).DeviceBytes(ctx) // and the device memory the session holds
		require.NoError(t, err)
		out.Device = dev
	}
	out.Stats, out.LastError = s.Stats(), s.LastError()
	for d, free := range proxytest.FreeMem(t, e.rt) {
		out.Held = append(out.Held, base[d]-free)
	}
	if err := inst.Close(ctx); err != nil && !errors.Is(err, host.ErrTimeout) {
		t.Fatalf("close: %v", err)
	}
	if got := proxytest.FreeMem(t, e.rt); !slices.Equal(got, base) {
		t.Fatalf("free device memory %v after close, %v before", got, base)
	}
	out.Calls = e.calls
	return out
}

// fuzzPrepare readies a session for the family targets and returns the
// device addresses it allocated and the guest addresses of what it laid out.
func fuzzPrepare(h *harness) (addrs, ptrs []uint64) {
	h.OK("aclrtSetDevice", 1)
	other := h.Malloc(4096) // on device 1, for peer copies
	h.OK("aclrtSetDevice", 0)
	a, b, c := h.Malloc(4096), h.Malloc(64), h.Malloc(1<<16)
	h.Fill(data, 0x2000, 3)
	h.Fill(fzPinned, fzPinLen, 9)
	h.OK("aclrtHostRegister", fzPinned, fzPinLen, 0, outB)
	h.OK("aclrtMemcpy", a, 4096, data, 4096, 1)
	h.OK("aclrtMemcpy", c, 4096, data+4096, 4096, 1)
	h.Stream()
	h.Event()
	// A genuine descriptor (at c+0xf000: a copy of 64 bytes from a to c+0x100)
	// and offset slots (at c+0xe000: the bases a and c).
	h.OK("aclrtGetMemcpyDescSize", uint64(acl.MemcpyInnerDeviceToDevice), outA)
	h.OK("aclrtSetMemcpyDesc", c+0xf000, uint64(acl.MemcpyInnerDeviceToDevice), a, c+0x100, 64, 0)
	w := proxytest.Session(h.Inst).SlotSize() // 8 bytes, 4 in acl32
	h.PutWords(fzSlots, a, c)
	h.OK("aclrtMemcpy", c+0xe000, 2*w, fzSlots, 2*w, 1)
	// Batch arrays: two host-to-device entries and one attribute.
	bt := h.Batch([]uint64{a + 64, c + 0x200}, []uint64{data, fzPinned}, []uint64{64, 128}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
	addrs = []uint64{a, b, c, other, c + 0xe000, c + 0xe000 + w, c + 0xf000}
	ptrs = []uint64{bt.Dsts, bt.DestMaxs, bt.Srcs, bt.Sizes, bt.Attrs, bt.Idx, bt.Fail, outA, fzSlots}
	return addrs, ptrs
}

// diffCall is one host call as the trace shows it.
type diffCall struct {
	Func   string
	Args   []uint64
	Result int32
	Code   acl.Error
	Msg    string
}

// recordCalls traces every host call into *calls.
func recordCalls(calls *[]diffCall) host.Option {
	return host.WithTrace(func(r host.CallRecord) {
		*calls = append(*calls, diffCall{r.Func.Name, r.Args, r.Result, r.Code, r.Msg})
	})
}

// requireSameCalls requires two traces to be equal, call by call.
func requireSameCalls(t *testing.T, a, b []diffCall) {
	t.Helper()
	for i := range min(len(a), len(b)) {
		require.Equal(t, a[i], b[i], "host call %d", i)
	}
	require.Equal(t, len(a), len(b), "number of host calls")
}

// requireSameMemory requires two snapshots of guest memory to be equal.
func requireSameMemory(t *testing.T, names [2]string, a, b []byte) {
	t.Helper()
	require.Equal(t, len(a), len(b), "guest memory size")
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("guest memory differs at %#x: %s has %#x, %s has %#x", i, names[0], a[i], names[1], b[i])
		}
	}
}

func (r *reader) u32() uint32 {
	return uint32(r.byte()) | uint32(r.byte())<<8 | uint32(r.byte())<<16 | uint32(r.byte())<<24
}

func (r *reader) u64() uint64 { return uint64(r.u32()) | uint64(r.u32())<<32 }

// arg picks a value of wire type t: mostly small or meaningful ones. addrs
// are device addresses of the session, ptrs guest addresses of prepared
// arrays.
func (r *reader) arg(t abi.Type, addrs, ptrs []uint64) uint64 {
	sel := r.byte()
	switch {
	case sel < 64:
		return uint64(sel) // small: kinds, device ids, handles, sizes
	case sel < 128 && len(addrs) > 0 && (t == abi.Addr || t == abi.Size):
		a := addrs[int(sel)%len(addrs)]
		if t == abi.Size {
			return a & 0xffff
		}
		return a + uint64(r.byte()) // inside or just past an allocation
	case sel < 128 && len(ptrs) > 0 && t == abi.Gptr:
		return ptrs[int(sel)%len(ptrs)]
	case sel < 160:
		return uint64(r.u32() % (4 << 16)) // inside (or just past) guest memory
	case sel < 176:
		return ^uint64(0) - uint64(r.byte()) // near 2^64
	case sel < 192:
		return 1<<32 + uint64(r.u32())
	}
	if t.Is64() {
		return r.u64()
	}
	return uint64(r.u32())
}

// msTimeout are the functions of ABI v1.2 section 12 whose parameter
// "timeout" is in milliseconds, which the fuzz targets' untimed families
// lengthen as they do timeoutMs.
var msTimeout = map[string]bool{"aclrtWaitAndResetNotify": true, "aclrtSynchronizeEventWithTimeout": true}
