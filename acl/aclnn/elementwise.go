package aclnn

import (
	"context"
	"encoding/binary"
	"slices"

	"github.com/aclwasm/aclwasm/acl"
)

// arith is one elementwise computation on values already converted to the
// computation's type: f on the float types (float16 and bfloat16 widened
// to float32, their result rounded back to nearest even, as the device's
// vector units compute), i on the integer types (wrapped to their width).
// Either may be nil where the operator has no such form.
type arith struct {
	f func(a, b float32) float32
	i func(a, b int64) int64
	// fast, when set, is the same computation over whole float32 slices,
	// for the contiguous float32 case (out may be a or b itself).
	fast func(out, a, b []float32)
}

// second is an elementwise operator's second operand: a tensor, or a
// scalar's value already converted to the computation's type.
type second struct {
	t  *TensorArg
	fc float32
	ic int64
}

// elementwise computes out = ar(x, y) elementwise over the broadcast shape
// (out's dims), in type p: each input converted to p (as the native
// operator casts its inputs to the promoted type), the result rounded to
// p, then converted to out's type.
func elementwise(ctx context.Context, p acl.DataType, ar arith, x *TensorArg, y second, out *TensorArg) error {
	if numel(out.Dims) == 0 {
		return nil
	}
	for _, t := range []*TensorArg{x, y.t, out} {
		if t != nil {
			if err := inside(t); err != nil {
				return err
			}
		}
	}
	if ok, err := fastElementwise(ctx, p, ar, x, y, out); ok {
		return err
	}
	shape := out.Dims
	if isFloat(p) {
		a, err := gatherAs(ctx, x, shape, p)
		if err != nil {
			return err
		}
		var b []float32
		if y.t != nil {
			if b, err = gatherAs(ctx, y.t, shape, p); err != nil {
				return err
			}
		}
		for i := range a {
			if i%chunk == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			bv := y.fc
			if b != nil {
				bv = b[i]
			}
			a[i] = roundF(p, ar.f(a[i], bv))
		}
		return scatterF(ctx, out, a)
	}
	a, err := gatherI(ctx, x, shape)
	if err != nil {
		return err
	}
	var b []int64
	if y.t != nil {
		if b, err = gatherI(ctx, y.t, shape); err != nil {
			return err
		}
	}
	for i := range a {
		if i%chunk == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		bv := y.ic
		if b != nil {
			bv = b[i]
		}
		a[i] = p.Wrap(ar.i(p.Wrap(a[i]), p.Wrap(bv)))
	}
	return scatterI(ctx, out, a)
}

// gatherAs reads t's view broadcast to shape as float32, each value
// rounded to the float type p first when t is of another type (the
// native operator casts its inputs to the promoted type).
func gatherAs(ctx context.Context, t *TensorArg, shape []int64, p acl.DataType) ([]float32, error) {
	v, err := gatherF(ctx, t, shape)
	if err == nil && t.Type != p {
		for i := range v {
			v[i] = roundF(p, v[i])
		}
	}
	return v, err
}

// fastElementwise computes the common case, every tensor of the
// computation's type (float32, float16 or bfloat16), contiguous and of
// out's shape, straight on the storage, in chunks between which it looks
// at ctx. It reports false where it does not apply: another type or
// layout, misaligned float32 storage, or an out that overlaps an input
// other than exactly (in place is fine, a shifted overlap would read
// what it wrote).
func fastElementwise(ctx context.Context, p acl.DataType, ar arith, x *TensorArg, y second, out *TensorArg) (bool, error) {
	half := p == acl.DTFloat16 || p == acl.DTBFloat16
	if p != acl.DTFloat && !half || p == acl.DTFloat && ar.fast == nil || half && ar.f == nil {
		return false, nil
	}
	// Fixed arrays, not appends: a launch's run allocates nothing here.
	for _, t := range [...]*TensorArg{x, y.t, out} {
		if t != nil && (t.Type != p || !contiguous(t) || !slices.Equal(t.Dims, out.Dims)) {
			return false, nil
		}
	}
	o := span(out)
	for _, t := range [...]*TensorArg{x, y.t} {
		if t == nil {
			continue
		}
		if s := span(t); overlap(o, s) && !same(o, s) {
			return false, nil
		}
	}
	if half {
		return true, fastHalf(ctx, p, ar.f, span(x), y, o)
	}
	c, a := f32s(o), f32s(span(x))
	var b []float32
	if y.t != nil {
		b = f32s(span(y.t))
	} else {
		b = make([]float32, min(len(a), chunk))
		for i := range b {
			b[i] = y.fc
		}
	}
	if c == nil || a == nil || b == nil {
		return false, nil
	}
	for lo := 0; lo < len(c); lo += chunk {
		hi := min(lo+chunk, len(c))
		if y.t != nil {
			ar.fast(c[lo:hi], a[lo:hi], b[lo:hi])
		} else {
			ar.fast(c[lo:hi], a[lo:hi], b[:hi-lo])
		}
		if err := ctx.Err(); err != nil {
			return true, err
		}
	}
	return true, nil
}

