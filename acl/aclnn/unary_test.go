package aclnn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/aclwasm/aclwasm/acl"
)

// ulpOf is the distance between v and the next representable value of
// the float type t away from zero.
func ulpOf(t acl.DataType, v float64) float64 {
	bits := map[acl.DataType]int{acl.DTFloat: 24, acl.DTFloat16: 11, acl.DTBFloat16: 8}[t]
	emin := map[acl.DataType]int{acl.DTFloat: -126, acl.DTFloat16: -14, acl.DTBFloat16: -126}[t]
	e := max(math.Ilogb(v), emin)
	if v == 0 {
		e = emin
	}
	return math.Ldexp(1, e-bits+1)
}

// near compares got and want within ulps units in the last place of
// the float type t (exactly for an integer type).
func near(t *testing.T, what string, typ acl.DataType, got, want []float64, ulps float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if same64(got[i], want[i]) {
			continue
		}
		if !isFloat(typ) || math.IsNaN(got[i]) || math.IsNaN(want[i]) || math.Abs(got[i]-want[i]) > ulps*ulpOf(typ, want[i]) {
			t.Fatalf("%s: element %d = %v, want %v (within %v ulp of %s)", what, i, got[i], want[i], ulps, typ)
		}
	}
}

type unaryCase struct {
	name string
	f    func(float64) float64
	// exact: IEEE decides the result (compared bit for bit).
	exact bool
}

var unaryCases = []unaryCase{
	{"Abs", math.Abs, true},
	{"Neg", func(x float64) float64 { return -x }, true},
	{"Exp", math.Exp, false},
	{"Sqrt", math.Sqrt, true},
	{"Relu", func(x float64) float64 { return math.Max(x, 0) }, true},
	{"Sigmoid", func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }, false},
}

// TestUnaryTypes runs every unary operator on every type its row lists
// (out of self's type, or float32 where the result is float and self is
// not), on a strided view, against the float64 reference rounded to the
// computation type then to out's.
func TestUnaryTypes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	units := map[string]*unary{"Abs": absOp, "Neg": negOp, "Exp": expOp, "Sqrt": sqrtOp, "Relu": reluOp, "Sigmoid": sigmoidOp}
	for _, c := range unaryCases {
		u := units[c.name]
		for _, dt := range u.types {
			t.Run(c.name+"/"+dt.String(), func(t *testing.T) {
				vals := random(r, dt, 12)
				if c.name == "Sqrt" && isFloat(dt) {
					vals[0], vals[1] = -1, 0 // NaN, 0
				}
				x := view(dt, []int64{3, 4}, []int64{1, 3}, 1, vals)
				ct := dt
				if indexOf(u.floatOf, dt) >= 0 {
					ct = acl.DTFloat
				}
				out := tensor(ct, []int64{3, 4}, nil)
				if err := run(t, c.name, tv(x), tv(out)); err != nil {
					t.Fatal(err)
				}
				want := make([]float64, len(vals))
				for i, v := range vals {
					if isFloat(ct) {
						want[i] = ref(ct, c.f(ref(ct, v)))
					} else {
						want[i] = ref(ct, c.f(v))
					}
				}
				if c.exact {
					checkValues(t, c.name, values(out), want)
				} else {
					near(t, c.name, ct, values(out), want, 1)
				}
			})
		}
	}
}

// TestUnaryEdges: Relu keeps NaN and makes -0 +0; Abs and Neg of the
// most negative integer wrap; a float32 result into a float16 out.
func TestUnaryEdges(t *testing.T) {
	x := tensor(acl.DTFloat, []int64{4}, []float64{math.NaN(), math.Copysign(0, -1), -2, 3})
	out := tensor(acl.DTFloat, []int64{4}, nil)
	if err := run(t, "Relu", tv(x), tv(out)); err != nil {
		t.Fatal(err)
	}
	checkValues(t, "relu", values(out), []float64{math.NaN(), 0, 0, 3})
	i := tensor(acl.DTInt32, []int64{1}, []float64{math.MinInt32})
	oi := tensor(acl.DTInt32, []int64{1}, nil)
	for _, op := range []string{"Abs", "Neg"} {
		if err := run(t, op, tv(i), tv(oi)); err != nil {
			t.Fatal(err)
		}
		checkValues(t, op, values(oi), []float64{math.MinInt32})
	}
	e := tensor(acl.DTFloat, []int64{2}, []float64{1, 20})
	oh := tensor(acl.DTFloat16, []int64{2}, nil)
	if err := run(t, "Exp", tv(e), tv(oh)); err != nil {
		t.Fatal(err)
	}
	checkValues(t, "exp to half", values(oh), []float64{ref(acl.DTFloat16, float64(float32(math.E))), math.Inf(1)})
}

