// Package abi is the guest ABI in code: the table of host functions a wasm
// guest imports, with their wire types and what each parameter means (in
// or out, a handle of which kind, an enum, a string, an array and its
// count). The table is the single source of truth: the sandbox registers
// its imports from it, checks a module's imports against it at load time,
// the guest SDK generators emit their bindings from it, the trace renders
// calls from it, and `aclwasm abi` prints it.
//
// One table has two wire forms, the profiles of ABI v1.1: Wide (module
// "acl": addresses and sizes are i64) and [Native32] (module "acl32", section
// 9: addresses and sizes are 32-bit, as void* and size_t are on wasm32).
// A profile is a property of the wire mapping, not a second table: it
// decides how wide an addr or size parameter is, and how wide the values
// behind a gptr parameter that holds addresses or sizes are ([Param.Elem]).
//
// The package exports the table and what reads it: [Funcs], [Lookup] and
// their [Func], [Param], [Type] and [Group]; what a parameter means
// ([Dir], [Kind], [Enum], [Enums]); the profiles ([Profile],
// [Wide], [Native32], [Profiles], [ProfileOf]) and module names ([Module],
// [Module32], [Version]); the bytes-convention table of module aclwasm
// ([IOModule], [IOFuncs], [LookupIO]); and the renderings ([WriteMarkdown],
// [WriteJSON]) that aclwasm abi prints. They are exported because other
// packages read the table rather than copy it: the sandbox (package host)
// registers and checks imports from [Funcs], the CLI prints and checks
// against it, and the guest SDK generators (guest-sdk/internal/gen) emit
// their bindings from it.
package abi

import (
	"fmt"
	"slices"
	"strings"
)

// Module is the import module of the wide profile, Wide.Module().
const Module = "acl"

// Module32 is the import module of the native-layout profile,
// Native32.Module().
const Module32 = "acl32"

// Version is the ABI version this table describes.
const Version = 1

// Type is a wire type: how one parameter crosses the wasm boundary.
type Type uint8

// The wire types of ABI section 2, and [U64]. The zero Type is none: a
// Param's Elem is zero when its gptr holds nothing of a profile-dependent
// width.
const (
	// Addr is an address naming guest memory or device memory: i64 in the
	// wide profile, i32 (a void*) in acl32.
	Addr Type = iota + 1
	// Gptr is an i32 pointer into the guest's linear memory.
	Gptr
	// Size is a byte count or index, native size_t: i64 (widened) in the
	// wide profile, i32 in acl32.
	Size
	// Handle is an i32 stream or event handle; 0 is NULL.
	Handle
	// I32 is an i32 enum, device id, flag or int32 value.
	I32
	// U64 is a value that is uint64_t natively: i64 in both profiles,
	// written "i64" (ABI.md section 10).
	U64
)

// String returns the wire type's name as ABI.md writes it.
func (t Type) String() string {
	switch t {
	case Addr:
		return "addr"
	case Gptr:
		return "gptr"
	case Size:
		return "size"
	case Handle:
		return "handle"
	case I32:
		return "i32"
	case U64:
		return "i64"
	}
	return fmt.Sprintf("Type(%d)", t)
}

// Wasm returns the wasm value type that carries t in the wide profile:
// "i32" or "i64". [Profile.Wasm] gives it for either profile.
func (t Type) Wasm() string { return Wide.Wasm(t) }

// Is64 reports whether t travels as an i64 in the wide profile.
func (t Type) Is64() bool { return Wide.Is64(t) }

// MarshalText implements encoding.TextMarshaler, for the JSON form of the table.
func (t Type) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler, so that the JSON form
// of the table (`aclwasm abi --json`) reads back into Funcs' types.
func (t *Type) UnmarshalText(b []byte) error {
	for c := Addr; c <= U64; c++ {
		if string(b) == c.String() {
			*t = c
			return nil
		}
	}
	return fmt.Errorf("abi: %q is not a wire type (want addr, gptr, size, handle, i32 or i64)", b)
}

// Profile is a wire form of the table (ABI v1.1 section 9): which module a
// guest imports from, and how wide addresses and sizes are on the wire and
// in guest memory.
type Profile uint8

// The two profiles.
const (
	// Wide is module "acl": addresses and sizes are i64 parameters and
	// 8-byte values in guest memory.
	Wide Profile = iota
	// Native32 is module "acl32", the native layout of wasm32: addresses
	// (void*) and sizes (size_t) are i32 parameters and 4-byte values in
	// guest memory; device addresses are 32-bit values in a window above
	// the guest's memory.
	Native32
)

// Profiles lists the profiles, Wide first.
var Profiles = []Profile{Wide, Native32}

// Module returns the import module of the profile: "acl" or "acl32".
func (p Profile) Module() string {
	if p == Native32 {
		return Module32
	}
	return Module
}

// String returns the profile's module name.
func (p Profile) String() string { return p.Module() }

// ProfileOf returns the profile whose import module is module, and whether
// there is one.
func ProfileOf(module string) (Profile, bool) {
	switch module {
	case Module:
		return Wide, true
	case Module32:
		return Native32, true
	}
	return Wide, false
}

// Is64 reports whether t travels as an i64 in profile p.
func (p Profile) Is64(t Type) bool {
	switch t {
	case U64:
		return true
	case Addr, Size:
		return p == Wide
	}
	return false
}

// Wasm returns the wasm value type that carries t in profile p: "i32" or
// "i64".
func (p Profile) Wasm(t Type) string {
	if p.Is64(t) {
		return "i64"
	}
	return "i32"
}

// Width returns how many bytes a value of type t takes in guest or device
// memory in profile p (out-parameters, array elements, the base-address
// slots of aclrtMemcpyAsyncWithOffset): 8 for addresses and sizes in the
// wide profile and for [U64], 4 otherwise.
func (p Profile) Width(t Type) uint64 {
	if p.Is64(t) {
		return 8
	}
	return 4
}

// Group is the part of the API a function belongs to.
type Group string

// The groups, in the order the README and SDKs present them.
const (
	Memcpy     Group = "memcpy"
	Batch      Group = "batch"
	Memcpy2D   Group = "memcpy2d"
	Descriptor Group = "descriptor"
	Memset     Group = "memset"
	Runtime    Group = "runtime"
	Device     Group = "device"
	Memory     Group = "memory"
	Stream     Group = "stream"
	Event      Group = "event"
	Context    Group = "context"
	// Tensor is the operator library's objects (ABI section 13.2):
	// tensors, scalars, arrays, tensor lists and executors.
	Tensor Group = "tensor"
	// Operator is the operator library's functions, two per row of
	// aclnn.Ops (operator.go).
	Operator Group = "operator"
)

