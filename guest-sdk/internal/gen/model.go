// Package gen generates the binding layers of the guest SDKs (C, Rust, Go,
// AssemblyScript) from the ABI table in package abi and the native codes,
// enums and struct layouts in package acl. Files returns every generated
// file; the gensdk command writes them and the staleness test in guest-sdk
// compares them with the checked-in copies.
//
// The ABI table gives each parameter's wire type. What a parameter means
// beyond that (an aclrtMemcpyKind, an out-parameter of 8 bytes, an array of
// addresses) is in the semantics table below: each language maps a meaning
// to its own type. Every ABI function must have an entry, and every entry's
// meaning must travel as the parameter's wire type, so a change of the ABI
// table that the SDKs do not follow fails generation instead of producing a
// binding with a wrong wire type.
package gen

import (
	"fmt"

	"github.com/aclwasm/aclwasm/abi"
)

// Sem is what a parameter means: it decides the parameter's type in each
// language's natural API.
type Sem int

// The meanings. Scalars first, then the pointers into guest memory (gptr).
const (
	Ptr          Sem = iota // addr: guest or device address
	Size                    // size: byte count or index
	Kind                    // i32: aclrtMemcpyKind
	Int32                   // i32: int32_t (device id, timeout, memset value, buffer length)
	Uint32                  // i32: uint32_t flags
	MemAttr                 // i32: aclrtMemAttr
	MallocPolicy            // i32: aclrtMemMallocPolicy
	RegisterType            // i32: aclrtHostRegisterType
	Stream                  // handle: aclrtStream
	Event                   // handle: aclrtEvent

	OutPtr           // gptr: 8-byte address written by the host
	OutSize          // gptr: 8-byte size written by the host
	OutInt32         // gptr: int32_t written by the host
	OutUint32        // gptr: uint32_t written by the host
	OutFloat         // gptr: float written by the host
	OutStream        // gptr: stream handle written by the host
	OutEvent         // gptr: event handle written by the host
	OutStreamStatus  // gptr: aclrtStreamStatus written by the host
	OutEventStatus   // gptr: aclrtEventRecordedStatus written by the host
	OutPtrAttributes // gptr: aclrtPtrAttributes written by the host
	PtrArray         // gptr: array of 8-byte addresses read by the host
	SizeArray        // gptr: array of 8-byte sizes read by the host
	AttrArray        // gptr: array of aclrtMemcpyBatchAttr read by the host
	CString          // gptr: NUL-terminated string read by the host (or NULL)
	Reserved         // gptr: reserved pointer that must be NULL
	OutBytes         // gptr: byte buffer written by the host

	// ABI v1.1 section 10: 32-bit memsets, op timeouts, app log.
	Uint64     // uint64_t value (i64 in both profiles)
	OutUint64  // gptr: uint64_t written by the host (8 bytes in both profiles)
	Context    // handle: aclrtContext
	OutContext // gptr: context handle written by the host
	OutRunMode // gptr: aclrtRunMode written by the host

	// ABI v1.2 section 12: stream callbacks.
	HostFn   // gptr: a guest function pointer (a table index) the host hands back to the dispatcher
	UserData // gptr: the guest's own pointer, handed back untouched
	// ABI v1.2 section 12: error state and resource queries.
	OutErrorInfo // gptr: aclrtErrorInfo written by the host (an opaque pointer in the SDKs so far)
	// ABI v1.2 section 12: notifies.
	Notify    // handle: aclrtNotify
	OutNotify // gptr: notify handle written by the host
	// ABI v1.2 section 12: event wait status.
	OutEventWaitStatus // gptr: aclrtEventWaitStatus written by the host
)

// Wire returns the wire type that carries a parameter of meaning s.
func (s Sem) Wire() abi.Type {
	switch {
	case s == Ptr:
		return abi.Addr
	case s == Size:
		return abi.Size
	case s == Stream || s == Event || s == Context || s == Notify:
		return abi.Handle
	case s == Uint64:
		return abi.U64
	case s >= OutPtr:
		return abi.Gptr
	}
	return abi.I32
}

// IsOut reports whether the host writes through the parameter.
func (s Sem) IsOut() bool {
	return s >= OutPtr && s <= OutPtrAttributes || s == OutBytes || s == OutUint64 || s == OutContext || s == OutRunMode || s == OutErrorInfo || s == OutNotify
}

