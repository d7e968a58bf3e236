// Package gen generates the binding layers of the guest SDKs (C, Rust, Go,
// AssemblyScript) from the ABI table in package abi and the native codes,
// enums and struct layouts in package acl. Files returns every generated
// file; the gensdk command writes them and the staleness test in guest-sdk
// compares them with the checked-in copies.
//
// The ABI table gives each parameter's wire type and what it means beyond
// that (an aclrtMemcpyKind, an out-parameter of 8 bytes, an array of
// addresses); the generators classify each parameter from that (Sem) and
// each language maps a class to its own type. A description no class fits
// fails generation instead of producing a binding with a wrong type.
package gen

import (
	"fmt"

	"github.com/aclwasm/aclwasm/abi"
)

// Sem is how the generators classify a parameter: one class per type a
// language gives it. It is derived from the parameter's description in
// the ABI table (semOf), never written per function.
type Sem int

// The classes, zero being none. Scalars first, then the pointers into
// guest memory (gptr).
const (
	Ptr       Sem = iota + 1 // addr: guest or device address
	Size                     // size: byte count or index
	EnumValue                // i32: a value of the parameter's abi.Enum
	Int32                    // i32: int32_t (device id, timeout, memset value, buffer length)
	Uint32                   // i32: uint32_t (flags, counts, timeouts)
	Stream                   // handle: aclrtStream
	Event                    // handle: aclrtEvent

	OutPtr           // gptr: 8-byte address written by the host
	OutSize          // gptr: 8-byte size written by the host
	OutInt32         // gptr: int32_t written by the host
	OutUint32        // gptr: uint32_t written by the host
	OutFloat         // gptr: float written by the host
	OutStream        // gptr: stream handle written by the host
	OutEvent         // gptr: event handle written by the host
	OutEnum          // gptr: a value of the parameter's abi.Enum written by the host
	OutPtrAttributes // gptr: aclrtPtrAttributes written by the host
	PtrArray         // gptr: array of 8-byte addresses read by the host
	SizeArray        // gptr: array of 8-byte sizes read by the host
	AttrArray        // gptr: array of aclrtMemcpyBatchAttr read by the host
	CString          // gptr: NUL-terminated string read by the host (or NULL)
	Reserved         // gptr: reserved pointer that must be NULL
	OutBytes         // gptr: byte buffer written by the host

	Uint64       // uint64_t value (i64 in both profiles)
	OutUint64    // gptr: uint64_t written by the host (8 bytes in both profiles)
	Context      // handle: aclrtContext
	OutContext   // gptr: context handle written by the host
	HostFn       // gptr: a guest function pointer (a table index) the host hands back to the dispatcher
	UserData     // gptr: the guest's own pointer, handed back untouched
	OutErrorInfo // gptr: aclrtErrorInfo written by the host (an opaque pointer in the SDKs so far)
	Notify       // handle: aclrtNotify
	OutNotify    // gptr: notify handle written by the host
	// ABI v1.3 section 15.
	InStreamConfig // gptr: aclrtStreamConfigHandle read by the host (or NULL)

	OutUtilizationInfo // gptr: aclrtUtilizationInfo the host reads (its reserved pointer) and fills
	NotifyArray        // gptr: array of notify handles read by the host
	InRandomTask       // gptr: aclrtRandomNumTaskInfo read by the host
)

// Wire returns the wire type that carries a parameter of class s.
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

