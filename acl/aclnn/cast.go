package aclnn

import (
	"context"

	"github.com/aclwasm/aclwasm/acl"
)

// convert writes src's view, broadcast to dst's dims, into dst's view as
// dst's type, through the type via (a Cast's dtype; via = dst's type for
// a plain copy): floats round to nearest even, floats to integers
// truncate toward zero saturating (castFI), integers wrap, anything to
// bool is != 0. All of src is read before dst is written, so the two may
// view one buffer.
func convert(ctx context.Context, src *TensorArg, via acl.DataType, dst *TensorArg) error {
	if numel(dst.Dims) == 0 {
		return nil
	}
	if err := inside(src); err != nil {
		return err
	}
	if err := inside(dst); err != nil {
		return err
	}
	if isFloat(src.Type) {
		v, err := gatherF(ctx, src, dst.Dims)
		if err != nil {
			return err
		}
		if isFloat(via) {
			for i := range v {
				v[i] = roundF(via, v[i])
			}
			return scatterF(ctx, dst, v)
		}
		iv := make([]int64, len(v))
		for i := range v {
			iv[i] = castFI(via, v[i])
		}
		return scatterI(ctx, dst, iv)
	}
	iv, err := gatherI(ctx, src, dst.Dims)
	if err != nil {
		return err
	}
	if isFloat(via) {
		v := make([]float32, len(iv))
		for i := range iv {
			v[i] = roundF(via, float32(iv[i]))
		}
		return scatterF(ctx, dst, v)
	}
	for i := range iv {
		iv[i] = via.Wrap(iv[i])
	}
	return scatterI(ctx, dst, iv)
}

var castParams = []Param{{Name: "self", Kind: Tensor}, {Name: "dtype", Kind: DType}, {Name: "out", Kind: Tensor, Out: true}}

// opCast is aclnnCast (ops-math math/cast/op_api/aclnn_cast.cpp): self
// and dtype in the support list (here the types the simulator stores),
// out of self's shape. The result of the Cast to dtype is copied to out
// converted to out's type, as the native ViewCopy does.
var opCast = &Op{
	Name:   "Cast",
	Header: "aclnnop/aclnn_cast.h",
	Doc:    "out = self converted to dtype (floats round to nearest even, floats to integers truncate toward zero).",
	Params: castParams,
	Check: func(args []Value) error {
		if err := nulls(castParams, args); err != nil {
			return err
		}
		self, dt, out := args[0].Tensor, acl.DataType(args[1].Int), args[2].Tensor
		if err := dtypeIn("self", self.Type, storeTypes); err != nil {
			return err
		}
		if indexOf(storeTypes, dt) < 0 {
			return invalid("The param dtype not implemented for %s, should be in dtype support list %s.", dt, typesString(storeTypes))
		}
		if err := dtypeIn("out", out.Type, storeTypes); err != nil {
			return err
		}
		for i, t := range []*TensorArg{self, out} {
			if err := tensorOK([]string{"self", "out"}[i], t); err != nil {
				return err
			}
		}
		return sameShape("self", self, "out", out)
	},
	Run: func(ctx context.Context, args []Value) error {
		return convert(ctx, args[0].Tensor, acl.DataType(args[1].Int), args[2].Tensor)
	},
}
