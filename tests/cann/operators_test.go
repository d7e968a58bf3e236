package cann

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/x448/float16"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/cann"
	"github.com/aclwasm/aclwasm/host"
)

// The inputs of everyOp: x [2, 3], y [3] (broadcast against x), and
// halves [2, 3] and m [3, 2], whose products are exact in float32.
var (
	opX      = []float32{0.1, 1.7, -2.3, 3.14159, 5.5, -0.001}
	opY      = []float32{10.25, -20.5, 1e-3}
	opHalves = []float32{0.5, 1, 1.5, 2, 2.5, 3}
	opM      = []float32{1, 0, 2, -1, 3, 1}
)

// opResult is one operator's result: where it lies on the device and
// how many bytes.
type opResult struct {
	op   string
	p, n uint64
}

// everyOp runs each operator of the table once on one stream (with
// broadcasting, alphas, a dim, a batch and conversions where the
// operator has them), then copies each result back in stream order; it
// returns the results by operator name.
func everyOp(g *nnGuest) map[string][]byte {
	g.ok("aclrtSetDevice", 0)
	g.ok("aclrtCreateStream", gOut)
	s := uint64(binary.LittleEndian.Uint32(g.read(gOut, 4)))
	x, y := g.device(24, f32bytes(opX...)), g.device(12, f32bytes(opY...))
	var abs []float32
	for _, v := range opX {
		abs = append(abs, float32(math.Abs(float64(v))))
	}
	pos := g.device(24, f32bytes(abs...))
	halves, m := g.device(24, f32bytes(opHalves...)), g.device(24, f32bytes(opM...))
	tx, ty := g.tensor(acl.DTFloat, x, 2, 3), g.tensor(acl.DTFloat, y, 3)

	var results []opResult
	ok := func(code acl.Error) {
		g.t.Helper()
		require.Equal(g.t, acl.Success, code, g.inst.Session().LastError())
	}
	// out makes op's output buffer of n bytes (holding init when given)
	// and a tensor of dt and dims over it.
	out := func(op string, dt acl.DataType, n uint64, init []byte, dims ...int64) uint64 {
		p := g.device(n, init)
		results = append(results, opResult{op, p, n})
		return g.tensor(dt, p, dims...)
	}
	f32 := func(op string) uint64 { return out(op, acl.DTFloat, 24, nil, 2, 3) }

	ok(g.launch("Add", s, tx, ty, g.f32Scalar(1.5), f32("Add")))
	ok(g.launch("Adds", s, tx, g.f32Scalar(2.5), g.f32Scalar(1.5), f32("Adds")))
	ok(g.launch("Sub", s, tx, ty, g.f32Scalar(0.75), f32("Sub")))
	ok(g.launch("Subs", s, tx, g.f32Scalar(2.5), g.f32Scalar(1), f32("Subs")))
	ok(g.launch("Mul", s, tx, ty, f32("Mul")))
	ok(g.launch("Muls", s, tx, g.f32Scalar(0.3), f32("Muls")))
	ok(g.launch("Div", s, tx, ty, f32("Div")))
	ok(g.launch("Cast", s, tx, uint64(acl.DTFloat16), out("Cast", acl.DTFloat16, 12, nil, 2, 3)))
	for _, op := range []string{"Abs", "Neg", "Exp", "Relu", "Sigmoid"} {
		ok(g.launch(op, s, tx, f32(op)))
	}
	ok(g.launch("Sqrt", s, g.tensor(acl.DTFloat, pos, 2, 3), f32("Sqrt")))
	ok(g.launch("Softmax", s, tx, 0, f32("Softmax"))) // along dim 0, a stride of 3
	g.write(gValues, i64s(-1))
	dim := uint64(uint32(g.call("aclCreateIntArray", gValues, 1)))
	ok(g.launch("ReduceSum", s, tx, dim, 0, uint64(acl.DTFloat), out("ReduceSum", acl.DTFloat, 8, nil, 2)))
	th, tm := g.tensor(acl.DTFloat, halves, 2, 3), g.tensor(acl.DTFloat, m, 3, 2)
	ok(g.launch("Mm", s, th, tm, out("Mm", acl.DTFloat, 16, nil, 2, 2), 0))
	// Matmul: a batch of 2 [1, 3] rows times the one [3, 2] matrix.
	ok(g.launch("Matmul", s, g.tensor(acl.DTFloat, halves, 2, 1, 3), tm, out("Matmul", acl.DTFloat, 16, nil, 2, 1, 2), 0))
	ok(g.launch("InplaceCopy", s, out("InplaceCopy", acl.DTFloat16, 12, nil, 2, 3), ty)) // broadcast, to float16
	ok(g.launch("InplaceFillScalar", s, f32("InplaceFillScalar"), g.f32Scalar(0.3)))
	ok(g.launch("InplaceZero", s, out("InplaceZero", acl.DTFloat, 24, f32bytes(opX...), 2, 3)))
	g.ok("aclrtSynchronizeStream", s)

	got := map[string][]byte{}
	for _, r := range results {
		g.ok("aclrtMemcpy", gResults, r.n, r.p, r.n, uint64(acl.MemcpyDeviceToHost))
		got[r.op] = g.read(gResults, uint32(r.n))
	}
	return got
}

