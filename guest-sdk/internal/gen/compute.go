package gen

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl/aclnn"
)

// The compute functions of ABI section 13 in the Rust, Go and
// AssemblyScript SDKs, which keep the wide profile: the raw imports of
// the operator library's objects, its operators and the models (the
// table's Tensor, Operator and Model groups, with their wire types), and
// one idiomatic function per row of aclnn.Ops that runs the operator's
// two phases (workspace size and executor, a workspace of that size, the
// launch on a stream) behind one call. A new operator row reaches every
// SDK through these generators, with no hand edit.

// cw is how a compute parameter travels, in the SDKs' terms.
type cw int

const (
	cwU64      cw = iota + 1 // addr, size, uint64_t
	cwI64                    // int64_t
	cwI32                    // enums, int8_t, bool, int32_t
	cwU32                    // uint32_t (model ids)
	cwHandle                 // a handle (u32)
	cwInI64s                 // gptr: int64_t array read by the host
	cwInU32s                 // gptr: handle array read by the host
	cwInF32s                 // gptr: float array read by the host
	cwInBytes                // gptr: bytes read by the host (bools, a scalar's value, a C string, an aclDataBuffer)
	cwOutU64                 // gptr: 8 bytes written by the host (uint64_t, a wide size_t)
	cwOutU32                 // gptr: 4 bytes written by the host (a handle, a uint32_t)
	cwOutBytes               // gptr: bytes written by the host (aclmdlIODims, a name)
)

// computeWire classifies a compute parameter, or fails for one the SDKs
// cannot pass.
func computeWire(f *abi.Func, q abi.Param) (cw, error) {
	switch q.Type {
	case abi.Addr, abi.Size:
		return cwU64, nil
	case abi.U64:
		if q.Native == "int64_t" {
			return cwI64, nil
		}
		return cwU64, nil
	case abi.I32:
		if q.Kind == abi.Uint {
			return cwU32, nil
		}
		return cwI32, nil
	case abi.Handle:
		return cwHandle, nil
	case abi.Gptr:
		if q.Dir == abi.In {
			switch {
			case q.Elem == abi.U64:
				return cwInI64s, nil
			case q.Kind.IsHandle():
				return cwInU32s, nil
			case q.Kind == abi.Float:
				return cwInF32s, nil
			case q.Kind == abi.Bool || q.Kind == abi.DataValue || q.Kind == abi.CString || q.Kind == abi.DataBuffer || q.Kind == abi.Bytes:
				return cwInBytes, nil
			}
			break
		}
		switch {
		case q.Elem == abi.U64 || q.Elem == abi.Size:
			return cwOutU64, nil
		case q.Kind.IsHandle() || q.Kind == abi.Uint:
			return cwOutU32, nil
		case q.Kind == abi.IODims || q.Kind == abi.Bytes:
			return cwOutBytes, nil
		}
	}
	return 0, fmt.Errorf("gen: %s parameter %s (%s, kind %v) has no wire form in the Rust, Go and AssemblyScript SDKs (compute.go)", f.Name, q.Name, q.Type, q.Kind)
}

// computeFuncs returns the compute functions in table order: the
// operator library's, then the models'.
func computeFuncs(m *model) []*abi.Func { return append(append([]*abi.Func{}, m.nn...), m.mdl...) }

// opFuncs returns the two functions of operator o in the table.
func opFuncs(m *model, o *aclnn.Op) (ws, run *abi.Func, err error) {
	for _, f := range m.nn {
		if f.Group == abi.Operator && f.Op == o.Name {
			if f.Launch {
				run = f
			} else {
				ws = f
			}
		}
	}
	if ws == nil || run == nil {
		return nil, nil, fmt.Errorf("gen: operator %s lacks its functions in the ABI table", o.Name)
	}
	return ws, run, nil
}

