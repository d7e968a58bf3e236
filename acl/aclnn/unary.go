package aclnn

import (
	"context"
	"math"

	"github.com/aclwasm/aclwasm/acl"
)

// unary is an elementwise operator of one tensor, out = f(self), as
// data: its dtypes and how its result type and out's type relate.
type unary struct {
	// types are self's supported dtypes.
	types []acl.DataType
	// outTypes, when set, are out's supported dtypes.
	outTypes []acl.DataType
	// sameType requires out's dtype to be self's (OP_CHECK_DTYPE_NOT_MATCH);
	// otherwise the result type must cast to out's.
	sameType bool
	// floatOf lists self types computed in float32 (integers and bool
	// for Exp, Sqrt, Sigmoid); the others compute in self's type.
	floatOf []acl.DataType
	ar      arith
}

func (u *unary) resultType(self acl.DataType) acl.DataType {
	if indexOf(u.floatOf, self) >= 0 {
		return acl.DTFloat
	}
	return self
}

var unaryParams = []Param{{Name: "self", Kind: Tensor}, {Name: "out", Kind: Tensor, Out: true}}

func (u *unary) check(args []Value) error {
	if err := nulls(unaryParams, args); err != nil {
		return err
	}
	self, out := args[0].Tensor, args[1].Tensor
	if err := dtypeIn("self", self.Type, u.types); err != nil {
		return err
	}
	if u.outTypes != nil {
		if err := dtypeIn("out", out.Type, u.outTypes); err != nil {
			return err
		}
	}
	if u.sameType && out.Type != self.Type {
		return invalid("Tensor self expected dtype is %s but found %s.", out.Type, self.Type)
	}
	if err := castTo(u.resultType(self.Type), out.Type); err != nil {
		return err
	}
	for i, t := range []*TensorArg{self, out} {
		if err := tensorOK([]string{"self", "out"}[i], t); err != nil {
			return err
		}
	}
	return sameShape("self", self, "out", out)
}

func (u *unary) run(ctx context.Context, args []Value) error {
	self, out := args[0].Tensor, args[1].Tensor
	return elementwise(ctx, u.resultType(self.Type), u.ar, self, second{}, out)
}

// The unary operators' support lists are the native ones on Atlas A2
// (ops-math math/{abs,neg,exp,sqrt}/op_api/aclnn_*.cpp, ops-nn
// activation/{relu,sigmoid}/op_api/aclnn_*.cpp) less double and the
// complex types. The transcendental ones compute in float64 and round
// once to float32 (the device's own approximations are within its
// documented precision of these, not bit-equal to them).
var (
	absOp = &unary{
		types:    []acl.DataType{acl.DTFloat, acl.DTFloat16, acl.DTInt64, acl.DTInt32, acl.DTInt16, acl.DTInt8, acl.DTUint8, acl.DTBool, acl.DTBFloat16},
		sameType: true,
		ar: arith{
			f: func(a, _ float32) float32 { return math.Float32frombits(math.Float32bits(a) &^ (1 << 31)) },
			i: func(a, _ int64) int64 {
				if a < 0 {
					return -a
				}
				return a
			},
		},
	}
	negOp = &unary{
		types: []acl.DataType{acl.DTInt8, acl.DTInt32, acl.DTInt64, acl.DTFloat16, acl.DTFloat, acl.DTBFloat16},
		ar: arith{
			f: func(a, _ float32) float32 { return -a },
			i: func(a, _ int64) int64 { return -a },
		},
	}
	expOp = &unary{
		types:   []acl.DataType{acl.DTFloat, acl.DTFloat16, acl.DTBFloat16, acl.DTBool, acl.DTInt64},
		floatOf: []acl.DataType{acl.DTBool, acl.DTInt64},
		ar:      arith{f: func(a, _ float32) float32 { return float32(math.Exp(float64(a))) }},
	}
	sqrtOp = &unary{
		types: []acl.DataType{acl.DTFloat, acl.DTFloat16, acl.DTInt32, acl.DTInt64, acl.DTInt16, acl.DTInt8, acl.DTBool,
			acl.DTBFloat16, acl.DTUint8},
		floatOf: []acl.DataType{acl.DTInt32, acl.DTInt64, acl.DTInt16, acl.DTInt8, acl.DTBool, acl.DTUint8},
		// The square root is correctly rounded in float64, and rounding
		// that to float32 is the float32 square root.
		ar: arith{f: func(a, _ float32) float32 { return float32(math.Sqrt(float64(a))) }},
	}
	reluOp = &unary{
		types:    []acl.DataType{acl.DTFloat, acl.DTFloat16, acl.DTInt8, acl.DTUint8, acl.DTInt32, acl.DTInt64, acl.DTBFloat16},
		sameType: true,
		ar: arith{
			// NaN passes through; -0 becomes +0.
			f: func(a, _ float32) float32 {
				if a > 0 || a != a {
					return a
				}
				return 0
			},
			i: func(a, _ int64) int64 { return max(a, 0) },
		},
	}
	sigmoidOp = &unary{
		types: []acl.DataType{acl.DTFloat, acl.DTFloat16, acl.DTInt8, acl.DTInt16, acl.DTInt32, acl.DTInt64, acl.DTBool,
			acl.DTBFloat16, acl.DTUint8},
		outTypes: []acl.DataType{acl.DTFloat, acl.DTFloat16, acl.DTBFloat16},
		floatOf:  []acl.DataType{acl.DTInt8, acl.DTInt16, acl.DTInt32, acl.DTInt64, acl.DTBool, acl.DTUint8},
		ar:       arith{f: func(a, _ float32) float32 { return float32(1 / (1 + math.Exp(-float64(a)))) }},
	}
)

func unaryOp(name, header, doc string, u *unary) *Op {
	return &Op{Name: name, Header: header, Doc: doc, Params: unaryParams, Check: u.check, Run: u.run}
}

var (
	opAbs     = unaryOp("Abs", "aclnnop/aclnn_abs.h", "out = |self|, elementwise.", absOp)
	opNeg     = unaryOp("Neg", "aclnnop/aclnn_neg.h", "out = -self, elementwise.", negOp)
	opExp     = unaryOp("Exp", "aclnnop/aclnn_exp.h", "out = e^self, elementwise (integers and bool in float32).", expOp)
	opSqrt    = unaryOp("Sqrt", "aclnnop/aclnn_sqrt.h", "out = sqrt(self), elementwise (integers and bool in float32).", sqrtOp)
	opRelu    = unaryOp("Relu", "aclnnop/aclnn_relu.h", "out = max(self, 0), elementwise.", reluOp)
	opSigmoid = unaryOp("Sigmoid", "aclnnop/aclnn_sigmoid.h", "out = 1 / (1 + e^-self), elementwise.", sigmoidOp)
)
