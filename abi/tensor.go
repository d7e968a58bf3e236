package abi

import "github.com/aclwasm/aclwasm/acl"

// The operator library's objects (ABI section 13.2), with the native
// signatures of aclnn/acl_meta.h: each creation returns its object as a
// handle (0 for NULL, the reason in aclGetRecentErrMsg), each destruction
// an aclnnStatus. int64_t arrays are 8-byte elements and handle arrays
// 4-byte ones in both profiles.

var (
	dataType = newEnum("aclDataType", "The element type of a tensor or a scalar.", acl.DataTypes...)
	format   = newEnum("aclFormat", "The memory layout a tensor declares.", acl.Formats...)
)

// i64s is an array of int64_t the host reads, counted by n.
func i64s(name, n string) Param {
	return Param{Name: name, Type: Gptr, Dir: In, Elem: U64, Len: n, Native: "const int64_t *"}
}

// objs is an array of n object handles of kind k the host reads.
func objs(name string, k Kind, n string) Param {
	return Param{Name: name, Type: Gptr, Dir: In, Kind: k, Len: n}
}

// i64 is an int64_t value.
func i64(name string) Param { return u64(name).native("int64_t") }

var tensorFuncs = []Func{
	{Name: "aclCreateTensor", Group: Tensor, Result: TensorHandle, Params: []Param{i64s("viewDims", "viewDimsNum"), u64("viewDimsNum"), enum("dataType", dataType), i64s("stride", "viewDimsNum"), i64("offset"), enum("format", format), i64s("storageDims", "storageDimsNum"), u64("storageDimsNum"), addr("tensorData")},
		Doc: "Creates a tensor: a view (dims, strides and offset in elements) of storage dims x element size bytes at tensorData, which must lie in one live allocation; NULL with the reason in aclGetRecentErrMsg."},
	{Name: "aclDestroyTensor", Group: Tensor, Params: []Param{handle("tensor", TensorHandle).native("const aclTensor *")},
		Doc: "Destroys a tensor (NULL: nothing); executors made from it keep what they need."},
	{Name: "aclCreateScalar", Group: Tensor, Result: ScalarHandle, Params: []Param{in("value", DataValue).native("void *"), enum("dataType", dataType)},
		Doc: "Creates a scalar of dataType from the value's bytes; NULL value gives NULL."},
	{Name: "aclDestroyScalar", Group: Tensor, Params: []Param{handle("scalar", ScalarHandle).native("const aclScalar *")},
		Doc: "Destroys a scalar (NULL: nothing)."},
	{Name: "aclCreateIntArray", Group: Tensor, Result: IntArrayHandle, Params: []Param{i64s("value", "size"), u64("size")},
		Doc: "Creates an array of size int64_t values (dims, axes)."},
	{Name: "aclDestroyIntArray", Group: Tensor, Params: []Param{handle("array", IntArrayHandle).native("const aclIntArray *")},
		Doc: "Destroys an int array (NULL: nothing)."},
	{Name: "aclCreateFloatArray", Group: Tensor, Result: FloatArrayHandle, Params: []Param{Param{Name: "value", Type: Gptr, Dir: In, Kind: Float, Len: "size", Native: "const float *"}, u64("size")},
		Doc: "Creates an array of size floats."},
	{Name: "aclDestroyFloatArray", Group: Tensor, Params: []Param{handle("array", FloatArrayHandle).native("const aclFloatArray *")},
		Doc: "Destroys a float array (NULL: nothing)."},
	{Name: "aclCreateBoolArray", Group: Tensor, Result: BoolArrayHandle, Params: []Param{Param{Name: "value", Type: Gptr, Dir: In, Kind: Bool, Len: "size", Native: "const bool *"}, u64("size")},
		Doc: "Creates an array of size bools (one byte each)."},
	{Name: "aclDestroyBoolArray", Group: Tensor, Params: []Param{handle("array", BoolArrayHandle).native("const aclBoolArray *")},
		Doc: "Destroys a bool array (NULL: nothing)."},
	{Name: "aclCreateTensorList", Group: Tensor, Result: TensorListHandle, Params: []Param{objs("value", TensorHandle, "size").native("const aclTensor *const *"), u64("size")},
		Doc: "Creates a list of size tensors (handles); the list refers to them, so destroy them only with it."},
	{Name: "aclDestroyTensorList", Group: Tensor, Params: []Param{handle("array", TensorListHandle).native("const aclTensorList *")},
		Doc: "Destroys a tensor list and the tensors in it, as natively (NULL: nothing)."},
	{Name: "aclSetAclOpExecutorRepeatable", Group: Tensor, Params: []Param{handle("executor", ExecutorHandle)},
		Doc: "Lets an executor run more than once, until aclDestroyAclOpExecutor."},
	{Name: "aclDestroyAclOpExecutor", Group: Tensor, Params: []Param{handle("executor", ExecutorHandle)},
		Doc: "Destroys an executor made repeatable (a single-use one goes with its run)."},
}
