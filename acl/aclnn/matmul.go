package aclnn

import (
	"context"
	"math"
	"slices"

	"github.com/aclwasm/aclwasm/acl"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

var (
	mmParams     = []Param{{Name: "self", Kind: Tensor}, {Name: "mat2", Kind: Tensor}, {Name: "out", Kind: Tensor, Out: true}, {Name: "cubeMathType", Kind: Int8}}
	matmulParams = []Param{{Name: "self", Kind: Tensor}, {Name: "other", Kind: Tensor}, {Name: "out", Kind: Tensor, Out: true}, {Name: "cubeMathType", Kind: Int8}}
)

// matmulTypes is the cube's support list on Atlas A2 (ops-nn
// matmul/common/op_host/op_api/matmul_util.cpp,
// Dav2201MatMulRule::GetSupportedDTypes), for the inputs and out.
var matmulTypes = []acl.DataType{acl.DTFloat, acl.DTFloat16, acl.DTBFloat16}

// The cubeMathType values (ops-nn matmul/common/op_host/op_api/
// cube_util.cpp, CheckCubeMathType; -1 is the library's inner
// FP16FP32_KEEP_DTYPE, which Atlas A2 accepts).
const (
	cubeFP16FP32Keep = -1
	cubeKeepDtype    = 0
	cubeAllowDown    = 1 // ALLOW_FP32_DOWN_PRECISION: float32 computes as HF32
	cubeUseFP16      = 2 // float32 inputs round to float16
	cubeUseHF32      = 3
	cubeUseFP32Add   = 4 // routed to KEEP_DTYPE on Atlas A2
)

// matmulMaxDims is Matmul's limit (MAX_SUPPORT_MATMUL_DIMS_NUMS in ops-nn
// matmul/mat_mul_v3/op_host/op_api/aclnn_matmul.cpp).
const matmulMaxDims = 6

// cubeCheck is the architecture rule's CheckInput: the three dtypes, then
// cubeMathType.
func cubeCheck(an string, a *TensorArg, bn string, b *TensorArg, out *TensorArg, cube int64) error {
	for _, x := range []struct {
		n string
		t *TensorArg
	}{{an, a}, {bn, b}, {"out", out}} {
		if err := dtypeIn(x.n, x.t.Type, matmulTypes); err != nil {
			return err
		}
	}
	if cube < cubeFP16FP32Keep || cube > cubeUseFP32Add {
		return invalid("The value of cubeMathType only support {0: KEEP_DTYPE, 1: ALLOW_FP32_DOWN_PRECISION, 2: USE_FP16, 3: USE_HF32, 4: USE_FP32_ADD}, but got %d", cube)
	}
	return nil
}

// cubeRound is how the cube sees an input element of the computation
// type upper under cubeMathType: float32 as HF32 (a 10-bit significand,
// here rounded to nearest even; the device documents HF32's precision,
// not its rounding) or as float16; the 16-bit types as they are.
func cubeRound(upper acl.DataType, cube int64) func(float32) float32 {
	if upper != acl.DTFloat {
		return func(v float32) float32 { return v }
	}
	switch cube {
	case cubeAllowDown, cubeUseHF32:
		return toHF32
	case cubeUseFP16:
		return func(v float32) float32 { return f16(toF16(v)) }
	}
	return func(v float32) float32 { return v }
}

// toHF32 rounds v to HF32: float32's exponent with a 10-bit significand.
func toHF32(v float32) float32 {
	b := math.Float32bits(v)
	if b&0x7fffffff >= 0x7f800000 {
		return v
	}
	b += 0xfff + (b>>13)&1
	return math.Float32frombits(b &^ 0x1fff)
}

// upperType is the type the cube computes in: float32 when either input
// is, else the inputs' type (float16 with bfloat16 computes in float32).
func upperType(a, b acl.DataType) acl.DataType {
	if a == b {
		return a
	}
	return acl.DTFloat
}

// sgemm computes c = a·b for row-major a (m×k), b (k×n), c (m×n):
// gonum's float32 GEMM, which accumulates in float32 (the products of
// float16 and bfloat16 inputs are exact in it). It measured about 3x
// faster than the plain loop (BenchmarkMm, 256³).
func sgemm(m, n, k int, a, b, c []float32) {
	gonum.Implementation{}.Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, max(k, 1), b, max(n, 1), 0, c, max(n, 1))
}