// TestUnaryErrors: dtypes, the out dtype rules and shapes, with codes.
func TestUnaryErrors(t *testing.T) {
	f := func(dt acl.DataType, d ...int64) *TensorArg { return tensor(dt, d, nil) }
	for _, c := range unaryCases {
		t.Run(c.name, func(t *testing.T) {
			wantCode(t, run(t, c.name, Value{}, tv(f(acl.DTFloat, 2))), acl.ErrNNParamNullptr, "[self]")
			wantCode(t, run(t, c.name, tv(f(acl.DTFloat, 2)), Value{}), acl.ErrNNParamNullptr, "[out]")
			wantCode(t, run(t, c.name, tv(f(acl.DTDouble, 2)), tv(f(acl.DTDouble, 2))), acl.ErrNNParamInvalid, "Tensor self not implemented for ACL_DOUBLE")
			wantCode(t, run(t, c.name, tv(f(acl.DTFloat, 2)), tv(f(acl.DTFloat, 3))), acl.ErrNNParamInvalid, "Shape of out should be [2]")
			wantCode(t, run(t, c.name, tv(f(acl.DTFloat, 1, 1, 1, 1, 1, 1, 1, 1, 1)), tv(f(acl.DTFloat, 1, 1, 1, 1, 1, 1, 1, 1, 1))), acl.ErrNNParamInvalid, "greater than 8")
			// An empty tensor computes nothing.
			if err := run(t, c.name, tv(f(acl.DTFloat, 0, 2)), tv(f(acl.DTFloat, 0, 2))); err != nil {
				t.Fatal(err)
			}
		})
	}
	wantCode(t, run(t, "Abs", tv(f(acl.DTFloat, 2)), tv(f(acl.DTFloat16, 2))), acl.ErrNNParamInvalid, "expected dtype is ACL_FLOAT16 but found ACL_FLOAT")
	wantCode(t, run(t, "Relu", tv(f(acl.DTInt16, 2)), tv(f(acl.DTInt16, 2))), acl.ErrNNParamInvalid, "Tensor self not implemented for ACL_INT16")
	wantCode(t, run(t, "Sqrt", tv(f(acl.DTInt32, 2)), tv(f(acl.DTInt32, 2))), acl.ErrNNParamInvalid, "ACL_FLOAT can't be cast to the desired output type ACL_INT32")
	wantCode(t, run(t, "Sigmoid", tv(f(acl.DTInt32, 2)), tv(f(acl.DTInt32, 2))), acl.ErrNNParamInvalid, "Tensor out not implemented for ACL_INT32")
	wantCode(t, run(t, "Neg", tv(f(acl.DTFloat, 2)), tv(f(acl.DTInt32, 2))), acl.ErrNNParamInvalid, "can't be cast")
}

