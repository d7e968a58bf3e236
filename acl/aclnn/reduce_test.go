package aclnn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/aclwasm/aclwasm/acl"
)

// sumRef sums vals (row-major over dims) over the dims in mask, in
// float64 (int64 for integers, wrapped at the end: a wrapped sum equals
// the sum of wrapped terms), each value first converted to dt.
func sumRef(vals []float64, from acl.DataType, dims []int64, mask []bool, dt acl.DataType) []float64 {
	var outDims []int64
	for i, d := range dims {
		if !mask[i] {
			outDims = append(outDims, d)
		}
	}
	n := numel(outDims)
	acc := make([]float64, n)
	iacc := make([]int64, n)
	st := rowMajor(outDims)
	k := 0
	eachIndex(dims, func(idx []int64) {
		o, j := int64(0), 0
		for i, v := range idx {
			if !mask[i] {
				o += v * st[j]
				j++
			}
		}
		v := castRef(from, dt, vals[k])
		acc[o] += v
		if dt == acl.DTBool {
			if v != 0 {
				iacc[o] = 1
			}
		} else {
			iacc[o] += int64(v)
		}
		k++
	})
	for i := range acc {
		if isFloat(dt) {
			acc[i] = ref(dt, acc[i])
		} else {
			acc[i] = ref(dt, float64(refI(dt, iacc[i])))
		}
	}
	return acc
}