// fastHalf is fastElementwise for contiguous float16 or bfloat16 (type
// p): each element widened, computed in float32, rounded back.
func fastHalf(ctx context.Context, p acl.DataType, f func(a, b float32) float32, a []byte, y second, c []byte) error {
	get, put := f16, toF16
	if p == acl.DTBFloat16 {
		get, put = bf16, toBF16
	}
	var b []byte
	if y.t != nil {
		b = span(y.t)[:len(c)]
	}
	a = a[:len(c)]
	for i := 0; i < len(c); i += 2 {
		if i%(2*chunk) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		bv := y.fc
		if b != nil {
			bv = get(binary.LittleEndian.Uint16(b[i:]))
		}
		binary.LittleEndian.PutUint16(c[i:], put(f(get(binary.LittleEndian.Uint16(a[i:])), bv)))
	}
	return nil
}

// arithTypes are the types the simulator's arithmetic operators take: the
// native support lists of Add, Sub, Mul and Div on Atlas A2 (ops-math
// math/{add,sub,mul,div}/op_api/aclnn_*.cpp, ASCEND910B_DTYPE_SUPPORT_LIST)
// less double, bool and the complex types.
var arithTypes = []acl.DataType{
	acl.DTFloat, acl.DTInt32, acl.DTInt64, acl.DTFloat16, acl.DTInt16, acl.DTInt8, acl.DTUint8, acl.DTBFloat16,
}

// binaryCheck is the check of a two-tensor arithmetic operator, in the
// native order: NULLs, each input's dtype, the promotion and the alpha
// scalar (when alphaAt >= 0) and the out dtype, then the shapes.
func binaryCheck(params []Param, alphaAt int) func(args []Value) error {
	return func(args []Value) error {
		if err := nulls(params, args); err != nil {
			return err
		}
		self, other, out := args[0].Tensor, args[1].Tensor, args[len(args)-1].Tensor
		if err := dtypeIn("self", self.Type, arithTypes); err != nil {
			return err
		}
		if err := dtypeIn("other", other.Type, arithTypes); err != nil {
			return err
		}
		p := promote(self.Type, other.Type)
		if p == acl.DTUndefined {
			return invalid("Self dtype %s and other dtype %s can not promote dtype.", self.Type, other.Type)
		}
		if alphaAt >= 0 {
			if err := alphaOK(args[alphaAt].Scalar, p); err != nil {
				return err
			}
		}
		if err := castTo(p, out.Type); err != nil {
			return err
		}
		for i, t := range []*TensorArg{self, other, out} {
			if err := tensorOK([]string{"self", "other", "out"}[i], t); err != nil {
				return err
			}
		}
		return broadcastOut("self", self, "other", other, out)
	}
}

// alphaOK checks an alpha scalar against the promoted type p (ops-math
// math/add/op_api/aclnn_add.cpp, CheckPromoteType).
func alphaOK(alpha *ScalarArg, p acl.DataType) error {
	if err := scalarOK("alpha", alpha); err != nil {
		return err
	}
	if !canCast(alpha.Type, p) {
		return invalid("Alpha dtype %s can't be cast to the promote dtype %s.", alpha.Type, p)
	}
	return nil
}

// binaryRun runs a two-tensor arithmetic operator: mk builds its
// arithmetic for the promoted type from the arguments.
func binaryRun(mk func(args []Value, p acl.DataType) arith) func(ctx context.Context, args []Value) error {
	return func(ctx context.Context, args []Value) error {
		self, other, out := args[0].Tensor, args[1].Tensor, args[len(args)-1].Tensor
		p := promote(self.Type, other.Type)
		return elementwise(ctx, p, mk(args, p), self, second{t: other}, out)
	}
}

