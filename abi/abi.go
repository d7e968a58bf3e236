// Package abi is the guest ABI v1 in code: the table of host functions a
// wasm guest imports from the module "acl", with their wire types. The
// table is the single source of truth: the sandbox registers its imports
// from it, checks a module's imports against it at load time, the guest SDK
// generators emit their bindings from it, and `aclwasm abi` prints it.
package abi

import (
	"fmt"
	"strings"
)

// Module is the import module every host function lives in.
const Module = "acl"

// Version is the ABI version this table describes.
const Version = 1

// Type is a wire type: how one parameter crosses the wasm boundary.
type Type uint8

// The wire types of ABI v1 section 2.
const (
	// Addr is an i64 address naming guest memory (below 2^32) or device memory.
	Addr Type = iota
	// Gptr is an i32 pointer into the guest's linear memory.
	Gptr
	// Size is an i64 byte count or index (native size_t, widened).
	Size
	// Handle is an i32 stream or event handle; 0 is NULL.
	Handle
	// I32 is an i32 enum, device id, flag or int32 value.
	I32
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
	}
	return fmt.Sprintf("Type(%d)", t)
}

// Wasm returns the wasm value type that carries t: "i32" or "i64".
func (t Type) Wasm() string {
	if t == Addr || t == Size {
		return "i64"
	}
	return "i32"
}

// Is64 reports whether t travels as an i64.
func (t Type) Is64() bool { return t == Addr || t == Size }

// MarshalText implements encoding.TextMarshaler, for the JSON form of the table.
func (t Type) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler, so that the JSON form
// of the table (`aclwasm abi --json`) reads back into Funcs' types.
func (t *Type) UnmarshalText(b []byte) error {
	for c := Addr; c <= I32; c++ {
		if string(b) == c.String() {
			*t = c
			return nil
		}
	}
	return fmt.Errorf("abi: %q is not a wire type (want addr, gptr, size, handle or i32)", b)
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
)

// Param is one parameter of a host function.
type Param struct {
	Name string `json:"name"`
	Type Type   `json:"type"`
}

// Func is one host function of the ABI. Every function returns an i32
// aclError, except aclGetRecentErrMsg, which returns the message length.
type Func struct {
	Name   string  `json:"name"`
	Group  Group   `json:"group"`
	Params []Param `json:"params"`
	Doc    string  `json:"doc"`
}

