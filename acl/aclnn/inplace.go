package aclnn

import (
	"context"
	"slices"

	"github.com/aclwasm/aclwasm/acl"
)

var (
	copyParams = []Param{{Name: "selfRef", Kind: Tensor, Out: true}, {Name: "src", Kind: Tensor}}
	fillParams = []Param{{Name: "selfRef", Kind: Tensor, Out: true}, {Name: "value", Kind: Scalar}}
	zeroParams = []Param{{Name: "selfRef", Kind: Tensor, Out: true}}
)

// fillTypes is InplaceFillScalar's support list on Atlas A2 (ops-math
// conversion/fill/op_api/aclnn_fill_scalar.cpp) less double and complex.
var fillTypes = []acl.DataType{
	acl.DTFloat, acl.DTInt32, acl.DTInt64, acl.DTFloat16, acl.DTInt16, acl.DTInt8, acl.DTUint8, acl.DTBool, acl.DTBFloat16,
}

// copyTypes is InplaceCopy's support list (ops-math
// conversion/view_copy/op_api/aclnn_copy.cpp, DTYPE_SUPPORT_LIST).
var copyTypes = []acl.DataType{
	acl.DTInt8, acl.DTInt16, acl.DTInt32, acl.DTInt64, acl.DTUint8, acl.DTUint16, acl.DTUint32, acl.DTUint64,
	acl.DTFloat16, acl.DTFloat, acl.DTBool, acl.DTDouble, acl.DTComplex64, acl.DTComplex128, acl.DTBFloat16,
	acl.DTFloat8E5M2, acl.DTFloat8E4M3FN, acl.DTHiFloat8, acl.DTFloat8E8M0,
}

// zeroTypes is InplaceZero's support list (ops-math
// math/zero_op/op_api/aclnn_zero.cpp): every one of them is zero in all
// bits, so the simulator writes zero bytes for each.
var zeroTypes = []acl.DataType{
	acl.DTInt8, acl.DTInt32, acl.DTInt64, acl.DTUint8, acl.DTFloat16, acl.DTFloat, acl.DTBool, acl.DTDouble,
	acl.DTInt16, acl.DTUint16, acl.DTComplex128, acl.DTComplex64, acl.DTBFloat16,
}

