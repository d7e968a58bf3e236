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
	// message length for aclGetRecentErrMsg.
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

// outKind is how an out-parameter's value reads and prints.
type outKind uint8

const (
	outI32    outKind = iota // int32_t: a device id, a count, a version part
	outU32                   // uint32_t: a handle, a timeout
	outElem                  // the parameter's Elem: an address (hex), a size or a uint64_t
	outF32                   // float: milliseconds
	outStatus                // an enum, by its name (outNames)
)

// outParam is one out-parameter of a function of the ABI table.
type outParam struct {
	param  int
	kind   outKind
	always bool // written on failure too (failIndex names the failed entry)
}

// outSpecs are the out-parameters of the ABI's functions, by "function.
// parameter"; the value a call writes there is traced after its address.
// Arrays, structs and strings are not (their values are the guest's).
var outSpecs = map[string]outParam{
	"aclrtMemcpyBatch.failIndex":               {kind: outElem, always: true},
	"aclrtMemcpyBatchAsync.failIndex":          {kind: outElem, always: true},
	"aclrtGetMemcpyDescSize.descSize":          {kind: outElem},
	"aclrtGetVersion.major":                    {kind: outI32},
	"aclrtGetVersion.minor":                    {kind: outI32},
	"aclrtGetVersion.patch":                    {kind: outI32},
	"aclrtGetDevice.deviceId":                  {kind: outI32},
	"aclrtGetDeviceCount.count":                {kind: outI32},
	"aclrtDeviceCanAccessPeer.canAccessPeer":   {kind: outI32},
	"aclrtGetMemInfo.free":                     {kind: outElem},
	"aclrtGetMemInfo.total":                    {kind: outElem},
	"aclrtMalloc.devPtr":                       {kind: outElem},
	"aclrtHostRegister.devPtr":                 {kind: outElem},
	"aclrtCreateStream.stream":                 {kind: outU32},
	"aclrtCreateStreamWithConfig.stream":       {kind: outU32},
	"aclrtStreamQuery.status":                  {kind: outStatus},
	"aclrtCreateEvent.event":                   {kind: outU32},
	"aclrtQueryEventStatus.status":             {kind: outStatus},
	"aclrtEventElapsedTime.ms":                 {kind: outF32},
	"aclrtSetOpExecuteTimeOutV2.actualTimeout": {kind: outElem},
	"aclrtGetOpExecuteTimeout.timeoutMs":       {kind: outU32},
	"aclrtGetOpTimeOutInterval.interval":       {kind: outElem},
	"aclrtCreateContext.context":               {kind: outU32},
	"aclrtGetCurrentContext.context":           {kind: outU32},
	"aclrtGetRunMode.runMode":                  {kind: outStatus},
	// ABI v1.2 section 12: error state and resource queries.
	"aclrtCtxGetCurrentDefaultStream.stream": {kind: outU32},
	"aclrtGetResInCurrentThread.value":       {kind: outU32},
	"aclrtGetDeviceResLimit.value":           {kind: outU32},
	"aclrtGetStreamAvailableNum.streamCount": {kind: outU32},
	// ABI v1.2 section 12: notifies.
	"aclrtCreateNotify.notify":  {kind: outU32},
	"aclrtGetNotifyId.notifyId": {kind: outU32},
	// ABI v1.2 section 12: event extras.
	"aclrtGetEventId.eventId":          {kind: outU32},
	"aclrtGetEventAvailNum.eventCount": {kind: outU32},
	"aclrtCreateEventExWithFlag.event": {kind: outU32},
	"aclrtEventGetTimestamp.timestamp": {kind: outElem},
	// ABI v1.2 section 12: event wait status.
	"aclrtQueryEventWaitStatus.status": {kind: outStatus},
}