// Param is one parameter of a host function: its name and wire type, and
// what it is beyond that, so that the sandbox, the trace and the guest SDK
// generators read a parameter's meaning from this one description.
//
// An addr, size or i64 parameter needs nothing more. An i32 is an [Int],
// a [Uint] or one of an [Enum]'s values; a handle names its [Kind] of
// handle. A gptr says its direction ([In], [Out], [OutAlways]) and what it
// points to: values of a profile-dependent width (Elem), values of an
// Enum, or a Kind (an int32_t, a handle, a string, a struct); an array or
// buffer names the parameter that counts it (Len). The package's tests
// fail on a parameter of [Funcs] whose description is missing or does not
// fit its wire type.
type Param struct {
	Name string `json:"name"`
	Type Type   `json:"type"`
	// Elem, for a gptr parameter, is the type of the value it points to
	// or of its array's elements when their width depends on the profile
	// or is 8 bytes: Addr (void*, void*[]), Size (size_t, size_t[]) or [U64]
	// (uint64_t). Zero (none) for int32 values, handles, structs, floats
	// and strings, whose layout is the same in both profiles.
	Elem Type `json:"elem,omitempty"`

	// Dir, for a gptr, says whether the host reads or writes through it.
	Dir Dir `json:"-"`
	// Kind is what an i32 or handle is, or what a gptr points to when
	// neither Elem nor Enum says it.
	Kind Kind `json:"-"`
	// Enum, for an i32 or a gptr, is the native enum its values belong to.
	Enum *Enum `json:"-"`
	// Len, for a gptr to an array or a byte buffer, names the parameter
	// that counts its elements or bytes.
	Len string `json:"-"`
	// Native is the parameter's type in the native header where the
	// description alone does not give it (a const, a void ** slot, a
	// typedef of its own), for the guest SDKs' native declarations.
	Native string `json:"-"`
}

// ElemSize returns the width in bytes of the value or array elements a
// gptr parameter points to in profile p, or 0 when Elem is none.
func (q Param) ElemSize(p Profile) uint64 {
	if q.Elem == 0 {
		return 0
	}
	return p.Width(q.Elem)
}

// Dir is the direction of a gptr parameter; the zero Dir is unset.
type Dir uint8

// The directions.
const (
	// In: the host reads what the parameter points to.
	In Dir = iota + 1
	// Out: the host writes it when the call succeeds.
	Out
	// OutAlways: the host writes it whether or not the call succeeds
	// (failIndex of the batch copies names the entry that failed).
	OutAlways
)

// String returns "in", "out" or "out-always".
func (d Dir) String() string {
	switch d {
	case In:
		return "in"
	case Out:
		return "out"
	case OutAlways:
		return "out-always"
	}
	return fmt.Sprintf("Dir(%d)", d)
}

// Kind is what a parameter's value is beyond its wire type, or what a
// gptr points to. The zero Kind is none.
type Kind uint8

// The kinds.
const (
	// Int is an int32_t: a device id, a timeout that may be -1, a length.
	Int Kind = iota + 1
	// Uint is a uint32_t: flags, counts, timeouts, ids.
	Uint
	// Float is a float (aclrtEventElapsedTime's milliseconds).
	Float
	// StreamHandle, EventHandle, ContextHandle and NotifyHandle are the
	// handle types: aclrtStream, aclrtEvent, aclrtContext, aclrtNotify.
	StreamHandle
	EventHandle
	ContextHandle
	NotifyHandle
	// CString is a NUL-terminated string the host reads (or NULL where the
	// function allows it).
	CString
	// Bytes is a byte buffer of Len bytes.
	Bytes
	// GuestFunc is a guest function pointer (a table index) the host hands
	// back to the guest's dispatcher export.
	GuestFunc
	// UserData is the guest's own pointer, handed back untouched.
	UserData
	// Reserved is a reserved pointer that must be NULL.
	Reserved
	// PtrAttributes, MemcpyBatchAttr, ErrorInfo and UtilizationInfo are
	// the structs aclrtPtrAttributes, aclrtMemcpyBatchAttr, aclrtErrorInfo
	// and aclrtUtilizationInfo.
	PtrAttributes
	MemcpyBatchAttr
	ErrorInfo
	// StreamConfig is aclrtStreamConfigHandle (ABI v1.3 section 15): its
	// pointer and sizes are 8 bytes in the wide profile, 4 in acl32.
	StreamConfig
	UtilizationInfo
	// RandomTask is aclrtRandomNumTaskInfo (ABI v1.3 section 15): its
	// three pointers are 8 bytes in the wide profile, 4 in acl32.
	RandomTask
	// The operator library's objects (ABI section 13.2), a fifth kind of
	// handle: aclTensor, aclScalar, aclIntArray, aclFloatArray,
	// aclBoolArray, aclTensorList and aclOpExecutor.
	TensorHandle
	ScalarHandle
	IntArrayHandle
	FloatArrayHandle
	BoolArrayHandle
	TensorListHandle
	ExecutorHandle
	// Bool is a C bool, one byte in guest memory (aclCreateBoolArray's).
	Bool
	// DataValue is a value of the aclDataType another parameter names,
	// its size's bytes (aclCreateScalar's value).
	DataValue
	// The model objects (ABI section 13.4), handles of the same fifth kind:
	// aclmdlDesc and aclmdlDataset.
	ModelDescHandle
	DatasetHandle
	// IODims is the struct aclmdlIODims: acl.IODimsSize bytes in both
	// profiles.
	IODims
	// DataBuffer is the guest's aclDataBuffer {data, size}: an address and
	// a size of the profile's width each.
	DataBuffer
	// The kernel API's objects (ABI section 13.3), handles of the fifth
	// kind: aclrtBinHandle, aclrtFuncHandle, aclrtArgsHandle and
	// aclrtParamHandle (void * natively, 4 bytes on wasm32).
	BinHandle
	FuncHandle
	ArgsHandle
	ParamHandle
	// BinaryLoadOptions and LaunchKernelCfg are the structs
	// aclrtBinaryLoadOptions and aclrtLaunchKernelCfg: {pointer to an
	// array of 20-byte entries in guest memory, size_t count}, 8 bytes in
	// both profiles (wasm32's pointer and size_t: nothing in them is a
	// device address or a device size).
	BinaryLoadOptions
	LaunchKernelCfg
	// StampHandle is a profiling stamp (ABI v1.3 section 15, natively a
	// void *), a handle of the same fifth kind.
	StampHandle
	// EventAttributes is the struct aclprofEventAttributes: the host reads
	// its first 8 bytes (version, size, messageType), the same in both
	// profiles.
	EventAttributes
	kindEnd
)

