package aclnn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/aclwasm/aclwasm/acl"
)

// bcastVals returns vals of a tensor of dims broadcast to shape, in
// row-major order.
func bcastVals(vals []float64, dims, shape []int64) []float64 {
	var out []float64
	st := rowMajor(dims)
	k := len(shape) - len(dims)
	eachIndex(shape, func(idx []int64) {
		o := int64(0)
		for i := range dims {
			if dims[i] != 1 {
				o += idx[k+i] * st[i]
			}
		}
		out = append(out, vals[o])
	})
	return out
}

// binRef is a two-input operator's reference: the inputs rounded to the
// promoted type p, f in float64 (or int64 for integers, then wrapped),
// rounded to p, then to out's type.
func binRef(p, out acl.DataType, a, b []float64, f func(a, b float64) float64, fi func(a, b int64) int64) []float64 {
	r := make([]float64, len(a))
	for i := range a {
		x, y := ref(p, a[i]), ref(p, b[i])
		if isInt(p) {
			r[i] = ref(out, float64(refI(p, fi(int64(x), int64(y)))))
		} else {
			r[i] = ref(out, ref(p, f(x, y)))
		}
	}
	return r
}

type binCase struct {
	name  string
	alpha bool // takes an alpha scalar
	// f is the float computation in type p, in float64 (rounded to p by
	// the caller); fi the integer one (wrapped by the caller).
	f  func(p acl.DataType, a, b, alpha float64) float64
	fi func(a, b, alpha int64) int64
	// div computes integers in float32 (true division).
	div bool
}

// computeType is the type the test expects the operator to compute in:
// the promoted type, but float32 for Div of integers and for Sub of floats
// with an alpha other than 1 (ops-math aclnn_div.cpp, aclnn_sub.cpp).
func (c binCase) computeType(a, b acl.DataType, alpha float64) acl.DataType {
	p := promote(a, b)
	if c.div && !isFloat(p) || c.name == "Sub" && isFloat(p) && alpha != 1 {
		return acl.DTFloat
	}
	return p
}

// axpy is alpha*b as the native Add and Sub scale it in type p: as a
// float32 product (the device's Axpy takes alpha as float32) for
// float32 and float16, rounded to bfloat16 after alpha is (a Mul in
// bfloat16) for bfloat16; exact when alpha is 1.
func axpy(p acl.DataType, b, alpha float64) float64 {
	switch {
	case alpha == 1:
		return b
	case p == acl.DTBFloat16:
		return ref(p, ref(p, alpha)*b)
	}
	return float64(float32(alpha * b))
}

var binCases = []binCase{
	{"Add", true, func(p acl.DataType, a, b, al float64) float64 { return a + axpy(p, b, al) }, func(a, b, al int64) int64 { return a + al*b }, false},
	{"Sub", true, func(p acl.DataType, a, b, al float64) float64 { return a - axpy(p, b, al) }, func(a, b, al int64) int64 { return a - al*b }, false},
	{"Mul", false, func(_ acl.DataType, a, b, _ float64) float64 { return a * b }, func(a, b, _ int64) int64 { return a * b }, false},
	{"Div", false, func(_ acl.DataType, a, b, _ float64) float64 { return a / b }, nil, true},
}

// binArgs builds the arguments of a two-tensor operator.
func binArgs(c binCase, x, y *TensorArg, alpha *ScalarArg, out *TensorArg) []Value {
	if c.alpha {
		return []Value{tv(x), tv(y), sv(alpha), tv(out)}
	}
	return []Value{tv(x), tv(y), tv(out)}
}

