package sandbox_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/x448/float16"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
)

// aclrtReduceAsync of ABI v1.3 section 15.

func init() {
	orderCases["aclrtReduceAsync"] = reduceOrderCases
}

// reduce calls aclrtReduceAsync(dst, src, count, kind, type, stream, NULL).
func (h *harness) reduce(dst, src, n uint64, k acl.ReduceKind, t acl.DataType, s uint64) acl.Error {
	return h.rc("aclrtReduceAsync", dst, src, n, uint64(uint32(k)), uint64(uint32(t)), s, 0)
}

const sum, f32 = acl.ReduceSum, acl.DTFloat

var reduceOrderCases = map[string]orderCase{
	"dst":     {run: func(h *harness) acl.Error { return h.reduce(0, e2dDst, 4, 99, 99, 999) }},
	"src":     {run: func(h *harness) acl.Error { return h.reduce(e2dDst, 0, 4, 99, 99, 999) }},
	"reserve": {run: func(h *harness) acl.Error { return h.rc("aclrtReduceAsync", e2dDst, e2dDst, 4, 99, 99, 999, 8) }},
	"type":    {run: func(h *harness) acl.Error { return h.reduce(e2dDst, e2dDst, 0, 99, acl.DTInt64, 999) }},
	"stream":  {run: func(h *harness) acl.Error { return h.reduce(e2dDst, e2dDst, 0, 99, f32, 999) }},
	"count0":  {run: func(h *harness) acl.Error { return h.reduce(e2dDst, e2dDst, 0, 99, f32, 0) }},
	"kind":    {run: func(h *harness) acl.Error { return h.reduce(e2dDst, e2dDst, 4, 9, f32, 0) }},
	"sum4g": {run: func(h *harness) acl.Error {
		require.Equal(h.T, acl.ErrRTContextNull, h.reduce(e2dDst, e2dDst, acl.MaxReduceSum, sum, f32, 0), "4 GiB is allowed")
		require.Equal(h.T, acl.ErrRTContextNull, h.reduce(e2dDst, e2dDst, acl.MaxReduceSum+1, acl.ReduceMax, f32, 0), "MAX has no limit")
		return h.reduce(e2dDst, e2dDst, acl.MaxReduceSum+1, sum, f32, 0)
	}},
	"context": {run: func(h *harness) acl.Error { return h.reduce(e2dDst, e2dDst, 4, sum, f32, 0) }},
	"streamctx": {run: func(h *harness) acl.Error {
		e := setupOrder(h)
		return h.reduce(e.dev, e.dev2, 4, sum, f32, e.s1)
	}},
	"equal": {run: func(h *harness) acl.Error {
		e := setupOrder(h)
		return h.reduce(e.dev, e.dev2, 4, acl.ReduceEqual, f32, 0)
	}},
	"range": {run: func(h *harness) acl.Error {
		e := setupOrder(h)
		require.Equal(h.T, acl.ErrRTParamInvalid, h.reduce(e.dev, data, 4, sum, f32, 0), "guest memory as src")
		require.Equal(h.T, acl.ErrRTParamInvalid, h.reduce(e.dev, e.dev2+4090, 8, sum, f32, 0), "src past its allocation")
		return h.reduce(e2dDst, e.dev, 4, sum, f32, 0)
	}},
	"align": {run: func(h *harness) acl.Error {
		e := setupOrder(h)
		require.Equal(h.T, acl.Success, h.reduce(e.dev+2, e.dev2+2, 4, sum, acl.DTFloat16, 0), "2 bytes is enough for float16")
		require.Equal(h.T, acl.ErrRTAddrUnaligned, h.reduce(e.dev+2, e.dev2, 4, sum, f32, 0), "dst")
		return h.reduce(e.dev, e.dev2+2, 4, sum, acl.DTInt32, 0)
	}},
	"bytes": {policy: host.Policy{MaxCallBytes: 8}, run: func(h *harness) acl.Error {
		e := setupOrder(h)
		return h.reduce(e.dev, e.dev2, 12, sum, f32, 0)
	}},
	"feature": {run: func(h *harness) acl.Error {
		b := bareHarness(h)
		p := b.Malloc(64)
		return b.reduce(p, p+32, 4, sum, f32, 0)
	}},
	"queue": {policy: host.Policy{MaxQueued: 2}, run: func(h *harness) acl.Error {
		e := setupOrder(h)
		release := h.gate(e.s)
		defer release()
		require.Equal(h.T, acl.Success, h.reduce(e.dev, e.dev2, 4, sum, f32, e.s))
		return h.reduce(e.dev, e.dev2, 4, sum, f32, e.s)
	}},
}

