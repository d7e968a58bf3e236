package host

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// traceArgs copies the parameters of a call to f from the engine's stack,
// each as its wire type reads it. An i32 parameter's upper 32 bits are
// undefined on the stack (wazero stores it as 4 bytes into an 8-byte
// slot), so they are cleared: a record shows what the guest passed.
func traceArgs(f *abi.Func, stack []uint64) []uint64 {
	args := make([]uint64, len(f.Params))
	for i, p := range f.Params {
		args[i] = stack[i]
		if !p.Type.Is64() {
			args[i] = uint64(uint32(args[i]))
		}
	}
	return args
}

// CallRecord describes one host call, for tracing.
type CallRecord struct {
	Func *abi.Func
	Args []uint64
	// Result is the value returned to the guest: an aclError code, or the
	// length aclGetRecentErrMsg and aclrtGetSocName return.
	Result int32
	Code   acl.Error
	// Msg is a failed call's message (what aclGetRecentErrMsg reads), or a
	// remark on a successful one: aclInit's ignored configuration file.
	Msg string
	// Outs are the values the call wrote to its out-parameters (the
	// address aclrtMalloc wrote at devPtr, a stream handle, a count), in
	// parameter order: none for a failed call, except failIndex of the
	// batch copies. Functions outside module "acl" report none.
	Outs []OutValue
	// Attrs are the first entries (at most maxTraceAttrs) of a batch
	// copy's attrs array, the aclrtMemcpyBatchAttr locations it gave,
	// when they lie in guest memory.
	Attrs []acl.MemcpyBatchAttr
	// Session is the calling session's ID; Start and Duration time the
	// host call.
	Session  uint64
	Start    time.Time
	Duration time.Duration
}

// OutValue is a value a host call wrote to one of its out-parameters.
type OutValue struct {
	// Param is the parameter's index in CallRecord.Func.Params (and Args).
	Param int
	// Value is what the call wrote there, zero-extended; a float (the
	// milliseconds of aclrtEventElapsedTime) as its IEEE 754 bits.
	Value uint64
}

// outParam is an out-parameter whose value the trace shows after its
// address.
type outParam struct {
	param  int
	always bool // written on failure too (failIndex names the failed entry)
}

// outParams has, per function of abi.Funcs, the out-parameters that hold
// one value (an int32_t, a handle, an enum, an address or size): what
// traceOuts reads. Arrays, buffers and structs are not shown.
var outParams = func() [][]outParam {
	out := make([][]outParam, len(abi.Funcs))
	for fi, f := range abi.Funcs {
		for i, p := range f.Params {
			if p.Type == abi.Gptr && (p.Dir == abi.Out || p.Dir == abi.OutAlways) && p.Len == "" && !p.Kind.IsStruct() {
				out[fi] = append(out[fi], outParam{param: i, always: p.Dir == abi.OutAlways})
			}
		}
	}
	return out
}()

// traceOuts reads the values the call of function fi just made wrote to
// its out-parameters in mem, the guest's memory (the width of an address
// or size by the profile). Nothing is read for a failed call, which wrote
// none, except where the function writes one on failure too; nor outside
// mem.
func traceOuts(fi int, prof abi.Profile, mem []byte, stack []uint64, code acl.Error) []OutValue {
	specs := outParams[fi]
	if len(specs) == 0 {
		return nil
	}
	var outs []OutValue
	for _, o := range specs {
		if code != acl.Success && !o.always {
			continue
		}
		ptr := uint64(uint32(stack[o.param])) // a gptr is an i32 in both profiles
		width := abi.Funcs[fi].Params[o.param].ElemSize(prof)
		if width == 0 {
			width = 4 // an int32_t, a handle, an enum or a float
		}
		if ptr == 0 || ptr+width > uint64(len(mem)) {
			continue
		}
		var v uint64
		if width == 8 {
			v = binary.LittleEndian.Uint64(mem[ptr:])
		} else {
			v = uint64(binary.LittleEndian.Uint32(mem[ptr:]))
		}
		outs = append(outs, OutValue{Param: o.param, Value: v})
	}
	return outs
}

// maxTraceAttrs bounds the batch attributes a trace line shows.
const maxTraceAttrs = 8

