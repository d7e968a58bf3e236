// Package nn is the host's operator library (ABI section 13.2) for Go
// guests: tensors over device buffers, and one function per operator,
// generated from the host's operator table (ops.go), so every operator
// the host offers is here.
//
// A Tensor describes device memory as the operator library sees it: a
// data type and a view (dims, strides, an offset, in elements) over one
// device allocation. Scalar, IntArray, FloatArray, BoolArray and
// TensorList are the other arguments operators take. Each is a handle of
// the sandbox: Destroy it when done (the session releases what is left
// when it ends).
//
// Each operator function (Add, Softmax, ...) runs the library's two phases
// behind one call: aclnnXxxGetWorkspaceSize checks the arguments (an
// *acl.Error with the native ACLNN_ERR_* code and the host's message
// otherwise), a workspace of the size it asks for is allocated, and
// aclnnXxx is queued on the stream. Results are in the output tensor's
// buffer once the stream is synchronized. The raw imports
// (raw.NNAddGetWorkspaceSize, raw.NNAdd, ...) stay available for programs
// that manage executors and workspaces themselves.
//
//	a, _ := acl.NewDeviceBuffer(16) // and b, c
//	ta, _ := nn.NewTensor(a, acl.DTFloat, 4) // and tb, tc
//	one, _ := nn.NewScalarFloat32(1)
//	err := nn.Add(ta, tb, one, tc, s)
//	err = s.Synchronize()
package nn

import (
	"errors"
	"unsafe"

	"github.com/aclwasm/aclwasm/guest-sdk/go/acl"
	"github.com/aclwasm/aclwasm/guest-sdk/go/acl/raw"
)

// Format is the native aclFormat of a tensor's layout.
type Format int32

// The formats of the operator library's plain tensors.
const (
	FormatNCHW Format = 0 // ACL_FORMAT_NCHW
	FormatNHWC Format = 1 // ACL_FORMAT_NHWC
	FormatND   Format = 2 // ACL_FORMAT_ND: any number of dims, row-major
)

// MaxDims is the most dims a tensor has in the operator library.
const MaxDims = 25

// null is the error of a creation that returned NULL: the host's message
// says why. Natively the creation functions return NULL with no code; the
// SDK reports ACLNN_ERR_INNER_NULLPTR, as the library's functions do for
// an object they could not make.
func null(fn string) error { return acl.Check(fn, int32(acl.ErrAclnnErrInnerNullptr)) }

// local is an error the SDK finds before calling the host.
func local(fn, msg string) error {
	return &acl.Error{Func: fn, Code: acl.ErrAclnnErrParamInvalid, Message: msg, FailIndex: -1}
}

// ptr is the address of a slice's first element, or nil for an empty one.
func ptr[T any](s []T) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}

// Tensor is an aclTensor.
type Tensor struct{ h uint32 }

// NewTensor returns a contiguous row-major tensor of dims over the start
// of buf (format ND). The host checks that dims times the element size
// fits in the buffer.
func NewTensor(buf *acl.DeviceBuffer, dtype acl.DataType, dims ...int64) (*Tensor, error) {
	if len(dims) > MaxDims {
		return nil, local("aclCreateTensor", "more than 25 dims")
	}
	strides := make([]int64, len(dims))
	s := int64(1)
	for i := len(dims) - 1; i >= 0; i-- {
		strides[i] = s
		s *= dims[i]
	}
	return NewTensorAt(buf.Ptr(), dtype, dims, strides, 0, FormatND, dims)
}

// NewTensorAt returns a tensor of any view, as aclCreateTensor takes it:
// dims and strides (elements) from offset elements into storage of
// storageDims at data, which must lie in one live device allocation.
func NewTensorAt(data acl.Ptr, dtype acl.DataType, dims, strides []int64, offset int64, format Format, storageDims []int64) (*Tensor, error) {
	if len(strides) != len(dims) {
		return nil, local("aclCreateTensor", "strides and dims differ in length")
	}
	h := raw.CreateTensor(ptr(dims), uint64(len(dims)), int32(dtype), ptr(strides), offset, int32(format), ptr(storageDims), uint64(len(storageDims)), uint64(data))
	if h == 0 {
		return nil, null("aclCreateTensor")
	}
	return &Tensor{h}, nil
}

// Handle returns the tensor's handle (what aclTensor * is on the wire).
func (t *Tensor) Handle() uint32 { return t.handle() }

func (t *Tensor) handle() uint32 {
	if t == nil {
		return 0
	}
	return t.h
}

// Destroy destroys the tensor (aclDestroyTensor).
func (t *Tensor) Destroy() error { return acl.Check("aclDestroyTensor", raw.DestroyTensor(t.handle())) }

// Scalar is an aclScalar: one value of a data type.
type Scalar struct{ h uint32 }

// NewScalar returns a scalar of dtype from its little-endian bytes
// (dtype's size of them).
func NewScalar(value []byte, dtype acl.DataType) (*Scalar, error) {
	if len(value) < dtype.Size() || len(value) == 0 {
		return nil, local("aclCreateScalar", "fewer value bytes than the data type's size")
	}
	h := raw.CreateScalar(unsafe.Pointer(&value[0]), int32(dtype))
	if h == 0 {
		return nil, null("aclCreateScalar")
	}
	return &Scalar{h}, nil
}

