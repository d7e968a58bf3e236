package acl

// DataType is aclDataType: the element type of a tensor, a scalar or a
// model's input and output, with the values of the native acl_base.h.
type DataType int32

// The data types of acl_base.h.
const (
	DTUndefined    DataType = -1
	DTFloat        DataType = 0
	DTFloat16      DataType = 1
	DTInt8         DataType = 2
	DTInt32        DataType = 3
	DTUint8        DataType = 4
	DTInt16        DataType = 6
	DTUint16       DataType = 7
	DTUint32       DataType = 8
	DTInt64        DataType = 9
	DTUint64       DataType = 10
	DTDouble       DataType = 11
	DTBool         DataType = 12
	DTString       DataType = 13
	DTComplex64    DataType = 16
	DTComplex128   DataType = 17
	DTBFloat16     DataType = 27
	DTInt4         DataType = 29
	DTUint1        DataType = 30
	DTComplex32    DataType = 33
	DTHiFloat8     DataType = 34
	DTFloat8E5M2   DataType = 35
	DTFloat8E4M3FN DataType = 36
	DTFloat8E8M0   DataType = 37
	DTFloat6E3M2   DataType = 38
	DTFloat6E2M3   DataType = 39
	DTFloat4E2M1   DataType = 40
	DTFloat4E1M2   DataType = 41
)

// DataTypes lists every named data type in the header's order.
var DataTypes = []DataType{
	DTUndefined, DTFloat, DTFloat16, DTInt8, DTInt32, DTUint8, DTInt16, DTUint16, DTUint32, DTInt64, DTUint64,
	DTDouble, DTBool, DTString, DTComplex64, DTComplex128, DTBFloat16, DTInt4, DTUint1, DTComplex32, DTHiFloat8,
	DTFloat8E5M2, DTFloat8E4M3FN, DTFloat8E8M0, DTFloat6E3M2, DTFloat6E2M3, DTFloat4E2M1, DTFloat4E1M2,
}

var dataTypeNames = []named[DataType]{
	{DTUndefined, "ACL_DT_UNDEFINED"}, {DTFloat, "ACL_FLOAT"}, {DTFloat16, "ACL_FLOAT16"},
	{DTInt8, "ACL_INT8"}, {DTInt32, "ACL_INT32"}, {DTUint8, "ACL_UINT8"}, {DTInt16, "ACL_INT16"},
	{DTUint16, "ACL_UINT16"}, {DTUint32, "ACL_UINT32"}, {DTInt64, "ACL_INT64"}, {DTUint64, "ACL_UINT64"},
	{DTDouble, "ACL_DOUBLE"}, {DTBool, "ACL_BOOL"}, {DTString, "ACL_STRING"},
	{DTComplex64, "ACL_COMPLEX64"}, {DTComplex128, "ACL_COMPLEX128"}, {DTBFloat16, "ACL_BF16"},
	{DTInt4, "ACL_INT4"}, {DTUint1, "ACL_UINT1"}, {DTComplex32, "ACL_COMPLEX32"},
	{DTHiFloat8, "ACL_HIFLOAT8"}, {DTFloat8E5M2, "ACL_FLOAT8_E5M2"},
	{DTFloat8E4M3FN, "ACL_FLOAT8_E4M3FN"}, {DTFloat8E8M0, "ACL_FLOAT8_E8M0"},
	{DTFloat6E3M2, "ACL_FLOAT6_E3M2"}, {DTFloat6E2M3, "ACL_FLOAT6_E2M3"},
	{DTFloat4E2M1, "ACL_FLOAT4_E2M1"}, {DTFloat4E1M2, "ACL_FLOAT4_E1M2"},
}

// String returns the header's name, "ACL_FLOAT16", or "aclDataType(N)".
func (t DataType) String() string { return nameOf("aclDataType", t, dataTypeNames) }

// Named reports whether the header names t.
func (t DataType) Named() bool {
	for _, n := range dataTypeNames {
		if n.v == t {
			return true
		}
	}
	return false
}