// batchAttrParams has, per function of abi.Funcs, the indexes of its
// array of aclrtMemcpyBatchAttr and of the parameter that counts it (the
// batch copies), or -1s.
var batchAttrParams = func() [][2]int {
	out := make([][2]int, len(abi.Funcs))
	for fi, f := range abi.Funcs {
		out[fi] = [2]int{-1, -1}
		for i, p := range f.Params {
			if p.Kind == abi.MemcpyBatchAttr && p.Len != "" {
				out[fi] = [2]int{i, paramIndex(&f, p.Len)}
			}
		}
	}
	return out
}()

// paramIndex returns the index of f's parameter named name, or -1.
func paramIndex(f *abi.Func, name string) int {
	for i, p := range f.Params {
		if p.Name == name {
			return i
		}
	}
	return -1
}

// traceAttrs reads the aclrtMemcpyBatchAttr entries a batch copy named,
// the first maxTraceAttrs of them, from mem; none where they do not lie
// in it.
func traceAttrs(fi int, mem []byte, stack []uint64) []acl.MemcpyBatchAttr {
	ix := batchAttrParams[fi]
	if ix[0] < 0 || ix[1] < 0 {
		return nil
	}
	ptr, n := uint64(uint32(stack[ix[0]])), min(stack[ix[1]], maxTraceAttrs)
	if ptr == 0 || n == 0 || ptr+n*acl.MemcpyBatchAttrSize > uint64(len(mem)) {
		return nil
	}
	attrs := make([]acl.MemcpyBatchAttr, n)
	for k := range attrs {
		attrs[k] = acl.DecodeMemcpyBatchAttr(mem[ptr+uint64(k)*acl.MemcpyBatchAttrSize:])
	}
	return attrs
}

// String formats the call as one trace line, arguments decoded by wire
// type, enums by the header's names, and each out-parameter's address
// followed by the value the call wrote there:
//
//	aclrtMemcpy(dst=0x10000000000, destMax=64, src=0x1000, count=64, kind=ACL_MEMCPY_HOST_TO_DEVICE) = 0
//	aclrtMalloc(devPtr=0x10 -> 0x100000000, size=4096, policy=ACL_MEM_MALLOC_HUGE_FIRST) = 0
//	aclrtMalloc(devPtr=0x100, size=0, policy=ACL_MEM_MALLOC_HUGE_FIRST) = 100000 ACL_ERROR_INVALID_PARAM: aclrtMalloc: size is 0
func (r CallRecord) String() string {
	var b strings.Builder
	r.writeCall(&b)
	b.WriteString(" = ")
	b.WriteString(strconv.FormatInt(int64(r.Result), 10))
	if r.Code != acl.Success {
		b.WriteString(" " + r.Code.Name() + ": " + r.Msg)
	} else if r.Msg != "" {
		b.WriteString(" (" + r.Msg + ")")
	}
	return b.String()
}

// call formats the function and its arguments, as String does, without
// the result.
func (r CallRecord) call() string {
	var b strings.Builder
	r.writeCall(&b)
	return b.String()
}

// writeCall writes the function's name and its arguments, each with what
// the call wrote there.
func (r CallRecord) writeCall(b *strings.Builder) {
	b.WriteString(r.Func.Name)
	b.WriteByte('(')
	for i, p := range r.Func.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Name)
		b.WriteByte('=')
		v := r.Args[i]
		if !p.Type.Is64() {
			v = uint64(uint32(v)) // a record built by hand may have them
		}
		switch {
		case p.Enum != nil && !p.Enum.Macros && p.Type != abi.Gptr:
			b.WriteString(p.Enum.Name(v))
		case p.Type == abi.Addr, p.Type == abi.Gptr:
			b.WriteString("0x" + strconv.FormatUint(v, 16))
		case p.Type == abi.I32:
			b.WriteString(strconv.FormatInt(int64(int32(uint32(v))), 10))
		default:
			b.WriteString(strconv.FormatUint(v, 10))
		}
		if p.Enum != nil && p.Enum.Macros { // flags the sandbox accepts without a use: show what was asked
			b.WriteString(" (" + p.Enum.Name(v) + ")")
		}
		for _, o := range r.Outs {
			if o.Param == i {
				b.WriteString(" -> " + outString(p, o.Value))
			}
		}
		if p.Kind == abi.MemcpyBatchAttr && len(r.Attrs) > 0 {
			r.writeAttrs(b, p.Len)
		}
	}
	b.WriteByte(')')
}