// scalarIn is a scalar's value converted to the computation's type p: a
// float type rounds it to p (the native operator casts it so, e.g. alpha
// through ToFp16 for a float16 Add), an integer type truncates and wraps.
func scalarIn(s *ScalarArg, p acl.DataType) (float32, int64) {
	if isFloat(p) {
		return roundF(p, scalarF(s)), 0
	}
	return 0, p.Wrap(scalarI(s))
}

// axpyTypes are the promoted types for which Add and Adds (sub false) or
// Sub and Subs (sub true) scale other with the device's Axpy, alpha as a
// float32; for the other types they multiply other by alpha converted to
// the promoted type, then add (ops-math math/add/op_api/aclnn_add.cpp
// AXPY_DTYPE_SUPPORT_LIST, math/sub/op_api/aclnn_sub.cpp
// AXPY_DTYPE_SUPPORT_LIST, outside the RegBase architectures).
func axpyType(p acl.DataType, sub bool) bool {
	if sub {
		return p == acl.DTFloat || p == acl.DTFloat16 || p == acl.DTBFloat16
	}
	return p == acl.DTFloat || p == acl.DTFloat16 || p == acl.DTInt32
}

// subType is the type Sub computes in: with an alpha other than 1 a
// float promotion computes in float32 (aclnn_sub.cpp, outside RegBase).
func subType(p acl.DataType, alpha *ScalarArg) acl.DataType {
	if isFloat(p) && scalarF(alpha) != 1 {
		return acl.DTFloat
	}
	return p
}

// addArith is self + alpha*other (self - alpha*other when sub), as the
// native operator computes it in the promoted type p: with alpha 1 a
// plain sum; through Axpy, alpha*other rounded to float32 on its own
// before the sum (explicit conversions keep Go from fusing the two);
// otherwise alpha*other rounded to p, then the sum. An integer Axpy
// multiplies in the integer type, wrapping (the device's int32 Axpy takes
// alpha as a float; an integer alpha is exact in it up to 2^24).
func addArith(alpha *ScalarArg, p acl.DataType, sub bool) arith {
	if scalarF(alpha) == 1 {
		if sub {
			return arith{
				f:    func(a, b float32) float32 { return a - b },
				i:    func(a, b int64) int64 { return a - b },
				fast: subF32,
			}
		}
		return arith{
			f:    func(a, b float32) float32 { return a + b },
			i:    func(a, b int64) int64 { return a + b },
			fast: addF32,
		}
	}
	sign := float32(1)
	if sub {
		sign = -1
	}
	ai := scalarI(alpha)
	if sub {
		ai = -ai
	}
	if !axpyType(p, sub) {
		af := roundF(p, scalarF(alpha)) * sign
		return arith{
			f: func(a, b float32) float32 { return a + roundF(p, af*b) },
			i: func(a, b int64) int64 { return a + p.Wrap(p.Wrap(ai)*b) },
		}
	}
	af := scalarF(alpha) * sign
	return arith{
		f: func(a, b float32) float32 { return a + float32(af*b) },
		i: func(a, b int64) int64 { return a + ai*b },
		fast: func(c, a, b []float32) {
			a, b = a[:len(c)], b[:len(c)]
			for i := range c {
				c[i] = a[i] + float32(af*b[i])
			}
		},
	}
}

func addF32(c, a, b []float32) {
	a, b = a[:len(c)], b[:len(c)]
	for i := range c {
		c[i] = a[i] + b[i]
	}
}

func subF32(c, a, b []float32) {
	a, b = a[:len(c)], b[:len(c)]
	for i := range c {
		c[i] = a[i] - b[i]
	}
}

func mulF32(c, a, b []float32) {
	a, b = a[:len(c)], b[:len(c)]
	for i := range c {
		c[i] = a[i] * b[i]
	}
}

var mulArith = arith{
	f:    func(a, b float32) float32 { return a * b },
	i:    func(a, b int64) int64 { return a * b },
	fast: mulF32,
}

