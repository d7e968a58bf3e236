package gen

import (
	"strings"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// asRawType is the AssemblyScript type of a parameter in the raw
// declarations: the wire type (usize for gptr).
func asRawType(p Param) string {
	switch p.Sem {
	case Uint32, Stream, Event, Context, Notify:
		return "u32"
	case EnumValue:
		if p.Enum.Signed {
			return "i32"
		}
		return "u32"
	case Uint64:
		return "u64"
	}
	switch p.Sem.Wire() {
	case abi.Addr, abi.Size, abi.U64:
		return "u64"
	case abi.I32:
		return "i32"
	}
	return "usize"
}

func asDoc(b *buf, indent string, lines ...string) {
	b.p("%s/**\n", indent)
	for _, l := range lines {
		if l == "" {
			b.p("%s *\n", indent)
		} else {
			b.p("%s * %s\n", indent, l)
		}
	}
	b.p("%s */\n", indent)
}

func genAS(m *model, out map[string][]byte) error {
	b, err := asBindings(m)
	if err != nil {
		return err
	}
	ops, err := asOps(m)
	if err != nil {
		return err
	}
	out["assemblyscript/assembly/bindings.ts"] = b
	out["assemblyscript/assembly/nn_ops.ts"] = ops
	out["assemblyscript/assembly/codes.ts"] = asCodes(m)
	out["assemblyscript/assembly/types.ts"] = asTypes(m)
	return nil
}

func asBindings(m *model) ([]byte, error) {
	var b buf
	b.l("// "+header("")[1:], "",
		"// The raw imports of the guest ABI with their exact wire types: addresses",
		"// and sizes are u64, handles and unsigned flags u32, other i32 values i32,",
		"// pointers into guest memory usize. Each returns the native aclError code,",
		"// except aclGetRecentErrMsg, which returns the message length in bytes.",
		"")
	for i := range m.funcs {
		f := &m.funcs[i]
		asDoc(&b, "", append(wrap(f.Doc, 76), "", "Wire: "+wireSig(f))...)
		ps := make([]string, len(f.Params))
		for j, p := range f.Params {
			n := p.Name
			if n == "type" {
				n = "type_"
			}
			ps[j] = n + ": " + asRawType(p)
		}
		b.p("// @ts-ignore: decorator\n@external(%q, %q)\nexport declare function %s(%s): i32;\n\n", abi.Module, f.Name, f.Name, strings.Join(ps, ", "))
	}
	if err := asComputeBindings(m, &b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func asCodes(m *model) []byte {
	var b buf
	b.l("// "+header("")[1:], "", "// Every native aclError value, by its native name.", "")
	b.l("/** ACL_ERROR_NONE: the old name of ACL_SUCCESS. */", "export const ACL_ERROR_NONE: i32 = 0;",
		"/** ACL_RT_SUCCESS: the runtime header's name of ACL_SUCCESS. */", "export const ACL_RT_SUCCESS: i32 = 0;")
	for _, c := range m.codes {
		b.p("export const %s: i32 = %d;\n", c.Name, c.Value)
	}
	b.l("", "/** Returns the native name of an error code, or \"ACL_ERROR_UNKNOWN\". */",
		"export function errorName(code: i32): string {", "  switch (code) {")
	for _, c := range m.codes {
		b.p("    case %d: return %q;\n", c.Value, c.Name)
	}
	b.l("  }", "  return \"ACL_ERROR_UNKNOWN\";", "}")
	return b.Bytes()
}

func asTypes(m *model) []byte {
	var b buf
	b.l("// "+header("")[1:], "", "// Native enums and struct layouts.", "")
	for i := range m.enums {
		e := &m.enums[i]
		asDoc(&b, "", strings.TrimSuffix(e.Doc, ".")+" ("+e.C+").")
		b.p("export enum %s {\n", e.Go)
		for _, mm := range e.Members {
			short := strings.TrimPrefix(mm.Name, e.prefix())
			if mm.Value >= 0x100 {
				b.p("  /** %s */\n  %s = 0x%X,\n", mm.Name, short, mm.Value)
			} else {
				b.p("  /** %s */\n  %s = %d,\n", mm.Name, short, mm.Value)
			}
		}
		b.l("}", "")
	}
	b.l("/** Size of aclrtMemLocation {u32 id; u32 type}. */")
	b.p("export const MEM_LOCATION_SIZE: i32 = %d;\n", acl.MemLocationSize)
	b.l("/** Size of aclrtMemcpyBatchAttr {aclrtMemLocation dstLoc; aclrtMemLocation srcLoc; u8 rsv[16]}. */")
	b.p("export const MEMCPY_BATCH_ATTR_SIZE: i32 = %d;\n", acl.MemcpyBatchAttrSize)
	b.l("/** Size of aclrtPtrAttributes {aclrtMemLocation location; u32 pageSize; u32 rsv[4]}. */")
	b.p("export const PTR_ATTRIBUTES_SIZE: i32 = %d;\n", acl.PtrAttributesSize)
	return b.Bytes()
}
