package sandbox_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/x448/float16"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
)

// aclrtRandomNumAsync of ABI v1.3 section 15.

func init() { orderCases["aclrtRandomNumAsync"] = randomOrderCases }

// taskAt is where the tests write their aclrtRandomNumTaskInfo.
const taskAt = 0x2000

// rtask is a task as a test writes it: params by value (isAddr 0).
type rtask struct {
	dt                        acl.DataType
	fn                        acl.RandomFunc
	p1, p2                    uint64 // values' bits
	size1, size2              uint8  // their sizes (0: the type's)
	para, result, counter     uint64
	seedSize, numSize, isAddr uint8 // 0: 8; isAddr applies to the count
	num                       uint64
}

// put writes t at taskAt in the profile's layout.
func (h *harness) putTask(t rtask) {
	ptr := int(h.Prof.Width(abi.Addr))
	b := h.Mem()[taskAt : taskAt+acl.RandomTaskSize(ptr)]
	clear(b)
	le := binary.LittleEndian
	le.PutUint32(b[0:], uint32(t.dt))
	le.PutUint32(b[4:], uint32(t.fn))
	param := func(o int, v uint64, size, isAddr uint8) {
		b[o] = isAddr
		le.PutUint64(b[o+1:], v)
		b[o+9] = size
	}
	sz := func(s uint8) uint8 {
		if s == 0 {
			return uint8(t.dt.Size())
		}
		return s
	}
	param(8, t.p1, sz(t.size1), 0)
	param(24, t.p2, sz(t.size2), 0)
	word := func(o int, v uint64) {
		if ptr == 4 {
			le.PutUint32(b[o:], uint32(v))
		} else {
			le.PutUint64(b[o:], v)
		}
	}
	word(40, t.para)
	word(40+ptr, t.result)
	word(40+2*ptr, t.counter)
	eight := func(s uint8) uint8 {
		if s == 0 {
			return 8
		}
		return s
	}
	param(40+3*ptr, 42, eight(t.seedSize), 0)
	param(56+3*ptr, t.num, eight(t.numSize), t.isAddr)
}

func (h *harness) random(t rtask, stream uint64) acl.Error {
	h.putTask(t)
	return h.rc("aclrtRandomNumAsync", taskAt, stream, 0)
}

// neg5 is int64(-5)'s bits.
var neg5 = func() uint64 { v := int64(-5); return uint64(v) }()

// randomSays runs t on the default stream and requires the message to
// name what failed (several steps share 107000).
func (h *harness) randomSays(t rtask, what string) acl.Error {
	h.T.Helper()
	code := h.random(t, 0)
	require.Contains(h.T, h.Inst.Session().LastError(), what)
	return code
}

func f32bits(v float32) uint64 { return uint64(math.Float32bits(v)) }

// uniform is a valid float uniform task over [e.dev, +4 numbers).
func uniform(e orderEnv) rtask {
	return rtask{dt: acl.DTFloat, fn: acl.RandomUniform, p1: f32bits(0), p2: f32bits(1), result: e.dev, counter: e.dev2, num: 4}
}