// outString formats the value v written to out-parameter p.
func outString(p abi.Param, v uint64) string {
	switch {
	case p.Enum != nil:
		return p.Enum.Name(v)
	case p.Kind == abi.Int:
		return strconv.FormatInt(int64(int32(uint32(v))), 10)
	case p.Kind == abi.Float:
		return strconv.FormatFloat(float64(math.Float32frombits(uint32(v))), 'g', -1, 32)
	case p.Elem == abi.Addr:
		return "0x" + strconv.FormatUint(v, 16)
	}
	return strconv.FormatUint(v, 10)
}

// writeAttrs writes the batch attributes as the C structs name their
// fields: [{dstLoc={id=0, type=ACL_MEM_LOCATION_TYPE_DEVICE}, srcLoc={...}}, ...].
func (r CallRecord) writeAttrs(b *strings.Builder, count string) {
	loc := func(name string, l acl.MemLocation) {
		b.WriteString(name + "={id=" + strconv.FormatUint(uint64(l.ID), 10) + ", type=" + l.Type.String() + "}")
	}
	b.WriteString(" [")
	for k, a := range r.Attrs {
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('{')
		loc("dstLoc", a.DstLoc)
		b.WriteString(", ")
		loc("srcLoc", a.SrcLoc)
		b.WriteByte('}')
	}
	// More than shown?
	if n := paramIndex(r.Func, count); n >= 0 && r.Args[n] > uint64(len(r.Attrs)) {
		b.WriteString(", ...")
	}
	b.WriteByte(']')
}

// Observer watches the runs of plugins, for tracing: each Plugin.Run,
// Plugin.Instantiate and Instance.Call begins one run. It lets a tracing
// library (see host/otelhost) follow runs without this package importing it.
//
// Begin is called on the caller's goroutine before guest code runs; the
// RunObserver it returns (nil to skip the run) gets every host call the
// guest makes during the run, on the guest's goroutine, then the run's end.
// Neither may block.
type Observer interface {
	Begin(ctx context.Context, run RunInfo) RunObserver
}

// RunInfo describes a run that begins.
type RunInfo struct {
	Plugin string // the plugin's name (LoadName), "" if none
	// Export is what runs: "_start" for Plugin.Run, "_initialize" for
	// Plugin.Instantiate, the export's name for Instance.Call.
	Export string
}

// RunObserver follows one run.
type RunObserver interface {
	// HostCall is called after each host call of the run.
	HostCall(CallRecord)
	// End is called once when the run ends.
	End(RunEnd)
}

// RunEnd describes how a run ended.
type RunEnd struct {
	// Outcome is "ok", "exit" (a nonzero exit code), "trap", "timeout",
	// "canceled" or "error", as in the metrics' runs_total.
	Outcome  string
	ExitCode uint32
	Err      error
	Session  uint64 // the session's ID; 0 if it was never made
}

// WithObserver has o follow every run (see Observer). Several WithObserver
// options replace one another: the last one counts.
func WithObserver(o Observer) Option { return func(c *config) { c.observer = o } }

// outcome classifies how a run ended, for metrics and observers.
func outcome(exitCode uint32, err error) string {
	var ee *ExitError
	switch {
	case errors.As(err, &ee) && ee.Code != 0, err == nil && exitCode != 0:
		return "exit"
	case errors.Is(err, ErrTrap):
		return "trap"
	case errors.Is(err, ErrTimeout):
		return "timeout"
	case errors.Is(err, ErrCanceled):
		return "canceled"
	case err != nil && !errors.As(err, &ee):
		return "error"
	}
	return "ok"
}

// begin starts observing a run of p's export; nil without an observer.
func (p *Plugin) begin(ctx context.Context, export string) RunObserver {
	if p.rt.observer == nil {
		return nil
	}
	return p.rt.observer.Begin(ctx, RunInfo{Plugin: p.name, Export: export})
}

// end ends the observed run ro (nil: none).
func end(ro RunObserver, s *Session, exitCode uint32, err error) {
	if ro == nil {
		return
	}
	if ee := (*ExitError)(nil); errors.As(err, &ee) {
		exitCode = ee.Code
	}
	var id uint64
	if s != nil {
		s.observe(nil)
		id = s.ID()
	}
	ro.End(RunEnd{Outcome: outcome(exitCode, err), ExitCode: exitCode, Err: err, Session: id})
}

// ran counts how a run or reactor call of p ended, with WithMetrics.
func (p *Plugin) ran(exitCode uint32, err error) {
	if p.m != nil {
		p.m.Run(outcome(exitCode, err))
	}
}