// everyOpReference is everyOp's results computed here in float64, each
// value rounded once to the result's type (for the alphas, alpha·y is
// rounded to float32 on its own first, as the device's Axpy does).
func everyOpReference() map[string][]byte {
	each := func(f func(x, y float64) float64) []byte {
		var r []float32
		for i, v := range opX {
			r = append(r, float32(f(float64(v), float64(opY[i%3]))))
		}
		return f32bytes(r...)
	}
	halves := func(vs []float32) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint16(b, float16.Fromfloat32(v).Bits())
		}
		return b
	}
	want := map[string][]byte{
		"Add":               each(func(x, y float64) float64 { return x + float64(float32(1.5*y)) }),
		"Adds":              each(func(x, _ float64) float64 { return x + float64(float32(1.5*2.5)) }),
		"Sub":               each(func(x, y float64) float64 { return x - float64(float32(0.75*y)) }),
		"Subs":              each(func(x, _ float64) float64 { return x - 2.5 }),
		"Mul":               each(func(x, y float64) float64 { return x * y }),
		"Muls":              each(func(x, _ float64) float64 { return x * float64(float32(0.3)) }),
		"Div":               each(func(x, y float64) float64 { return x / y }),
		"Cast":              halves(opX),
		"Abs":               each(func(x, _ float64) float64 { return math.Abs(x) }),
		"Neg":               each(func(x, _ float64) float64 { return -x }),
		"Exp":               each(func(x, _ float64) float64 { return math.Exp(x) }),
		"Sqrt":              each(func(x, _ float64) float64 { return math.Sqrt(math.Abs(x)) }),
		"Relu":              each(func(x, _ float64) float64 { return math.Max(x, 0) }),
		"Sigmoid":           each(func(x, _ float64) float64 { return 1 / (1 + math.Exp(-x)) }),
		"InplaceCopy":       halves([]float32{opY[0], opY[1], opY[2], opY[0], opY[1], opY[2]}),
		"InplaceFillScalar": f32bytes(0.3, 0.3, 0.3, 0.3, 0.3, 0.3),
		"InplaceZero":       make([]byte, 24),
	}
	soft := make([]float32, 6)
	for c := range 3 {
		a, b := float64(opX[c]), float64(opX[3+c])
		top := math.Max(a, b)
		sum := math.Exp(a-top) + math.Exp(b-top)
		soft[c], soft[3+c] = float32(math.Exp(a-top)/sum), float32(math.Exp(b-top)/sum)
	}
	want["Softmax"] = f32bytes(soft...)
	var rows []float32
	for r := range 2 {
		rows = append(rows, float32(float64(opX[3*r])+float64(opX[3*r+1])+float64(opX[3*r+2])))
	}
	want["ReduceSum"] = f32bytes(rows...)
	var mm []float32
	for r := range 2 {
		for c := range 2 {
			var acc float64
			for k := range 3 {
				acc += float64(opHalves[3*r+k]) * float64(opM[2*k+c])
			}
			mm = append(mm, float32(acc))
		}
	}
	want["Mm"], want["Matmul"] = f32bytes(mm...), f32bytes(mm...)
	return want
}

// TestEveryOperatorDifferential: every operator of the table gives the
// same bytes on the simulator and on the native backend over the
// stand-in operator library (C, written apart from the simulator's Go),
// and both equal a reference computed here in float64.
func TestEveryOperatorDifferential(t *testing.T) {
	b, err := cann.Open(lib)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	native := everyOp(newNNGuest(t, host.WithBackend(b)))
	simulated := everyOp(newNNGuest(t))
	want := everyOpReference()
	require.Len(t, want, 21, "every operator of the table")
	require.Len(t, simulated, len(want))
	for op, w := range want {
		require.Equal(t, w, simulated[op], "%s: the simulator against the reference", op)
		require.Equal(t, simulated[op], native[op], "%s: the native backend against the simulator", op)
	}
}
