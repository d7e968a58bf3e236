// Package aclnn is the operator library the host offers guests (ABI
// section 13.2): one table row per operator, saying what its native
// functions take (aclnnXxxGetWorkspaceSize's parameters, in order), which
// data types and shapes it accepts with the library's own codes, how much
// workspace it asks for, and the simulator's arithmetic.
//
// The table is the one place an operator is described: the ABI table
// (package abi) derives each operator's two imports from it, the sandbox
// checks and launches through it, the guest SDKs' headers are generated
// from it, and the native backend finds the node's functions by its names.
// Adding an operator is one row plus its arithmetic.
package aclnn

import (
	"context"

	"github.com/aclwasm/aclwasm/acl"
)

// Kind is what one parameter of aclnnXxxGetWorkspaceSize is natively.
type Kind uint8

// The parameter kinds. The object kinds are handles on the wire (ABI
// section 13: opaque native pointers become handles); the others are
// plain values.
const (
	Tensor     Kind = iota + 1 // const aclTensor* (aclTensor* for an output)
	TensorList                 // const aclTensorList*
	Scalar                     // const aclScalar*
	IntArray                   // const aclIntArray*
	FloatArray                 // const aclFloatArray*
	BoolArray                  // const aclBoolArray*
	Int64                      // int64_t
	Int8                       // int8_t (cubeMathType)
	Bool                       // bool
	Float                      // float (a value attribute; natively in a float register)
	DType                      // aclDataType
)

// Handle reports whether a parameter of kind k is an object handle.
func (k Kind) Handle() bool { return k >= Tensor && k <= BoolArray }

// String returns the native C type of an input parameter of kind k.
func (k Kind) String() string {
	switch k {
	case Tensor:
		return "const aclTensor *"
	case TensorList:
		return "const aclTensorList *"
	case Scalar:
		return "const aclScalar *"
	case IntArray:
		return "const aclIntArray *"
	case FloatArray:
		return "const aclFloatArray *"
	case BoolArray:
		return "const aclBoolArray *"
	case Int64:
		return "int64_t"
	case Int8:
		return "int8_t"
	case Bool:
		return "bool"
	case Float:
		return "float"
	case DType:
		return "aclDataType"
	}
	return "Kind(?)"
}

// Param is one parameter of an operator's aclnnXxxGetWorkspaceSize,
// before workspaceSize and executor.
type Param struct {
	Name string
	Kind Kind
	// Out marks a tensor the operator writes (natively aclTensor*, not
	// const); an in-place operator's self is Out.
	Out bool
	// Optional marks a parameter that may be NULL.
	Optional bool
}

// Value is one argument of a launch, as the sandbox resolved it from the
// guest's handles and values; the field of the parameter's Kind is set
// (Tensor, Tensors, Scalar, Ints, Floats, Bools, or Int for Int64, Int8,
// Bool (0 or 1) and DType, Float for Float). An optional parameter the
// guest passed as NULL has every field zero; an array of no elements (an
// empty aclIntArray, ReduceSum's "all dims") is a non-nil empty slice, so
// that the operators tell it from NULL.
type Value struct {
	Tensor  *TensorArg
	Tensors []*TensorArg
	Scalar  *ScalarArg
	Ints    []int64
	Floats  []float32
	Bools   []bool
	Int     int64
	Float   float32
}

// TensorArg is an aclTensor as its creation described it (aclCreateTensor's
// arguments), and, when the operator runs, its storage.
type TensorArg struct {
	Type    acl.DataType
	Format  acl.Format
	Dims    []int64 // the view's dims
	Strides []int64 // the view's strides, in elements
	Offset  int64   // the view's offset into the storage, in elements
	Storage []int64 // the storage dims
	// Data is the storage's bytes (storage dims x element size) while the
	// operator runs; nil when its shapes are checked.
	Data []byte
}

// ScalarArg is an aclScalar: a value of a data type, its bytes as the
// guest's memory held them (little-endian, Type.Size() of them).
type ScalarArg struct {
	Type acl.DataType
	Bits [8]byte
}

// Op is one operator: aclnn<Name>GetWorkspaceSize and aclnn<Name>.
type Op struct {
	// Name is the operator's name in its functions: "Add" names
	// aclnnAddGetWorkspaceSize and aclnnAdd.
	Name string
	// Header is the native header that declares it: "aclnnop/aclnn_add.h".
	Header string
	// Doc says what it computes, for the SDKs.
	Doc string
	// Params are aclnnXxxGetWorkspaceSize's parameters before
	// workspaceSize and executor, in the native order.
	Params []Param
	// Check applies the library's rules to the arguments (NULLs, data
	// types, shapes, broadcasting, formats) with its codes
	// ([acl.ErrNNParamNullptr], [acl.ErrNNParamInvalid]) and a message
	// naming the argument; a nil Check accepts anything the Params allow.
	// Data is nil in every TensorArg.
	Check func(args []Value) error
	// Workspace returns the workspace the operator asks for; nil asks for
	// none.
	Workspace func(args []Value) uint64
	// Run computes the operator on the simulator, after Check passed:
	// every TensorArg's Data is its storage. It returns when ctx is done.
	Run func(ctx context.Context, args []Value) error
}

// Ops is the operator table, in the order the SDKs and docs list it.
var Ops []*Op

// Lookup returns the operator named name ("Add"), or nil.
func Lookup(name string) *Op {
	for _, o := range Ops {
		if o.Name == name {
			return o
		}
	}
	return nil
}