var (
	addParams = []Param{{Name: "self", Kind: Tensor}, {Name: "other", Kind: Tensor}, {Name: "alpha", Kind: Scalar}, {Name: "out", Kind: Tensor, Out: true}}
	mulParams = []Param{{Name: "self", Kind: Tensor}, {Name: "other", Kind: Tensor}, {Name: "out", Kind: Tensor, Out: true}}
)

var (
	opAdd = &Op{
		Name:   "Add",
		Header: "aclnnop/aclnn_add.h",
		Doc:    "out = self + alpha * other, elementwise with broadcasting; the inputs promote to a common type.",
		Params: addParams,
		Check:  binaryCheck(addParams, 2),
		Run: binaryRun(func(args []Value, p acl.DataType) arith {
			return addArith(args[2].Scalar, p, false)
		}),
	}
	opMul = &Op{
		Name:   "Mul",
		Header: "aclnnop/aclnn_mul.h",
		Doc:    "out = self * other, elementwise with broadcasting; the inputs promote to a common type.",
		Params: mulParams,
		Check:  binaryCheck(mulParams, -1),
		Run:    binaryRun(func([]Value, acl.DataType) arith { return mulArith }),
	}
)

var (
	scalarAddParams = []Param{{Name: "self", Kind: Tensor}, {Name: "other", Kind: Scalar}, {Name: "alpha", Kind: Scalar}, {Name: "out", Kind: Tensor, Out: true}}
	mulsParams      = []Param{{Name: "self", Kind: Tensor}, {Name: "other", Kind: Scalar}, {Name: "out", Kind: Tensor, Out: true}}
)

// divType is the type Div computes in: the promoted type when it is a
// float, else float32 (ops-math math/div/op_api/aclnn_div.cpp,
// CompatibleInferDivDtype: the integer inputs are cast to float and
// divided truly; Atlas A2's int32 kernel is not modelled).
func divType(a, b acl.DataType) acl.DataType {
	if p := promote(a, b); isFloat(p) {
		return p
	}
	return acl.DTFloat
}

func divF32(c, a, b []float32) {
	a, b = a[:len(c)], b[:len(c)]
	for i := range c {
		c[i] = a[i] / b[i]
	}
}

var divArith = arith{f: func(a, b float32) float32 { return a / b }, fast: divF32}

// tensorScalarType is the type an operator of a tensor and a scalar
// computes in (ops-math math/add/op_api/aclnn_add.cpp PromoteTypeScalar,
// math/mul/op_api/aclnn_mul.cpp InferTensorScalarDtype, outside the
// RegBase architectures): a float tensor keeps its type (Muls computes a
// bfloat16 one in float32), a double scalar into a float32 out computes
// in float32, a float scalar or a bool tensor promotes, and an integer
// tensor with an integer scalar keeps the tensor's type.
func tensorScalarType(self, other, out acl.DataType, muls bool) acl.DataType {
	switch {
	case isFloat(self) && muls && self == acl.DTBFloat16:
		return acl.DTFloat
	case isFloat(self):
		return self
	case other == acl.DTDouble && (out == acl.DTFloat || muls && self == acl.DTBool):
		return acl.DTFloat
	case isFloat(other) || self == acl.DTBool:
		return promote(self, other)
	}
	return self
}

// scalarCheck is the check of a tensor-and-scalar arithmetic operator:
// NULLs, self's dtype, the computation type with the alpha scalar (when
// alphaAt >= 0) and the out dtype, then the shapes (out is self's).
func scalarCheck(params []Param, alphaAt int, muls bool) func(args []Value) error {
	return func(args []Value) error {
		if err := nulls(params, args); err != nil {
			return err
		}
		self, other, out := args[0].Tensor, args[1].Scalar, args[len(args)-1].Tensor
		if err := dtypeIn("self", self.Type, arithTypes); err != nil {
			return err
		}
		if err := scalarOK("other", other); err != nil {
			return err
		}
		p := tensorScalarType(self.Type, other.Type, out.Type, muls)
		if p == acl.DTUndefined {
			return invalid("Self dtype %s and other dtype %s can not promote dtype.", self.Type, other.Type)
		}
		if p == acl.DTDouble {
			return invalid("Self dtype %s and other dtype %s promote to ACL_DOUBLE, which the simulator does not compute in.", self.Type, other.Type)
		}
		if alphaAt >= 0 {
			if err := alphaOK(args[alphaAt].Scalar, p); err != nil {
				return err
			}
		}
		if err := castTo(p, out.Type); err != nil {
			return err
		}
		for i, t := range []*TensorArg{self, out} {
			if err := tensorOK([]string{"self", "out"}[i], t); err != nil {
				return err
			}
		}
		return sameShape("self", self, "out", out)
	}
}