// snake turns a CamelCase name into snake_case: ReduceSum is reduce_sum,
// cubeMathType cube_math_type.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// lowerFirst makes the first letter lower case: ReduceSum is reduceSum.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// opDoc is an operator's doc comment lines.
func opDoc(o *aclnn.Op, lang string) []string {
	lines := append(wrap(o.Name+": "+o.Doc, 76), "")
	return append(lines, wrap("aclnn"+o.Name+"GetWorkspaceSize, then a workspace of the size it asks for "+
		"(freed once the operator ran), then aclnn"+o.Name+" queued on the stream; "+lang, 76)...)
}

// ---- Rust ----

func rustComputeType(c cw) string {
	return [...]string{cwU64: "u64", cwI64: "i64", cwI32: "i32", cwU32: "u32", cwHandle: "u32",
		cwInI64s: "*const i64", cwInU32s: "*const u32", cwInF32s: "*const f32", cwInBytes: "*const u8",
		cwOutU64: "*mut u64", cwOutU32: "*mut u32", cwOutBytes: "*mut u8"}[c]
}

// rustComputeSys writes the raw compute imports into sys.rs.
func rustComputeSys(m *model, b *buf) error {
	b.l("", "// The compute imports of ABI section 13: the operator library's objects and",
		"// operators (two per operator: `aclnnXxxGetWorkspaceSize`, `aclnnXxx`) and the",
		"// models. Object pointers are handles (`u32`, 0 for NULL); functions that",
		"// natively return a pointer or a count return it in place of a code.",
		`#[link(wasm_import_module = "`+abi.Module+`")]`,
		`extern "C" {`)
	fs := computeFuncs(m)
	for i, f := range fs {
		ps := make([]string, len(f.Params))
		for j, q := range f.Params {
			c, err := computeWire(f, q)
			if err != nil {
				return err
			}
			ps[j] = rustIdent(snake(q.Name)) + ": " + rustComputeType(c)
		}
		ret := "i32"
		if f.Result.IsHandle() || f.Result == abi.Uint || f.Result == abi.DataBuffer {
			ret = "u32"
		}
		rustDoc(b, "    ", append(wrap(f.Doc, 80), "", "Wire: `"+f.Name+f.Signature()[:strings.Index(f.Signature(), ")")+1]+" -> i32`")...)
		b.p("    #[link_name = \"%s\"]\n", f.Name)
		b.p("    pub fn %s(%s) -> %s;\n", f.Name, strings.Join(ps, ", "), ret)
		if i < len(fs)-1 {
			b.l("")
		}
	}
	b.l("}")
	return nil
}

// rustOps writes rust/src/nn/ops.rs.
func rustOps(m *model) ([]byte, error) {
	var b buf
	b.l(header("//"), "",
		"//! One function per operator of the host's operator library (ABI section",
		"//! 13.2), generated from its table. Each checks its arguments with",
		"//! `aclnnXxxGetWorkspaceSize`, allocates the workspace it asks for, queues",
		"//! `aclnnXxx` on the stream, and returns an [`crate::AclError`] with the native",
		"//! code and the host's message when a phase fails. The raw two-phase imports",
		"//! are in [`crate::sys`].",
		"",
		"#![allow(clippy::too_many_arguments)]",
		"")
	// Import what the operators use.
	used := map[string]bool{"launch": true}
	dtype := false
	for _, o := range aclnn.Ops {
		for _, q := range o.Params {
			if t, _, err := rustOpParam(o, q, ""); err == nil {
				t = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(t, "Option<"), "&"), ">")
				if t == "DataType" {
					dtype = true
				} else if t[0] >= 'A' && t[0] <= 'Z' {
					used[strings.TrimPrefix(t, "&")] = true
				}
			}
		}
	}
	var names []string
	for n := range used {
		names = append(names, n)
	}
	sort.Strings(names)
	b.p("use super::{%s};\n", strings.Join(names, ", "))
	b.l("use crate::error::{check, Result};")
	if dtype {
		b.l("use crate::fp16::DataType;")
	}
	b.l("use crate::stream::Stream;", "use crate::sys;", "")
	for _, o := range aclnn.Ops {
		ws, run, err := opFuncs(m, o)
		if err != nil {
			return nil, err
		}
		var ps, args []string
		for _, q := range o.Params {
			n := rustIdent(snake(q.Name))
			if q.Name == "self" {
				n = "self_"
			}
			t, a, err := rustOpParam(o, q, n)
			if err != nil {
				return nil, err
			}
			ps = append(ps, n+": "+t)
			args = append(args, a)
		}
		rustDoc(&b, "", opDoc(o, "see [`crate::nn`].")...)
		b.p("pub fn %s(%s, stream: &Stream) -> Result<()> {\n", snake(o.Name), strings.Join(ps, ", "))
		b.l("    let mut size = 0u64;", "    let mut executor = 0u32;")
		b.p("    check(%q, unsafe { sys::%s(%s, &mut size, &mut executor) })?;\n", ws.Name, ws.Name, strings.Join(args, ", "))
		b.p("    launch(%q, size, executor, stream, |w, n, e, s| unsafe { sys::%s(w, n, e, s) })\n}\n\n", run.Name, run.Name)
	}
	out := b.Bytes()
	return out[:len(out)-1], nil
}