var randomOrderCases = map[string]orderCase{
	"taskInfo": {run: func(h *harness) acl.Error { return h.rc("aclrtRandomNumAsync", 0, 999, 8) }},
	"type":     {run: func(h *harness) acl.Error { return h.random(rtask{dt: acl.DTInt8}, 999) }},
	"writeback": {run: func(h *harness) acl.Error {
		code := h.random(rtask{dt: acl.DTFloat16, fn: 99}, 999)
		require.Equal(h.T, uint32(5), h.U32(taskAt), "RT_RANDOM_NUM_DATATYPE_FP16 over ACL_FLOAT16")
		// The same task again: 5 is ACL_INT16 now, which the map lacks.
		require.Equal(h.T, acl.ErrInvalidParam, h.rc("aclrtRandomNumAsync", taskAt, 999, 0))
		if h.generates() {
			require.Equal(h.T, acl.ErrRTInvalidHandle, code)
		} else {
			require.Equal(h.T, acl.ErrRTFeatureNotSupport, code, "the native backend: after the writeback")
		}
		return acl.Success
	}},
	"feature": {run: func(h *harness) acl.Error {
		return bareHarness(h).random(rtask{dt: acl.DTFloat}, 999)
	}},
	"stream": {run: func(h *harness) acl.Error {
		h = simHarness(h, host.Policy{})
		return h.random(rtask{dt: acl.DTFloat, fn: 99}, 999)
	}},
	"reserve": {run: func(h *harness) acl.Error {
		h = simHarness(h, host.Policy{})
		h.putTask(rtask{dt: acl.DTFloat})
		return h.rc("aclrtRandomNumAsync", taskAt, 0, 8)
	}},
	"context": {run: func(h *harness) acl.Error {
		h = simHarness(h, host.Policy{})
		return h.random(rtask{dt: acl.DTFloat, fn: 99}, 0)
	}},
	"streamctx": {run: func(h *harness) acl.Error {
		h = simHarness(h, host.Policy{})
		e := setupOrder(h)
		return h.random(rtask{dt: acl.DTFloat, fn: 99}, e.s1)
	}},
	"func": {run: func(h *harness) acl.Error {
		h = simHarness(h, host.Policy{})
		e := setupOrder(h)
		return h.random(rtask{dt: acl.DTFloat, fn: 4}, e.s)
	}},
	"functype": {run: func(h *harness) acl.Error {
		h = simHarness(h, host.Policy{})
		e := setupOrder(h)
		t := uniform(e)
		t.dt, t.fn = acl.DTInt32, acl.RandomNormal
		t.counter = 0
		return h.randomSays(t, "dataType")
	}},
	"counter": {run: func(h *harness) acl.Error {
		h = simHarness(h, host.Policy{})
		e := setupOrder(h)
		t := uniform(e)
		t.counter, t.result = 0, 0
		return h.randomSays(t, "randomCounterAddr")
	}},
	"result": {run: func(h *harness) acl.Error {
		h = simHarness(h, host.Policy{})
		e := setupOrder(h)
		t := uniform(e)
		t.result, t.seedSize = 0, 9
		return h.randomSays(t, "randomResultAddr")
	}},
	"seed": {run: func(h *harness) acl.Error {
		h = simHarness(h, host.Policy{})
		e := setupOrder(h)
		t := uniform(e)
		t.seedSize, t.numSize = 9, 9
		return h.randomSays(t, "randomSeed")
	}},
	"num": {run: func(h *harness) acl.Error {
		h = simHarness(h, host.Policy{})
		e := setupOrder(h)
		t := uniform(e)
		t.numSize, t.size1 = 9, 9
		return h.randomSays(t, "randomNum")
	}},
	"params": {run: func(h *harness) acl.Error {
		h = simHarness(h, host.Policy{})
		e := setupOrder(h)
		t := uniform(e)
		t.size2 = 5 // max: more than a float's 4 bytes
		require.Equal(h.T, acl.ErrRTParamInvalid, h.randomSays(t, "max"))
		t.dt, t.fn, t.p1, t.p2 = acl.DTFloat16, acl.RandomNormal, 0, 0x3c00
		t.size1, t.size2 = 3, 3 // more than a float16's 2 bytes: mean first
		return h.randomSays(t, "mean")
	}},
	"addr": {run: func(h *harness) acl.Error {
		h = simHarness(h, host.Policy{})
		e := setupOrder(h)
		t := uniform(e)
		t.isAddr = 1
		return h.random(t, 0)
	}},
	"range": {run: func(h *harness) acl.Error {
		h = simHarness(h, host.Policy{})
		e := setupOrder(h)
		t := uniform(e)
		t.num = 1025 // 4100 bytes: past the 4096-byte allocation
		require.Equal(h.T, acl.ErrRTParamInvalid, h.random(t, 0))
		t.num, t.para = 4, data
		require.Equal(h.T, acl.ErrRTParamInvalid, h.random(t, 0), "randomParaAddr in guest memory")
		t.para, t.counter = 0, e.dev2+4088
		return h.random(t, 0)
	}},
	"bytes": {policy: host.Policy{MaxCallBytes: 8}, run: func(h *harness) acl.Error {
		h = simHarness(h, host.Policy{MaxCallBytes: 8})
		e := setupOrder(h)
		return h.random(uniform(e), 0)
	}},
	"queue": {policy: host.Policy{MaxQueued: 2}, run: func(h *harness) acl.Error {
		h = simHarness(h, host.Policy{MaxQueued: 2})
		e := setupOrder(h)
		release := h.gate(e.s)
		defer release()
		require.Equal(h.T, acl.Success, h.random(uniform(e), e.s))
		return h.random(uniform(e), e.s)
	}},
}