// Size is aclDataTypeSize: the bytes of one element, as the native
// runtime answers. It is 0 for ACL_STRING and ACL_DT_UNDEFINED, 1 for the
// sub-byte ACL_UINT1 and ACL_INT4 (a tensor of them is rounded up per
// element by that function), and 8 for a value the header does not name.
func (t DataType) Size() uint64 {
	switch t {
	case DTString, DTUndefined:
		return 0
	case DTUint1, DTInt4, DTBool, DTInt8, DTUint8, DTHiFloat8, DTFloat8E5M2, DTFloat8E4M3FN, DTFloat8E8M0:
		return 1
	case DTFloat16, DTInt16, DTUint16, DTBFloat16:
		return 2
	case DTFloat, DTInt32, DTUint32, DTComplex32:
		return 4
	case DTComplex128:
		return 16
	}
	return 8
}

// Wrap returns the value an integer element of type t holds when v is
// stored into it: v's low bits, sign-extended for a signed type and
// zero-extended for an unsigned one; ACL_BOOL holds 0 or 1 (any nonzero v
// is 1). Other types (64-bit, floating) return v unchanged. The operator
// library's integer arithmetic and the kernels' scalar arguments read
// integers through it, so both widen a value as the device's types do.
func (t DataType) Wrap(v int64) int64 {
	switch t {
	case DTInt8:
		return int64(int8(v))
	case DTUint8:
		return int64(uint8(v))
	case DTInt16:
		return int64(int16(v))
	case DTUint16:
		return int64(uint16(v))
	case DTInt32:
		return int64(int32(v))
	case DTUint32:
		return int64(uint32(v))
	case DTBool:
		if v != 0 {
			return 1
		}
		return 0
	}
	return v
}

// Format is aclFormat: the memory layout a tensor declares. The operator
// library computes on ND (and the layouts that are ND in memory: NCHW,
// NHWC, NCDHW, NDHWC, NC, NCL, HWCN); the private layouts (NC1HWC0,
// FRACTAL_*) are the device's own tiling.
type Format int32

// The formats of acl_base.h.
const (
	FormatUndefined  Format = -1
	FormatNCHW       Format = 0
	FormatNHWC       Format = 1
	FormatND         Format = 2
	FormatNC1HWC0    Format = 3
	FormatFractalZ   Format = 4
	FormatNC1HWC0C04 Format = 12
	FormatHWCN       Format = 16
	FormatNDHWC      Format = 27
	FormatFractalNZ  Format = 29
	FormatNCDHW      Format = 30
	FormatNDC1HWC0   Format = 32
	FormatFractalZ3D Format = 33
	FormatNC         Format = 35
	FormatNCL        Format = 47
)

var formatNames = []named[Format]{
	{FormatUndefined, "ACL_FORMAT_UNDEFINED"}, {FormatNCHW, "ACL_FORMAT_NCHW"},
	{FormatNHWC, "ACL_FORMAT_NHWC"}, {FormatND, "ACL_FORMAT_ND"},
	{FormatNC1HWC0, "ACL_FORMAT_NC1HWC0"}, {FormatFractalZ, "ACL_FORMAT_FRACTAL_Z"},
	{FormatNC1HWC0C04, "ACL_FORMAT_NC1HWC0_C04"}, {FormatHWCN, "ACL_FORMAT_HWCN"},
	{FormatNDHWC, "ACL_FORMAT_NDHWC"}, {FormatFractalNZ, "ACL_FORMAT_FRACTAL_NZ"},
	{FormatNCDHW, "ACL_FORMAT_NCDHW"}, {FormatNDC1HWC0, "ACL_FORMAT_NDC1HWC0"},
	{FormatFractalZ3D, "ACL_FORMAT_FRACTAL_Z_3D"}, {FormatNC, "ACL_FORMAT_NC"},
	{FormatNCL, "ACL_FORMAT_NCL"},
}

// Formats lists every named format in the header's order.
var Formats = func() []Format {
	f := make([]Format, len(formatNames))
	for i, n := range formatNames {
		f[i] = n.v
	}
	return f
}()

// String returns the header's name, "ACL_FORMAT_ND", or "aclFormat(N)".
func (f Format) String() string { return nameOf("aclFormat", f, formatNames) }

// Plain reports whether f lays elements out as ND does (row-major over the
// view's strides): the layouts the simulator's operators compute on.
func (f Format) Plain() bool {
	switch f {
	case FormatND, FormatNCHW, FormatNHWC, FormatNCDHW, FormatNDHWC, FormatNC, FormatNCL, FormatHWCN:
		return true
	}
	return false
}
