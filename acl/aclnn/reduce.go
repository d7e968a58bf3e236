package aclnn

import (
	"context"
	"slices"

	"github.com/aclwasm/aclwasm/acl"
)

var reduceSumParams = []Param{
	{Name: "self", Kind: Tensor}, {Name: "dim", Kind: IntArray}, {Name: "keepDims", Kind: Bool},
	{Name: "dtype", Kind: DType}, {Name: "out", Kind: Tensor, Out: true},
}

// reduceTypes is ReduceSum's support list on Atlas A2 (ops-math
// math/reduce_sum/op_api/aclnn_reduce_sum.cpp) less double and complex.
var reduceTypes = []acl.DataType{
	acl.DTFloat16, acl.DTFloat, acl.DTInt8, acl.DTInt16, acl.DTInt32, acl.DTInt64, acl.DTUint8, acl.DTBool, acl.DTBFloat16,
}

// reduceDims returns the dims of self that dim names, as a mask (an
// empty dim reduces them all), or an error with the native message.
func reduceDims(self []int64, dim []int64) ([]bool, error) {
	n := int64(len(self))
	rank := max(n, 1) // a scalar tensor takes dim 0 and -1
	mask := make([]bool, rank)
	for _, d := range dim {
		if d >= rank || d < -rank {
			return nil, invalid("Provided dim %d must be in the range of [%d, %d].", d, -rank, rank-1)
		}
		if d < 0 {
			d += rank
		}
		if mask[d] {
			return nil, invalid("Dim %d appears multiple times in the list of dims.", d)
		}
		mask[d] = true
	}
	if len(dim) == 0 {
		for i := range mask {
			mask[i] = true
		}
	}
	return mask[:n], nil
}

// reducedShape is self's dims with the masked ones removed, or 1 with
// keepDims.
func reducedShape(self []int64, mask []bool, keep bool) []int64 {
	out := []int64{}
	for i, d := range self {
		switch {
		case !mask[i]:
			out = append(out, d)
		case keep:
			out = append(out, 1)
		}
	}
	return out
}

var opReduceSum = &Op{
	Name:   "ReduceSum",
	Header: "aclnnop/aclnn_reduce_sum.h",
	Doc:    "out = the sum of self over the dims in dim (all of them when dim is empty), in dtype; keepDims keeps them as 1.",
	Params: reduceSumParams,
	Check: func(args []Value) error {
		if err := nulls(reduceSumParams, args); err != nil {
			return err
		}
		self, dim, keep, dt, out := args[0].Tensor, args[1].Ints, args[2].Int != 0, acl.DataType(args[3].Int), args[4].Tensor
		if err := dtypeIn("self", self.Type, reduceTypes); err != nil {
			return err
		}
		if err := dtypeIn("out", out.Type, reduceTypes); err != nil {
			return err
		}
		if indexOf(reduceTypes, dt) < 0 {
			return invalid("type %s should be in dtype support list %s.", dt, typesString(reduceTypes))
		}
		if out.Type != dt {
			return invalid("Tensor out expected dtype is %s but found %s.", dt, out.Type)
		}
		for i, t := range []*TensorArg{self, out} {
			if err := tensorOK([]string{"self", "out"}[i], t); err != nil {
				return err
			}
		}
		mask, err := reduceDims(self.Dims, dim)
		if err != nil {
			return err
		}
		// The result's shape (op_error_check.h CheckReduceOutShape: equal,
		// or both of one element).
		want := reducedShape(self.Dims, mask, keep)
		if !slices.Equal(want, out.Dims) && !(numel(want) == 1 && numel(out.Dims) == 1) {
			return invalid("The out tensor's shape%s is not equal with inferOut shape%s.", dimsString(out.Dims), dimsString(want))
		}
		return nil
	},
	Run: func(ctx context.Context, args []Value) error {
		self, dim, dt, out := args[0].Tensor, args[1].Ints, acl.DataType(args[3].Int), args[4].Tensor
		if numel(out.Dims) == 0 {
			return nil
		}
		if err := inside(self); err != nil {
			return err
		}
		if err := inside(out); err != nil {
			return err
		}
		mask, _ := reduceDims(self.Dims, dim)
		// Each out element's position in the reduction: self's element i
		// (row-major) adds to out element of i's kept coordinates.
		kept := reducedShape(self.Dims, mask, true)
		n := numel(kept)
		dst := make([]int64, 0, numel(self.Dims))
		idx := make([]int64, len(self.Dims))
		st := rowMajor(kept)
		for k := range numel(self.Dims) {
			if k%chunk == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			o := int64(0)
			for i, v := range idx {
				if !mask[i] {
					o += v * st[i]
				}
			}
			dst = append(dst, o)
			for i := len(idx) - 1; i >= 0; i-- {
				if idx[i]++; idx[i] < self.Dims[i] {
					break
				}
				idx[i] = 0
			}
		}
		if isFloat(dt) {
			// The device sums in its own order and its documentation
			// (ops-math math/reduce_sum/docs/aclnnReduceSum.md) names no
			// accumulation type; the simulator sums in float64 and
			// rounds once to dtype.
			v, err := gatherF(ctx, self, self.Dims)
			if err != nil {
				return err
			}
			acc := make([]float64, n)
			for i, x := range v {
				acc[dst[i]] += float64(roundF(dt, x))
			}
			r := make([]float32, n)
			for i, a := range acc {
				r[i] = roundF(dt, float32(a))
			}
			return scatterF(ctx, out, r)
		}
		if isFloat(self.Type) {
			// A float self summed as an integer type: each element cast
			// first, as the native operator casts self to dtype.
			v, err := gatherF(ctx, self, self.Dims)
			if err != nil {
				return err
			}
			acc := make([]int64, n)
			for i, x := range v {
				acc[dst[i]] = dt.Wrap(acc[dst[i]] + castFI(dt, x))
			}
			return scatterI(ctx, out, acc)
		}
		v, err := gatherI(ctx, self, self.Dims)
		if err != nil {
			return err
		}
		acc := make([]int64, n)
		for i, x := range v {
			if dt == acl.DTBool { // ReduceAny
				acc[dst[i]] |= acl.DTBool.Wrap(x)
				continue
			}
			acc[dst[i]] = dt.Wrap(acc[dst[i]] + dt.Wrap(x))
		}
		return scatterI(ctx, out, acc)
	},
}