func TestReduceSum(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	dims := []int64{2, 3, 4}
	for _, from := range reduceTypes {
		for _, dt := range []acl.DataType{from, acl.DTFloat, acl.DTInt32} {
			if isFloat(from) && dt == acl.DTInt32 && from != acl.DTFloat {
				continue
			}
			for _, d := range [][]int64{{}, {0}, {-1}, {0, 2}, {1}} {
				for _, keep := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s/%s/%v/%v", from, dt, d, keep), func(t *testing.T) {
						vals := random(r, from, numel(dims))
						x := view(from, dims, []int64{1, 2, 6}, 1, vals) // column-major-ish
						mask := make([]bool, 3)
						for _, v := range d {
							mask[(v+3)%3] = true
						}
						if len(d) == 0 {
							mask = []bool{true, true, true}
						}
						var od []int64
						for i, v := range dims {
							if !mask[i] {
								od = append(od, v)
							} else if keep {
								od = append(od, 1)
							}
						}
						out := tensor(dt, od, nil)
						if err := run(t, "ReduceSum", tv(x), Value{Ints: d}, Value{Int: b2i(keep)}, Value{Int: int64(dt)}, tv(out)); err != nil {
							t.Fatal(err)
						}
						want := sumRef(vals, from, dims, mask, dt)
						checkValues(t, "sum", values(out), want)
					})
				}
			}
		}
	}
	// A scalar tensor; an empty self gives zeros; an empty dim list of a
	// scalar.
	s := tensor(acl.DTFloat, nil, []float64{2.5})
	o := tensor(acl.DTFloat, nil, nil)
	if err := run(t, "ReduceSum", tv(s), Value{Ints: []int64{-1}}, Value{}, Value{Int: 0}, tv(o)); err != nil {
		t.Fatal(err)
	}
	checkValues(t, "scalar", values(o), []float64{2.5})
	e := tensor(acl.DTFloat16, []int64{0, 3}, nil)
	oe := view(acl.DTFloat16, []int64{3}, []int64{1}, 0, []float64{9, 9, 9})
	if err := run(t, "ReduceSum", tv(e), Value{Ints: []int64{0}}, Value{}, Value{Int: int64(acl.DTFloat16)}, tv(oe)); err != nil {
		t.Fatal(err)
	}
	checkValues(t, "empty", values(oe), []float64{0, 0, 0})
	// Float16 sums beyond float16's range: the result overflows only
	// at the end, as with a float32 accumulator.
	h := tensor(acl.DTFloat16, []int64{4}, []float64{60000, 60000, -60000, -40000})
	oh := tensor(acl.DTFloat16, nil, nil)
	if err := run(t, "ReduceSum", tv(h), Value{Ints: []int64{}}, Value{}, Value{Int: int64(acl.DTFloat16)}, tv(oh)); err != nil {
		t.Fatal(err)
	}
	checkValues(t, "no overflow", values(oh), []float64{20000})

	f := tensor(acl.DTFloat, []int64{2, 3}, nil)
	o3 := tensor(acl.DTFloat, []int64{3}, nil)
	args := func(self *TensorArg, dim []int64, dt acl.DataType, out *TensorArg) []Value {
		return []Value{tv(self), {Ints: dim}, {}, {Int: int64(dt)}, tv(out)}
	}
	wantCode(t, run(t, "ReduceSum", tv(f), Value{}, Value{}, Value{}, tv(o3)), acl.ErrNNParamNullptr, "[dim]")
	wantCode(t, run(t, "ReduceSum", args(f, []int64{2}, acl.DTFloat, o3)...), acl.ErrNNParamInvalid, "Provided dim 2 must be in the range of [-2, 1]")
	wantCode(t, run(t, "ReduceSum", args(f, []int64{0, -2}, acl.DTFloat, o3)...), acl.ErrNNParamInvalid, "Dim 0 appears multiple times")
	wantCode(t, run(t, "ReduceSum", args(f, []int64{1}, acl.DTFloat, o3)...), acl.ErrNNParamInvalid, "is not equal with inferOut shape[2]")
	wantCode(t, run(t, "ReduceSum", args(f, []int64{0}, acl.DTFloat16, o3)...), acl.ErrNNParamInvalid, "Tensor out expected dtype is ACL_FLOAT16 but found ACL_FLOAT")
	wantCode(t, run(t, "ReduceSum", args(f, []int64{0}, acl.DTDouble, o3)...), acl.ErrNNParamInvalid, "type ACL_DOUBLE should be in dtype support list")
	wantCode(t, run(t, "ReduceSum", args(tensor(acl.DTUint16, []int64{2, 3}, nil), []int64{0}, acl.DTFloat, o3)...), acl.ErrNNParamInvalid, "Tensor self not implemented for ACL_UINT16")
	// Both of one element: accepted.
	if err := run(t, "ReduceSum", args(f, []int64{}, acl.DTFloat, tensor(acl.DTFloat, []int64{1, 1}, nil))...); err != nil {
		t.Fatal(err)
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// softmaxRef is softmax along dim of vals (row-major over dims) in
// float64, rounded to the computation type then to out.
func softmaxRef(vals []float64, dims []int64, dim int, self, out acl.DataType) []float64 {
	res := make([]float64, len(vals))
	st := rowMajor(dims)
	eachIndex(dims, func(idx []int64) {
		if idx[dim] != 0 {
			return
		}
		base := int64(0)
		for i, v := range idx {
			base += v * st[i]
		}
		m := math.Inf(-1)
		for j := range dims[dim] {
			m = math.Max(m, vals[base+j*st[dim]])
		}
		sum := 0.0
		for j := range dims[dim] {
			sum += math.Exp(vals[base+j*st[dim]] - m)
		}
		for j := range dims[dim] {
			res[base+j*st[dim]] = ref(out, ref(self, math.Exp(vals[base+j*st[dim]]-m)/sum))
		}
	})
	return res
}

func TestSoftmax(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	dims := []int64{3, 5, 2}
	for _, dt := range softmaxTypes {
		for _, out := range softmaxTypes {
			for _, dim := range []int64{0, 1, -1} {
				t.Run(fmt.Sprintf("%s/%s/%d", dt, out, dim), func(t *testing.T) {
					vals := random(r, dt, numel(dims))
					x := view(dt, dims, []int64{1, 6, 3}, 2, vals)
					o := tensor(out, dims, nil)
					if err := run(t, "Softmax", tv(x), Value{Int: dim}, tv(o)); err != nil {
						t.Fatal(err)
					}
					d := int((dim + 3) % 3)
					// Row-major copy of the strided values for the reference.
					near(t, "softmax", out, values(o), softmaxRef(values(x), dims, d, dt, out), 1)
				})
			}
		}
	}
	// Large inputs do not overflow (the max is subtracted first).
	x := tensor(acl.DTFloat, []int64{3}, []float64{1000, 1000, -math.MaxFloat32})
	o := tensor(acl.DTFloat, []int64{3}, nil)
	if err := run(t, "Softmax", tv(x), Value{Int: 0}, tv(o)); err != nil {
		t.Fatal(err)
	}
	checkValues(t, "large", values(o), []float64{0.5, 0.5, 0})
	// A scalar tensor takes dim 0 and -1.
	s := tensor(acl.DTFloat, nil, []float64{3})
	if err := run(t, "Softmax", tv(s), Value{Int: -1}, tv(s)); err != nil {
		t.Fatal(err)
	}
	checkValues(t, "scalar", values(s), []float64{1})

	f := tensor(acl.DTFloat, []int64{2, 3}, nil)
	wantCode(t, run(t, "Softmax", Value{}, Value{}, tv(f)), acl.ErrNNParamNullptr, "[self]")
	wantCode(t, run(t, "Softmax", tv(f), Value{Int: 2}, tv(f)), acl.ErrNNParamInvalid, "provided dim 2 not in the range of input size 2")
	wantCode(t, run(t, "Softmax", tv(f), Value{Int: -3}, tv(f)), acl.ErrNNParamInvalid, "provided dim -3")
	wantCode(t, run(t, "Softmax", tv(tensor(acl.DTInt32, []int64{2, 3}, nil)), Value{}, tv(f)), acl.ErrNNParamInvalid, "Tensor self not implemented for ACL_INT32")
	wantCode(t, run(t, "Softmax", tv(f), Value{}, tv(tensor(acl.DTInt32, []int64{2, 3}, nil))), acl.ErrNNParamInvalid, "Tensor out not implemented for ACL_INT32")
	wantCode(t, run(t, "Softmax", tv(f), Value{}, tv(tensor(acl.DTFloat, []int64{3, 2}, nil))), acl.ErrNNParamInvalid, "Shape of out should be [2 3]")
	// An empty self is accepted whatever its dtype and dim (the native
	// check returns before them).
	if err := run(t, "Softmax", tv(tensor(acl.DTInt32, []int64{0, 3}, nil)), Value{Int: 7}, tv(tensor(acl.DTInt32, []int64{0, 3}, nil))); err != nil {
		t.Fatal(err)
	}
}