// TestBinaryTypes runs every two-tensor operator on every supported type
// and on mixed types, with broadcasting, against the reference.
func TestBinaryTypes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	type pair struct{ a, b, out acl.DataType }
	var pairs []pair
	for _, d := range arithTypes {
		pairs = append(pairs, pair{d, d, d})
	}
	pairs = append(pairs,
		pair{acl.DTFloat16, acl.DTFloat, acl.DTFloat}, pair{acl.DTInt32, acl.DTFloat16, acl.DTFloat16},
		pair{acl.DTInt32, acl.DTBFloat16, acl.DTFloat}, pair{acl.DTFloat16, acl.DTBFloat16, acl.DTFloat},
		pair{acl.DTInt8, acl.DTUint8, acl.DTInt16}, pair{acl.DTInt32, acl.DTInt64, acl.DTInt64},
		pair{acl.DTInt32, acl.DTInt32, acl.DTFloat16}, pair{acl.DTFloat16, acl.DTFloat16, acl.DTFloat},
		pair{acl.DTFloat, acl.DTFloat, acl.DTFloat16}, pair{acl.DTInt16, acl.DTFloat16, acl.DTFloat16},
	)
	for _, c := range binCases {
		for _, p := range pairs {
			for _, alpha := range []float64{1, 2, -3} {
				if !c.alpha && alpha != 1 {
					continue
				}
				t.Run(fmt.Sprintf("%s/%s+%s=%s/alpha%v", c.name, p.a, p.b, p.out, alpha), func(t *testing.T) {
					da, db, shape := []int64{4, 1, 5}, []int64{3, 1}, []int64{4, 3, 5}
					va, vb := random(r, p.a, numel(da)), random(r, p.b, numel(db))
					if c.div {
						nonzero(vb)
					}
					x, y := tensor(p.a, da, va), tensor(p.b, db, vb)
					out := tensor(p.out, shape, nil)
					pt := c.computeType(p.a, p.b, alpha)
					at := acl.DTInt32
					if isFloat(pt) {
						at = acl.DTFloat
					}
					err := run(t, c.name, binArgs(c, x, y, scalar(at, alpha), out)...)
					if err != nil {
						t.Fatal(err)
					}
					want := binRef(pt, p.out, bcastVals(va, da, shape), bcastVals(vb, db, shape),
						func(a, b float64) float64 { return c.f(pt, a, b, alpha) },
						func(a, b int64) int64 { return c.fi(a, b, int64(alpha)) })
					checkValues(t, c.name, values(out), want)
				})
			}
		}
	}
}

// TestBinaryViews runs on non-contiguous views (a transposed input with
// an offset, a strided output) and in place (out is self), on float32
// and the 16-bit floats (the fast paths' types) and int32.
func TestBinaryViews(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range binCases {
		for _, dt := range []acl.DataType{acl.DTFloat, acl.DTFloat16, acl.DTBFloat16, acl.DTInt32} {
			t.Run(c.name+"/"+dt.String(), func(t *testing.T) {
				va, vb := random(r, dt, 12), random(r, dt, 12)
				nonzero(vb)
				// x is a 3x4 view of a 4x3 storage, transposed, at offset 2.
				x := view(dt, []int64{3, 4}, []int64{1, 3}, 2, va)
				y := tensor(dt, []int64{3, 4}, vb)
				out := view(dt, []int64{3, 4}, []int64{9, 2}, 1, nil)
				canary := append([]byte(nil), out.Data...)
				alpha := scalar(acl.DTInt32, 1)
				if err := run(t, c.name, binArgs(c, x, y, alpha, out)...); err != nil {
					t.Fatal(err)
				}
				want := binRef(c.computeType(dt, dt, 1), dt, va, vb, func(a, b float64) float64 { return c.f(dt, a, b, 1) }, func(a, b int64) int64 { return c.fi(a, b, 1) })
				checkValues(t, "strided", values(out), want)
				// Bytes outside the view are untouched.
				touched := map[int64]bool{}
				eachIndex(out.Dims, func(idx []int64) {
					o := out.Offset + idx[0]*out.Strides[0] + idx[1]*out.Strides[1]
					for k := range int64(dt.Size()) {
						touched[o*int64(dt.Size())+k] = true
					}
				})
				for i := range out.Data {
					if !touched[int64(i)] && out.Data[i] != canary[i] {
						t.Fatalf("byte %d outside the view changed", i)
					}
				}

				// In place: out is self, and out is other.
				x = tensor(dt, []int64{3, 4}, va)
				if err := run(t, c.name, binArgs(c, x, y, alpha, x)...); err != nil {
					t.Fatal(err)
				}
				checkValues(t, "in place", values(x), want)
				// A shifted overlap: out views self's storage one element
				// on; the result is as if the inputs were read first.
				s := tensor(dt, []int64{13}, append(append([]float64(nil), va...), 0))
				xs := &TensorArg{Type: dt, Format: acl.FormatND, Dims: []int64{12}, Strides: []int64{1}, Data: s.Data}
				os := &TensorArg{Type: dt, Format: acl.FormatND, Dims: []int64{12}, Strides: []int64{1}, Offset: 1, Data: s.Data}
				ys := tensor(dt, []int64{12}, vb)
				if err := run(t, c.name, binArgs(c, xs, ys, alpha, os)...); err != nil {
					t.Fatal(err)
				}
				checkValues(t, "overlap", values(os), want)
			})
		}
	}
}