var kindNames = [...]string{
	Int: "int", Uint: "uint", Float: "float",
	StreamHandle: "stream", EventHandle: "event", ContextHandle: "context", NotifyHandle: "notify",
	CString: "string", Bytes: "bytes", GuestFunc: "func", UserData: "userdata", Reserved: "reserved",
	PtrAttributes: "aclrtPtrAttributes", MemcpyBatchAttr: "aclrtMemcpyBatchAttr", ErrorInfo: "aclrtErrorInfo",
	StreamConfig:    "aclrtStreamConfigHandle",
	UtilizationInfo: "aclrtUtilizationInfo", RandomTask: "aclrtRandomNumTaskInfo",
	TensorHandle: "aclTensor", ScalarHandle: "aclScalar", IntArrayHandle: "aclIntArray", FloatArrayHandle: "aclFloatArray",
	BoolArrayHandle: "aclBoolArray", TensorListHandle: "aclTensorList", ExecutorHandle: "aclOpExecutor",
	Bool: "bool", DataValue: "value",
	ModelDescHandle: "aclmdlDesc", DatasetHandle: "aclmdlDataset",
	IODims: "aclmdlIODims", DataBuffer: "aclDataBuffer",
	BinHandle: "aclrtBinHandle", FuncHandle: "aclrtFuncHandle", ArgsHandle: "aclrtArgsHandle", ParamHandle: "aclrtParamHandle",
	BinaryLoadOptions: "aclrtBinaryLoadOptions", LaunchKernelCfg: "aclrtLaunchKernelCfg",
	StampHandle: "aclprofStamp", EventAttributes: "aclprofEventAttributes",
}

