// Package abi is the guest ABI in code: the table of host functions a wasm
// guest imports, with their wire types. The table is the single source of
// truth: the sandbox registers its imports from it, checks a module's
// imports against it at load time, the guest SDK generators emit their
// bindings from it, and `aclwasm abi` prints it.
//
// One table has two wire forms, the profiles of ABI v1.1: Wide (module
// "acl": addresses and sizes are i64) and [Native32] (module "acl32", section
// 9: addresses and sizes are 32-bit, as void* and size_t are on wasm32).
// A profile is a property of the wire mapping, not a second table: it
// decides how wide an addr or size parameter is, and how wide the values
// behind a gptr parameter that holds addresses or sizes are ([Param.Elem]).
//
// The package exports the table and what reads it: [Funcs], [Lookup] and
// their [Func], [Param], [Type] and [Group]; the profiles ([Profile],
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
)

// Param is one parameter of a host function.
type Param struct {
	Name string `json:"name"`
	Type Type   `json:"type"`
	// Elem, for a gptr parameter, is the type of the value it points to
	// or of its array's elements when their width depends on the profile
	// or is 8 bytes: Addr (void*, void*[]), Size (size_t, size_t[]) or [U64]
	// (uint64_t). Zero (none) for int32 values, handles, structs, floats
	// and strings, whose layout is the same in both profiles.
	Elem Type `json:"elem,omitempty"`
}

// ElemSize returns the width in bytes of the value or array elements a
// gptr parameter points to in profile p, or 0 when Elem is none.
func (q Param) ElemSize(p Profile) uint64 {
	if q.Elem == 0 {
		return 0
	}
	return p.Width(q.Elem)
}