var (
	// opInplaceCopy is aclnnInplaceCopy (ops-math
	// conversion/view_copy/op_api/aclnn_copy.cpp): src broadcasts to
	// selfRef's shape and is converted to its type.
	opInplaceCopy = &Op{
		Name:   "InplaceCopy",
		Header: "aclnnop/aclnn_copy.h",
		Doc:    "selfRef = src, broadcast to selfRef's shape and converted to its type.",
		Params: copyParams,
		Check: func(args []Value) error {
			if err := nulls(copyParams, args); err != nil {
				return err
			}
			self, src := args[0].Tensor, args[1].Tensor
			// One type is a copy of bytes, any type of the native list;
			// two are a conversion, between the types the simulator
			// computes on.
			list := storeTypes
			if self.Type == src.Type {
				list = copyTypes
			}
			if err := dtypeIn("selfRef", self.Type, list); err != nil {
				return err
			}
			if err := dtypeIn("src", src.Type, list); err != nil {
				return err
			}
			for i, t := range []*TensorArg{self, src} {
				if err := tensorOK([]string{"selfRef", "src"}[i], t); err != nil {
					return err
				}
			}
			shape, ok := broadcast(self.Dims, src.Dims)
			if !ok {
				return invalid("selfRef's shape %s and src's shape %s can not broadcast.", dimsString(self.Dims), dimsString(src.Dims))
			}
			if !slices.Equal(shape, self.Dims) {
				return invalid("Shape of broadcast result should be %s, but self is %s.", dimsString(shape), dimsString(self.Dims))
			}
			return nil
		},
		Run: func(ctx context.Context, args []Value) error {
			self, src := args[0].Tensor, args[1].Tensor
			if self.Type == src.Type {
				return copyBytes(ctx, src, self)
			}
			return convert(ctx, src, self.Type, self)
		},
	}
	// opInplaceFillScalar is aclnnInplaceFillScalar: every element of
	// selfRef becomes value converted to its type.
	opInplaceFillScalar = &Op{
		Name:   "InplaceFillScalar",
		Header: "aclnnop/aclnn_fill_scalar.h",
		Doc:    "Every element of selfRef = value, converted to selfRef's type.",
		Params: fillParams,
		Check: func(args []Value) error {
			if err := nulls(fillParams, args); err != nil {
				return err
			}
			self, value := args[0].Tensor, args[1].Scalar
			if err := dtypeIn("self", self.Type, fillTypes); err != nil {
				return err
			}
			if err := scalarOK("value", value); err != nil {
				return err
			}
			if promote(self.Type, value.Type) == acl.DTUndefined {
				return invalid("Self dtype %s and value dtype %s can not promote dtype.", self.Type, value.Type)
			}
			return tensorOK("self", self)
		},
		Run: func(ctx context.Context, args []Value) error {
			self, value := args[0].Tensor, args[1].Scalar
			var one [8]byte
			switch {
			case isFloat(self.Type):
				storeF(self.Type, one[:], 0, roundF(self.Type, scalarF(value)))
			case isFloat(value.Type):
				storeI(self.Type, one[:], 0, castFI(self.Type, scalarF(value)))
			default:
				storeI(self.Type, one[:], 0, scalarI(value))
			}
			return fill(ctx, self, one[:self.Type.Size()])
		},
	}
	// opInplaceZero is aclnnInplaceZero.
	opInplaceZero = &Op{
		Name:   "InplaceZero",
		Header: "aclnnop/aclnn_zero.h",
		Doc:    "Every element of selfRef = 0.",
		Params: zeroParams,
		Check: func(args []Value) error {
			if err := nulls(zeroParams, args); err != nil {
				return err
			}
			self := args[0].Tensor
			if err := dtypeIn("self", self.Type, zeroTypes); err != nil {
				return err
			}
			return viewOK("self", self)
		},
		Run: func(ctx context.Context, args []Value) error {
			self := args[0].Tensor
			return fill(ctx, self, make([]byte, self.Type.Size()))
		},
	}
)

// fill writes the element bytes one to every element of t's view.
func fill(ctx context.Context, t *TensorArg, one []byte) error {
	if numel(t.Dims) == 0 {
		return nil
	}
	if err := inside(t); err != nil {
		return err
	}
	size := int64(len(one))
	return walk(ctx, t.Dims, t.Strides, t.Offset, func(start, step, n int64) {
		for i := range n {
			copy(t.Data[(start+i*step)*size:], one)
		}
	})
}

// copyBytes copies src's view, broadcast to dst's dims, into dst's view
// (one type: each element's bytes as they are). All of src is read before
// dst is written, so the two may view one buffer.
func copyBytes(ctx context.Context, src, dst *TensorArg) error {
	if numel(dst.Dims) == 0 {
		return nil
	}
	if err := inside(src); err != nil {
		return err
	}
	if err := inside(dst); err != nil {
		return err
	}
	size := int64(dst.Type.Size())
	buf := make([]byte, 0, numel(dst.Dims)*size)
	err := walk(ctx, dst.Dims, stridesOver(src, dst.Dims), src.Offset, func(start, step, n int64) {
		for i := range n {
			o := (start + i*step) * size
			buf = append(buf, src.Data[o:o+size]...)
		}
	})
	if err != nil {
		return err
	}
	return walk(ctx, dst.Dims, dst.Strides, dst.Offset, func(start, step, n int64) {
		for i := range n {
			copy(dst.Data[(start+i*step)*size:], buf[:size])
			buf = buf[size:]
		}
	})
}
