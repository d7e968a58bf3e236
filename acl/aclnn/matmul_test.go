package aclnn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/aclwasm/aclwasm/acl"
)

// mmRef multiplies a [batch, m, k] by b [batch, k, n] (row-major float64
// values, already as the cube sees them) in float64, and returns each
// result with its error budget: float32 accumulation of k products,
// k·2^-24·sum|a·b|, plus one ulp of out's type.
func mmRef(a, b []float64, batch, m, n, k int64, out acl.DataType) (want, tol []float64) {
	for bi := range batch {
		for i := range m {
			for j := range n {
				s, abs := 0.0, 0.0
				for p := range k {
					x := a[bi*m*k+i*k+p] * b[bi*k*n+p*n+j]
					s += x
					abs += math.Abs(x)
				}
				w := ref(out, s)
				want = append(want, w)
				tol = append(tol, float64(k+1)*math.Ldexp(abs, -24)+ulpOf(out, w))
			}
		}
	}
	return want, tol
}

func within(t *testing.T, what string, got, want, tol []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > tol[i] || math.IsNaN(got[i]) {
			t.Fatalf("%s: element %d = %v, want %v ± %v", what, i, got[i], want[i], tol[i])
		}
	}
}

// bcastBatch repeats vals of a [batch..., r, c] tensor over the batch
// shape full (numpy broadcasting of the leading dims).
func bcastBatch(vals []float64, dims, full []int64) []float64 {
	r, c := dims[len(dims)-2], dims[len(dims)-1]
	b := dims[:len(dims)-2]
	var out []float64
	st := rowMajor(b)
	k := len(full) - len(b)
	eachIndex(append(slices.Clone(full), 1), func(idx []int64) {
		o := int64(0)
		for i := range b {
			if b[i] != 1 {
				o += idx[k+i] * st[i]
			}
		}
		out = append(out, vals[o*r*c:(o+1)*r*c]...)
	})
	if len(full) == 0 {
		return vals
	}
	return out
}

func TestMatmul(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	type tc struct {
		a, b, out []int64
	}
	cases := []tc{
		{[]int64{3, 4}, []int64{4, 5}, []int64{3, 5}},
		{[]int64{4}, []int64{4}, []int64{}},
		{[]int64{3, 4}, []int64{4}, []int64{3}},
		{[]int64{4}, []int64{4, 5}, []int64{5}},
		{[]int64{2, 3, 4}, []int64{4, 5}, []int64{2, 3, 5}},
		{[]int64{4}, []int64{2, 4, 5}, []int64{2, 5}},
		{[]int64{2, 1, 3, 4}, []int64{3, 4, 2}, []int64{2, 3, 3, 2}},
		{[]int64{3, 0}, []int64{0, 2}, []int64{3, 2}},
		{[]int64{0, 4}, []int64{4, 2}, []int64{0, 2}},
	}
	for _, in := range matmulTypes {
		for _, out := range []acl.DataType{in, acl.DTFloat} {
			for _, c := range cases {
				t.Run(fmt.Sprintf("%s/%s/%v@%v", in, out, c.a, c.b), func(t *testing.T) {
					va, vb := random(r, in, numel(c.a)), random(r, in, numel(c.b))
					// self transposed in storage: a non-contiguous view.
					st := rowMajor(c.a)
					if len(c.a) >= 2 {
						n := len(c.a)
						st[n-1], st[n-2] = c.a[n-2], 1
						for i := n - 3; i >= 0; i-- {
							st[i] = c.a[i+1] * st[i+1]
							if i == n-3 {
								st[i] = c.a[n-1] * c.a[n-2]
							}
						}
					}
					x := view(in, c.a, st, 1, va)
					y := tensor(in, c.b, vb)
					o := tensor(out, c.out, nil)
					if err := run(t, "Matmul", tv(x), tv(y), tv(o), Value{Int: 0}); err != nil {
						t.Fatal(err)
					}
					// The reference in [batch, m, k] x [batch, k, n] form.
					ad, bd := slices.Clone(c.a), slices.Clone(c.b)
					if len(ad) == 1 {
						ad = []int64{1, ad[0]}
					}
					if len(bd) == 1 {
						bd = []int64{bd[0], 1}
					}
					batch, _ := broadcast(ad[:len(ad)-2], bd[:len(bd)-2])
					m, k, n := ad[len(ad)-2], ad[len(ad)-1], bd[len(bd)-1]
					want, tol := mmRef(bcastBatch(values(x), ad, batch), bcastBatch(vb, bd, batch), numel(batch), m, n, k, out)
					within(t, "matmul", values(o), want, tol)
				})
			}
		}
	}
}

