package gen

import (
	"fmt"
	"strings"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/kernels/basic"
	"github.com/aclwasm/aclwasm/host/kernels/cannexamples"
)

// The launchers of the kernel sets the CLI links (aclwasm run --kernels
// SET; ABI section 13.3) in the Rust, Go and AssemblyScript SDKs: for each
// kernel, an import from "env" named as the kernel, with the wire types
// of its declaration in the wide profile (blockDim and the stream, each
// buffer an 8-byte address, each scalar by its type, an i32 status), and
// a function of the kernel's name that launches it by that import and
// returns the native code as each SDK's errors do. The host binds the
// import when it loads the module, to the granted kernel of that name.

// kernelSet is one set of kernels, as the CLI registers it.
type kernelSet struct {
	name    string // the set's name (--kernels)
	ident   string // its name as an identifier: basic, cannexamples
	kernels []host.Kernel
}

// kernelSets returns the CLI's sets.
func kernelSets() []kernelSet {
	return []kernelSet{
		{basic.Set, "basic", basic.Kernels()},
		{cannexamples.Set, "cannexamples", cannexamples.Kernels()},
	}
}

// kernelType is a kernel parameter's type in one SDK: rust, goWire (the
// wasmimport's), goAPI (the wrapper's) or as, from its declaration.
func kernelType(k host.Kernel, p host.KernelParam) (rust, goWire, goAPI, as string, err error) {
	if p.Access != 0 {
		return "Addr", "uint64", "acl.Ptr", "u64", nil
	}
	switch p.Type {
	case acl.DTInt8, acl.DTInt16, acl.DTInt32:
		rs := map[acl.DataType]string{acl.DTInt8: "i8", acl.DTInt16: "i16", acl.DTInt32: "i32"}[p.Type]
		return rs, "int32", "int32", "i32", nil
	case acl.DTUint8, acl.DTUint16, acl.DTUint32, acl.DTFloat16, acl.DTBFloat16:
		rs := map[acl.DataType]string{acl.DTUint8: "u8", acl.DTUint16: "u16", acl.DTUint32: "u32", acl.DTFloat16: "Float16", acl.DTBFloat16: "u16"}[p.Type]
		return rs, "uint32", "uint32", "u32", nil
	case acl.DTBool:
		return "bool", "uint32", "uint32", "u32", nil
	case acl.DTInt64:
		return "i64", "int64", "int64", "i64", nil
	case acl.DTUint64:
		return "u64", "uint64", "uint64", "u64", nil
	case acl.DTFloat:
		return "f32", "float32", "float32", "f32", nil
	case acl.DTDouble:
		return "f64", "float64", "float64", "f64", nil
	}
	return "", "", "", "", fmt.Errorf("gen: kernel %s parameter %s: type %v has no SDK type (kernels.go)", k.Name, p.Name, p.Type)
}

// kernelDoc describes a kernel's parameters for the doc comments:
// "dst: ACL_FLOAT buffer, write, n elements; n: ACL_UINT32".
func kernelDoc(k host.Kernel) string {
	var ps []string
	for _, p := range k.Params {
		if p.Access != 0 {
			ps = append(ps, fmt.Sprintf("%s: %v buffer, %v, %s elements", p.Name, p.Type, p.Access, p.Extent))
		} else {
			ps = append(ps, fmt.Sprintf("%s: %v", p.Name, p.Type))
		}
	}
	if len(ps) == 0 {
		return "Launches " + k.Name + " (no parameters beyond blockDim and the stream)."
	}
	return "Launches " + k.Name + " (" + strings.Join(ps, "; ") + ")."
}