// NewScalarFloat32 returns a float32 scalar.
func NewScalarFloat32(v float32) (*Scalar, error) {
	return NewScalar((*[4]byte)(unsafe.Pointer(&v))[:], acl.DTFloat)
}

// NewScalarInt32 returns an int32 scalar.
func NewScalarInt32(v int32) (*Scalar, error) {
	return NewScalar((*[4]byte)(unsafe.Pointer(&v))[:], acl.DTInt32)
}

// NewScalarInt64 returns an int64 scalar.
func NewScalarInt64(v int64) (*Scalar, error) {
	return NewScalar((*[8]byte)(unsafe.Pointer(&v))[:], acl.DTInt64)
}

// NewScalarFloat16 returns a float16 scalar.
func NewScalarFloat16(v acl.Float16) (*Scalar, error) {
	return NewScalar((*[2]byte)(unsafe.Pointer(&v))[:], acl.DTFloat16)
}

func (s *Scalar) handle() uint32 {
	if s == nil {
		return 0
	}
	return s.h
}

// Destroy destroys the scalar (aclDestroyScalar).
func (s *Scalar) Destroy() error { return acl.Check("aclDestroyScalar", raw.DestroyScalar(s.handle())) }

// IntArray is an aclIntArray (dims, axes).
type IntArray struct{ h uint32 }

// NewIntArray copies v into a new array.
func NewIntArray(v ...int64) (*IntArray, error) {
	h := raw.CreateIntArray(ptr(v), uint64(len(v)))
	if h == 0 {
		return nil, null("aclCreateIntArray")
	}
	return &IntArray{h}, nil
}

func (a *IntArray) handle() uint32 {
	if a == nil {
		return 0
	}
	return a.h
}

// Destroy destroys the array (aclDestroyIntArray).
func (a *IntArray) Destroy() error {
	return acl.Check("aclDestroyIntArray", raw.DestroyIntArray(a.handle()))
}

// FloatArray is an aclFloatArray.
type FloatArray struct{ h uint32 }

// NewFloatArray copies v into a new array.
func NewFloatArray(v ...float32) (*FloatArray, error) {
	h := raw.CreateFloatArray(ptr(v), uint64(len(v)))
	if h == 0 {
		return nil, null("aclCreateFloatArray")
	}
	return &FloatArray{h}, nil
}

func (a *FloatArray) handle() uint32 {
	if a == nil {
		return 0
	}
	return a.h
}

// Destroy destroys the array (aclDestroyFloatArray).
func (a *FloatArray) Destroy() error {
	return acl.Check("aclDestroyFloatArray", raw.DestroyFloatArray(a.handle()))
}

// BoolArray is an aclBoolArray.
type BoolArray struct{ h uint32 }

// NewBoolArray copies v into a new array (one byte per bool).
func NewBoolArray(v ...bool) (*BoolArray, error) {
	h := raw.CreateBoolArray(ptr(v), uint64(len(v)))
	if h == 0 {
		return nil, null("aclCreateBoolArray")
	}
	return &BoolArray{h}, nil
}

func (a *BoolArray) handle() uint32 {
	if a == nil {
		return 0
	}
	return a.h
}

// Destroy destroys the array (aclDestroyBoolArray).
func (a *BoolArray) Destroy() error {
	return acl.Check("aclDestroyBoolArray", raw.DestroyBoolArray(a.handle()))
}

// TensorList is an aclTensorList. As natively, the list owns its tensors:
// destroying it destroys them.
type TensorList struct{ h uint32 }

// NewTensorList returns a list of ts, which it owns from now on (do not
// destroy them yourself).
func NewTensorList(ts ...*Tensor) (*TensorList, error) {
	hs := make([]uint32, len(ts))
	for i, t := range ts {
		hs[i] = t.handle()
	}
	h := raw.CreateTensorList(ptr(hs), uint64(len(hs)))
	if h == 0 {
		return nil, null("aclCreateTensorList")
	}
	return &TensorList{h}, nil
}

func (l *TensorList) handle() uint32 {
	if l == nil {
		return 0
	}
	return l.h
}

// Destroy destroys the list and its tensors (aclDestroyTensorList).
func (l *TensorList) Destroy() error {
	return acl.Check("aclDestroyTensorList", raw.DestroyTensorList(l.handle()))
}

// boolWire is a bool as it travels (an i32).
func boolWire(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// launch is the second phase of every operator: a workspace of size bytes
// (none for 0), then run(workspace, size, executor, stream). The
// workspace is freed on return, which waits for the queued operator that
// uses it.
func launch(name string, size uint64, executor uint32, s acl.Stream, run func(w, n uint64, e, st uint32) int32) (err error) {
	var w acl.Ptr
	if size > 0 {
		ws, err := acl.NewDeviceBuffer(size)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, ws.Free()) }()
		w = ws.Ptr()
	}
	return acl.Check(name, run(uint64(w), size, executor, uint32(s)))
}