// String returns the kind's name: "int", "stream", "aclrtPtrAttributes".
func (k Kind) String() string {
	if k > 0 && k < kindEnd {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// MarshalText implements encoding.TextMarshaler, for a Func's Result in
// the JSON form of the table.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *Kind) UnmarshalText(b []byte) error {
	for c := Int; c < kindEnd; c++ {
		if string(b) == c.String() {
			*k = c
			return nil
		}
	}
	return fmt.Errorf("abi: %q is not a kind", b)
}

// IsHandle reports whether k is one of the handle kinds.
func (k Kind) IsHandle() bool {
	return k >= StreamHandle && k <= NotifyHandle || k.IsObject() || k.IsModelObject() || k.IsKernelObject() || k == StampHandle
}

// IsKernelObject reports whether k is one of the kernel API's objects
// (aclrtBinHandle ... aclrtParamHandle), whose native type is a void *
// typedef of the name String gives.
func (k Kind) IsKernelObject() bool { return k >= BinHandle && k <= ParamHandle }

// IsModelObject reports whether k is one of the model objects (aclmdlDesc,
// aclmdlDataset), whose native type is a pointer to a struct of the name
// String gives.
func (k Kind) IsModelObject() bool { return k >= ModelDescHandle && k <= DatasetHandle }

// IsObject reports whether k is one of the operator library's object
// handles (aclTensor ... aclOpExecutor), whose native type is a pointer
// to a struct of the name String gives.
func (k Kind) IsObject() bool { return k >= TensorHandle && k <= ExecutorHandle }

// IsStruct reports whether k is one of the structs.
func (k Kind) IsStruct() bool {
	return k >= PtrAttributes && k <= RandomTask || k == IODims || k == DataBuffer || k == BinaryLoadOptions || k == LaunchKernelCfg || k == EventAttributes
}

// The table's parameters, built so that each row reads like its prototype.

func addr(name string) Param { return Param{Name: name, Type: Addr} }
func size(name string) Param { return Param{Name: name, Type: Size} }
func u64(name string) Param  { return Param{Name: name, Type: U64} }
func i32(name string) Param  { return Param{Name: name, Type: I32, Kind: Int} }
func u32(name string) Param  { return Param{Name: name, Type: I32, Kind: Uint} }

func enum(name string, e *Enum) Param    { return Param{Name: name, Type: I32, Enum: e} }
func handle(name string, k Kind) Param   { return Param{Name: name, Type: Handle, Kind: k} }
func in(name string, k Kind) Param       { return Param{Name: name, Type: Gptr, Dir: In, Kind: k} }
func out(name string, k Kind) Param      { return Param{Name: name, Type: Gptr, Dir: Out, Kind: k} }
func outOf(name string, elem Type) Param { return Param{Name: name, Type: Gptr, Dir: Out, Elem: elem} }
func outEnum(name string, e *Enum) Param { return Param{Name: name, Type: Gptr, Dir: Out, Enum: e} }
func array(name string, elem Type, n string) Param {
	return Param{Name: name, Type: Gptr, Dir: In, Elem: elem, Len: n}
}

func (q Param) len(n string) Param    { q.Len = n; return q }
func (q Param) native(t string) Param { q.Native = t; return q }
func (q Param) always() Param         { q.Dir = OutAlways; return q }

// Func is one host function of the ABI. Every function returns an i32:
// an aclError, except aclGetRecentErrMsg, which returns the message
// length, and the functions whose Result names a handle kind.
type Func struct {
	Name   string  `json:"name"`
	Group  Group   `json:"group"`
	Params []Param `json:"params"`
	Doc    string  `json:"doc"`
	// Result, when set, is the handle kind the function returns in place
	// of an aclError (aclCreateTensor returns an aclTensor*: a handle on
	// the wire, 0 for NULL, the error in aclGetRecentErrMsg), or a value
	// kind: Uint for a size_t (aclmdlGetNumInputs; 0 on an error, as
	// natively), Int for an enum (aclmdlGetInputFormat).
	Result Kind `json:"result,omitempty"`
	// Op is the operator a function of Group Operator runs (its name in
	// aclnn.Ops), and Launch tells aclnnXxx from aclnnXxxGetWorkspaceSize.
	Op     string `json:"op,omitempty"`
	Launch bool   `json:"launch,omitempty"`
}

// ResultName returns what the function returns, as ABI.md writes it:
// "i32", "handle" for a function whose Result is a handle, "size" for a
// size_t.
func (f *Func) ResultName() string {
	switch {
	case f.Result.IsHandle():
		return "handle"
	case f.Result == Uint:
		return "size" // a size_t: 32 bits in both profiles' C, saturated
	case f.Result == DataBuffer:
		return "gptr" // the guest's own pointer, handed back
	}
	return "i32"
}

// Signature returns the wasm signature in the wide profile, such as
// "(i64, i64, i64, i64, i32) -> i32".
func (f *Func) Signature() string { return f.SignatureIn(Wide) }

// SignatureIn returns the wasm signature in profile p: aclrtMemcpy is
// "(i64, i64, i64, i64, i32) -> i32" in Wide and
// "(i32, i32, i32, i32, i32) -> i32" in [Native32].
func (f *Func) SignatureIn(p Profile) string {
	ts := make([]string, len(f.Params))
	for i, q := range f.Params {
		ts[i] = p.Wasm(q.Type)
	}
	return "(" + strings.Join(ts, ", ") + ") -> i32"
}

// Index returns the position of f in Funcs (found by name), or -1 if f is
// not a function of the table.
func (f *Func) Index() int {
	if i, ok := index[f.Name]; ok {
		return i
	}
	return -1
}

// Funcs is the import table, in the order of ABI.md section 5, then the
// functions of sections 10 and 12. Each parameter is described as
// [Param] says; a new function is one row here and its implementation in
// the sandbox. The operator library's objects (tensor.go) and functions,
// derived from aclnn.Ops (operator.go), follow.
var Funcs = append(append([]Func{
	{Name: "aclrtMemcpy", Group: Memcpy, Params: []Param{addr("dst"), size("destMax"), addr("src").native("const void *"), size("count"), enum("kind", memcpyKind)},
		Doc: "Copies count bytes from src to dst synchronously; the direction comes from the addresses."},
	{Name: "aclrtMemcpyAsync", Group: Memcpy, Params: []Param{addr("dst"), size("destMax"), addr("src").native("const void *"), size("count"), enum("kind", memcpyKind), handle("stream", StreamHandle)},
		Doc: "Queues a copy on stream; with unregistered guest memory it completes before returning."},
	{Name: "aclrtMemcpyAsyncWithCondition", Group: Memcpy, Params: []Param{addr("dst"), size("destMax"), addr("src").native("const void *"), size("count"), enum("kind", memcpyKind), handle("stream", StreamHandle)},
		Doc: "Deprecated natively; behaves as aclrtMemcpyAsync."},
	{Name: "aclrtMemcpyBatch", Group: Batch, Params: []Param{array("dsts", Addr, "numBatches"), array("destMaxs", Size, "numBatches"), array("srcs", Addr, "numBatches"), array("sizes", Size, "numBatches"), size("numBatches"), in("attrs", MemcpyBatchAttr).len("numAttrs").native("aclrtMemcpyBatchAttr *"), array("attrsIndexes", Size, "numAttrs"), size("numAttrs"), outOf("failIndex", Size).always()},
		Doc: "Runs numBatches H2D/D2H copies in no fixed order; *failIndex names the entry that failed a location check, or SIZE_MAX."},
	{Name: "aclrtMemcpyBatchAsync", Group: Batch, Params: []Param{array("dsts", Addr, "numBatches"), array("destMaxs", Size, "numBatches"), array("srcs", Addr, "numBatches"), array("sizes", Size, "numBatches"), size("numBatches"), in("attrs", MemcpyBatchAttr).len("numAttrs").native("aclrtMemcpyBatchAttr *"), array("attrsIndexes", Size, "numAttrs"), size("numAttrs"), outOf("failIndex", Size).always(), handle("stream", StreamHandle)},
		Doc: "Queues a batch of H2D/D2H copies on stream as one operation."},
	{Name: "aclrtMemcpyBatchV2", Group: Batch, Params: []Param{array("dsts", Addr, "numBatches"), array("destMaxs", Size, "numBatches"), array("srcs", Addr, "numBatches"), array("sizes", Size, "numBatches"), size("numBatches"), in("attrs", MemcpyBatchAttr).len("numAttrs").native("aclrtMemcpyBatchAttr *"), array("attrsIndexes", Size, "numAttrs"), size("numAttrs")},
		Doc: "aclrtMemcpyBatch without failIndex."},
	{Name: "aclrtMemcpyBatchAsyncV2", Group: Batch, Params: []Param{array("dsts", Addr, "numBatches"), array("destMaxs", Size, "numBatches"), array("srcs", Addr, "numBatches"), array("sizes", Size, "numBatches"), size("numBatches"), in("attrs", MemcpyBatchAttr).len("numAttrs").native("aclrtMemcpyBatchAttr *"), array("attrsIndexes", Size, "numAttrs"), size("numAttrs"), handle("stream", StreamHandle)},
		Doc: "aclrtMemcpyBatchAsync without failIndex."},
	{Name: "aclrtMemcpy2d", Group: Memcpy2D, Params: []Param{addr("dst"), size("dpitch"), addr("src").native("const void *"), size("spitch"), size("width"), size("height"), enum("kind", memcpyKind)},
		Doc: "Copies height rows of width bytes, rows spitch apart in src and dpitch apart in dst (H2D or D2H)."},
	{Name: "aclrtMemcpy2dAsync", Group: Memcpy2D, Params: []Param{addr("dst"), size("dpitch"), addr("src").native("const void *"), size("spitch"), size("width"), size("height"), enum("kind", memcpyKind), handle("stream", StreamHandle)},
		Doc: "Queues a 2D copy on stream (H2D, D2H or D2D)."},
	{Name: "aclrtGetMemcpyDescSize", Group: Descriptor, Params: []Param{enum("kind", memcpyKind), outOf("descSize", Size)},
		Doc: "Writes the size of a copy descriptor for kind (INNER_DEVICE_TO_DEVICE only)."},
	{Name: "aclrtSetMemcpyDesc", Group: Descriptor, Params: []Param{addr("desc"), enum("kind", memcpyKind), addr("srcAddr"), addr("dstAddr"), size("count"), in("config", Reserved)},
		Doc: "Writes a descriptor for a device-to-device copy into device memory at desc; config must be NULL."},
	{Name: "aclrtMemcpyAsyncWithDesc", Group: Descriptor, Params: []Param{addr("desc"), enum("kind", memcpyKind), handle("stream", StreamHandle)},
		Doc: "Queues the copy a descriptor describes; the descriptor is read and validated when the copy executes."},
	{Name: "aclrtMemcpyAsyncWithOffset", Group: Descriptor, Params: []Param{addr("dst").native("void **"), size("destMax"), size("dstDataOffset"), addr("src").native("const void **"), size("count"), size("srcDataOffset"), enum("kind", memcpyKind), handle("stream", StreamHandle)},
		Doc: "Queues a copy between the device addresses stored at dst and src, plus offsets; the slots are read when the copy executes."},
	{Name: "aclrtMemset", Group: Memset, Params: []Param{addr("devPtr"), size("maxCount"), i32("value"), size("count")},
		Doc: "Sets count bytes of device or pinned memory to the low byte of value."},
	{Name: "aclrtMemsetAsync", Group: Memset, Params: []Param{addr("devPtr"), size("maxCount"), i32("value"), size("count"), handle("stream", StreamHandle)},
		Doc: "Queues a memset on stream."},
	{Name: "aclInit", Group: Runtime, Params: []Param{in("configPath", CString)},
		Doc: "Initializes the runtime (optional); configPath is 0 or a NUL-terminated string; a second call gives 100002."},
	{Name: "aclFinalize", Group: Runtime, Params: []Param{},
		Doc: "Finalizes the runtime; a second call gives 100037."},
	{Name: "aclrtGetVersion", Group: Runtime, Params: []Param{out("major", Int), out("minor", Int), out("patch", Int)},
		Doc: "Writes the ACL version (1.17.0) as three int32."},
	{Name: "aclrtSetDevice", Group: Device, Params: []Param{i32("deviceId")},
		Doc: "Makes deviceId current; required before device work."},
	{Name: "aclrtResetDevice", Group: Device, Params: []Param{i32("deviceId")},
		Doc: "Waits for the session's work on the device, then releases everything it holds there."},
	{Name: "aclrtGetDevice", Group: Device, Params: []Param{out("deviceId", Int)},
		Doc: "Writes the current device id."},
	{Name: "aclrtGetDeviceCount", Group: Device, Params: []Param{out("count", Uint)},
		Doc: "Writes how many devices the session sees."},
	{Name: "aclrtSynchronizeDevice", Group: Device, Params: []Param{},
		Doc: "Waits for all of the session's work on the current device."},
	{Name: "aclrtSynchronizeDeviceWithTimeout", Group: Device, Params: []Param{i32("timeoutMs")},
		Doc: "aclrtSynchronizeDevice with a timeout in ms (-1 forever); 507046 on timeout."},
	{Name: "aclrtDeviceCanAccessPeer", Group: Device, Params: []Param{out("canAccessPeer", Int), i32("deviceId"), i32("peerDeviceId")},
		Doc: "Writes 1 if deviceId can access peerDeviceId's memory, else 0."},
	{Name: "aclrtDeviceEnablePeerAccess", Group: Device, Params: []Param{i32("peerDeviceId"), u32("flags")},
		Doc: "Lets the current device copy to and from peerDeviceId; flags must be 0."},
	{Name: "aclrtDeviceDisablePeerAccess", Group: Device, Params: []Param{i32("peerDeviceId")},
		Doc: "Undoes aclrtDeviceEnablePeerAccess."},
	{Name: "aclrtGetMemInfo", Group: Memory, Params: []Param{enum("attr", memAttr), outOf("free", Size), outOf("total", Size)},
		Doc: "Writes the session's free and total device memory (its quota) as sizes."},
	{Name: "aclrtMalloc", Group: Memory, Params: []Param{outOf("devPtr", Addr), size("size"), enum("policy", memMallocPolicy)},
		Doc: "Allocates device memory and writes its address at devPtr (8 bytes; 4 in acl32)."},
	{Name: "aclrtFree", Group: Memory, Params: []Param{addr("devPtr")},
		Doc: "Frees a device allocation by its base address, after the queued work that uses it."},
	{Name: "aclrtHostRegister", Group: Memory, Params: []Param{addr("ptr"), u64("size"), enum("type", hostRegisterType), outOf("devPtr", Addr)},
		Doc: "Pins [ptr, ptr+size) of guest memory so async copies use it directly; writes ptr at devPtr."},
	{Name: "aclrtHostUnregister", Group: Memory, Params: []Param{addr("ptr")},
		Doc: "Unpins the registered range starting at ptr, after the queued work that uses it."},
	{Name: "aclrtPointerGetAttributes", Group: Memory, Params: []Param{addr("ptr").native("const void *"), out("attributes", PtrAttributes)},
		Doc: "Writes an aclrtPtrAttributes (28 bytes) saying where ptr lives."},
	{Name: "aclrtCreateStream", Group: Stream, Params: []Param{out("stream", StreamHandle)},
		Doc: "Creates a stream on the current device and writes its handle."},
	{Name: "aclrtDestroyStream", Group: Stream, Params: []Param{handle("stream", StreamHandle)},
		Doc: "Destroys a stream after its queued work."},
	{Name: "aclrtSynchronizeStream", Group: Stream, Params: []Param{handle("stream", StreamHandle)},
		Doc: "Waits for the stream's queued work; returns the first error it met."},
	{Name: "aclrtSynchronizeStreamWithTimeout", Group: Stream, Params: []Param{handle("stream", StreamHandle), i32("timeoutMs")},
		Doc: "aclrtSynchronizeStream with a timeout in ms (-1 forever); 507046 on timeout."},
	{Name: "aclrtStreamQuery", Group: Stream, Params: []Param{handle("stream", StreamHandle), outEnum("status", streamStatus)},
		Doc: "Writes ACL_STREAM_STATUS_COMPLETE (0) or NOT_READY (1)."},
	{Name: "aclrtCreateEvent", Group: Event, Params: []Param{out("event", EventHandle)},
		Doc: "Creates an event and writes its handle."},
	{Name: "aclrtDestroyEvent", Group: Event, Params: []Param{handle("event", EventHandle)},
		Doc: "Destroys an event."},
	{Name: "aclrtRecordEvent", Group: Event, Params: []Param{handle("event", EventHandle), handle("stream", StreamHandle)},
		Doc: "Queues a record of event on stream; it completes, with a timestamp, when reached."},
	{Name: "aclrtStreamWaitEvent", Group: Event, Params: []Param{handle("stream", StreamHandle), handle("event", EventHandle)},
		Doc: "Makes stream wait for the event's most recent record."},
	{Name: "aclrtSynchronizeEvent", Group: Event, Params: []Param{handle("event", EventHandle)},
		Doc: "Waits for the event's most recent record to complete."},
	{Name: "aclrtQueryEventStatus", Group: Event, Params: []Param{handle("event", EventHandle), outEnum("status", eventRecordedStatus)},
		Doc: "Writes ACL_EVENT_RECORDED_STATUS_COMPLETE (1) or NOT_READY (0)."},
	{Name: "aclrtEventElapsedTime", Group: Event, Params: []Param{out("ms", Float), handle("startEvent", EventHandle), handle("endEvent", EventHandle)},
		Doc: "Writes the milliseconds between two completed events as a float."},
	{Name: "aclGetRecentErrMsg", Group: Runtime, Params: []Param{out("buf", Bytes).len("bufLen"), i32("bufLen")},
		Doc: "Copies the session's most recent error message (up to bufLen-1 bytes and a NUL) and returns its full length."},

	// ABI v1.1 section 10: 32-bit memsets, event reset, op timeouts, app log.
	{Name: "aclrtMemsetD32", Group: Memset, Params: []Param{addr("ptr"), size("memSize"), u32("value"), size("count")},
		Doc: "Sets count 32-bit words at ptr (4-byte aligned) to value; count*4 above memSize gives 107000."},
	{Name: "aclrtMemsetD32Async", Group: Memset, Params: []Param{addr("ptr"), size("memSize"), u32("value"), size("count"), handle("stream", StreamHandle)},
		Doc: "Queues an aclrtMemsetD32 on stream; guest memory is set before it returns."},
	{Name: "aclrtResetEvent", Group: Event, Params: []Param{handle("event", EventHandle), handle("stream", StreamHandle)},
		Doc: "Queues on stream a reset of event: it then reads as never recorded, and later waits wait for its next record."},
	{Name: "aclrtSetOpWaitTimeout", Group: Runtime, Params: []Param{u32("timeout")},
		Doc: "Bounds the session's later aclrtStreamWaitEvent waits to timeout seconds (0: no limit); a wait past it fails its stream with 107019."},
	{Name: "aclrtSetOpExecuteTimeOut", Group: Runtime, Params: []Param{u32("timeout")},
		Doc: "Sets the operator execute timeout in seconds (0: the most); kept and reported, kernels never run in the sandbox."},
	{Name: "aclrtSetOpExecuteTimeOutV2", Group: Runtime, Params: []Param{u64("timeout"), outOf("actualTimeout", U64)},
		Doc: "Sets the operator execute timeout in microseconds (0: the most) and writes the one in effect, whole intervals, as a uint64."},
	{Name: "aclrtGetOpExecuteTimeout", Group: Runtime, Params: []Param{out("timeoutMs", Uint)},
		Doc: "Writes the operator execute timeout in effect, in milliseconds, as a uint32."},
	{Name: "aclrtGetOpTimeOutInterval", Group: Runtime, Params: []Param{outOf("interval", U64)},
		Doc: "Writes the hardware's step for operator timeouts, in microseconds, as a uint64."},
	{Name: "aclAppLog", Group: Runtime, Params: []Param{i32("level"), in("func", CString), in("file", CString), u32("line"), in("msg", CString)},
		Doc: "Logs msg as the plugin's own at level (ACL_DEBUG 0 .. ACL_ERROR 3); func, file and msg are NUL-terminated strings of at most 4 KiB."},
	// ABI v1.1 section 10: forced resets, contexts, the run mode, configured streams.
	{Name: "aclrtResetDeviceForce", Group: Device, Params: []Param{i32("deviceId")},
		Doc: "As aclrtResetDevice, but the session's queued work on the device is cancelled, not awaited."},
	{Name: "aclrtDestroyStreamForce", Group: Stream, Params: []Param{handle("stream", StreamHandle)},
		Doc: "Cancels the stream's queued work that has not started, then destroys it."},
	{Name: "aclrtCreateContext", Group: Context, Params: []Param{out("context", ContextHandle), i32("deviceId")},
		Doc: "Creates a context (a device plus its own default stream), makes it current and writes its handle."},
	{Name: "aclrtDestroyContext", Group: Context, Params: []Param{handle("context", ContextHandle)},
		Doc: "Destroys a context and its streams after their queued work; a device's default context cannot be destroyed."},
	{Name: "aclrtSetCurrentContext", Group: Context, Params: []Param{handle("context", ContextHandle)},
		Doc: "Makes the context's device current and its default stream the target of NULL streams."},
	{Name: "aclrtGetCurrentContext", Group: Context, Params: []Param{out("context", ContextHandle)},
		Doc: "Writes the current context's handle; aclrtSetDevice makes the device's default context current."},
	{Name: "aclrtGetRunMode", Group: Runtime, Params: []Param{outEnum("runMode", runMode)},
		Doc: "Writes the backend's aclrtRunMode: ACL_HOST (1) for a host-attached card and for the simulator."},
	{Name: "aclrtCreateStreamWithConfig", Group: Stream, Params: []Param{out("stream", StreamHandle), u32("priority"), enum("flag", streamFlag)},
		Doc: "aclrtCreateStream with a priority (clamped natively) and ACL_STREAM_* flags, checked as natively and shown by the trace."},
	{Name: "aclrtSetStreamFailureMode", Group: Stream, Params: []Param{handle("stream", StreamHandle), u64("mode")},
		Doc: "ACL_STOP_ON_FAILURE (1): after a failed operation the stream's later ones fail without effect until it is synchronized."},
	// Stream callbacks (ABI v1.2 section 12).
	{Name: "aclrtLaunchHostFunc", Group: Stream, Params: []Param{handle("stream", StreamHandle), in("fn", GuestFunc), in("args", UserData)},
		Doc: "Queues a guest function (a table index) with its argument on the stream; the guest's goroutine runs it through the SDK's dispatcher export once the work before it is done, and later work waits for it."},
	{Name: "aclrtSubscribeReport", Group: Stream, Params: []Param{u64("threadId"), handle("stream", StreamHandle)},
		Doc: "Binds the stream to the guest's thread (any id: the guest has one thread), for aclrtLaunchCallback."},
	{Name: "aclrtLaunchCallback", Group: Stream, Params: []Param{in("fn", GuestFunc).native("aclrtCallback"), in("userData", UserData), i32("blockType").native("aclrtCallbackBlockType"), handle("stream", StreamHandle)},
		Doc: "Queues a guest function on a bound stream; aclrtProcessReport (or any blocking wait) runs it once due; ACL_CALLBACK_BLOCK holds later work until it has run."},
	{Name: "aclrtProcessReport", Group: Stream, Params: []Param{i32("timeout")},
		Doc: "Runs the callbacks due, waiting up to timeout ms (-1: no limit) for one; 507012 if none came."},
	{Name: "aclrtUnSubscribeReport", Group: Stream, Params: []Param{u64("threadId"), handle("stream", StreamHandle)},
		Doc: "Unbinds the stream from the thread aclrtSubscribeReport named."},

	// ABI v1.2 section 12: error state and resource queries.
	{Name: "aclrtGetLastError", Group: Runtime, Params: []Param{enum("level", lastErrLevel)},
		Doc: "Returns the code of the session's most recent runtime failure (ACL_RT_THREAD_LEVEL only) and clears it; 0 when there is none."},
	{Name: "aclrtPeekAtLastError", Group: Runtime, Params: []Param{enum("level", lastErrLevel)},
		Doc: "aclrtGetLastError without clearing it."},
	{Name: "aclrtGetErrorVerbose", Group: Device, Params: []Param{i32("deviceId"), out("errorInfo", ErrorInfo)},
		Doc: "Writes an aclrtErrorInfo describing the device's fault as the session sees it: never another session's, so ACL_RT_NO_ERROR."},
	{Name: "aclrtCtxGetCurrentDefaultStream", Group: Context, Params: []Param{out("stream", StreamHandle)},
		Doc: "Writes the current context's default stream handle: NULL, the handle that names it in every call."},
	{Name: "aclrtGetResInCurrentThread", Group: Device, Params: []Param{enum("type", devResLimitType), out("value", Uint)},
		Doc: "Writes how many cores of an aclrtDevResLimitType the current device grants the session, as a uint32."},
	{Name: "aclrtGetDeviceResLimit", Group: Device, Params: []Param{i32("deviceId"), enum("type", devResLimitType), out("value", Uint)},
		Doc: "Writes the session's core limit of an aclrtDevResLimitType on deviceId, as a uint32: the device's count unless lowered."},
	{Name: "aclrtSetDeviceResLimit", Group: Device, Params: []Param{i32("deviceId"), enum("type", devResLimitType), u32("value")},
		Doc: "Sets the session's core limit on deviceId, at most the device's count; it binds this session's view only."},
	{Name: "aclrtGetStreamAvailableNum", Group: Stream, Params: []Param{out("streamCount", Uint)},
		Doc: "Writes how many more streams the policy lets the session create (MaxStreams minus those it holds), as a uint32."},
	// ABI v1.2 section 12: notifies.
	{Name: "aclrtCreateNotify", Group: Event, Params: []Param{out("notify", NotifyHandle), u64("flag")},
		Doc: "Creates a notify (a fourth handle type) on the current device, not set; flag ACL_NOTIFY_DEFAULT (0) or ACL_NOTIFY_DEVICE_USE_ONLY (1)."},
	{Name: "aclrtDestroyNotify", Group: Event, Params: []Param{handle("notify", NotifyHandle)},
		Doc: "Destroys a notify; waits queued on it are released."},
	{Name: "aclrtRecordNotify", Group: Event, Params: []Param{handle("notify", NotifyHandle), handle("stream", StreamHandle)},
		Doc: "Queues on stream the setting of notify."},
	{Name: "aclrtWaitAndResetNotify", Group: Event, Params: []Param{handle("notify", NotifyHandle), handle("stream", StreamHandle), u32("timeout")},
		Doc: "Queues on stream a wait until notify is set, which then clears it; timeout in ms (0: no limit), a wait past it fails its stream with 107019."},
	{Name: "aclrtGetNotifyId", Group: Event, Params: []Param{handle("notify", NotifyHandle), out("notifyId", Uint)},
		Doc: "Writes the notify's id, a uint32: its handle number, unique in the session."},
	// ABI v1.2 section 12: event extras.
	{Name: "aclrtSynchronizeEventWithTimeout", Group: Event, Params: []Param{handle("event", EventHandle), i32("timeout")},
		Doc: "aclrtSynchronizeEvent bounded by timeout ms (-1: no limit; 0 gives 107000); a record not complete by then gives 507047."},
	{Name: "aclrtGetEventId", Group: Event, Params: []Param{handle("event", EventHandle), out("eventId", Uint)},
		Doc: "Writes the event's id, a uint32: its handle number, unique in the session."},
	{Name: "aclrtGetEventAvailNum", Group: Event, Params: []Param{out("eventCount", Uint)},
		Doc: "Writes, as a uint32, how many more events the session's policy lets it create."},
	{Name: "aclrtCreateEventExWithFlag", Group: Event, Params: []Param{out("event", EventHandle), u32("flag")},
		Doc: "Creates an event of the native new mode: a wait for it before any record succeeds at once; flag a nonzero OR of 0x1, 0x2, 0x4, 0x8."},
	{Name: "aclrtEventGetTimestamp", Group: Event, Params: []Param{handle("event", EventHandle), outOf("timestamp", U64)},
		Doc: "Writes, as a uint64, when the event's most recent record ran, in microseconds of the device's clock."},
	// ABI v1.2 section 12: event wait status.
	{Name: "aclrtQueryEventWaitStatus", Group: Event, Params: []Param{handle("event", EventHandle), outEnum("status", eventWaitStatus)},
		Doc: "Writes, as an aclrtEventWaitStatus, whether every wait queued on the event by aclrtStreamWaitEvent has finished (0) or not (1)."},
	// ABI v1.3 section 15: per-stream core limits.
	{Name: "aclrtGetStreamResLimit", Group: Stream, Params: []Param{handle("stream", StreamHandle), enum("type", devResLimitType), out("value", Uint)},
		Doc: "Writes, as a uint32, the stream's core limit of an aclrtDevResLimitType: the one set on it, else the session's limit on its device."},
	{Name: "aclrtSetStreamResLimit", Group: Stream, Params: []Param{handle("stream", StreamHandle), enum("type", devResLimitType), u32("value")},
		Doc: "Sets the stream's core limit of an aclrtDevResLimitType, at most the cores its device has (not bounded by the session's device limit, as natively)."},
	{Name: "aclrtResetStreamResLimit", Group: Stream, Params: []Param{handle("stream", StreamHandle)},
		Doc: "Drops the stream's core limits: it answers with its device's again."},
	{Name: "aclrtUseStreamResInCurrentThread", Group: Stream, Params: []Param{handle("stream", StreamHandle)},
		Doc: "Makes aclrtGetResInCurrentThread answer with the stream's core limits where it has them (the guest has one thread)."},
	{Name: "aclrtUnuseStreamResInCurrentThread", Group: Stream, Params: []Param{handle("stream", StreamHandle)},
		Doc: "Undoes aclrtUseStreamResInCurrentThread if stream is the one in use; another stream changes nothing."},
	// ABI v1.3 section 15: configured streams and the stream getters.
	{Name: "aclrtCreateStreamV2", Group: Stream, Params: []Param{out("stream", StreamHandle), in("handle", StreamConfig).native("const aclrtStreamConfigHandle *")},
		Doc: "aclrtCreateStreamWithConfig with the priority and flag of an aclrtStreamConfigHandle (NULL: defaults); the work area is unused."},
	{Name: "aclrtStreamGetPriority", Group: Stream, Params: []Param{handle("stream", StreamHandle), out("priority", Uint)},
		Doc: "Writes the stream's priority, as a uint32: the one it was created with, clamped to [0, 7]."},
	{Name: "aclrtStreamGetFlags", Group: Stream, Params: []Param{handle("stream", StreamHandle), out("flags", Uint)},
		Doc: "Writes the ACL_STREAM_* flags the stream was created with, as a uint32."},
	{Name: "aclrtStreamGetId", Group: Stream, Params: []Param{handle("stream", StreamHandle), out("streamId", Int)},
		Doc: "Writes the stream's id, an int32: its handle number (a default stream's: its context's), unique in the session."},
	// ABI v1.3 section 15: stopping and aborting a stream's work, stream state callbacks.
	{Name: "aclrtStreamStop", Group: Stream, Params: []Param{handle("stream", StreamHandle)},
		Doc: "Cancels the stream's queued work that has not started and waits for the running operation; the stream takes new work. NULL gives 107000."},
	{Name: "aclrtStreamAbort", Group: Stream, Params: []Param{handle("stream", StreamHandle)},
		Doc: "aclrtStreamStop for any stream of the current context, NULL naming its default stream."},
	{Name: "aclrtRegStreamStateCallback", Group: Stream, Params: []Param{in("regName", CString), in("callback", UserData).native("aclrtStreamStateCallback"), in("args", UserData)},
		Doc: "With callback NULL, unregisters regName; a callback gives 207000: the sandbox cannot call a stream state callback."},
	// ABI v1.3 section 15: device and product queries (devinfo.go of the
	// sandbox), answered for the simulated chip or the node's device.
	{Name: "aclGetCannAttribute", Group: Runtime, Params: []Param{enum("cannAttr", cannAttr), out("value", Int)},
		Doc: "Writes, as an int32, 1 if the CANN attribute (ACL_CANN_ATTR_INF_NAN, BF16, JIT_COMPILE) is available on this host, else 0."},
	{Name: "aclrtGetSocName", Group: Runtime, Params: []Param{out("name", Bytes).len("nameLen"), i32("nameLen")},
		Doc: "Copies the device's SoC name (up to nameLen-1 bytes and a NUL) and returns its full length, 0 when there is none; the SDKs wrap it into the native const char *aclrtGetSocName(void)."},
	{Name: "aclrtCheckArchCompatibility", Group: Runtime, Params: []Param{in("socVersion", CString), out("canCompatible", Int)},
		Doc: "Writes, as an int32, 1 if code built for the SoC named socVersion runs on this device (the same NPU architecture), else 0."},
	{Name: "aclrtGetDeviceCapability", Group: Device, Params: []Param{i32("deviceId"), enum("devFeatureType", devFeatureType), out("value", Int)},
		Doc: "Writes, as an int32, whether deviceId has the feature: 1 supported, 0 not."},
	{Name: "aclrtGetDeviceInfo", Group: Device, Params: []Param{u32("deviceId"), enum("attr", devAttr), outOf("value", U64).native("int64_t *")},
		Doc: "Writes an attribute of deviceId as an int64 (8 bytes in both profiles): its cores, L2 cache, memory (the session's quota), NPU architecture."},
	{Name: "aclrtQueryDeviceStatus", Group: Device, Params: []Param{i32("deviceId"), outEnum("deviceStatus", deviceStatus)},
		Doc: "Writes the health of deviceId as an aclrtDeviceStatus: ACL_RT_DEVICE_STATUS_NORMAL (0) or ABNORMAL (1)."},
	{Name: "aclrtGetDeviceUtilizationRate", Group: Device, Params: []Param{i32("deviceId"), out("utilizationInfo", UtilizationInfo).native("aclrtUtilizationInfo *")},
		Doc: "Fills an aclrtUtilizationInfo (20 bytes; its utilizationExtend must be NULL): -1, not measured, for every unit, since the device's load is other sessions' business."},
	{Name: "aclrtDeviceGetStreamPriorityRange", Group: Device, Params: []Param{out("leastPriority", Int), out("greatestPriority", Int)},
		Doc: "Writes the least (7) and greatest (0) stream priority, as int32s; either pointer may be NULL."},
	{Name: "aclrtResetDeviceResLimit", Group: Device, Params: []Param{i32("deviceId")},
		Doc: "Undoes the session's aclrtSetDeviceResLimit on deviceId: its core limits are the device's counts again."},

	// ABI v1.3 section 15: notify resets and timed event waits.
	{Name: "aclrtNotifyBatchReset", Group: Event, Params: []Param{in("notifies", NotifyHandle).len("num").native("aclrtNotify *"), size("num")},
		Doc: "Clears num notifies (an array of handles) once the current context's default stream has run what it holds; an entry that fails leaves every notify as it was."},
	{Name: "aclrtStreamWaitEventWithTimeout", Group: Event, Params: []Param{handle("stream", StreamHandle), handle("event", EventHandle), i32("timeout")},
		Doc: "aclrtStreamWaitEvent bounded by timeout ms (0: no limit); a wait past it fails its stream with 107019."},
	// ABI v1.3 section 15: reduce and random.
	{Name: "aclrtReduceAsync", Group: Memcpy, Params: []Param{addr("dst"), addr("src").native("const void *"), u64("count"), enum("kind", reduceKind), enum("type", dataType), handle("stream", StreamHandle), in("reserve", Reserved)},
		Doc: "Queues on stream the combining of count bytes of device memory at src into dst, element by element, with SUM, MAX or MIN for the aclDataType type (float, float16, bfloat16, int4/8/16/32, uint8/16/32); EQUAL gives 207000."},
	{Name: "aclrtRandomNumAsync", Group: Memset, Params: []Param{in("taskInfo", RandomTask).native("const aclrtRandomNumTaskInfo *"), handle("stream", StreamHandle), in("reserve", Reserved)},
		Doc: "Queues on stream the filling of taskInfo's result with randomNum numbers of its distribution (dropout bitmask, uniform, normal, truncated normal), drawn from the session's own generator."},
	// ABI v1.3 section 15: saturation mode and overflow status (overflow.go of the sandbox).
	{Name: "aclrtSetDeviceSatMode", Group: Device, Params: []Param{enum("mode", floatOverflowMode)},
		Doc: "Sets the session's saturation mode, what a float result out of range becomes in the compute it queues from now on: the largest finite value (SATURATION) or Inf/NaN (INFNAN); a mode the chip lacks gives 207000."},
	{Name: "aclrtGetDeviceSatMode", Group: Device, Params: []Param{outEnum("mode", floatOverflowMode)},
		Doc: "Writes the session's saturation mode as an aclrtFloatOverflowMode (the chip's starting mode until aclrtSetDeviceSatMode)."},
	{Name: "aclrtSetStreamOverflowSwitch", Group: Stream, Params: []Param{handle("stream", StreamHandle), u32("flag")},
		Doc: "Turns the stream's per-task overflow reporting on (1) or off (0); NULL names the current context's default stream."},
	{Name: "aclrtGetStreamOverflowSwitch", Group: Stream, Params: []Param{handle("stream", StreamHandle), out("flag", Uint)},
		Doc: "Writes, as a uint32, the stream's overflow switch: 1 on, 0 off (the default)."},
	{Name: "aclrtGetOverflowStatus", Group: Device, Params: []Param{addr("outputAddr"), size("outputSize"), handle("stream", StreamHandle)},
		Doc: "Queues on stream the writing of the session's overflow status to the 64 bytes of device memory at outputAddr: a uint32 1 at its start if compute overflowed since the last reset, else 0; the rest zero."},
	{Name: "aclrtResetOverflowStatus", Group: Device, Params: []Param{handle("stream", StreamHandle)},
		Doc: "Queues on stream the clearing of the session's overflow status."},
}, tensorFuncs...), slices.Concat(mdlFuncs, kernelFuncs, profFuncs, opFuncs())...)

var index = func() map[string]int {
	m := make(map[string]int, len(Funcs))
	for i, f := range Funcs {
		m[f.Name] = i
	}
	return m
}()

// Lookup returns the function named name, or nil.
func Lookup(name string) *Func {
	if i, ok := index[name]; ok {
		return &Funcs[i]
	}
	return nil
}