// rustOpParam is an operator parameter's Rust type and the wire argument
// made from it.
func rustOpParam(o *aclnn.Op, q aclnn.Param, n string) (string, string, error) {
	obj := map[aclnn.Kind]string{aclnn.Tensor: "Tensor", aclnn.TensorList: "TensorList", aclnn.Scalar: "Scalar",
		aclnn.IntArray: "IntArray", aclnn.FloatArray: "FloatArray", aclnn.BoolArray: "BoolArray"}
	if t, ok := obj[q.Kind]; ok {
		if q.Optional {
			return "Option<&" + t + ">", n + ".map_or(0, |o| o.handle())", nil
		}
		return "&" + t, n + ".handle()", nil
	}
	switch q.Kind {
	case aclnn.Int64:
		return "i64", n, nil
	case aclnn.Int8:
		return "i8", n + " as i32", nil
	case aclnn.Bool:
		return "bool", n + " as i32", nil
	case aclnn.DType:
		return "DataType", n + ".0", nil
	}
	return "", "", fmt.Errorf("gen: operator %s parameter %s: kind %v has no Rust type (compute.go)", o.Name, q.Name, q.Kind)
}

// ---- Go ----

func goComputeType(c cw) string {
	switch c {
	case cwU64:
		return "uint64"
	case cwI64:
		return "int64"
	case cwI32:
		return "int32"
	case cwU32, cwHandle:
		return "uint32"
	}
	return "unsafe.Pointer"
}

// GoComputeName is the raw binding's Go name of a compute function:
// aclnnAdd is NNAdd, aclmdlExecute MdlExecute, aclCreateTensor
// CreateTensor.
func GoComputeName(native string) string {
	switch {
	case strings.HasPrefix(native, "aclnn"):
		return "NN" + native[len("aclnn"):]
	case strings.HasPrefix(native, "aclmdl"):
		return "Mdl" + native[len("aclmdl"):]
	}
	return strings.TrimPrefix(native, "acl")
}

// goComputeRaw writes the raw compute imports (wasip1) or their failing
// stand-ins (other GOOSes).
func goComputeRaw(m *model, b *buf, wasip1 bool) error {
	for _, f := range computeFuncs(m) {
		name := GoComputeName(f.Name)
		ps := make([]string, len(f.Params))
		for j, q := range f.Params {
			c, err := computeWire(f, q)
			if err != nil {
				return err
			}
			n := q.Name
			if n == "type" {
				n = "typ"
			}
			if !wasip1 {
				n = "_"
			}
			ps[j] = n + " " + goComputeType(c)
		}
		ret := "int32"
		if f.Result.IsHandle() || f.Result == abi.Uint || f.Result == abi.DataBuffer {
			ret = "uint32"
		}
		if wasip1 {
			goDoc(b, "", append(wrap(name+" is "+f.Name+": "+f.Doc, 76), "", "Wire: "+f.Name+f.Signature())...)
			b.p("//\n//go:wasmimport %s %s\n//go:noescape\nfunc %s(%s) %s\n\n", abi.Module, f.Name, name, strings.Join(ps, ", "), ret)
			continue
		}
		if ret == "uint32" {
			b.p("// %s returns 0 (NULL) outside a wasip1 guest.\n", name)
			b.p("func %s(%s) uint32 { return 0 }\n\n", name, strings.Join(ps, ", "))
			continue
		}
		b.p("// %s fails outside a wasip1 guest (see NotWasip1).\n", name)
		b.p("func %s(%s) int32 { return notSupported }\n\n", name, strings.Join(ps, ", "))
	}
	return nil
}