// TestScalarOps runs Adds, Subs and Muls over the computation types
// the native rules give, written out per case.
func TestScalarOps(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	type tc struct {
		op           string
		self, scalar acl.DataType
		out, compute acl.DataType
		alpha        float64
	}
	cases := []tc{
		{"Adds", acl.DTFloat, acl.DTFloat, acl.DTFloat, acl.DTFloat, 1},
		{"Adds", acl.DTFloat16, acl.DTFloat, acl.DTFloat16, acl.DTFloat16, 2},
		{"Adds", acl.DTBFloat16, acl.DTDouble, acl.DTFloat, acl.DTBFloat16, 1},
		{"Adds", acl.DTInt32, acl.DTInt32, acl.DTInt32, acl.DTInt32, 3},
		{"Adds", acl.DTInt32, acl.DTFloat, acl.DTFloat, acl.DTFloat, 1},
		{"Adds", acl.DTInt8, acl.DTInt64, acl.DTInt8, acl.DTInt8, 1},
		{"Adds", acl.DTInt16, acl.DTDouble, acl.DTFloat, acl.DTFloat, 1},
		{"Subs", acl.DTFloat, acl.DTFloat, acl.DTFloat, acl.DTFloat, 1},
		{"Subs", acl.DTFloat16, acl.DTFloat16, acl.DTFloat, acl.DTFloat16, 0.5},
		{"Subs", acl.DTInt64, acl.DTInt32, acl.DTInt64, acl.DTInt64, 2},
		{"Muls", acl.DTFloat, acl.DTFloat, acl.DTFloat, acl.DTFloat, 1},
		{"Muls", acl.DTBFloat16, acl.DTFloat, acl.DTBFloat16, acl.DTFloat, 1},
		{"Muls", acl.DTUint8, acl.DTInt32, acl.DTUint8, acl.DTUint8, 1},
		{"Muls", acl.DTInt32, acl.DTFloat16, acl.DTFloat16, acl.DTFloat16, 1},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%s*%s=%s", c.op, c.self, c.scalar, c.out), func(t *testing.T) {
			vals := random(r, c.self, 10)
			sc := random(r, c.scalar, 1)[0]
			if c.scalar == acl.DTDouble {
				sc = 0.1 // not a float32: rounds on its way in
			}
			x := view(c.self, []int64{2, 5}, []int64{5, 1}, 3, vals)
			out := tensor(c.out, []int64{2, 5}, nil)
			args := []Value{tv(x), sv(scalar(c.scalar, sc))}
			if c.op != "Muls" {
				at := acl.DTInt32
				if isFloat(c.compute) {
					at = acl.DTFloat
				}
				args = append(args, sv(scalar(at, c.alpha)))
			}
			args = append(args, tv(out))
			if err := run(t, c.op, args...); err != nil {
				t.Fatal(err)
			}
			want := make([]float64, len(vals))
			for i, v := range vals {
				if isFloat(c.compute) {
					// The scalar reaches float32 first (aclScalar's
					// ToFloat), then the computation type.
					a, b := ref(c.compute, v), ref(c.compute, float64(float32(sc)))
					switch c.op {
					case "Adds":
						want[i] = ref(c.out, ref(c.compute, a+float64(float32(c.alpha*b))))
					case "Subs":
						want[i] = ref(c.out, ref(c.compute, a-float64(float32(c.alpha*b))))
					default:
						want[i] = ref(c.out, ref(c.compute, a*b))
					}
					continue
				}
				a, b, al := int64(v), int64(sc), int64(c.alpha)
				switch c.op {
				case "Adds":
					want[i] = ref(c.out, float64(refI(c.compute, a+al*b)))
				case "Subs":
					want[i] = ref(c.out, float64(refI(c.compute, a-al*b)))
				default:
					want[i] = ref(c.out, float64(refI(c.compute, a*b)))
				}
			}
			checkValues(t, c.op, values(out), want)
		})
	}
	f := tensor(acl.DTFloat, []int64{2}, nil)
	one := scalar(acl.DTFloat, 1)
	wantCode(t, run(t, "Adds", tv(f), Value{}, sv(one), tv(f)), acl.ErrNNParamNullptr, "[other]")
	wantCode(t, run(t, "Adds", tv(f), sv(one), sv(one), tv(tensor(acl.DTFloat, []int64{3}, nil))), acl.ErrNNParamInvalid, "Shape of out should be [2]")
	i := tensor(acl.DTInt32, []int64{2}, nil)
	wantCode(t, run(t, "Adds", tv(i), sv(scalar(acl.DTInt32, 1)), sv(one), tv(i)), acl.ErrNNParamInvalid, "Alpha dtype ACL_FLOAT can't be cast to the promote dtype ACL_INT32")
	wantCode(t, run(t, "Muls", tv(i), sv(scalar(acl.DTDouble, 1)), tv(tensor(acl.DTDouble, []int64{2}, nil))), acl.ErrNNParamInvalid, "ACL_DOUBLE")
	wantCode(t, run(t, "Muls", tv(i), sv(&ScalarArg{Type: acl.DTComplex64}), tv(i)), acl.ErrNNParamInvalid, "Scalar other's dtype ACL_COMPLEX64 is not supported")
	wantCode(t, run(t, "Muls", tv(i), sv(scalar(acl.DTFloat, 1.5)), tv(i)), acl.ErrNNParamInvalid, "Result type ACL_FLOAT can't be cast to the desired output type ACL_INT32")
	// The fast path with a scalar, in place.
	v := random(r, acl.DTFloat, 3*chunk/2)
	big := tensor(acl.DTFloat, []int64{int64(len(v))}, v)
	if err := run(t, "Muls", tv(big), sv(scalar(acl.DTFloat, 3)), tv(big)); err != nil {
		t.Fatal(err)
	}
	for i := range v {
		v[i] = float64(float32(v[i] * 3))
	}
	checkValues(t, "muls in place", values(big), v)
}
