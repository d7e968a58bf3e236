package host

import (
	"strconv"
	"strings"

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

// flagNames names the bits of flag parameters whose values the sandbox
// accepts without a use for them, so that the trace shows what the guest
// asked for.
var flagNames = map[string]func(uint64) string{
	"aclrtCreateStreamWithConfig.flag": func(v uint64) string { return acl.StreamFlag(v).String() },
}

// String formats the call as one trace line, arguments decoded by wire
// type:
//
//	aclrtMemcpy(dst=0x10000000000, destMax=64, src=0x1000, count=64, kind=1) = 0
//	aclrtMalloc(devPtr=0x100, size=0, policy=0) = 100000 ACL_ERROR_INVALID_PARAM: aclrtMalloc: size is 0
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
		switch p.Type {
		case abi.Addr, abi.Gptr:
			b.WriteString("0x" + strconv.FormatUint(v, 16))
		case abi.I32:
			b.WriteString(strconv.FormatInt(int64(int32(uint32(v))), 10))
		default:
			b.WriteString(strconv.FormatUint(v, 10))
		}
		if name, ok := flagNames[r.Func.Name+"."+p.Name]; ok {
			b.WriteString(" (" + name(v) + ")")
		}
	}
	b.WriteString(") = ")
	b.WriteString(strconv.FormatInt(int64(r.Result), 10))
	if r.Code != acl.Success {
		b.WriteString(" " + r.Code.Name() + ": " + r.Msg)
	}
	return b.String()
}