// goExported is a kernel's name as an exported Go identifier: WriteDo,
// HelloWorld for hello_world.
func goExported(name string) string {
	var b strings.Builder
	up := true
	for _, r := range name {
		if r == '_' {
			up = true
			continue
		}
		if up {
			b.WriteString(strings.ToUpper(string(r)))
			up = false
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// genKernels writes the launchers of every SDK.
func genKernels(out map[string][]byte) error {
	var rs, ts buf
	rs.l(header("//"), "",
		"//! Launchers of the kernel sets the CLI links (`aclwasm run --kernels SET`),",
		"//! one module per set, declared with [`kernel!`](crate::kernel) from the",
		"//! kernels' declarations: each launches the kernel of its name, which the",
		"//! plugin's policy must grant (the host refuses a module that imports the",
		"//! launcher of a kernel it does not grant). A launcher that is never called",
		"//! is not imported.", "")
	ts.l("// "+header("")[1:], "",
		"// Launchers of the kernel sets the CLI links (aclwasm run --kernels SET), one",
		"// namespace per set: each launches the kernel of its name, which the",
		"// plugin's policy must grant (the host refuses a module that imports the",
		"// launcher of a kernel it does not grant), and returns the native code;",
		"// lastError() names the kernel that failed. A launcher that is never called",
		"// is not imported.", "",
		`import { Stream, launched } from "./index";`, "")
	for si, set := range kernelSets() {
		var gw, go2, goOther buf
		gw.l(header("//"), "", "//go:build wasip1", "", "package "+set.ident, "")
		goOther.l(header("//"), "", "//go:build !wasip1", "", "package "+set.ident, "",
			"// The launchers exist only in a WebAssembly guest; elsewhere each fails with",
			"// ACL_ERROR_API_NOT_SUPPORT, as the SDK's other imports do.", "",
			"const notSupported = 200001 // ACL_ERROR_API_NOT_SUPPORT", "")
		go2.l(header("//"), "", fmt.Sprintf("// Package %s launches the kernels of the set %q the CLI links", set.ident, set.name),
			fmt.Sprintf("// (aclwasm run --kernels %s): each function launches the kernel of its", set.name),
			"// name on blockDim blocks, queued on the stream, through the kernel's launcher",
			"// (an import from \"env\" the host binds when it loads the module, refusing the",
			"// module if the policy does not grant the kernel). A launcher that is never",
			"// called is not imported.",
			"package "+set.ident, "", "import \"github.com/aclwasm/aclwasm/guest-sdk/go/acl\"", "")
		rustDoc(&rs, "", fmt.Sprintf("The kernels of the set `%s`.", set.name))
		rs.p("pub mod %s {\n    #[allow(unused_imports)]\n    use crate::{Addr, Float16};\n\n    crate::kernel! {\n", set.ident)
		var tsDecls, tsFns buf
		for i, k := range set.kernels {
			var rps, gws, gps, gas, tps, tas []string
			for _, p := range k.Params {
				r, gWire, gAPI, a, err := kernelType(k, p)
				if err != nil {
					return err
				}
				n := p.Name
				rps = append(rps, rustIdent(snake(n))+": "+r)
				gws = append(gws, n+" "+gWire)
				gps = append(gps, n+" "+gAPI)
				if gAPI != gWire {
					gas = append(gas, gWire+"("+n+")")
				} else {
					gas = append(gas, n)
				}
				tps = append(tps, n+": "+a)
				tas = append(tas, n)
			}
			doc := kernelDoc(k)
			rustDoc(&rs, "        ", wrap(doc, 72)...)
			rs.p("        pub fn %s(%s);\n", k.Name, strings.Join(rps, ", "))
			if i < len(set.kernels)-1 {
				rs.l("")
			}
			imp := "launch" + goExported(k.Name)
			wire := append([]string{"blockDim uint32", "stream uint32"}, gws...)
			gw.p("//go:wasmimport env %s\nfunc %s(%s) int32\n\n", k.Name, imp, strings.Join(wire, ", "))
			under := make([]string, len(wire))
			for j, w := range wire {
				under[j] = "_ " + w[strings.Index(w, " ")+1:]
			}
			goOther.p("func %s(%s) int32 { return notSupported }\n\n", imp, strings.Join(under, ", "))
			goDoc(&go2, "", wrap(goExported(k.Name)+" "+strings.ToLower(doc[:1])+doc[1:], 76)...)
			go2.p("func %s(%s) error {\n", goExported(k.Name), strings.Join(append([]string{"blockDim uint32", "s acl.Stream"}, gps...), ", "))
			go2.p("\treturn acl.Check(%q, %s(%s))\n}\n\n", k.Name, imp, strings.Join(append([]string{"blockDim", "uint32(s)"}, gas...), ", "))

			tsImp := set.ident + "_" + k.Name + "_"
			tsDecls.p("// @ts-ignore: decorator\n@external(\"env\", %q)\ndeclare function %s(%s): i32;\n\n", k.Name, tsImp, strings.Join(append([]string{"blockDim: u32", "stream: u32"}, tps...), ", "))
			asDoc(&tsFns, "  ", wrap(doc, 72)...)
			tsFns.p("  export function %s(%s): i32 {\n", k.Name, strings.Join(append([]string{"blockDim: u32", "stream: Stream"}, tps...), ", "))
			tsFns.p("    return launched(%q, %s(%s));\n  }\n", k.Name, tsImp, strings.Join(append([]string{"blockDim", "stream.handle"}, tas...), ", "))
			if i < len(set.kernels)-1 {
				tsFns.l("")
			}
		}
		rs.l("    }", "}")
		if si < len(kernelSets())-1 {
			rs.l("")
		}
		ts.Write(tsDecls.Bytes())
		ts.p("/** The kernels of the set %q. */\nexport namespace %s {\n", set.name, set.ident)
		ts.Write(tsFns.Bytes())
		ts.l("}", "")
		dir := "go/acl/kernels/" + set.ident + "/"
		for name, b := range map[string]*buf{"launchers.go": &go2, "imports_wasip1.go": &gw, "imports_other.go": &goOther} {
			f, err := gofmt(dir+name, b.Bytes())
			if err != nil {
				return err
			}
			out[dir+name] = f
		}
	}
	out["rust/src/kernels.rs"] = rs.Bytes()
	tsb := ts.Bytes()
	out["assemblyscript/assembly/kernels.ts"] = tsb[:len(tsb)-1]
	return nil
}