// semantics gives the meaning of every parameter of every ABI function, in
// order. Names come from the ABI table.
var semantics = map[string][]Sem{
	"aclrtMemcpy":                       {Ptr, Size, Ptr, Size, Kind},
	"aclrtMemcpyAsync":                  {Ptr, Size, Ptr, Size, Kind, Stream},
	"aclrtMemcpyAsyncWithCondition":     {Ptr, Size, Ptr, Size, Kind, Stream},
	"aclrtMemcpyBatch":                  {PtrArray, SizeArray, PtrArray, SizeArray, Size, AttrArray, SizeArray, Size, OutSize},
	"aclrtMemcpyBatchAsync":             {PtrArray, SizeArray, PtrArray, SizeArray, Size, AttrArray, SizeArray, Size, OutSize, Stream},
	"aclrtMemcpyBatchV2":                {PtrArray, SizeArray, PtrArray, SizeArray, Size, AttrArray, SizeArray, Size},
	"aclrtMemcpyBatchAsyncV2":           {PtrArray, SizeArray, PtrArray, SizeArray, Size, AttrArray, SizeArray, Size, Stream},
	"aclrtMemcpy2d":                     {Ptr, Size, Ptr, Size, Size, Size, Kind},
	"aclrtMemcpy2dAsync":                {Ptr, Size, Ptr, Size, Size, Size, Kind, Stream},
	"aclrtGetMemcpyDescSize":            {Kind, OutSize},
	"aclrtSetMemcpyDesc":                {Ptr, Kind, Ptr, Ptr, Size, Reserved},
	"aclrtMemcpyAsyncWithDesc":          {Ptr, Kind, Stream},
	"aclrtMemcpyAsyncWithOffset":        {Ptr, Size, Size, Ptr, Size, Size, Kind, Stream},
	"aclrtMemset":                       {Ptr, Size, Int32, Size},
	"aclrtMemsetAsync":                  {Ptr, Size, Int32, Size, Stream},
	"aclInit":                           {CString},
	"aclFinalize":                       {},
	"aclrtGetVersion":                   {OutInt32, OutInt32, OutInt32},
	"aclrtSetDevice":                    {Int32},
	"aclrtResetDevice":                  {Int32},
	"aclrtGetDevice":                    {OutInt32},
	"aclrtGetDeviceCount":               {OutUint32},
	"aclrtSynchronizeDevice":            {},
	"aclrtSynchronizeDeviceWithTimeout": {Int32},
	"aclrtDeviceCanAccessPeer":          {OutInt32, Int32, Int32},
	"aclrtDeviceEnablePeerAccess":       {Int32, Uint32},
	"aclrtDeviceDisablePeerAccess":      {Int32},
	"aclrtGetMemInfo":                   {MemAttr, OutSize, OutSize},
	"aclrtMalloc":                       {OutPtr, Size, MallocPolicy},
	"aclrtFree":                         {Ptr},
	"aclrtHostRegister":                 {Ptr, Uint64, RegisterType, OutPtr},
	"aclrtHostUnregister":               {Ptr},
	"aclrtPointerGetAttributes":         {Ptr, OutPtrAttributes},
	"aclrtCreateStream":                 {OutStream},
	"aclrtDestroyStream":                {Stream},
	"aclrtSynchronizeStream":            {Stream},
	"aclrtSynchronizeStreamWithTimeout": {Stream, Int32},
	"aclrtStreamQuery":                  {Stream, OutStreamStatus},
	"aclrtCreateEvent":                  {OutEvent},
	"aclrtDestroyEvent":                 {Event},
	"aclrtRecordEvent":                  {Event, Stream},
	"aclrtStreamWaitEvent":              {Stream, Event},
	"aclrtSynchronizeEvent":             {Event},
	"aclrtQueryEventStatus":             {Event, OutEventStatus},
	"aclrtEventElapsedTime":             {OutFloat, Event, Event},
	"aclGetRecentErrMsg":                {OutBytes, Int32},
	// ABI v1.1 section 10: 32-bit memsets, event reset, op timeouts, app log.
	"aclrtMemsetD32":             {Ptr, Size, Uint32, Size},
	"aclrtMemsetD32Async":        {Ptr, Size, Uint32, Size, Stream},
	"aclrtResetEvent":            {Event, Stream},
	"aclrtSetOpWaitTimeout":      {Uint32},
	"aclrtSetOpExecuteTimeOut":   {Uint32},
	"aclrtSetOpExecuteTimeOutV2": {Uint64, OutUint64},
	"aclrtGetOpExecuteTimeout":   {OutUint32},
	"aclrtGetOpTimeOutInterval":  {OutUint64},
	"aclAppLog":                  {Int32, CString, CString, Uint32, CString},
	// ABI v1.1 section 10: contexts, forced resets, configured streams, failure modes.
	"aclrtResetDeviceForce":       {Int32},
	"aclrtDestroyStreamForce":     {Stream},
	"aclrtCreateContext":          {OutContext, Int32},
	"aclrtDestroyContext":         {Context},
	"aclrtSetCurrentContext":      {Context},
	"aclrtGetCurrentContext":      {OutContext},
	"aclrtGetRunMode":             {OutRunMode},
	"aclrtCreateStreamWithConfig": {OutStream, Uint32, Uint32},
	"aclrtSetStreamFailureMode":   {Stream, Uint64},
	// ABI v1.2 section 12: stream callbacks.
	"aclrtLaunchHostFunc":    {Stream, HostFn, UserData},
	"aclrtSubscribeReport":   {Uint64, Stream},
	"aclrtLaunchCallback":    {HostFn, UserData, Int32, Stream},
	"aclrtProcessReport":     {Int32},
	"aclrtUnSubscribeReport": {Uint64, Stream},
	// ABI v1.2 section 12: error state and resource queries.
	"aclrtGetLastError":               {Int32},
	"aclrtPeekAtLastError":            {Int32},
	"aclrtGetErrorVerbose":            {Int32, OutErrorInfo},
	"aclrtCtxGetCurrentDefaultStream": {OutStream},
	"aclrtGetResInCurrentThread":      {Int32, OutUint32},
	"aclrtGetDeviceResLimit":          {Int32, Int32, OutUint32},
	"aclrtSetDeviceResLimit":          {Int32, Int32, Uint32},
	"aclrtGetStreamAvailableNum":      {OutUint32},
	// ABI v1.2 section 12: notifies.
	"aclrtCreateNotify":       {OutNotify, Uint64},
	"aclrtDestroyNotify":      {Notify},
	"aclrtRecordNotify":       {Notify, Stream},
	"aclrtWaitAndResetNotify": {Notify, Stream, Uint32},
	"aclrtGetNotifyId":        {Notify, OutUint32},
	// ABI v1.2 section 12: event extras.
	"aclrtSynchronizeEventWithTimeout": {Event, Int32},
	"aclrtGetEventId":                  {Event, OutUint32},
	"aclrtGetEventAvailNum":            {OutUint32},
	"aclrtCreateEventExWithFlag":       {OutEvent, Uint32},
	"aclrtEventGetTimestamp":           {Event, OutUint64},
	// ABI v1.2 section 12: event wait status.
	"aclrtQueryEventWaitStatus": {Event, OutEventWaitStatus},
}