// loopGemm is the plain loop sgemm is measured against.
func loopGemm(m, n, k int, a, b, c []float32) {
	clear(c[:m*n])
	for i := range m {
		ci := c[i*n : i*n+n]
		for p := range k {
			aip := a[i*k+p]
			bp := b[p*n : p*n+n]
			for j := range ci {
				ci[j] += aip * bp[j]
			}
		}
	}
}

var gemm = sgemm

// matmul computes out = a·b over batches: a is [batchA..., m, k] and b
// [batchB..., k, n] (views whose shapes were checked), their batch dims
// broadcast to batch; out has batch·m·n elements in row-major order. Each
// operand is read once in its own shape (a broadcast batch is not
// copied, so a small operand against a large batch costs no memory).
func matmul(ctx context.Context, a, b *TensorArg, batch []int64, m, n, k int64, out *TensorArg, cube int64) error {
	if numel(out.Dims) == 0 {
		return nil
	}
	for _, t := range []*TensorArg{a, b, out} {
		if err := inside(t); err != nil {
			return err
		}
	}
	av, err := gatherF(ctx, a, a.Dims)
	if err != nil {
		return err
	}
	bv, err := gatherF(ctx, b, b.Dims)
	if err != nil {
		return err
	}
	r := cubeRound(upperType(a.Type, b.Type), cube)
	for i := range av {
		av[i] = r(av[i])
	}
	for i := range bv {
		bv[i] = r(bv[i])
	}
	ai, bi := batchIndex(a.Dims[:len(a.Dims)-2], batch), batchIndex(b.Dims[:len(b.Dims)-2], batch)
	c := make([]float32, numel(batch)*m*n)
	// Rows per call, so ctx is looked at about every 2^22 multiply-adds.
	rows := max(1, (1<<22)/max(1, n*k))
	for x := range numel(batch) {
		ab, bb, cb := av[ai[x]*m*k:(ai[x]+1)*m*k], bv[bi[x]*k*n:(bi[x]+1)*k*n], c[x*m*n:(x+1)*m*n]
		if err := ctx.Err(); err != nil {
			return err
		}
		for lo := int64(0); lo < m && k > 0; lo += rows { // k = 0: c stays zero
			hi := min(lo+rows, m)
			gemm(int(hi-lo), int(n), int(k), ab[lo*k:hi*k], bb, cb[lo*n:hi*n])
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	return scatterF(ctx, out, c)
}

// batchIndex maps each index of the broadcast batch (row-major) to the
// index of the operand's own batch of dims d.
func batchIndex(d, batch []int64) []int64 {
	t := &TensorArg{Dims: d, Strides: rowMajor(d)}
	idx := make([]int64, 0, numel(batch))
	_ = walk(context.Background(), batch, stridesOver(t, batch), 0, func(start, step, n int64) {
		for i := range n {
			idx = append(idx, start+i*step)
		}
	})
	return idx
}

var opMm = &Op{
	Name:   "Mm",
	Header: "aclnnop/aclnn_mm.h",
	Doc:    "out = self · mat2 for 2-D self [m, k] and mat2 [k, n], accumulated in float32; cubeMathType 1 and 3 compute float32 as HF32, 2 as float16.",
	Params: mmParams,
	Check: func(args []Value) error {
		if err := nulls(mmParams, args); err != nil {
			return err
		}
		self, mat2, out, cube := args[0].Tensor, args[1].Tensor, args[2].Tensor, args[3].Int
		if err := cubeCheck("self", self, "mat2", mat2, out, cube); err != nil {
			return err
		}
		for i, t := range []*TensorArg{mat2, self, out} {
			if err := viewOK([]string{"mat2", "self", "out"}[i], t); err != nil {
				return err
			}
			if len(t.Dims) != 2 {
				return invalid("%s's dim num should be 2, but current is %d.", []string{"mat2", "self", "out"}[i], len(t.Dims))
			}
		}
		if self.Dims[1] != mat2.Dims[0] {
			return invalid("The k-axis of the two inputs are different, self Kdim[%d], mat2 Kdim[%d].", self.Dims[1], mat2.Dims[0])
		}
		if out.Dims[0] != self.Dims[0] || out.Dims[1] != mat2.Dims[1] {
			return invalid("output's shape is not match input, out_m[%d] must be same with self_m[%d], out_n[%d] must be same with mat2_n[%d].",
				out.Dims[0], self.Dims[0], out.Dims[1], mat2.Dims[1])
		}
		return nil
	},
	Run: func(ctx context.Context, args []Value) error {
		self, mat2, out, cube := args[0].Tensor, args[1].Tensor, args[2].Tensor, args[3].Int
		return matmul(ctx, self, mat2, nil, self.Dims[0], mat2.Dims[1], self.Dims[1], out, cube)
	},
}

// matmulShape returns the operands of a Matmul as [batch..., m, k] and
// [batch..., k, n] views (a 1-D self is a row, a 1-D other a column), the
// broadcast batch, and the result's shape (torch.matmul's: the batch,
// then m unless self is 1-D, then n unless other is 1-D).
func matmulShape(self, other *TensorArg) (a, b *TensorArg, batch, shape []int64, ok bool) {
	a, b = self, other
	if len(self.Dims) == 1 {
		a = &TensorArg{Type: self.Type, Format: self.Format, Dims: []int64{1, self.Dims[0]}, Strides: []int64{0, self.Strides[0]}, Offset: self.Offset, Data: self.Data}
	}
	if len(other.Dims) == 1 {
		b = &TensorArg{Type: other.Type, Format: other.Format, Dims: []int64{other.Dims[0], 1}, Strides: []int64{other.Strides[0], 0}, Offset: other.Offset, Data: other.Data}
	}
	batch, ok = broadcast(a.Dims[:len(a.Dims)-2], b.Dims[:len(b.Dims)-2])
	shape = slices.Clone(batch)
	if len(self.Dims) > 1 {
		shape = append(shape, a.Dims[len(a.Dims)-2])
	}
	if len(other.Dims) > 1 {
		shape = append(shape, b.Dims[len(b.Dims)-1])
	}
	return a, b, batch, shape, ok
}

var opMatmul = &Op{
	Name:   "Matmul",
	Header: "aclnnop/aclnn_matmul.h",
	Doc:    "out = self · other with torch.matmul's rules (1-D operands are a row or a column, batch dims broadcast), accumulated in float32; cubeMathType as for Mm.",
	Params: matmulParams,
	Check: func(args []Value) error {
		if err := nulls(matmulParams, args); err != nil {
			return err
		}
		self, other, out, cube := args[0].Tensor, args[1].Tensor, args[2].Tensor, args[3].Int
		if err := cubeCheck("self", self, "mat2", other, out, cube); err != nil {
			return err
		}
		if err := dimsOK("self", self, matmulMaxDims); err != nil {
			return err
		}
		if err := dimsOK("mat2", other, matmulMaxDims); err != nil {
			return err
		}
		d1, d2 := len(self.Dims), len(other.Dims)
		if d1 == 0 || d2 == 0 {
			return invalid("Matmul not support %s, %s", dimsString(self.Dims), dimsString(other.Dims))
		}
		kb := other.Dims[0]
		if d2 >= 3 {
			kb = other.Dims[d2-2]
		}
		if self.Dims[d1-1] != kb {
			return invalid("The k-axis of the two inputs are different %s, %s", dimsString(self.Dims), dimsString(other.Dims))
		}
		_, _, _, shape, ok := matmulShape(self, other)
		if !ok {
			return invalid("Broadcast %s and %s failed.", dimsString(self.Dims), dimsString(other.Dims))
		}
		if self.Format == acl.FormatFractalNZ || out.Format == acl.FormatFractalNZ {
			return invalid(" The 'self' or 'out' tensor currently does not support NZ format")
		}
		if err := viewOK("out", out); err != nil {
			return err
		}
		// The native operator reshapes its result to out; the simulator
		// asks for the result's own shape.
		if !slices.Equal(shape, out.Dims) {
			return invalid("Shape of out should be %s, but current is %s.", dimsString(shape), dimsString(out.Dims))
		}
		return nil
	},
	Run: func(ctx context.Context, args []Value) error {
		self, other, out, cube := args[0].Tensor, args[1].Tensor, args[2].Tensor, args[3].Int
		if len(self.Dims) == 1 && len(other.Dims) == 1 {
			// A dot product: cubeMathType has no effect (ops-nn
			// matmul/mat_mul_v3/docs/aclnnMatmul.md).
			cube = cubeKeepDtype
		}
		a, b, batch, _, _ := matmulShape(self, other)
		m, k, n := a.Dims[len(a.Dims)-2], a.Dims[len(a.Dims)-1], b.Dims[len(b.Dims)-1]
		return matmul(ctx, a, b, batch, m, n, k, out, cube)
	},
}