// Signature returns the wasm signature, such as "(i64, i64, i64, i64, i32) -> i32".
func (f *Func) Signature() string {
	ts := make([]string, len(f.Params))
	for i, p := range f.Params {
		ts[i] = p.Type.Wasm()
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

// Funcs is the import table of ABI v1, in the order of ABI.md section 5.
var Funcs = []Func{
	{Name: "aclrtMemcpy", Group: Memcpy, Params: []Param{{"dst", Addr}, {"destMax", Size}, {"src", Addr}, {"count", Size}, {"kind", I32}},
		Doc: "Copies count bytes from src to dst synchronously; the direction comes from the addresses."},
	{Name: "aclrtMemcpyAsync", Group: Memcpy, Params: []Param{{"dst", Addr}, {"destMax", Size}, {"src", Addr}, {"count", Size}, {"kind", I32}, {"stream", Handle}},
		Doc: "Queues a copy on stream; with unregistered guest memory it completes before returning."},
	{Name: "aclrtMemcpyAsyncWithCondition", Group: Memcpy, Params: []Param{{"dst", Addr}, {"destMax", Size}, {"src", Addr}, {"count", Size}, {"kind", I32}, {"stream", Handle}},
		Doc: "Deprecated natively; behaves as aclrtMemcpyAsync."},
	{Name: "aclrtMemcpyBatch", Group: Batch, Params: []Param{{"dsts", Gptr}, {"destMaxs", Gptr}, {"srcs", Gptr}, {"sizes", Gptr}, {"numBatches", Size}, {"attrs", Gptr}, {"attrsIndexes", Gptr}, {"numAttrs", Size}, {"failIndex", Gptr}},
		Doc: "Runs numBatches H2D/D2H copies in no fixed order; *failIndex names the entry that failed a location check, or SIZE_MAX."},
	{Name: "aclrtMemcpyBatchAsync", Group: Batch, Params: []Param{{"dsts", Gptr}, {"destMaxs", Gptr}, {"srcs", Gptr}, {"sizes", Gptr}, {"numBatches", Size}, {"attrs", Gptr}, {"attrsIndexes", Gptr}, {"numAttrs", Size}, {"failIndex", Gptr}, {"stream", Handle}},
		Doc: "Queues a batch of H2D/D2H copies on stream as one operation."},
	{Name: "aclrtMemcpyBatchV2", Group: Batch, Params: []Param{{"dsts", Gptr}, {"destMaxs", Gptr}, {"srcs", Gptr}, {"sizes", Gptr}, {"numBatches", Size}, {"attrs", Gptr}, {"attrsIndexes", Gptr}, {"numAttrs", Size}},
		Doc: "aclrtMemcpyBatch without failIndex."},
	{Name: "aclrtMemcpyBatchAsyncV2", Group: Batch, Params: []Param{{"dsts", Gptr}, {"destMaxs", Gptr}, {"srcs", Gptr}, {"sizes", Gptr}, {"numBatches", Size}, {"attrs", Gptr}, {"attrsIndexes", Gptr}, {"numAttrs", Size}, {"stream", Handle}},
		Doc: "aclrtMemcpyBatchAsync without failIndex."},
	{Name: "aclrtMemcpy2d", Group: Memcpy2D, Params: []Param{{"dst", Addr}, {"dpitch", Size}, {"src", Addr}, {"spitch", Size}, {"width", Size}, {"height", Size}, {"kind", I32}},
		Doc: "Copies height rows of width bytes, rows spitch apart in src and dpitch apart in dst (H2D or D2H)."},
	{Name: "aclrtMemcpy2dAsync", Group: Memcpy2D, Params: []Param{{"dst", Addr}, {"dpitch", Size}, {"src", Addr}, {"spitch", Size}, {"width", Size}, {"height", Size}, {"kind", I32}, {"stream", Handle}},
		Doc: "Queues a 2D copy on stream (H2D, D2H or D2D)."},
	{Name: "aclrtGetMemcpyDescSize", Group: Descriptor, Params: []Param{{"kind", I32}, {"descSize", Gptr}},
		Doc: "Writes the size of a copy descriptor for kind (INNER_DEVICE_TO_DEVICE only)."},
	{Name: "aclrtSetMemcpyDesc", Group: Descriptor, Params: []Param{{"desc", Addr}, {"kind", I32}, {"srcAddr", Addr}, {"dstAddr", Addr}, {"count", Size}, {"config", Gptr}},
		Doc: "Writes a descriptor for a device-to-device copy into device memory at desc; config must be NULL."},
	{Name: "aclrtMemcpyAsyncWithDesc", Group: Descriptor, Params: []Param{{"desc", Addr}, {"kind", I32}, {"stream", Handle}},
		Doc: "Queues the copy a descriptor describes; the descriptor is read and validated when the copy executes."},
	{Name: "aclrtMemcpyAsyncWithOffset", Group: Descriptor, Params: []Param{{"dst", Addr}, {"destMax", Size}, {"dstDataOffset", Size}, {"src", Addr}, {"count", Size}, {"srcDataOffset", Size}, {"kind", I32}, {"stream", Handle}},
		Doc: "Queues a copy between the device addresses stored at dst and src, plus offsets; the slots are read when the copy executes."},
	{Name: "aclrtMemset", Group: Memset, Params: []Param{{"devPtr", Addr}, {"maxCount", Size}, {"value", I32}, {"count", Size}},
		Doc: "Sets count bytes of device or pinned memory to the low byte of value."},
	{Name: "aclrtMemsetAsync", Group: Memset, Params: []Param{{"devPtr", Addr}, {"maxCount", Size}, {"value", I32}, {"count", Size}, {"stream", Handle}},
		Doc: "Queues a memset on stream."},
	{Name: "aclInit", Group: Runtime, Params: []Param{{"configPath", Gptr}},
		Doc: "Initializes the runtime (optional); configPath is 0 or a NUL-terminated string; a second call gives 100002."},
	{Name: "aclFinalize", Group: Runtime, Params: []Param{},
		Doc: "Finalizes the runtime; a second call gives 100037."},
	{Name: "aclrtGetVersion", Group: Runtime, Params: []Param{{"major", Gptr}, {"minor", Gptr}, {"patch", Gptr}},
		Doc: "Writes the ACL version (1.17.0) as three int32."},
	{Name: "aclrtSetDevice", Group: Device, Params: []Param{{"deviceId", I32}},
		Doc: "Makes deviceId current; required before device work."},
	{Name: "aclrtResetDevice", Group: Device, Params: []Param{{"deviceId", I32}},
		Doc: "Waits for the session's work on the device, then releases everything it holds there."},
	{Name: "aclrtGetDevice", Group: Device, Params: []Param{{"deviceId", Gptr}},
		Doc: "Writes the current device id."},
	{Name: "aclrtGetDeviceCount", Group: Device, Params: []Param{{"count", Gptr}},
		Doc: "Writes how many devices the session sees."},
	{Name: "aclrtSynchronizeDevice", Group: Device, Params: []Param{},
		Doc: "Waits for all of the session's work on the current device."},
	{Name: "aclrtSynchronizeDeviceWithTimeout", Group: Device, Params: []Param{{"timeoutMs", I32}},
		Doc: "aclrtSynchronizeDevice with a timeout in ms (-1 forever); 507046 on timeout."},
	{Name: "aclrtDeviceCanAccessPeer", Group: Device, Params: []Param{{"canAccessPeer", Gptr}, {"deviceId", I32}, {"peerDeviceId", I32}},
		Doc: "Writes 1 if deviceId can access peerDeviceId's memory, else 0."},
	{Name: "aclrtDeviceEnablePeerAccess", Group: Device, Params: []Param{{"peerDeviceId", I32}, {"flags", I32}},
		Doc: "Lets the current device copy to and from peerDeviceId; flags must be 0."},
	{Name: "aclrtDeviceDisablePeerAccess", Group: Device, Params: []Param{{"peerDeviceId", I32}},
		Doc: "Undoes aclrtDeviceEnablePeerAccess."},
	{Name: "aclrtGetMemInfo", Group: Memory, Params: []Param{{"attr", I32}, {"free", Gptr}, {"total", Gptr}},
		Doc: "Writes the session's free and total device memory (its quota) as sizes."},
	{Name: "aclrtMalloc", Group: Memory, Params: []Param{{"devPtr", Gptr}, {"size", Size}, {"policy", I32}},
		Doc: "Allocates device memory and writes its 64-bit address at devPtr."},
	{Name: "aclrtFree", Group: Memory, Params: []Param{{"devPtr", Addr}},
		Doc: "Frees a device allocation by its base address, after the queued work that uses it."},
	{Name: "aclrtHostRegister", Group: Memory, Params: []Param{{"ptr", Addr}, {"size", Size}, {"type", I32}, {"devPtr", Gptr}},
		Doc: "Pins [ptr, ptr+size) of guest memory so async copies use it directly; writes ptr at devPtr."},
	{Name: "aclrtHostUnregister", Group: Memory, Params: []Param{{"ptr", Addr}},
		Doc: "Unpins the registered range starting at ptr, after the queued work that uses it."},
	{Name: "aclrtPointerGetAttributes", Group: Memory, Params: []Param{{"ptr", Addr}, {"attributes", Gptr}},
		Doc: "Writes an aclrtPtrAttributes (28 bytes) saying where ptr lives."},
	{Name: "aclrtCreateStream", Group: Stream, Params: []Param{{"stream", Gptr}},
		Doc: "Creates a stream on the current device and writes its handle."},
	{Name: "aclrtDestroyStream", Group: Stream, Params: []Param{{"stream", Handle}},
		Doc: "Destroys a stream after its queued work."},
	{Name: "aclrtSynchronizeStream", Group: Stream, Params: []Param{{"stream", Handle}},
		Doc: "Waits for the stream's queued work; returns the first error it met."},
	{Name: "aclrtSynchronizeStreamWithTimeout", Group: Stream, Params: []Param{{"stream", Handle}, {"timeoutMs", I32}},
		Doc: "aclrtSynchronizeStream with a timeout in ms (-1 forever); 507046 on timeout."},
	{Name: "aclrtStreamQuery", Group: Stream, Params: []Param{{"stream", Handle}, {"status", Gptr}},
		Doc: "Writes ACL_STREAM_STATUS_COMPLETE (0) or NOT_READY (1)."},
	{Name: "aclrtCreateEvent", Group: Event, Params: []Param{{"event", Gptr}},
		Doc: "Creates an event and writes its handle."},
	{Name: "aclrtDestroyEvent", Group: Event, Params: []Param{{"event", Handle}},
		Doc: "Destroys an event."},
	{Name: "aclrtRecordEvent", Group: Event, Params: []Param{{"event", Handle}, {"stream", Handle}},
		Doc: "Queues a record of event on stream; it completes, with a timestamp, when reached."},
	{Name: "aclrtStreamWaitEvent", Group: Event, Params: []Param{{"stream", Handle}, {"event", Handle}},
		Doc: "Makes stream wait for the event's most recent record."},
	{Name: "aclrtSynchronizeEvent", Group: Event, Params: []Param{{"event", Handle}},
		Doc: "Waits for the event's most recent record to complete."},
	{Name: "aclrtQueryEventStatus", Group: Event, Params: []Param{{"event", Handle}, {"status", Gptr}},
		Doc: "Writes ACL_EVENT_RECORDED_STATUS_COMPLETE (1) or NOT_READY (0)."},
	{Name: "aclrtEventElapsedTime", Group: Event, Params: []Param{{"ms", Gptr}, {"startEvent", Handle}, {"endEvent", Handle}},
		Doc: "Writes the milliseconds between two completed events as a float."},
	{Name: "aclGetRecentErrMsg", Group: Runtime, Params: []Param{{"buf", Gptr}, {"bufLen", I32}},
		Doc: "Copies the session's most recent error message (up to bufLen-1 bytes and a NUL) and returns its full length."},
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