// scalarRun runs a tensor-and-scalar operator: the scalar converted to
// the computation type, as the native operator makes it a tensor of it.
func scalarRun(muls bool, mk func(args []Value, p acl.DataType) arith) func(ctx context.Context, args []Value) error {
	return func(ctx context.Context, args []Value) error {
		self, other, out := args[0].Tensor, args[1].Scalar, args[len(args)-1].Tensor
		p := tensorScalarType(self.Type, other.Type, out.Type, muls)
		fc, ic := scalarIn(other, p)
		return elementwise(ctx, p, mk(args, p), self, second{fc: fc, ic: ic}, out)
	}
}

// divCheck is Div's check (ops-math math/div/op_api/aclnn_div.cpp
// CheckParams: other's dtype before self's).
func divCheck(args []Value) error {
	if err := nulls(mulParams, args); err != nil {
		return err
	}
	self, other, out := args[0].Tensor, args[1].Tensor, args[2].Tensor
	if err := dtypeIn("other", other.Type, arithTypes); err != nil {
		return err
	}
	if err := dtypeIn("self", self.Type, arithTypes); err != nil {
		return err
	}
	p := promote(self.Type, other.Type)
	if p == acl.DTUndefined {
		return invalid("Self dtype %s and other dtype %s can not promote dtype.", self.Type, other.Type)
	}
	if err := castTo(p, out.Type); err != nil {
		return err
	}
	for i, t := range []*TensorArg{self, other, out} {
		if err := tensorOK([]string{"self", "other", "out"}[i], t); err != nil {
			return err
		}
	}
	return broadcastOut("self", self, "other", other, out)
}

var (
	opSub = &Op{
		Name:   "Sub",
		Header: "aclnnop/aclnn_sub.h",
		Doc:    "out = self - alpha * other, elementwise with broadcasting; the inputs promote to a common type.",
		Params: addParams,
		Check:  binaryCheck(addParams, 2),
		Run: func(ctx context.Context, args []Value) error {
			self, other, alpha, out := args[0].Tensor, args[1].Tensor, args[2].Scalar, args[3].Tensor
			p := subType(promote(self.Type, other.Type), alpha)
			return elementwise(ctx, p, addArith(alpha, p, true), self, second{t: other}, out)
		},
	}
	opDiv = &Op{
		Name:   "Div",
		Header: "aclnnop/aclnn_div.h",
		Doc:    "out = self / other, elementwise with broadcasting, as true division (integers divide in float32).",
		Params: mulParams,
		Check:  divCheck,
		Run: func(ctx context.Context, args []Value) error {
			self, other, out := args[0].Tensor, args[1].Tensor, args[2].Tensor
			return elementwise(ctx, divType(self.Type, other.Type), divArith, self, second{t: other}, out)
		},
	}
	opAdds = &Op{
		Name:   "Adds",
		Header: "aclnnop/aclnn_add.h",
		Doc:    "out = self + alpha * other for a scalar other.",
		Params: scalarAddParams,
		Check:  scalarCheck(scalarAddParams, 2, false),
		Run: scalarRun(false, func(args []Value, p acl.DataType) arith {
			return addArith(args[2].Scalar, p, false)
		}),
	}
	opSubs = &Op{
		Name:   "Subs",
		Header: "aclnnop/aclnn_sub.h",
		Doc:    "out = self - alpha * other for a scalar other.",
		Params: scalarAddParams,
		Check:  scalarCheck(scalarAddParams, 2, false),
		Run: scalarRun(false, func(args []Value, p acl.DataType) arith {
			return addArith(args[2].Scalar, p, true)
		}),
	}
	opMuls = &Op{
		Name:   "Muls",
		Header: "aclnnop/aclnn_mul.h",
		Doc:    "out = self * other for a scalar other.",
		Params: mulsParams,
		Check:  scalarCheck(mulsParams, -1, true),
		Run:    scalarRun(true, func([]Value, acl.DataType) arith { return mulArith }),
	}
)