// goOps writes go/acl/nn/ops.go.
func goOps(m *model) ([]byte, error) {
	var b buf
	b.l(header("//"), "", "package nn", "", "import (", `	"unsafe"`, "",
		`	"github.com/aclwasm/aclwasm/guest-sdk/go/acl"`,
		`	"github.com/aclwasm/aclwasm/guest-sdk/go/acl/raw"`, ")", "")
	for _, o := range aclnn.Ops {
		ws, run, err := opFuncs(m, o)
		if err != nil {
			return nil, err
		}
		var ps, args []string
		for _, q := range o.Params {
			t, a, err := goOpParam(o, q)
			if err != nil {
				return nil, err
			}
			ps = append(ps, q.Name+" "+t)
			args = append(args, a)
		}
		doc := opDoc(o, "see the package documentation.")
		doc[0] = o.Name + " runs aclnn" + o.Name + ": " + strings.TrimPrefix(doc[0], o.Name+": ")
		goDoc(&b, "", append(wrap(strings.Join(doc[:slices.Index(doc, "")], " "), 76), doc[slices.Index(doc, ""):]...)...)
		b.p("func %s(%s, s acl.Stream) error {\n", o.Name, strings.Join(ps, ", "))
		b.l("\tvar size uint64", "\tvar executor uint32")
		b.p("\tif err := acl.Check(%q, raw.%s(%s, unsafe.Pointer(&size), unsafe.Pointer(&executor))); err != nil {\n\t\treturn err\n\t}\n",
			ws.Name, GoComputeName(ws.Name), strings.Join(args, ", "))
		b.p("\treturn launch(%q, size, executor, s, func(w, n uint64, e, st uint32) int32 { return raw.%s(w, n, e, st) })\n}\n\n", run.Name, GoComputeName(run.Name))
	}
	return b.Bytes(), nil
}

// goOpParam is an operator parameter's Go type and the wire argument
// made from it.
func goOpParam(o *aclnn.Op, q aclnn.Param) (string, string, error) {
	obj := map[aclnn.Kind]string{aclnn.Tensor: "*Tensor", aclnn.TensorList: "*TensorList", aclnn.Scalar: "*Scalar",
		aclnn.IntArray: "*IntArray", aclnn.FloatArray: "*FloatArray", aclnn.BoolArray: "*BoolArray"}
	if t, ok := obj[q.Kind]; ok {
		return t, q.Name + ".handle()", nil // a nil object is NULL
	}
	switch q.Kind {
	case aclnn.Int64:
		return "int64", q.Name, nil
	case aclnn.Int8:
		return "int8", "int32(" + q.Name + ")", nil
	case aclnn.Bool:
		return "bool", "boolWire(" + q.Name + ")", nil
	case aclnn.DType:
		return "acl.DataType", "int32(" + q.Name + ")", nil
	}
	return "", "", fmt.Errorf("gen: operator %s parameter %s: kind %v has no Go type (compute.go)", o.Name, q.Name, q.Kind)
}

// ---- AssemblyScript ----

func asComputeType(c cw) string {
	switch c {
	case cwU64:
		return "u64"
	case cwI64:
		return "i64"
	case cwI32:
		return "i32"
	case cwU32, cwHandle:
		return "u32"
	}
	return "usize"
}