// TestBinaryEmpty: an empty input gives an empty output and touches
// nothing.
func TestBinaryEmpty(t *testing.T) {
	for _, c := range binCases {
		x, y := tensor(acl.DTFloat, []int64{0, 3}, nil), tensor(acl.DTFloat, []int64{3}, []float64{1, 2, 3})
		out := tensor(acl.DTFloat, []int64{0, 3}, nil)
		if err := run(t, c.name, binArgs(c, x, y, scalar(acl.DTFloat, 1), out)...); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		// [0,3] with [1]: still [0,3]; with [2]: no broadcast.
		bad := tensor(acl.DTFloat, []int64{2}, nil)
		wantCode(t, run(t, c.name, binArgs(c, x, bad, scalar(acl.DTFloat, 1), out)...), acl.ErrNNParamInvalid, "can not broadcast")
	}
}

// TestBinaryErrors: NULLs, unsupported dtypes, promotions that cannot be
// written, shapes, dims and formats, with the native codes.
func TestBinaryErrors(t *testing.T) {
	f := func(d ...int64) *TensorArg { return tensor(acl.DTFloat, d, nil) }
	one := scalar(acl.DTFloat, 1)
	for _, c := range binCases {
		t.Run(c.name, func(t *testing.T) {
			args := binArgs(c, f(2, 3), f(3), one, f(2, 3))
			for i := range args {
				a := append([]Value(nil), args...)
				a[i] = Value{}
				wantCode(t, run(t, c.name, a...), acl.ErrNNParamNullptr, "["+Lookup(c.name).Params[i].Name+"]")
			}
			wantCode(t, run(t, c.name, binArgs(c, tensor(acl.DTDouble, []int64{3}, nil), f(3), one, f(3))...), acl.ErrNNParamInvalid, "Tensor self not implemented for ACL_DOUBLE")
			wantCode(t, run(t, c.name, binArgs(c, f(3), tensor(acl.DTBool, []int64{3}, nil), one, f(3))...), acl.ErrNNParamInvalid, "Tensor other not implemented for ACL_BOOL")
			wantCode(t, run(t, c.name, binArgs(c, f(3), f(3), one, tensor(acl.DTInt32, []int64{3}, nil))...), acl.ErrNNParamInvalid, "ACL_FLOAT can't be cast to the desired output type ACL_INT32")
			wantCode(t, run(t, c.name, binArgs(c, tensor(acl.DTInt32, []int64{3}, nil), tensor(acl.DTInt32, []int64{3}, nil), scalar(acl.DTInt32, 1), tensor(acl.DTUint16, []int64{3}, nil))...), acl.ErrNNParamInvalid, "Output dtype ACL_UINT16 is not implemented")
			wantCode(t, run(t, c.name, binArgs(c, f(2, 3), f(2), one, f(2, 3))...), acl.ErrNNParamInvalid, "can not broadcast")
			wantCode(t, run(t, c.name, binArgs(c, f(2, 3), f(3), one, f(3, 2))...), acl.ErrNNParamInvalid, "Shape of out should be [2 3]")
			wantCode(t, run(t, c.name, binArgs(c, f(1, 1, 1, 1, 1, 1, 1, 1, 1), f(1), one, f(1, 1, 1, 1, 1, 1, 1, 1, 1))...), acl.ErrNNParamInvalid, "should not be greater than 8")
			nz := f(3)
			nz.Format = acl.FormatFractalNZ
			wantCode(t, run(t, c.name, binArgs(c, nz, f(3), one, f(3))...), acl.ErrNNParamInvalid, "ACL_FORMAT_FRACTAL_NZ")
			if c.alpha {
				i := tensor(acl.DTInt32, []int64{3}, nil)
				wantCode(t, run(t, c.name, binArgs(c, i, i, scalar(acl.DTFloat, 1.5), i)...), acl.ErrNNParamInvalid, "Alpha dtype ACL_FLOAT can't be cast to the promote dtype ACL_INT32")
			}
		})
	}
}

