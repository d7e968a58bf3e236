package gen

import (
	"strings"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// goPrefix gives the prefix of an enum's Go constant names where it is
// not the enum's Go type name (EventRecordedStatusComplete); the rest is
// the member's native name without the enum's common prefix, in
// CamelCase. The names are the Go SDK's API: those that shipped stay.
var goPrefix = map[string]string{
	"aclrtMemcpyKind":       "Memcpy",
	"aclrtMemLocationType":  "MemLocation",
	"aclrtMemMallocPolicy":  "Mem",
	"aclrtMemAttr":          "",
	"aclrtHostRegisterType": "HostRegister",
	// These shipped without a prefix (ThreadLevel, CubeCore, Complete).
	"aclrtLastErrLevel":    "",
	"aclrtDevResLimitType": "",
	"aclrtEventWaitStatus": "",
}

// GoConst returns the Go constant name of an enum member: MemcpyHostToDevice,
// MemMallocHugeFirst, HBMMem. The names match package acl's.
func (e *Enum) GoConst(m Member) string {
	p, ok := goPrefix[e.C]
	if !ok {
		p = e.Go
	}
	return p + e.Short(m)
}

func goIntType(e *Enum) string {
	if e.Signed() {
		return "int32"
	}
	return "uint32"
}

// GoRawName is the raw binding's Go name: the native name without its
// "aclrt" or "acl" prefix (Memcpy, Init, GetRecentErrMsg).
func GoRawName(native string) string {
	if strings.HasPrefix(native, "aclrt") {
		return native[len("aclrt"):]
	}
	return strings.TrimPrefix(native, "acl")
}

func goRawType(p Param) string {
	switch p.Sem {
	case Uint32, Stream, Event, Context, Notify:
		return "uint32"
	case EnumValue:
		if p.Enum.Signed {
			return "int32"
		}
		return "uint32"
	case Uint64:
		return "uint64"
	}
	switch p.Sem.Wire() {
	case abi.Addr, abi.Size, abi.U64:
		return "uint64"
	case abi.I32:
		return "int32"
	}
	return "unsafe.Pointer"
}

func goDoc(b *buf, indent string, lines ...string) {
	for _, l := range lines {
		if l == "" {
			b.p("%s//\n", indent)
		} else {
			b.p("%s// %s\n", indent, l)
		}
	}
}

func genGo(m *model, out map[string][]byte) error {
	raw, err := goRaw(m)
	if err != nil {
		return err
	}
	other, err := goRawOther(m)
	if err != nil {
		return err
	}
	ops, err := goOps(m)
	if err != nil {
		return err
	}
	files := map[string][]byte{
		"go/acl/raw/raw_wasip1.go": raw,
		"go/acl/raw/raw_other.go":  other,
		"go/acl/nn/ops.go":         ops,
		"go/acl/codes.go":          goCodes(m),
		"go/acl/types.go":          goTypes(m),
	}
	for name, src := range files {
		f, err := gofmt(name, src)
		if err != nil {
			return err
		}
		out[name] = f
	}
	return nil
}

func goRaw(m *model) ([]byte, error) {
	var b buf
	b.l(header("//"), "", "//go:build wasip1", "", "package raw", "", `import "unsafe"`, "")
	for i := range m.funcs {
		f := &m.funcs[i]
		name := GoRawName(f.Name)
		doc := wrap(name+" is "+f.Name+": "+f.Doc, 76)
		goDoc(&b, "", append(doc, "", "Wire: "+wireSig(f))...)
		ps := make([]string, len(f.Params))
		for j, p := range f.Params {
			n := p.Name
			switch n {
			case "type":
				n = "typ"
			case "func":
				n = "fn"
			}
			ps[j] = n + " " + goRawType(p)
		}
		b.p("//\n//go:wasmimport %s %s\n//go:noescape\nfunc %s(%s) int32\n\n", abi.Module, f.Name, name, strings.Join(ps, ", "))
	}
	if err := goComputeRaw(m, &b, true); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// goRawOther declares every import of goRaw for the other GOOSes, with
// the same signature, failing: code using the SDK builds, vets and
// documents itself everywhere.
func goRawOther(m *model) ([]byte, error) {
	var b buf
	b.l(header("//"), "", "//go:build !wasip1", "", "package raw", "", `import "unsafe"`, "",
		"// The imports exist only in a WebAssembly guest (GOOS=wasip1 GOARCH=wasm).",
		"// On any other GOOS every function is declared with the same signature, so",
		"// that programs using the SDK build, vet and document themselves (go doc),",
		"// and every call fails: 200001 (ACL_ERROR_API_NOT_SUPPORT), with",
		"// GetRecentErrMsg saying why.", "",
		"// notSupported is what every call returns outside a wasip1 guest.",
		"const notSupported = 200001 // ACL_ERROR_API_NOT_SUPPORT", "",
		"// NotWasip1 is the message GetRecentErrMsg gives outside a wasip1 guest.",
		`const NotWasip1 = "aclwasm guest SDK: the acl imports exist only in a WebAssembly guest run by aclwasm (GOOS=wasip1 GOARCH=wasm); this program was built for another GOOS"`, "")
	for i := range m.funcs {
		f := &m.funcs[i]
		name := GoRawName(f.Name)
		ps := make([]string, len(f.Params))
		for j, p := range f.Params {
			ps[j] = "_ " + goRawType(p)
		}
		if f.Name == SocNameFunc {
			b.p("// %s has no SoC name outside a wasip1 guest: it returns 0.\n", name)
			b.p("func %s(%s) int32 { return 0 }\n\n", name, strings.Join(ps, ", "))
			continue
		}
		if f.ReturnsLength() {
			buf, n := f.Params[0].Name, f.Params[1].Name
			b.p("// %s writes NotWasip1 (up to %s-1 bytes and a NUL) to %s\n// and returns its length, as the import does with the session's message.\n", name, n, buf)
			b.p("func %s(%s %s, %s %s) int32 {\n", name, buf, goRawType(f.Params[0]), n, goRawType(f.Params[1]))
			b.p("\tif %s != nil && %s > 0 {\n\t\tb := unsafe.Slice((*byte)(%s), %s)\n\t\tb[copy(b[:%s-1], NotWasip1)] = 0\n\t}\n\treturn int32(len(NotWasip1))\n}\n\n", buf, n, buf, n, n)
			continue
		}
		b.p("// %s fails outside a wasip1 guest (see NotWasip1).\n", name)
		b.p("func %s(%s) int32 { return notSupported }\n\n", name, strings.Join(ps, ", "))
	}
	if err := goComputeRaw(m, &b, false); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func goCodes(m *model) []byte {
	var b buf
	b.l(header("//"), "", "package acl", "")
	b.l("// The native aclError codes, named in Go style (ACL_ERROR_RT_PARAM_INVALID is",
		"// ErrRTParamInvalid; a trailing _ERROR is dropped). Code.Name returns the",
		"// native name.", "const (")
	for _, c := range m.codes {
		b.p("\t%s Code = %d // %s\n", c.GoName(), c.Value, c.Name)
	}
	b.l(")", "")
	b.l("// Name returns the native name of the code, such as",
		`// "ACL_ERROR_RT_PARAM_INVALID", or "ACL_ERROR_UNKNOWN".`,
		"func (c Code) Name() string {", "\tswitch c {")
	for _, c := range m.codes {
		b.p("\tcase %s:\n\t\treturn %q\n", c.GoName(), c.Name)
	}
	b.l("\t}", `	return "ACL_ERROR_UNKNOWN"`, "}")
	return b.Bytes()
}

func goTypes(m *model) []byte {
	var b buf
	b.l(header("//"), "", "package acl", "", `import (`, `	"strconv"`, `	"structs"`, `)`, "")
	for i := range m.enums {
		e := &m.enums[i]
		it := goIntType(e)
		goDoc(&b, "", wrap(e.Go+" is the native "+e.C+". "+e.Doc, 76)...)
		b.p("type %s %s\n\n", e.Go, it)
		b.p("// The native %s values.\nconst (\n", e.C)
		for _, mm := range e.Members {
			b.p("\t%s %s = %d // %s\n", e.GoConst(mm), e.Go, mm.Value, mm.Name)
		}
		b.l(")", "")
		b.p("// String returns the native name, or %q followed by the number in\n// parentheses for other values.\n", e.C)
		b.p("func (v %s) String() string {\n\tswitch v {\n", e.Go)
		for _, mm := range e.Members {
			b.p("\tcase %s:\n\t\treturn %q\n", e.GoConst(mm), mm.Name)
		}
		if it == "int32" {
			b.p("\t}\n\treturn \"%s(\" + strconv.FormatInt(int64(v), 10) + \")\"\n}\n\n", e.C)
		} else {
			b.p("\t}\n\treturn \"%s(\" + strconv.FormatUint(uint64(v), 10) + \")\"\n}\n\n", e.C)
		}
	}
	b.l("// MemLocation is aclrtMemLocation: where memory lives, a device (or NUMA) id",
		"// and a location type. 8 bytes, the native layout.",
		"type MemLocation struct {",
		"\t_    structs.HostLayout",
		"\tID   uint32",
		"\tType MemLocationType",
		"}",
		"",
		"// MemcpyBatchAttr is aclrtMemcpyBatchAttr: where the destination and source",
		"// of the batch entries it applies to must be. Rsv must be all zero. 32 bytes.",
		"type MemcpyBatchAttr struct {",
		"\t_      structs.HostLayout",
		"\tDstLoc MemLocation",
		"\tSrcLoc MemLocation",
		"\tRsv    [16]byte",
		"}",
		"",
		"// PtrAttributes is aclrtPtrAttributes: where an address lives and its page",
		"// size. 28 bytes.",
		"type PtrAttributes struct {",
		"\t_        structs.HostLayout",
		"\tLocation MemLocation",
		"\tPageSize uint32",
		"\tRsv      [4]uint32",
		"}",
		"")
	b.p("// Native struct sizes; the package's tests check the layouts against them.\nconst (\n")
	b.p("\tmemLocationSize = %d\n\tmemcpyBatchAttrSize = %d\n\tptrAttributesSize = %d\n)\n", acl.MemLocationSize, acl.MemcpyBatchAttrSize, acl.PtrAttributesSize)
	return b.Bytes()
}