// simHarness returns h, or where h's backend does not generate random
// numbers (a native library without aclrtRandomNumAsync: 207000 at the
// "feature" step),
// a harness of the case's own over the simulator with policy p (the case's), so that
// the later steps are checked on the simulator in every configuration.
func simHarness(h *harness, p host.Policy) *harness {
	h.T.Helper()
	if h.generates() {
		return h
	}
	b := sim.New()
	h.T.Cleanup(func() { b.Close() })
	h2 := newHarnessCfg(h.T, h.Prof, p, host.Config{}, host.WithBackend(b))
	h.peer = h2
	return h2
}

// generates reports whether the harness's backend generates random numbers:
// the simulator, and the native backend where its library has
// aclrtRandomNumAsync (else 207000).
func (h *harness) generates() bool {
	b := h.RT.Backend()
	comp := b.Traits().Computer != nil
	gen := b.Traits().RandomGenerator != nil
	return comp || gen && b.Supports("aclrtRandomNumAsync")
}

// draw runs task t on the default stream and returns the result's bytes.
func (h *harness) draw(t rtask, n int) []byte {
	h.T.Helper()
	require.Equal(h.T, acl.Success, h.random(t, 0), h.Inst.Session().LastError())
	h.OK("aclrtSynchronizeStream", 0)
	h.OK("aclrtMemcpy", data, uint64(n), t.result, uint64(n), 2)
	return append([]byte(nil), h.Mem()[data:data+uint32(n)]...)
}