// ErrMsgFunc is the one function that returns a length, not an aclError.
const ErrMsgFunc = "aclGetRecentErrMsg"

// Param is one parameter of a Func: its ABI name and wire type, and its meaning.
type Param struct {
	abi.Param
	Sem Sem
}

// Func is one ABI function with the meaning of each parameter.
type Func struct {
	*abi.Func
	Params []Param
}

// ReturnsLength reports whether the function returns a length instead of an aclError.
func (f *Func) ReturnsLength() bool { return f.Name == ErrMsgFunc }

// Funcs returns the ABI table joined with the semantics table, in ABI
// order. It fails if the two disagree: a function without meanings, a
// meaning for a function the ABI lacks, a different parameter count, or a
// meaning that does not travel as the parameter's wire type.
func Funcs() ([]Func, error) {
	seen := make(map[string]bool, len(abi.Funcs))
	out := make([]Func, 0, len(abi.Funcs))
	for i := range abi.Funcs {
		af := &abi.Funcs[i]
		sems, ok := semantics[af.Name]
		if !ok {
			return nil, fmt.Errorf("gen: ABI function %s has no entry in the semantics table", af.Name)
		}
		if len(sems) != len(af.Params) {
			return nil, fmt.Errorf("gen: %s has %d parameters in the ABI table but %d in the semantics table", af.Name, len(af.Params), len(sems))
		}
		f := Func{Func: af, Params: make([]Param, len(af.Params))}
		for j, p := range af.Params {
			if w := sems[j].Wire(); w != p.Type {
				return nil, fmt.Errorf("gen: %s parameter %s is %s in the ABI table, but its meaning travels as %s", af.Name, p.Name, p.Type, w)
			}
			f.Params[j] = Param{Param: p, Sem: sems[j]}
		}
		seen[af.Name] = true
		out = append(out, f)
	}
	for name := range semantics {
		if !seen[name] {
			return nil, fmt.Errorf("gen: the semantics table names %s, which the ABI table lacks", name)
		}
	}
	return out, nil
}