// refReduce computes a reduce element by element from the values, not
// the bytes' arithmetic of package acl: float64 then one rounding for the
// floats (exact for float32 sums of float16 values), math/big-free
// integer arithmetic with explicit wrap-around.
func refReduce(t *testing.T, k acl.ReduceKind, dt acl.DataType, dst, src []byte) []byte {
	out := append([]byte(nil), dst...)
	le := binary.LittleEndian
	pick := func(d, s float64) float64 {
		switch k {
		case acl.ReduceMax:
			if math.IsNaN(d) || math.IsNaN(s) {
				return math.NaN()
			}
			return math.Max(d, s)
		case acl.ReduceMin:
			if math.IsNaN(d) || math.IsNaN(s) {
				return math.NaN()
			}
			return math.Min(d, s)
		}
		return d + s
	}
	switch dt {
	case acl.DTFloat:
		for i := 0; i+4 <= len(out); i += 4 {
			d, s := float64(math.Float32frombits(le.Uint32(out[i:]))), float64(math.Float32frombits(le.Uint32(src[i:])))
			le.PutUint32(out[i:], math.Float32bits(float32(pick(d, s))))
		}
	case acl.DTFloat16:
		for i := 0; i+2 <= len(out); i += 2 {
			d, s := float64(float16.Frombits(le.Uint16(out[i:])).Float32()), float64(float16.Frombits(le.Uint16(src[i:])).Float32())
			le.PutUint16(out[i:], float16.Fromfloat32(float32(pick(d, s))).Bits())
		}
	case acl.DTInt32:
		for i := 0; i+4 <= len(out); i += 4 {
			d, s := int32(le.Uint32(out[i:])), int32(le.Uint32(src[i:]))
			v := int32(pick(float64(d), float64(s)))
			if k == acl.ReduceSum {
				v = d + s // wraps
			}
			le.PutUint32(out[i:], uint32(v))
		}
	case acl.DTUint8:
		for i := range out {
			d, s := out[i], src[i]
			switch k {
			case acl.ReduceMax:
				out[i] = max(d, s)
			case acl.ReduceMin:
				out[i] = min(d, s)
			default:
				out[i] = d + s
			}
		}
	case acl.DTInt8:
		for i := range out {
			d, s := int8(out[i]), int8(src[i])
			switch k {
			case acl.ReduceMax:
				out[i] = byte(max(d, s))
			case acl.ReduceMin:
				out[i] = byte(min(d, s))
			default:
				out[i] = byte(d + s)
			}
		}
	default:
		t.Fatalf("no reference for %v", dt)
	}
	return out
}

// reduceData returns n bytes of values of type dt that exercise the
// arithmetic: signs, NaN, overflow to infinity, integer wrap-around.
func reduceData(dt acl.DataType, n int, seed int) []byte {
	b := make([]byte, n)
	le := binary.LittleEndian
	switch dt {
	case acl.DTFloat:
		vals := []float32{1.5, -2.25, 3e38, float32(math.NaN()), 0, 0.5, 1e-30, 7}
		for i := 0; i+4 <= n; i += 4 {
			le.PutUint32(b[i:], math.Float32bits(vals[(i/4+seed)%len(vals)]*float32(1+seed)))
		}
	case acl.DTFloat16:
		vals := []float32{1.5, -2.25, 60000, float32(math.NaN()), 0, 0.0001, 1024.5, -7}
		for i := 0; i+2 <= n; i += 2 {
			le.PutUint16(b[i:], float16.Fromfloat32(vals[(i/2+seed)%len(vals)]).Bits())
		}
	default:
		for i := range b {
			b[i] = byte(i*37 + seed*101 + 0x7d)
		}
	}
	return b
}