// asComputeBindings writes the raw compute imports into bindings.ts.
func asComputeBindings(m *model, b *buf) error {
	for _, f := range computeFuncs(m) {
		ps := make([]string, len(f.Params))
		for j, q := range f.Params {
			c, err := computeWire(f, q)
			if err != nil {
				return err
			}
			ps[j] = q.Name + ": " + asComputeType(c)
		}
		ret := "i32"
		if f.Result.IsHandle() || f.Result == abi.Uint || f.Result == abi.DataBuffer {
			ret = "u32"
		}
		asDoc(b, "", append(wrap(f.Doc, 76), "", "Wire: "+f.Name+f.Signature())...)
		b.p("// @ts-ignore: decorator\n@external(%q, %q)\nexport declare function %s(%s): %s;\n\n", abi.Module, f.Name, f.Name, strings.Join(ps, ", "), ret)
	}
	return nil
}

// asOps writes assemblyscript/assembly/nn_ops.ts: the operators in the
// namespace nn.
func asOps(m *model) ([]byte, error) {
	var b buf
	b.l("// "+header("")[1:], "",
		"// One function per operator of the host's operator library (ABI section",
		"// 13.2), generated from its table, in the namespace nn (nn.add, nn.reduceSum).",
		"// Each runs aclnnXxxGetWorkspaceSize, allocates the workspace it asks for and",
		"// queues aclnnXxx on the stream; it returns the native code (0 on success),",
		"// and lastError() then names the function that failed, with the host's message.",
		"// The raw two-phase imports are in bindings.ts.", "")
	var imps []string
	for _, o := range aclnn.Ops {
		ws, run, err := opFuncs(m, o)
		if err != nil {
			return nil, err
		}
		imps = append(imps, ws.Name, run.Name)
	}
	b.p("import {\n  %s,\n} from \"./bindings\";\n", strings.Join(imps, ", "))
	b.l(`import { DataType } from "./fp16";`,
		`import { Stream, Tensor, TensorList, Scalar, IntArray, FloatArray, BoolArray, nnCheck, nnLaunch, nnOut64, nnOut32 } from "./index";`, "",
		"export namespace nn {")
	for i, o := range aclnn.Ops {
		ws, run, _ := opFuncs(m, o)
		var ps, args []string
		for _, q := range o.Params {
			t, a, err := asOpParam(o, q)
			if err != nil {
				return nil, err
			}
			ps = append(ps, q.Name+": "+t)
			args = append(args, a)
		}
		asDoc(&b, "  ", opDoc(o, "returns the native code.")...)
		b.p("  export function %s(%s, stream: Stream): i32 {\n", lowerFirst(o.Name), strings.Join(ps, ", "))
		b.p("    const r = nnCheck(%q, %s(%s, nnOut64, nnOut32));\n", ws.Name, ws.Name, strings.Join(args, ", "))
		b.l("    if (r != 0) return r;")
		b.p("    return nnLaunch(%q, load<u64>(nnOut64), load<u32>(nnOut32), stream, (w: u64, n: u64, e: u32, s: u32): i32 => %s(w, n, e, s));\n  }\n", run.Name, run.Name)
		if i < len(aclnn.Ops)-1 {
			b.l("")
		}
	}
	b.l("}")
	return b.Bytes(), nil
}

// asOpParam is an operator parameter's AssemblyScript type and the wire
// argument made from it.
func asOpParam(o *aclnn.Op, q aclnn.Param) (string, string, error) {
	obj := map[aclnn.Kind]string{aclnn.Tensor: "Tensor", aclnn.TensorList: "TensorList", aclnn.Scalar: "Scalar",
		aclnn.IntArray: "IntArray", aclnn.FloatArray: "FloatArray", aclnn.BoolArray: "BoolArray"}
	if t, ok := obj[q.Kind]; ok {
		if q.Optional {
			return t + " | null", "(" + q.Name + " == null ? 0 : (<" + t + ">" + q.Name + ").handle)", nil
		}
		return t, q.Name + ".handle", nil
	}
	switch q.Kind {
	case aclnn.Int64:
		return "i64", q.Name, nil
	case aclnn.Int8:
		return "i8", "<i32>" + q.Name, nil
	case aclnn.Bool:
		return "bool", "<i32>" + q.Name, nil
	case aclnn.DType:
		return "DataType", "<i32>" + q.Name, nil
	}
	return "", "", fmt.Errorf("gen: operator %s parameter %s: kind %v has no AssemblyScript type (compute.go)", o.Name, q.Name, q.Kind)
}