// TestRandomNumAsync checks each distribution's range and moments loosely
// (bounds many standard errors wide: a correct generator fails them with
// negligible probability), in both profiles.
func TestRandomNumAsync(t *testing.T) {
	const n = 4096
	for _, prof := range []abi.Profile{abi.Wide, abi.Native32} {
		h := newHarnessIn(t, prof, host.Policy{})
		h.OK("aclrtSetDevice", 0)
		res, ctr, para := h.Malloc(8*n), h.Malloc(16), h.Malloc(16)
		if !h.generates() {
			require.Equal(t, acl.ErrRTFeatureNotSupport, h.random(rtask{dt: acl.DTFloat, fn: acl.RandomUniform, result: res, counter: ctr, num: n}, 0))
			continue
		}
		le := binary.LittleEndian
		stats := func(vs []float64) (mean, sd, lo, hi float64) {
			lo, hi = math.Inf(1), math.Inf(-1)
			for _, v := range vs {
				mean += v
				lo, hi = min(lo, v), max(hi, v)
			}
			mean /= float64(len(vs))
			for _, v := range vs {
				sd += (v - mean) * (v - mean)
			}
			return mean, math.Sqrt(sd / float64(len(vs))), lo, hi
		}
		// Uniform float32 in [-2, 6): mean 2, sd 8/sqrt(12).
		b := h.draw(rtask{dt: acl.DTFloat, fn: acl.RandomUniform, p1: f32bits(-2), p2: f32bits(6), result: res, counter: ctr, para: para, num: n}, 4*n)
		var vs []float64
		for i := 0; i < 4*n; i += 4 {
			vs = append(vs, float64(math.Float32frombits(le.Uint32(b[i:]))))
		}
		m, sd, lo, hi := stats(vs)
		require.InDelta(t, 2, m, 0.3)
		require.InDelta(t, 8/math.Sqrt(12), sd, 0.2)
		require.GreaterOrEqual(t, lo, -2.0)
		require.LessOrEqual(t, hi, 6.0)
		h.OK("aclrtMemcpy", data, 16, para, 16, 2)
		require.Equal(t, f32bits(-2), h.U64(data), "the runtime writes the parameters to randomParaAddr")
		require.Equal(t, f32bits(6), h.U64(data+8))
		// Uniform int64 in [-5, 5): every value, none outside.
		b = h.draw(rtask{dt: acl.DTInt64, fn: acl.RandomUniform, p1: neg5, p2: 5, result: res, counter: ctr, num: n}, 8*n)
		seen := map[int64]int{}
		for i := 0; i < 8*n; i += 8 {
			seen[int64(le.Uint64(b[i:]))]++
		}
		require.Len(t, seen, 10)
		for v := range seen {
			require.True(t, v >= -5 && v < 5, "%d", v)
		}
		// Normal float16, mean 1 sd 0.5; truncated: within 2 sd.
		for _, fn := range []acl.RandomFunc{acl.RandomNormal, acl.RandomTruncNormal} {
			b = h.draw(rtask{dt: acl.DTFloat16, fn: fn, p1: uint64(float16.Fromfloat32(1).Bits()), p2: uint64(float16.Fromfloat32(0.5).Bits()), result: res, counter: ctr, num: n}, 2*n)
			vs = vs[:0]
			for i := 0; i < 2*n; i += 2 {
				vs = append(vs, float64(float16.Frombits(le.Uint16(b[i:])).Float32()))
			}
			m, sd, lo, hi = stats(vs)
			require.InDelta(t, 1, m, 0.05, "%v", fn)
			if fn == acl.RandomNormal {
				require.InDelta(t, 0.5, sd, 0.05)
				require.Less(t, lo, 0.0, "a normal sample of 4096 reaches beyond 2 sd")
			} else {
				require.InDelta(t, 0.44, sd, 0.05) // sd of a normal truncated at 2 sd: 0.88 of sd
				require.GreaterOrEqual(t, lo, 0.0)
				require.LessOrEqual(t, hi, 2.0)
			}
		}
		// Dropout bitmask, ratio 0.25: n bits, about 3/4 set; bits past n clear.
		b = h.draw(rtask{dt: acl.DTFloat, fn: acl.RandomDropoutBitmask, p1: f32bits(0.25), result: res, counter: ctr, num: n - 3}, n/8)
		ones := 0
		for _, x := range b {
			for ; x != 0; x &= x - 1 {
				ones++
			}
		}
		require.InDelta(t, 0.75*(n-3), float64(ones), 150)
		require.Zero(t, b[n/8-1]>>5, "the 3 bits past randomNum stay clear")
	}
}

// TestRandomNumAsyncRepeats: with deterministic clocks two runs draw the
// same numbers; without them two sessions differ.
func TestRandomNumAsyncRepeats(t *testing.T) {
	run := func(det bool) []byte {
		h := newHarnessCfg(t, abi.Wide, host.Policy{}, host.Config{DeterministicClocks: det})
		h.OK("aclrtSetDevice", 0)
		res, ctr := h.Malloc(64), h.Malloc(16)
		if !h.generates() {
			return nil
		}
		task := rtask{dt: acl.DTUint32, fn: acl.RandomUniform, p1: 0, p2: math.MaxUint32, result: res, counter: ctr, num: 8}
		a := h.draw(task, 32)
		s := h.Stream()
		require.Equal(t, acl.Success, h.random(task, s))
		h.OK("aclrtSynchronizeStream", s)
		return append(a, h.draw(task, 32)...)
	}
	a, b := run(false), run(false)
	if a == nil {
		return
	}
	require.NotEqual(t, a, b, "sessions draw from generators of their own")
	if testEngine != "wazero" {
		return // deterministic clocks are wazero's (TestDeterministicClocks)
	}
	require.Equal(t, run(true), run(true))
}