// Func is one host function of the ABI. Every function returns an i32
// aclError, except aclGetRecentErrMsg, which returns the message length.
type Func struct {
	Name   string  `json:"name"`
	Group  Group   `json:"group"`
	Params []Param `json:"params"`
	Doc    string  `json:"doc"`
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
// functions of section 10. A parameter is {name, wire type, Elem}: Elem
// names what a gptr holds when that is an address, a size or a uint64_t
// (0 otherwise), so that each profile knows its width.
var Funcs = []Func{
	{Name: "aclrtMemcpy", Group: Memcpy, Params: []Param{{"dst", Addr, 0}, {"destMax", Size, 0}, {"src", Addr, 0}, {"count", Size, 0}, {"kind", I32, 0}},
		Doc: "Copies count bytes from src to dst synchronously; the direction comes from the addresses."},
	{Name: "aclrtMemcpyAsync", Group: Memcpy, Params: []Param{{"dst", Addr, 0}, {"destMax", Size, 0}, {"src", Addr, 0}, {"count", Size, 0}, {"kind", I32, 0}, {"stream", Handle, 0}},
		Doc: "Queues a copy on stream; with unregistered guest memory it completes before returning."},
	{Name: "aclrtMemcpyAsyncWithCondition", Group: Memcpy, Params: []Param{{"dst", Addr, 0}, {"destMax", Size, 0}, {"src", Addr, 0}, {"count", Size, 0}, {"kind", I32, 0}, {"stream", Handle, 0}},
		Doc: "Deprecated natively; behaves as aclrtMemcpyAsync."},
	{Name: "aclrtMemcpyBatch", Group: Batch, Params: []Param{{"dsts", Gptr, Addr}, {"destMaxs", Gptr, Size}, {"srcs", Gptr, Addr}, {"sizes", Gptr, Size}, {"numBatches", Size, 0}, {"attrs", Gptr, 0}, {"attrsIndexes", Gptr, Size}, {"numAttrs", Size, 0}, {"failIndex", Gptr, Size}},
		Doc: "Runs numBatches H2D/D2H copies in no fixed order; *failIndex names the entry that failed a location check, or SIZE_MAX."},
	{Name: "aclrtMemcpyBatchAsync", Group: Batch, Params: []Param{{"dsts", Gptr, Addr}, {"destMaxs", Gptr, Size}, {"srcs", Gptr, Addr}, {"sizes", Gptr, Size}, {"numBatches", Size, 0}, {"attrs", Gptr, 0}, {"attrsIndexes", Gptr, Size}, {"numAttrs", Size, 0}, {"failIndex", Gptr, Size}, {"stream", Handle, 0}},
		Doc: "Queues a batch of H2D/D2H copies on stream as one operation."},
	{Name: "aclrtMemcpyBatchV2", Group: Batch, Params: []Param{{"dsts", Gptr, Addr}, {"destMaxs", Gptr, Size}, {"srcs", Gptr, Addr}, {"sizes", Gptr, Size}, {"numBatches", Size, 0}, {"attrs", Gptr, 0}, {"attrsIndexes", Gptr, Size}, {"numAttrs", Size, 0}},
		Doc: "aclrtMemcpyBatch without failIndex."},
	{Name: "aclrtMemcpyBatchAsyncV2", Group: Batch, Params: []Param{{"dsts", Gptr, Addr}, {"destMaxs", Gptr, Size}, {"srcs", Gptr, Addr}, {"sizes", Gptr, Size}, {"numBatches", Size, 0}, {"attrs", Gptr, 0}, {"attrsIndexes", Gptr, Size}, {"numAttrs", Size, 0}, {"stream", Handle, 0}},
		Doc: "aclrtMemcpyBatchAsync without failIndex."},
	{Name: "aclrtMemcpy2d", Group: Memcpy2D, Params: []Param{{"dst", Addr, 0}, {"dpitch", Size, 0}, {"src", Addr, 0}, {"spitch", Size, 0}, {"width", Size, 0}, {"height", Size, 0}, {"kind", I32, 0}},
		Doc: "Copies height rows of width bytes, rows spitch apart in src and dpitch apart in dst (H2D or D2H)."},
	{Name: "aclrtMemcpy2dAsync", Group: Memcpy2D, Params: []Param{{"dst", Addr, 0}, {"dpitch", Size, 0}, {"src", Addr, 0}, {"spitch", Size, 0}, {"width", Size, 0}, {"height", Size, 0}, {"kind", I32, 0}, {"stream", Handle, 0}},
		Doc: "Queues a 2D copy on stream (H2D, D2H or D2D)."},
	{Name: "aclrtGetMemcpyDescSize", Group: Descriptor, Params: []Param{{"kind", I32, 0}, {"descSize", Gptr, Size}},
		Doc: "Writes the size of a copy descriptor for kind (INNER_DEVICE_TO_DEVICE only)."},
	{Name: "aclrtSetMemcpyDesc", Group: Descriptor, Params: []Param{{"desc", Addr, 0}, {"kind", I32, 0}, {"srcAddr", Addr, 0}, {"dstAddr", Addr, 0}, {"count", Size, 0}, {"config", Gptr, 0}},
		Doc: "Writes a descriptor for a device-to-device copy into device memory at desc; config must be NULL."},
	{Name: "aclrtMemcpyAsyncWithDesc", Group: Descriptor, Params: []Param{{"desc", Addr, 0}, {"kind", I32, 0}, {"stream", Handle, 0}},
		Doc: "Queues the copy a descriptor describes; the descriptor is read and validated when the copy executes."},
	{Name: "aclrtMemcpyAsyncWithOffset", Group: Descriptor, Params: []Param{{"dst", Addr, 0}, {"destMax", Size, 0}, {"dstDataOffset", Size, 0}, {"src", Addr, 0}, {"count", Size, 0}, {"srcDataOffset", Size, 0}, {"kind", I32, 0}, {"stream", Handle, 0}},
		Doc: "Queues a copy between the device addresses stored at dst and src, plus offsets; the slots are read when the copy executes."},
	{Name: "aclrtMemset", Group: Memset, Params: []Param{{"devPtr", Addr, 0}, {"maxCount", Size, 0}, {"value", I32, 0}, {"count", Size, 0}},
		Doc: "Sets count bytes of device or pinned memory to the low byte of value."},
	{Name: "aclrtMemsetAsync", Group: Memset, Params: []Param{{"devPtr", Addr, 0}, {"maxCount", Size, 0}, {"value", I32, 0}, {"count", Size, 0}, {"stream", Handle, 0}},
		Doc: "Queues a memset on stream."},
	{Name: "aclInit", Group: Runtime, Params: []Param{{"configPath", Gptr, 0}},
		Doc: "Initializes the runtime (optional); configPath is 0 or a NUL-terminated string; a second call gives 100002."},
	{Name: "aclFinalize", Group: Runtime, Params: []Param{},
		Doc: "Finalizes the runtime; a second call gives 100037."},
	{Name: "aclrtGetVersion", Group: Runtime, Params: []Param{{"major", Gptr, 0}, {"minor", Gptr, 0}, {"patch", Gptr, 0}},
		Doc: "Writes the ACL version (1.17.0) as three int32."},
	{Name: "aclrtSetDevice", Group: Device, Params: []Param{{"deviceId", I32, 0}},
		Doc: "Makes deviceId current; required before device work."},
	{Name: "aclrtResetDevice", Group: Device, Params: []Param{{"deviceId", I32, 0}},
		Doc: "Waits for the session's work on the device, then releases everything it holds there."},
	{Name: "aclrtGetDevice", Group: Device, Params: []Param{{"deviceId", Gptr, 0}},
		Doc: "Writes the current device id."},
	{Name: "aclrtGetDeviceCount", Group: Device, Params: []Param{{"count", Gptr, 0}},
		Doc: "Writes how many devices the session sees."},
	{Name: "aclrtSynchronizeDevice", Group: Device, Params: []Param{},
		Doc: "Waits for all of the session's work on the current device."},
	{Name: "aclrtSynchronizeDeviceWithTimeout", Group: Device, Params: []Param{{"timeoutMs", I32, 0}},
		Doc: "aclrtSynchronizeDevice with a timeout in ms (-1 forever); 507046 on timeout."},
	{Name: "aclrtDeviceCanAccessPeer", Group: Device, Params: []Param{{"canAccessPeer", Gptr, 0}, {"deviceId", I32, 0}, {"peerDeviceId", I32, 0}},
		Doc: "Writes 1 if deviceId can access peerDeviceId's memory, else 0."},
	{Name: "aclrtDeviceEnablePeerAccess", Group: Device, Params: []Param{{"peerDeviceId", I32, 0}, {"flags", I32, 0}},
		Doc: "Lets the current device copy to and from peerDeviceId; flags must be 0."},
	{Name: "aclrtDeviceDisablePeerAccess", Group: Device, Params: []Param{{"peerDeviceId", I32, 0}},
		Doc: "Undoes aclrtDeviceEnablePeerAccess."},
	{Name: "aclrtGetMemInfo", Group: Memory, Params: []Param{{"attr", I32, 0}, {"free", Gptr, Size}, {"total", Gptr, Size}},
		Doc: "Writes the session's free and total device memory (its quota) as sizes."},
	{Name: "aclrtMalloc", Group: Memory, Params: []Param{{"devPtr", Gptr, Addr}, {"size", Size, 0}, {"policy", I32, 0}},
		Doc: "Allocates device memory and writes its address at devPtr (8 bytes; 4 in acl32)."},
	{Name: "aclrtFree", Group: Memory, Params: []Param{{"devPtr", Addr, 0}},
		Doc: "Frees a device allocation by its base address, after the queued work that uses it."},
	{Name: "aclrtHostRegister", Group: Memory, Params: []Param{{"ptr", Addr, 0}, {"size", U64, 0}, {"type", I32, 0}, {"devPtr", Gptr, Addr}},
		Doc: "Pins [ptr, ptr+size) of guest memory so async copies use it directly; writes ptr at devPtr."},
	{Name: "aclrtHostUnregister", Group: Memory, Params: []Param{{"ptr", Addr, 0}},
		Doc: "Unpins the registered range starting at ptr, after the queued work that uses it."},
	{Name: "aclrtPointerGetAttributes", Group: Memory, Params: []Param{{"ptr", Addr, 0}, {"attributes", Gptr, 0}},
		Doc: "Writes an aclrtPtrAttributes (28 bytes) saying where ptr lives."},
	{Name: "aclrtCreateStream", Group: Stream, Params: []Param{{"stream", Gptr, 0}},
		Doc: "Creates a stream on the current device and writes its handle."},
	{Name: "aclrtDestroyStream", Group: Stream, Params: []Param{{"stream", Handle, 0}},
		Doc: "Destroys a stream after its queued work."},
	{Name: "aclrtSynchronizeStream", Group: Stream, Params: []Param{{"stream", Handle, 0}},
		Doc: "Waits for the stream's queued work; returns the first error it met."},
	{Name: "aclrtSynchronizeStreamWithTimeout", Group: Stream, Params: []Param{{"stream", Handle, 0}, {"timeoutMs", I32, 0}},
		Doc: "aclrtSynchronizeStream with a timeout in ms (-1 forever); 507046 on timeout."},
	{Name: "aclrtStreamQuery", Group: Stream, Params: []Param{{"stream", Handle, 0}, {"status", Gptr, 0}},
		Doc: "Writes ACL_STREAM_STATUS_COMPLETE (0) or NOT_READY (1)."},
	{Name: "aclrtCreateEvent", Group: Event, Params: []Param{{"event", Gptr, 0}},
		Doc: "Creates an event and writes its handle."},
	{Name: "aclrtDestroyEvent", Group: Event, Params: []Param{{"event", Handle, 0}},
		Doc: "Destroys an event."},
	{Name: "aclrtRecordEvent", Group: Event, Params: []Param{{"event", Handle, 0}, {"stream", Handle, 0}},
		Doc: "Queues a record of event on stream; it completes, with a timestamp, when reached."},
	{Name: "aclrtStreamWaitEvent", Group: Event, Params: []Param{{"stream", Handle, 0}, {"event", Handle, 0}},
		Doc: "Makes stream wait for the event's most recent record."},
	{Name: "aclrtSynchronizeEvent", Group: Event, Params: []Param{{"event", Handle, 0}},
		Doc: "Waits for the event's most recent record to complete."},
	{Name: "aclrtQueryEventStatus", Group: Event, Params: []Param{{"event", Handle, 0}, {"status", Gptr, 0}},
		Doc: "Writes ACL_EVENT_RECORDED_STATUS_COMPLETE (1) or NOT_READY (0)."},
	{Name: "aclrtEventElapsedTime", Group: Event, Params: []Param{{"ms", Gptr, 0}, {"startEvent", Handle, 0}, {"endEvent", Handle, 0}},
		Doc: "Writes the milliseconds between two completed events as a float."},
	{Name: "aclGetRecentErrMsg", Group: Runtime, Params: []Param{{"buf", Gptr, 0}, {"bufLen", I32, 0}},
		Doc: "Copies the session's most recent error message (up to bufLen-1 bytes and a NUL) and returns its full length."},

	// ABI v1.1 section 10: 32-bit memsets, event reset, op timeouts, app log.
	{Name: "aclrtMemsetD32", Group: Memset, Params: []Param{{"ptr", Addr, 0}, {"memSize", Size, 0}, {"value", I32, 0}, {"count", Size, 0}},
		Doc: "Sets count 32-bit words at ptr (4-byte aligned) to value; count*4 above memSize gives 107000."},
	{Name: "aclrtMemsetD32Async", Group: Memset, Params: []Param{{"ptr", Addr, 0}, {"memSize", Size, 0}, {"value", I32, 0}, {"count", Size, 0}, {"stream", Handle, 0}},
		Doc: "Queues an aclrtMemsetD32 on stream; guest memory is set before it returns."},
	{Name: "aclrtResetEvent", Group: Event, Params: []Param{{"event", Handle, 0}, {"stream", Handle, 0}},
		Doc: "Queues on stream a reset of event: it then reads as never recorded, and later waits wait for its next record."},
	{Name: "aclrtSetOpWaitTimeout", Group: Runtime, Params: []Param{{"timeout", I32, 0}},
		Doc: "Bounds the session's later aclrtStreamWaitEvent waits to timeout seconds (0: no limit); a wait past it fails its stream with 107019."},
	{Name: "aclrtSetOpExecuteTimeOut", Group: Runtime, Params: []Param{{"timeout", I32, 0}},
		Doc: "Sets the operator execute timeout in seconds (0: the most); kept and reported, kernels never run in the sandbox."},
	{Name: "aclrtSetOpExecuteTimeOutV2", Group: Runtime, Params: []Param{{"timeout", U64, 0}, {"actualTimeout", Gptr, U64}},
		Doc: "Sets the operator execute timeout in microseconds (0: the most) and writes the one in effect, whole intervals, as a uint64."},
	{Name: "aclrtGetOpExecuteTimeout", Group: Runtime, Params: []Param{{"timeoutMs", Gptr, 0}},
		Doc: "Writes the operator execute timeout in effect, in milliseconds, as a uint32."},
	{Name: "aclrtGetOpTimeOutInterval", Group: Runtime, Params: []Param{{"interval", Gptr, U64}},
		Doc: "Writes the hardware's step for operator timeouts, in microseconds, as a uint64."},
	{Name: "aclAppLog", Group: Runtime, Params: []Param{{"level", I32, 0}, {"func", Gptr, 0}, {"file", Gptr, 0}, {"line", I32, 0}, {"msg", Gptr, 0}},
		Doc: "Logs msg as the plugin's own at level (ACL_DEBUG 0 .. ACL_ERROR 3); func, file and msg are NUL-terminated strings of at most 4 KiB."},
	// ABI v1.1 section 10: forced resets, contexts, the run mode, configured streams.
	{Name: "aclrtResetDeviceForce", Group: Device, Params: []Param{{"deviceId", I32, 0}},
		Doc: "As aclrtResetDevice, but the session's queued work on the device is cancelled, not awaited."},
	{Name: "aclrtDestroyStreamForce", Group: Stream, Params: []Param{{"stream", Handle, 0}},
		Doc: "Cancels the stream's queued work that has not started, then destroys it."},
	{Name: "aclrtCreateContext", Group: Context, Params: []Param{{"context", Gptr, 0}, {"deviceId", I32, 0}},
		Doc: "Creates a context (a device plus its own default stream), makes it current and writes its handle."},
	{Name: "aclrtDestroyContext", Group: Context, Params: []Param{{"context", Handle, 0}},
		Doc: "Destroys a context and its streams after their queued work; a device's default context cannot be destroyed."},
	{Name: "aclrtSetCurrentContext", Group: Context, Params: []Param{{"context", Handle, 0}},
		Doc: "Makes the context's device current and its default stream the target of NULL streams."},
	{Name: "aclrtGetCurrentContext", Group: Context, Params: []Param{{"context", Gptr, 0}},
		Doc: "Writes the current context's handle; aclrtSetDevice makes the device's default context current."},
	{Name: "aclrtGetRunMode", Group: Runtime, Params: []Param{{"runMode", Gptr, 0}},
		Doc: "Writes the backend's aclrtRunMode: ACL_HOST (1) for a host-attached card and for the simulator."},
	{Name: "aclrtCreateStreamWithConfig", Group: Stream, Params: []Param{{"stream", Gptr, 0}, {"priority", I32, 0}, {"flag", I32, 0}},
		Doc: "aclrtCreateStream with a priority (clamped natively) and ACL_STREAM_* flags, checked as natively and shown by the trace."},
	{Name: "aclrtSetStreamFailureMode", Group: Stream, Params: []Param{{"stream", Handle, 0}, {"mode", U64, 0}},
		Doc: "ACL_STOP_ON_FAILURE (1): after a failed operation the stream's later ones fail without effect until it is synchronized."},
	// Stream callbacks (ABI v1.2 section 12).
	{Name: "aclrtLaunchHostFunc", Group: Stream, Params: []Param{{"stream", Handle, 0}, {"fn", Gptr, 0}, {"args", Gptr, 0}},
		Doc: "Queues a guest function (a table index) with its argument on the stream; the guest's goroutine runs it through the SDK's dispatcher export once the work before it is done, and later work waits for it."},
	{Name: "aclrtSubscribeReport", Group: Stream, Params: []Param{{"threadId", U64, 0}, {"stream", Handle, 0}},
		Doc: "Binds the stream to the guest's thread (any id: the guest has one thread), for aclrtLaunchCallback."},
	{Name: "aclrtLaunchCallback", Group: Stream, Params: []Param{{"fn", Gptr, 0}, {"userData", Gptr, 0}, {"blockType", I32, 0}, {"stream", Handle, 0}},
		Doc: "Queues a guest function on a bound stream; aclrtProcessReport (or any blocking wait) runs it once due; ACL_CALLBACK_BLOCK holds later work until it has run."},
	{Name: "aclrtProcessReport", Group: Stream, Params: []Param{{"timeout", I32, 0}},
		Doc: "Runs the callbacks due, waiting up to timeout ms (-1: no limit) for one; 507012 if none came."},
	{Name: "aclrtUnSubscribeReport", Group: Stream, Params: []Param{{"threadId", U64, 0}, {"stream", Handle, 0}},
		Doc: "Unbinds the stream from the thread aclrtSubscribeReport named."},

	// ABI v1.2 section 12: error state and resource queries.
	{Name: "aclrtGetLastError", Group: Runtime, Params: []Param{{"level", I32, 0}},
		Doc: "Returns the code of the session's most recent runtime failure (ACL_RT_THREAD_LEVEL only) and clears it; 0 when there is none."},
	{Name: "aclrtPeekAtLastError", Group: Runtime, Params: []Param{{"level", I32, 0}},
		Doc: "aclrtGetLastError without clearing it."},
	{Name: "aclrtGetErrorVerbose", Group: Device, Params: []Param{{"deviceId", I32, 0}, {"errorInfo", Gptr, 0}},
		Doc: "Writes an aclrtErrorInfo describing the device's fault as the session sees it: never another session's, so ACL_RT_NO_ERROR."},
	{Name: "aclrtCtxGetCurrentDefaultStream", Group: Context, Params: []Param{{"stream", Gptr, 0}},
		Doc: "Writes the current context's default stream handle: NULL, the handle that names it in every call."},
	{Name: "aclrtGetResInCurrentThread", Group: Device, Params: []Param{{"type", I32, 0}, {"value", Gptr, 0}},
		Doc: "Writes how many cores of an aclrtDevResLimitType the current device grants the session, as a uint32."},
	{Name: "aclrtGetDeviceResLimit", Group: Device, Params: []Param{{"deviceId", I32, 0}, {"type", I32, 0}, {"value", Gptr, 0}},
		Doc: "Writes the session's core limit of an aclrtDevResLimitType on deviceId, as a uint32: the device's count unless lowered."},
	{Name: "aclrtSetDeviceResLimit", Group: Device, Params: []Param{{"deviceId", I32, 0}, {"type", I32, 0}, {"value", I32, 0}},
		Doc: "Sets the session's core limit on deviceId, at most the device's count; it binds this session's view only."},
	{Name: "aclrtGetStreamAvailableNum", Group: Stream, Params: []Param{{"streamCount", Gptr, 0}},
		Doc: "Writes how many more streams the policy lets the session create (MaxStreams minus those it holds), as a uint32."},
	// ABI v1.2 section 12: notifies.
	{Name: "aclrtCreateNotify", Group: Event, Params: []Param{{"notify", Gptr, 0}, {"flag", U64, 0}},
		Doc: "Creates a notify (a fourth handle type) on the current device, not set; flag ACL_NOTIFY_DEFAULT (0) or ACL_NOTIFY_DEVICE_USE_ONLY (1)."},
	{Name: "aclrtDestroyNotify", Group: Event, Params: []Param{{"notify", Handle, 0}},
		Doc: "Destroys a notify; waits queued on it are released."},
	{Name: "aclrtRecordNotify", Group: Event, Params: []Param{{"notify", Handle, 0}, {"stream", Handle, 0}},
		Doc: "Queues on stream the setting of notify."},
	{Name: "aclrtWaitAndResetNotify", Group: Event, Params: []Param{{"notify", Handle, 0}, {"stream", Handle, 0}, {"timeout", I32, 0}},
		Doc: "Queues on stream a wait until notify is set, which then clears it; timeout in ms (0: no limit), a wait past it fails its stream with 107019."},
	{Name: "aclrtGetNotifyId", Group: Event, Params: []Param{{"notify", Handle, 0}, {"notifyId", Gptr, 0}},
		Doc: "Writes the notify's id, a uint32: its handle number, unique in the session."},
	// ABI v1.2 section 12: event extras.
	{Name: "aclrtSynchronizeEventWithTimeout", Group: Event, Params: []Param{{"event", Handle, 0}, {"timeout", I32, 0}},
		Doc: "aclrtSynchronizeEvent bounded by timeout ms (-1: no limit; 0 gives 107000); a record not complete by then gives 507047."},
	{Name: "aclrtGetEventId", Group: Event, Params: []Param{{"event", Handle, 0}, {"eventId", Gptr, 0}},
		Doc: "Writes the event's id, a uint32: its handle number, unique in the session."},
	{Name: "aclrtGetEventAvailNum", Group: Event, Params: []Param{{"eventCount", Gptr, 0}},
		Doc: "Writes, as a uint32, how many more events the session's policy lets it create."},
	{Name: "aclrtCreateEventExWithFlag", Group: Event, Params: []Param{{"event", Gptr, 0}, {"flag", I32, 0}},
		Doc: "Creates an event of the native new mode: a wait for it before any record succeeds at once; flag a nonzero OR of 0x1, 0x2, 0x4, 0x8."},
	{Name: "aclrtEventGetTimestamp", Group: Event, Params: []Param{{"event", Handle, 0}, {"timestamp", Gptr, U64}},
		Doc: "Writes, as a uint64, when the event's most recent record ran, in microseconds of the device's clock."},
	// ABI v1.2 section 12: event wait status.
	{Name: "aclrtQueryEventWaitStatus", Group: Event, Params: []Param{{"event", Handle, 0}, {"status", Gptr, 0}},
		Doc: "Writes, as an aclrtEventWaitStatus, whether every wait queued on the event by aclrtStreamWaitEvent has finished (0) or not (1)."},
}

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