// TestReduceAsync checks aclrtReduceAsync against refReduce, in both
// profiles, for the kinds, several types and sizes (a trailing part of an
// element stays), and with src and dst overlapping (src is read as it was).
func TestReduceAsync(t *testing.T) {
	type tc struct {
		k       acl.ReduceKind
		dt      acl.DataType
		n       int
		overlap int // dst = src + overlap bytes, in one allocation (0: separate)
	}
	var cases []tc
	for _, k := range []acl.ReduceKind{acl.ReduceSum, acl.ReduceMax, acl.ReduceMin} {
		for _, dt := range []acl.DataType{acl.DTFloat, acl.DTFloat16, acl.DTInt32, acl.DTInt8, acl.DTUint8} {
			cases = append(cases, tc{k, dt, 64, 0}, tc{k, dt, 4099, 0})
		}
	}
	cases = append(cases, tc{acl.ReduceSum, acl.DTFloat, 64, 8}, tc{acl.ReduceSum, acl.DTInt32, 64, -8})
	for _, prof := range []abi.Profile{abi.Wide, abi.Native32} {
		h := newHarnessIn(t, prof, host.Policy{})
		h.OK("aclrtSetDevice", 0)
		s := h.Stream()
		for _, c := range cases {
			srcB, dstB := reduceData(c.dt, c.n, 1), reduceData(c.dt, c.n, 2)
			var dst, src uint64
			base := h.Malloc(uint64(c.n + 64))
			if c.overlap != 0 {
				src = base + 16
				dst = uint64(int64(src) + int64(c.overlap))
				// One buffer: dst's view is what src's bytes leave there.
				all := reduceData(c.dt, c.n+64, 3)
				copy(h.Mem()[data:], all)
				h.OK("aclrtMemcpy", base, uint64(c.n+64), data, uint64(c.n+64), 1)
				srcB = append([]byte(nil), all[16:16+c.n]...)
				dstB = append([]byte(nil), all[int(dst-base):int(dst-base)+c.n]...)
			} else {
				src, dst = base, h.Malloc(uint64(c.n))
				copy(h.Mem()[data:], srcB)
				h.OK("aclrtMemcpy", src, uint64(c.n), data, uint64(c.n), 1)
				copy(h.Mem()[data:], dstB)
				h.OK("aclrtMemcpy", dst, uint64(c.n), data, uint64(c.n), 1)
			}
			require.Equal(t, acl.Success, h.reduce(dst, src, uint64(c.n), c.k, c.dt, s), "%v %v %d: %s", c.k, c.dt, c.n, h.Inst.Session().LastError())
			h.OK("aclrtSynchronizeStream", s)
			h.OK("aclrtMemcpy", data, uint64(c.n), dst, uint64(c.n), 2)
			want := refReduce(t, c.k, c.dt, dstB, srcB)
			require.Equal(t, want, h.Mem()[data:data+uint32(c.n)], "%s: %v %v %d bytes, overlap %d", prof.Module(), c.k, c.dt, c.n, c.overlap)
		}
		// src == dst: each element combined with itself.
		p := h.Malloc(16)
		copy(h.Mem()[data:], reduceData(acl.DTInt32, 16, 4))
		h.OK("aclrtMemcpy", p, 16, data, 16, 1)
		want := refReduce(t, acl.ReduceSum, acl.DTInt32, h.Mem()[data:data+16], h.Mem()[data:data+16])
		require.Equal(t, acl.Success, h.reduce(p, p, 16, acl.ReduceSum, acl.DTInt32, 0))
		h.OK("aclrtSynchronizeStream", 0)
		h.OK("aclrtMemcpy", data, 16, p, 16, 2)
		require.Equal(t, want, h.Mem()[data:data+16])
	}
}

// TestReduceKindsAndTypes refuses every type the native map lacks with
// 100000 and accepts every one it has.
func TestReduceKindsAndTypes(t *testing.T) {
	h := newHarness(t, host.Policy{})
	h.OK("aclrtSetDevice", 0)
	a, b := h.Malloc(64), h.Malloc(64)
	for dt := acl.DataType(-1); dt <= 41; dt++ {
		want := acl.ErrInvalidParam
		for _, ok := range acl.ReduceTypes {
			if ok == dt {
				want = acl.Success
			}
		}
		require.Equal(t, want, h.reduce(a, b, 16, acl.ReduceMin, dt, 0), "%v", dt)
	}
	for _, k := range []acl.ReduceKind{0, 9, 14, -1} {
		require.Equal(t, acl.ErrRTParamInvalid, h.reduce(a, b, 16, k, acl.DTFloat, 0), "%v", k)
	}
	h.OK("aclrtSynchronizeStream", 0)
}