// outParams has, per function of abi.Funcs, its out-parameters: what
// traceOuts reads without a map look-up.
var outParams = func() [][]outParam {
	out := make([][]outParam, len(abi.Funcs))
	found := 0
	for fi, f := range abi.Funcs {
		for i, p := range f.Params {
			if o, ok := outSpecs[f.Name+"."+p.Name]; ok {
				o.param = i
				out[fi] = append(out[fi], o)
				found++
			}
		}
	}
	if found != len(outSpecs) {
		panic("host: outSpecs names a parameter the ABI table does not have")
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
		width := uint64(4)
		if o.kind == outElem {
			width = abi.Funcs[fi].Params[o.param].ElemSize(prof)
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

// batchAttrParams has, per function of abi.Funcs, the indexes of its attrs
// and numAttrs parameters (the batch copies), or nil.
var batchAttrParams = func() [][2]int {
	out := make([][2]int, len(abi.Funcs))
	for fi, f := range abi.Funcs {
		a, n := -1, -1
		for i, p := range f.Params {
			switch p.Name {
			case "attrs":
				a = i
			case "numAttrs":
				n = i
			}
		}
		out[fi] = [2]int{a, n}
	}
	return out
}()

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

// flagNames names the bits of flag parameters whose values the sandbox
// accepts without a use for them, so that the trace shows what the guest
// asked for.
var flagNames = map[string]func(uint64) string{
	"aclrtCreateStreamWithConfig.flag": func(v uint64) string { return acl.StreamFlag(v).String() },
}

// enumNames print enum parameters by the header's names instead of their
// numbers, by "function.parameter" (every "kind" is an aclrtMemcpyKind).
var enumNames = map[string]func(uint64) string{
	"aclrtMalloc.policy":      mallocPolicyName,
	"aclrtGetMemInfo.attr":    func(v uint64) string { return enumName("aclrtMemAttr", memAttrNames[:], v) },
	"aclrtHostRegister.type":  hostRegisterName,
	"aclrtStreamQuery.status": func(v uint64) string { return enumName("aclrtStreamStatus", streamStatusNames[:], v) },
	"aclrtQueryEventStatus.status": func(v uint64) string {
		return enumName("aclrtEventRecordedStatus", eventStatusNames[:], v)
	},
	"aclrtGetRunMode.runMode": func(v uint64) string { return acl.RunMode(v).String() },
	// ABI v1.2 section 12: error state and resource queries.
	"aclrtGetLastError.level":         lastErrLevelName,
	"aclrtPeekAtLastError.level":      lastErrLevelName,
	"aclrtGetResInCurrentThread.type": devResLimitName,
	"aclrtGetDeviceResLimit.type":     devResLimitName,
	"aclrtSetDeviceResLimit.type":     devResLimitName,
	// ABI v1.2 section 12: event wait status.
	"aclrtQueryEventWaitStatus.status": func(v uint64) string {
		return enumName("aclrtEventWaitStatus", eventWaitStatusNames[:], v)
	},
}

// eventWaitStatusNames are aclrtEventWaitStatus's names, by value.
var eventWaitStatusNames = [...]string{"ACL_EVENT_WAIT_STATUS_COMPLETE", "ACL_EVENT_WAIT_STATUS_NOT_READY"}

func lastErrLevelName(v uint64) string { return acl.LastErrLevel(int32(uint32(v))).String() }
func devResLimitName(v uint64) string  { return acl.DevResLimitType(int32(uint32(v))).String() }

// The header's names of the enums the trace prints, in value order.
var (
	memAttrNames = [...]string{
		"ACL_DDR_MEM", "ACL_HBM_MEM", "ACL_DDR_MEM_HUGE", "ACL_DDR_MEM_NORMAL", "ACL_HBM_MEM_HUGE",
		"ACL_HBM_MEM_NORMAL", "ACL_DDR_MEM_P2P_HUGE", "ACL_DDR_MEM_P2P_NORMAL", "ACL_HBM_MEM_P2P_HUGE",
		"ACL_HBM_MEM_P2P_NORMAL", "ACL_HBM_MEM_HUGE1G", "ACL_HBM_MEM_P2P_HUGE1G", "ACL_MEM_NORMAL",
		"ACL_MEM_HUGE", "ACL_MEM_HUGE1G", "ACL_MEM_P2P_NORMAL", "ACL_MEM_P2P_HUGE", "ACL_MEM_P2P_HUGE1G",
	}
	streamStatusNames = [...]string{"ACL_STREAM_STATUS_COMPLETE", "ACL_STREAM_STATUS_NOT_READY"}
	eventStatusNames  = [...]string{"ACL_EVENT_RECORDED_STATUS_NOT_READY", "ACL_EVENT_RECORDED_STATUS_COMPLETE"}
	mallocPageNames   = [...]string{
		"ACL_MEM_MALLOC_HUGE_FIRST", "ACL_MEM_MALLOC_HUGE_ONLY", "ACL_MEM_MALLOC_NORMAL_ONLY",
		"ACL_MEM_MALLOC_HUGE_FIRST_P2P", "ACL_MEM_MALLOC_HUGE_ONLY_P2P", "ACL_MEM_MALLOC_NORMAL_ONLY_P2P",
		"ACL_MEM_MALLOC_HUGE1G_ONLY", "ACL_MEM_MALLOC_HUGE1G_ONLY_P2P",
	}
)

// enumName is names[v], or "typ(v)" for a value the header does not name
// (as acl's String methods write them).
func enumName(typ string, names []string, v uint64) string {
	if v < uint64(len(names)) {
		return names[v]
	}
	if typ == "aclrtStreamStatus" && v == uint64(acl.StreamStatusReserved) {
		return "ACL_STREAM_STATUS_RESERVED"
	}
	return typ + "(" + strconv.FormatUint(v, 10) + ")"
}

// mallocPolicyName names an aclrtMemMallocPolicy: its page policy (the
// low byte), then its flag bits, joined by "|"; unknown bits in hex.
func mallocPolicyName(v uint64) string {
	parts := []string{enumName("aclrtMemMallocPolicy", mallocPageNames[:], v&0xff)}
	for _, f := range []struct {
		bit  acl.MemMallocPolicy
		name string
	}{{acl.MemTypeLowBandWidth, "ACL_MEM_TYPE_LOW_BAND_WIDTH"}, {acl.MemTypeHighBandWidth, "ACL_MEM_TYPE_HIGH_BAND_WIDTH"}, {acl.MemAccessUserSpaceReadonly, "ACL_MEM_ACCESS_USER_SPACE_READONLY"}} {
		if v&uint64(f.bit) != 0 {
			parts = append(parts, f.name)
			v &^= uint64(f.bit)
		}
	}
	if rest := v &^ 0xff; rest != 0 {
		parts = append(parts, "0x"+strconv.FormatUint(rest, 16))
	}
	return strings.Join(parts, "|")
}

// hostRegisterName names an aclrtHostRegisterType: MAPPED for 0, else its
// flags joined by "|"; unknown bits in hex.
func hostRegisterName(v uint64) string {
	if v == 0 {
		return "ACL_HOST_REGISTER_MAPPED"
	}
	var parts []string
	for _, f := range []struct {
		bit  acl.HostRegisterType
		name string
	}{{acl.HostRegisterIOMemory, "ACL_HOST_REGISTER_IOMEMORY"}, {acl.HostRegisterReadOnly, "ACL_HOST_REGISTER_READONLY"}} {
		if v&uint64(f.bit) != 0 {
			parts = append(parts, f.name)
			v &^= uint64(f.bit)
		}
	}
	if v != 0 {
		parts = append(parts, "0x"+strconv.FormatUint(v, 16))
	}
	return strings.Join(parts, "|")
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
		key := r.Func.Name + "." + p.Name
		enum := enumNames[key]
		if enum == nil && p.Name == "kind" && p.Type == abi.I32 && r.Func.Index() >= 0 {
			enum = func(v uint64) string { return acl.MemcpyKind(int32(uint32(v))).String() }
		}
		switch {
		case enum != nil && p.Type != abi.Gptr:
			b.WriteString(enum(v))
		case p.Type == abi.Addr, p.Type == abi.Gptr:
			b.WriteString("0x" + strconv.FormatUint(v, 16))
		case p.Type == abi.I32:
			b.WriteString(strconv.FormatInt(int64(int32(uint32(v))), 10))
		default:
			b.WriteString(strconv.FormatUint(v, 10))
		}
		if name, ok := flagNames[key]; ok {
			b.WriteString(" (" + name(v) + ")")
		}
		for _, o := range r.Outs {
			if o.Param == i {
				b.WriteString(" -> " + r.outString(i, key, o.Value))
			}
		}
		if p.Name == "attrs" && len(r.Attrs) > 0 {
			r.writeAttrs(&b)
		}
	}
	b.WriteString(") = ")
	b.WriteString(strconv.FormatInt(int64(r.Result), 10))
	if r.Code != acl.Success {
		b.WriteString(" " + r.Code.Name() + ": " + r.Msg)
	} else if r.Msg != "" {
		b.WriteString(" (" + r.Msg + ")")
	}
	return b.String()
}

// outString formats the value written to out-parameter i (key is its
// "function.parameter").
func (r CallRecord) outString(i int, key string, v uint64) string {
	spec := outSpecs[key]
	switch spec.kind {
	case outI32:
		return strconv.FormatInt(int64(int32(uint32(v))), 10)
	case outF32:
		return strconv.FormatFloat(float64(math.Float32frombits(uint32(v))), 'g', -1, 32)
	case outStatus:
		if name := enumNames[key]; name != nil {
			return name(v)
		}
	case outElem:
		if r.Func.Params[i].Elem == abi.Addr {
			return "0x" + strconv.FormatUint(v, 16)
		}
	}
	return strconv.FormatUint(v, 10)
}

// writeAttrs writes the batch attributes as the C structs name their
// fields: [{dstLoc={id=0, type=ACL_MEM_LOCATION_TYPE_DEVICE}, srcLoc={...}}, ...].
func (r CallRecord) writeAttrs(b *strings.Builder) {
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
	// numAttrs is the parameter after attrsIndexes: more than shown?
	for i, p := range r.Func.Params {
		if p.Name == "numAttrs" && r.Args[i] > uint64(len(r.Attrs)) {
			b.WriteString(", ...")
		}
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
