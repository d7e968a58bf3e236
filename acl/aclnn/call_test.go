package aclnn

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// TestCall: every row has a native form for each of its parameters, in
// the row's order: NULL objects as NULL, the values with their C types,
// each tensor over the region its storage is.
func TestCall(t *testing.T) {
	for _, o := range Ops {
		c := o.Call(make([]Value, len(o.Params)), func(*TensorArg) int { return -1 })
		require.Equal(t, o.Name, c.Name)
		require.Len(t, c.Args, len(o.Params), o.Name)
		for i, p := range o.Params {
			if p.Kind.Handle() {
				require.Equal(t, acl.ArgNull, c.Args[i].Kind, "%s %s", o.Name, p.Name)
			} else {
				require.Equal(t, argKinds[p.Kind], c.Args[i].Kind, "%s %s", o.Name, p.Name)
			}
		}
	}
	self := &TensorArg{Type: acl.DTFloat, Dims: []int64{2}, Strides: []int64{1}, Storage: []int64{2}}
	out := &TensorArg{Type: acl.DTFloat16, Dims: []int64{2}, Strides: []int64{1}, Storage: []int64{2}, Offset: 1}
	c := opCast.Call([]Value{{Tensor: self}, {Int: int64(acl.DTFloat16)}, {Tensor: out}}, func(t *TensorArg) int {
		if t == self {
			return 3
		}
		return 5
	})
	require.Equal(t, []acl.OpArg{
		{Kind: acl.ArgTensor, Tensors: []acl.OpTensor{{Type: acl.DTFloat, Dims: []int64{2}, Strides: []int64{1}, Storage: []int64{2}, Region: 3}}},
		{Kind: acl.ArgDType, Int: int64(acl.DTFloat16)},
		{Kind: acl.ArgTensor, Tensors: []acl.OpTensor{{Type: acl.DTFloat16, Dims: []int64{2}, Strides: []int64{1}, Storage: []int64{2}, Offset: 1, Region: 5}}},
	}, c.Args)
	c = opReduceSum.Call([]Value{{Tensor: self}, {Ints: []int64{}}, {Int: 1}, {Int: 0}, {Tensor: out}}, func(*TensorArg) int { return 0 })
	require.Equal(t, acl.OpArg{Kind: acl.ArgIntArray, Ints: []int64{}}, c.Args[1], "an empty array is no NULL")
	require.Equal(t, acl.OpArg{Kind: acl.ArgBool, Int: 1}, c.Args[2])
}
