package aclnn

import "github.com/aclwasm/aclwasm/acl"

// argKinds maps a parameter's kind to its native C type in an
// [acl.OpCall].
var argKinds = map[Kind]acl.OpArgKind{
	Tensor: acl.ArgTensor, TensorList: acl.ArgTensorList, Scalar: acl.ArgScalar,
	IntArray: acl.ArgIntArray, FloatArray: acl.ArgFloatArray, BoolArray: acl.ArgBoolArray,
	Int64: acl.ArgInt64, Int8: acl.ArgInt8, Bool: acl.ArgBool, Float: acl.ArgFloat, DType: acl.ArgDType,
}

// Call describes a launch of o over args (checked by o.Check) as the call
// a native program makes, for a backend that replays it through the
// node's operator library: every argument in the row's order, each tensor
// with its view and storage, whose bytes are the launch's Region
// region(t) returns (-1: none, for a tensor without storage bytes). It is
// derived from the row alone, so no operator needs native code of its own.
func (o *Op) Call(args []Value, region func(*TensorArg) int) *acl.OpCall {
	c := &acl.OpCall{Name: o.Name, Args: make([]acl.OpArg, len(o.Params))}
	tensor := func(t *TensorArg) acl.OpTensor {
		return acl.OpTensor{Type: t.Type, Format: t.Format, Dims: t.Dims, Strides: t.Strides, Offset: t.Offset, Storage: t.Storage, Region: region(t)}
	}
	for i, p := range o.Params {
		v, a := args[i], &c.Args[i]
		k, ok := argKinds[p.Kind]
		if !ok {
			panic("aclnn: aclnn" + o.Name + ": parameter " + p.Name + " has kind " + p.Kind.String() + ", which has no native form")
		}
		a.Kind = k
		switch p.Kind {
		case Tensor:
			if v.Tensor == nil {
				a.Kind = acl.ArgNull
				break
			}
			a.Tensors = []acl.OpTensor{tensor(v.Tensor)}
		case TensorList:
			if v.Tensors == nil {
				a.Kind = acl.ArgNull
				break
			}
			a.Tensors = make([]acl.OpTensor, len(v.Tensors))
			for j, t := range v.Tensors {
				a.Tensors[j] = tensor(t)
			}
		case Scalar:
			if v.Scalar == nil {
				a.Kind = acl.ArgNull
				break
			}
			a.Scalar = acl.OpScalar{Type: v.Scalar.Type, Bits: v.Scalar.Bits}
		case IntArray:
			a.Ints = v.Ints
			if v.Ints == nil {
				a.Kind = acl.ArgNull
			}
		case FloatArray:
			a.Floats = v.Floats
			if v.Floats == nil {
				a.Kind = acl.ArgNull
			}
		case BoolArray:
			a.Bools = v.Bools
			if v.Bools == nil {
				a.Kind = acl.ArgNull
			}
		case Float:
			a.Float = v.Float
		default:
			a.Int = v.Int
		}
	}
	return c
}