func TestMm(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	// Large enough for several row blocks of the gemm.
	m, k, n := int64(70), int64(300), int64(40)
	va, vb := random(r, acl.DTFloat, m*k), random(r, acl.DTFloat, k*n)
	for _, cube := range []int64{cubeFP16FP32Keep, cubeKeepDtype, cubeAllowDown, cubeUseFP16, cubeUseHF32, cubeUseFP32Add} {
		t.Run(fmt.Sprint(cube), func(t *testing.T) {
			x, y := tensor(acl.DTFloat, []int64{m, k}, va), tensor(acl.DTFloat, []int64{k, n}, vb)
			o := tensor(acl.DTFloat, []int64{m, n}, nil)
			if err := run(t, "Mm", tv(x), tv(y), tv(o), Value{Int: cube}); err != nil {
				t.Fatal(err)
			}
			seen := func(v float64) float64 {
				switch cube {
				case cubeAllowDown, cubeUseHF32:
					return nearest(v, 11, -126, 127)
				case cubeUseFP16:
					return ref(acl.DTFloat16, v)
				}
				return v
			}
			ra, rb := make([]float64, len(va)), make([]float64, len(vb))
			for i, v := range va {
				ra[i] = seen(v)
			}
			for i, v := range vb {
				rb[i] = seen(v)
			}
			want, tol := mmRef(ra, rb, 1, m, n, k, acl.DTFloat)
			within(t, "mm", values(o), want, tol)
		})
	}
	// The plain loop agrees with gonum within the same budget.
	a32, b32 := make([]float32, m*k), make([]float32, k*n)
	for i, v := range va {
		a32[i] = float32(v)
	}
	for i, v := range vb {
		b32[i] = float32(v)
	}
	c1, c2 := make([]float32, m*n), make([]float32, m*n)
	sgemm(int(m), int(n), int(k), a32, b32, c1)
	loopGemm(int(m), int(n), int(k), a32, b32, c2)
	want, tol := mmRef(va, vb, 1, m, n, k, acl.DTFloat)
	g1, g2 := make([]float64, m*n), make([]float64, m*n)
	for i := range c1 {
		g1[i], g2[i] = float64(c1[i]), float64(c2[i])
	}
	within(t, "sgemm", g1, want, tol)
	within(t, "loop", g2, want, tol)

	f := func(dt acl.DataType, d ...int64) *TensorArg { return tensor(dt, d, nil) }
	a, b, o := f(acl.DTFloat, 2, 3), f(acl.DTFloat, 3, 4), f(acl.DTFloat, 2, 4)
	wantCode(t, run(t, "Mm", tv(a), Value{}, tv(o), Value{}), acl.ErrNNParamNullptr, "[mat2]")
	wantCode(t, run(t, "Mm", tv(f(acl.DTInt32, 2, 3)), tv(b), tv(o), Value{}), acl.ErrNNParamInvalid, "Tensor self not implemented for ACL_INT32")
	wantCode(t, run(t, "Mm", tv(a), tv(b), tv(f(acl.DTInt32, 2, 4)), Value{}), acl.ErrNNParamInvalid, "Tensor out not implemented for ACL_INT32")
	wantCode(t, run(t, "Mm", tv(a), tv(b), tv(o), Value{Int: 5}), acl.ErrNNParamInvalid, "cubeMathType only support")
	wantCode(t, run(t, "Mm", tv(a), tv(f(acl.DTFloat, 4, 4)), tv(o), Value{}), acl.ErrNNParamInvalid, "The k-axis of the two inputs are different, self Kdim[3], mat2 Kdim[4]")
	wantCode(t, run(t, "Mm", tv(a), tv(f(acl.DTFloat, 3)), tv(o), Value{}), acl.ErrNNParamInvalid, "mat2's dim num should be 2")
	wantCode(t, run(t, "Mm", tv(a), tv(b), tv(f(acl.DTFloat, 2, 5)), Value{}), acl.ErrNNParamInvalid, "out_n[5] must be same with mat2_n[4]")
	wantCode(t, run(t, "Matmul", tv(f(acl.DTFloat)), tv(b), tv(o), Value{}), acl.ErrNNParamInvalid, "Matmul not support")
	wantCode(t, run(t, "Matmul", tv(a), tv(f(acl.DTFloat, 4)), tv(o), Value{}), acl.ErrNNParamInvalid, "The k-axis of the two inputs are different")
	wantCode(t, run(t, "Matmul", tv(f(acl.DTFloat, 2, 2, 3)), tv(f(acl.DTFloat, 3, 3, 4)), tv(o), Value{}), acl.ErrNNParamInvalid, "Broadcast [2 2 3] and [3 3 4] failed")
	wantCode(t, run(t, "Matmul", tv(f(acl.DTFloat, 1, 1, 1, 1, 1, 2, 3)), tv(b), tv(o), Value{}), acl.ErrNNParamInvalid, "should not be greater than 6")
	wantCode(t, run(t, "Matmul", tv(a), tv(b), tv(f(acl.DTFloat, 4, 2)), Value{}), acl.ErrNNParamInvalid, "Shape of out should be [2 4]")
	nz := f(acl.DTFloat, 2, 4)
	nz.Format = acl.FormatFractalNZ
	wantCode(t, run(t, "Matmul", tv(a), tv(b), tv(nz), Value{}), acl.ErrNNParamInvalid, "does not support NZ format")
}

// TestDotIgnoresCube: for two 1-D operands cubeMathType has no effect.
func TestDotIgnoresCube(t *testing.T) {
	v := 1 + math.Ldexp(1, -20) // not a float16
	x := tensor(acl.DTFloat, []int64{2}, []float64{v, v})
	out := tensor(acl.DTFloat, nil, nil)
	if err := run(t, "Matmul", tv(x), tv(x), tv(out), Value{Int: cubeUseFP16}); err != nil {
		t.Fatal(err)
	}
	checkValues(t, "dot", values(out), []float64{float64(float32(2 * v * v))})
}