// semOf classifies parameter q of f from its description in the ABI table.
func semOf(f *abi.Func, q abi.Param) (Sem, error) {
	var s Sem
	out := q.Dir == abi.Out || q.Dir == abi.OutAlways
	handle := func(st, ev, cx, nt Sem) Sem {
		return map[abi.Kind]Sem{abi.StreamHandle: st, abi.EventHandle: ev, abi.ContextHandle: cx, abi.NotifyHandle: nt}[q.Kind]
	}
	switch q.Type {
	case abi.Addr:
		s = Ptr
	case abi.Size:
		s = Size
	case abi.U64:
		s = Uint64
	case abi.I32:
		switch {
		case q.Enum != nil && q.Enum.Macros: // a uint32_t whose bits the header names
			s = Uint32
		case q.Enum != nil:
			s = EnumValue
		case q.Kind == abi.Int:
			s = Int32
		case q.Kind == abi.Uint:
			s = Uint32
		}
	case abi.Handle:
		if q.Kind.IsHandle() {
			s = handle(Stream, Event, Context, Notify)
		}
	case abi.Gptr:
		switch {
		case q.Elem == abi.Addr && q.Len != "" && q.Dir == abi.In:
			s = PtrArray
		case q.Elem == abi.Size && q.Len != "" && q.Dir == abi.In:
			s = SizeArray
		case q.Elem == abi.Addr && out:
			s = OutPtr
		case q.Elem == abi.Size && out:
			s = OutSize
		case q.Elem == abi.U64 && out:
			s = OutUint64
		case q.Elem != 0:
		case q.Enum != nil && out && !q.Enum.Macros:
			s = OutEnum
		case q.Dir == abi.In:
			s = map[abi.Kind]Sem{abi.MemcpyBatchAttr: AttrArray, abi.CString: CString, abi.Reserved: Reserved, abi.GuestFunc: HostFn, abi.UserData: UserData, abi.StreamConfig: InStreamConfig, abi.NotifyHandle: NotifyArray, abi.RandomTask: InRandomTask}[q.Kind]
			if (s == AttrArray || s == NotifyArray) && q.Len == "" {
				s = 0
			}
		case out && q.Kind.IsHandle():
			s = handle(OutStream, OutEvent, OutContext, OutNotify)
		case out:
			s = map[abi.Kind]Sem{abi.Int: OutInt32, abi.Uint: OutUint32, abi.Float: OutFloat, abi.PtrAttributes: OutPtrAttributes, abi.ErrorInfo: OutErrorInfo, abi.UtilizationInfo: OutUtilizationInfo, abi.Bytes: OutBytes}[q.Kind]
		}
	}
	if s == 0 {
		return 0, fmt.Errorf("gen: %s parameter %s (%s, dir %v, kind %v, elem %v) has no class in the generators: describe it in abi/abi.go, or add its class to guest-sdk/internal/gen/model.go", f.Name, q.Name, q.Type, q.Dir, q.Kind, q.Elem)
	}
	return s, nil
}

// ErrMsgFunc returns the length of the recent error message, not an
// aclError; SocNameFunc, the length of the SoC name. The SDKs wrap both
// into the native const char * functions.
const (
	ErrMsgFunc  = "aclGetRecentErrMsg"
	SocNameFunc = "aclrtGetSocName"
)

// Param is one parameter of a Func: its description in the ABI table, and
// its class.
type Param struct {
	abi.Param
	Sem Sem
}

// Func is one ABI function with each parameter classified.
type Func struct {
	*abi.Func
	Params []Param
}

// ReturnsLength reports whether the function returns a length instead of an aclError.
func (f *Func) ReturnsLength() bool { return f.Name == ErrMsgFunc || f.Name == SocNameFunc }

// Funcs returns the ABI table with each parameter classified, in ABI
// order. It fails on a parameter that no class fits: a description the
// generators do not know how to render.
func Funcs() ([]Func, error) {
	out := make([]Func, 0, len(abi.Funcs))
	for i := range abi.Funcs {
		af := &abi.Funcs[i]
		f := Func{Func: af, Params: make([]Param, len(af.Params))}
		if af.Group == abi.Tensor || af.Group == abi.Operator || af.Group == abi.Model || af.Group == abi.Kernel || af.Group == abi.Prof {
			out = append(out, f) // declared from the table by nn.go, mdl.go, kernelapi.go and prof.go, unclassified
			continue
		}
		for j, p := range af.Params {
			s, err := semOf(af, p)
			if err != nil {
				return nil, err
			}
			f.Params[j] = Param{Param: p, Sem: s}
		}
		out = append(out, f)
	}
	return out, nil
}
