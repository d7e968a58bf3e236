package acl

import "fmt"

// ErrGEFailure is ACL_ERROR_GE_FAILURE: what the graph engine's failed
// assertions become at the ACL layer, among them a model input or output
// buffer too small for the model (davinci_model.cc's CheckUserAndModelSize
// under GE_ASSERT_TRUE).
const ErrGEFailure Error = 500002

// Limits and sizes of acl_mdl.h (ABI section 13.4).
const (
	MaxDimCount      = 128  // ACL_MAX_DIM_CNT: dims of one model input or output
	MaxTensorNameLen = 128  // ACL_MAX_TENSOR_NAME_LEN: aclmdlIODims.name, its NUL included
	IODimsSize       = 1160 // sizeof(aclmdlIODims) in both profiles
)

// ioDimsCount and ioDimsDims are the offsets of aclmdlIODims.dimCount and
// .dims: after the 128-byte name, and at 136 in both profiles, since the
// int64 array is 8-byte aligned after a size_t of 8 (LP64, the wide
// profile) or of 4 plus 4 bytes of padding (wasm32, acl32).
const (
	ioDimsCount = MaxTensorNameLen
	ioDimsDims  = 136
)

// IODims is aclmdlIODims: the name and dims of one model input or
// output, as aclmdlGetInputDims and aclmdlGetOutputDims write them.
type IODims struct {
	Name string
	Dims []int64
}

// Encode writes d into b (IODimsSize bytes at least) as aclmdlIODims in
// the profile whose size_t is sizeWidth bytes (8 wide, 4 in acl32). Like
// the native runtime it writes the name with its NUL, dimCount and the
// dimCount dims, and leaves the rest of the caller's struct as it was.
// The name must fit (ModelTensorName makes it) and the dims number at
// most MaxDimCount.
func (d IODims) Encode(b []byte, sizeWidth int) error {
	switch {
	case len(d.Name)+1 > MaxTensorNameLen:
		return fmt.Errorf("acl: aclmdlIODims name of %d bytes, at most %d", len(d.Name), MaxTensorNameLen-1)
	case len(d.Dims) > MaxDimCount:
		return fmt.Errorf("acl: %d dims, at most %d", len(d.Dims), MaxDimCount)
	case sizeWidth != 4 && sizeWidth != 8:
		return fmt.Errorf("acl: size_t of %d bytes", sizeWidth)
	}
	_ = b[IODimsSize-1]
	copy(b, d.Name)
	b[len(d.Name)] = 0
	if sizeWidth == 8 {
		le.PutUint64(b[ioDimsCount:], uint64(len(d.Dims)))
	} else {
		le.PutUint32(b[ioDimsCount:], uint32(len(d.Dims)))
	}
	for i, v := range d.Dims {
		le.PutUint64(b[ioDimsDims+8*i:], uint64(v))
	}
	return nil
}

// ModelTensorName is the name aclmdlGetInputDims and aclmdlGetOutputDims
// report for input or output idx of model id: the tensor's own name when
// it fits aclmdlIODims.name, else the native runtime's stand-in
// "acl_modelId_<id>_input_<idx>" ("_output_" for an output). (Natively a
// stand-in that collides with a real tensor name is altered further;
// that case is not modelled.)
func ModelTensorName(name string, id uint32, output bool, idx int) string {
	if len(name)+1 <= MaxTensorNameLen {
		return name
	}
	kind := "input"
	if output {
		kind = "output"
	}
	return fmt.Sprintf("acl_modelId_%d_%s_%d", id, kind, idx)
}