// TestBinaryCancel: a large launch returns its context's error.
func TestBinaryCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, dt := range []acl.DataType{acl.DTFloat, acl.DTFloat16} {
		x := tensor(dt, []int64{4 * chunk}, nil)
		err := Lookup("Mul").Run(ctx, []Value{tv(x), tv(x), tv(x)})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: %v", dt, err)
		}
	}
}

// TestBinaryOutside: a view that does not fit its storage fails the
// launch instead of reading outside it.
func TestBinaryOutside(t *testing.T) {
	x := tensor(acl.DTFloat, []int64{4}, nil)
	bad := &TensorArg{Type: acl.DTFloat, Format: acl.FormatND, Dims: []int64{4}, Strides: []int64{math.MaxInt64 / 2}, Data: x.Data}
	err := Lookup("Mul").Run(context.Background(), []Value{tv(x), tv(bad), tv(x)})
	if !errors.Is(err, acl.ErrRTAicoreException) {
		t.Fatalf("got %v", err)
	}
}

// nonzero replaces zeros (divisors) with 1.
func nonzero(v []float64) {
	for i := range v {
		if v[i] == 0 {
			v[i] = 1
		}
	}
}

// TestDivSpecial: division by zero and integer division follow IEEE
// float32 and truncate into an integer out.
func TestDivSpecial(t *testing.T) {
	x := tensor(acl.DTFloat, []int64{4}, []float64{1, -1, 0, 7})
	y := tensor(acl.DTFloat, []int64{4}, []float64{0, 0, 0, 2})
	out := tensor(acl.DTFloat, []int64{4}, nil)
	if err := run(t, "Div", tv(x), tv(y), tv(out)); err != nil {
		t.Fatal(err)
	}
	checkValues(t, "div", values(out), []float64{math.Inf(1), math.Inf(-1), math.NaN(), 3.5})
	xi := tensor(acl.DTInt32, []int64{3}, []float64{7, -7, 1})
	yi := tensor(acl.DTInt32, []int64{3}, []float64{2, 2, 3})
	oi := tensor(acl.DTInt32, []int64{3}, nil)
	if err := run(t, "Div", tv(xi), tv(yi), tv(oi)); err != nil {
		t.Fatal(err)
	}
	checkValues(t, "int div", values(oi), []float64{3, -3, 0})
}

// TestFastAllocs checks that the contiguous float32 path of Add and Mul
// allocates nothing per run: a launch of a small operator costs a few
// microseconds, and each allocation a noticeable part of it.
func TestFastAllocs(t *testing.T) {
	x, y, out := tensor(acl.DTFloat, []int64{64}, nil), tensor(acl.DTFloat, []int64{64}, nil), tensor(acl.DTFloat, []int64{64}, nil)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		args []Value
	}{
		{"Add", []Value{tv(x), tv(y), sv(scalar(acl.DTFloat, 1)), tv(out)}},
		{"Mul", []Value{tv(x), tv(y), tv(out)}},
	} {
		op := Lookup(c.name)
		n := testing.AllocsPerRun(100, func() {
			if err := op.Run(ctx, c.args); err != nil {
				t.Fatal(err)
			}
		})
		if n != 0 {
			t.Errorf("%s allocates %v times per run, want none", c.name, n)
		}
	}
}
