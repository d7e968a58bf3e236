package aclnn

import (
	"context"
	"math"

	"github.com/aclwasm/aclwasm/acl"
)

var softmaxParams = []Param{{Name: "self", Kind: Tensor}, {Name: "dim", Kind: Int64}, {Name: "out", Kind: Tensor, Out: true}}

// softmaxTypes is Softmax's support list on Atlas A2 (ops-nn
// activation/softmax_v2/op_api/aclnn_softmax.cpp) less double.
var softmaxTypes = []acl.DataType{acl.DTFloat, acl.DTFloat16, acl.DTBFloat16}

// opSoftmax is aclnnSoftmax: out = exp(x - max) / sum(exp(x - max))
// along dim. The native check returns early for an empty self (only the
// NULL checks apply then); then dtypes, dim, dims, shape.
var opSoftmax = &Op{
	Name:   "Softmax",
	Header: "aclnnop/aclnn_softmax.h",
	Doc:    "out = exp(self) / sum(exp(self)) along dim (negative counts from the end).",
	Params: softmaxParams,
	Check: func(args []Value) error {
		if err := nulls(softmaxParams, args); err != nil {
			return err
		}
		self, dim, out := args[0].Tensor, args[1].Int, args[2].Tensor
		if numel(self.Dims) == 0 {
			return viewOK("self", self)
		}
		if err := dtypeIn("self", self.Type, softmaxTypes); err != nil {
			return err
		}
		if err := dtypeIn("out", out.Type, softmaxTypes); err != nil {
			return err
		}
		rank := max(int64(len(self.Dims)), 1)
		if dim >= rank || dim < -rank {
			return invalid("provided dim %d not in the range of input size %d.", dim, rank)
		}
		for i, t := range []*TensorArg{self, out} {
			if err := tensorOK([]string{"self", "out"}[i], t); err != nil {
				return err
			}
		}
		return sameShape("self", self, "out", out)
	},
	Run: func(ctx context.Context, args []Value) error {
		self, dim, out := args[0].Tensor, args[1].Int, args[2].Tensor
		if numel(self.Dims) == 0 {
			return nil
		}
		if err := inside(self); err != nil {
			return err
		}
		if err := inside(out); err != nil {
			return err
		}
		v, err := gatherF(ctx, self, self.Dims)
		if err != nil {
			return err
		}
		// The rows along dim: n of them, each of length l, stride inner
		// in v's row-major order.
		l, inner := int64(1), int64(1)
		if len(self.Dims) > 0 {
			if dim < 0 {
				dim += int64(len(self.Dims))
			}
			l = self.Dims[dim]
			inner = numel(self.Dims[dim+1:])
		}
		outer := numel(self.Dims) / (l * inner)
		e := make([]float64, l)
		// The operator's documentation (ops-nn activation/softmax_v2/
		// docs/aclnnSoftmax.md) gives the formula with the maximum
		// subtracted, not the precision of its steps; the simulator
		// computes in float64, rounds to float32, then to self's type
		// (the kernel's output), then casts to out's.
		for o := range outer {
			if o%max(1, chunk/(l*inner)) == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			for in := range inner {
				base := o*l*inner + in
				m := math.Inf(-1)
				for j := range l {
					m = math.Max(m, float64(v[base+j*inner]))
				}
				sum := 0.0
				for j := range l {
					e[j] = math.Exp(float64(v[base+j*inner]) - m)
					sum += e[j]
				}
				for j := range l {
					v[base+j*inner] = roundF(self.Type, float32(e[j]/sum))
				}
			}
		}
		return scatterF(ctx, out, v)
	},
}
