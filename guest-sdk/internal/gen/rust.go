package gen

import (
	"strings"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// rustRepr is the integer type behind an enum's newtype: u32 where the
// native value lives in a uint32_t struct field or out-parameter.
func rustRepr(signed bool) string {
	if signed {
		return "i32"
	}
	return "u32"
}

// rustRawType is the Rust type of a parameter in the raw extern block:
// the wire type, with typed pointers for gptr.
func rustRawType(p Param) string {
	switch p.Sem {
	case EnumValue:
		return rustRepr(p.Enum.Signed)
	case OutEnum:
		return "*mut " + rustRepr(p.Enum.Signed)
	}
	return [...]string{
		Ptr: "u64", Size: "u64", Int32: "i32", Uint32: "u32",
		Stream: "u32", Event: "u32",
		OutPtr: "*mut u64", OutSize: "*mut u64", OutInt32: "*mut i32", OutUint32: "*mut u32",
		OutFloat: "*mut f32", OutStream: "*mut u32", OutEvent: "*mut u32",
		OutPtrAttributes: "*mut PtrAttributes", PtrArray: "*const u64", SizeArray: "*const u64",
		AttrArray: "*const MemcpyBatchAttr", CString: "*const u8", Reserved: "*mut c_void", OutBytes: "*mut u8",
		Uint64: "u64", OutUint64: "*mut u64",
		Context: "u32", OutContext: "*mut u32",
		HostFn: "Option<unsafe extern \"C\" fn(*mut c_void)>", UserData: "*mut c_void",
		OutErrorInfo: "*mut u8", InStreamConfig: "*const u8", OutUtilizationInfo: "*mut u8", NotifyArray: "*const u32", InRandomTask: "*const u8",
		Notify: "u32", OutNotify: "*mut u32",
	}[p.Sem]
}

func rustDoc(b *buf, indent string, lines ...string) {
	for _, l := range lines {
		if l == "" {
			b.p("%s///\n", indent)
		} else {
			b.p("%s/// %s\n", indent, l)
		}
	}
}

func genRust(m *model, out map[string][]byte) error {
	sys, err := rustSys(m)
	if err != nil {
		return err
	}
	ops, err := rustOps(m)
	if err != nil {
		return err
	}
	out["rust/src/sys.rs"] = sys
	out["rust/src/nn/ops.rs"] = ops
	out["rust/src/types.rs"] = rustTypes(m)
	out["rust/src/codes.rs"] = rustCodes(m)
	return nil
}

func rustSys(m *model) ([]byte, error) {
	var b buf
	b.l(header("//"), "",
		"//! The raw imports of the guest ABI, with their exact wire types: addresses",
		"//! and sizes are `u64`, handles `u32`, i32 values `i32` (`u32` for flags and",
		"//! unsigned enums), and pointers into guest memory typed raw pointers.",
		"//! Every function returns an `aclError` (0 on success) except",
		"//! `aclGetRecentErrMsg`, which returns the message length.",
		"//!",
		"//! They are `unsafe`: the host checks every argument, so a wrong one gives an",
		"//! error code rather than undefined behaviour in the host, but out-pointers",
		"//! must point to writable guest memory of the right size for the guest's own",
		"//! soundness. Prefer the safe API of the crate root.",
		"",
		"#![allow(non_snake_case)]",
		"",
		"use core::ffi::c_void;",
		"",
		"use crate::types::{MemcpyBatchAttr, PtrAttributes};",
		"",
		`#[link(wasm_import_module = "`+abi.Module+`")]`,
		`extern "C" {`)
	for i := range m.funcs {
		f := &m.funcs[i]
		rustDoc(&b, "    ", append(wrap(f.Doc, 80), "", "Wire: `"+wireSig(f)+"`")...)
		ps := make([]string, len(f.Params))
		for j, p := range f.Params {
			ps[j] = rustIdent(p.Name) + ": " + rustRawType(p)
		}
		b.p("    #[link_name = \"%s\"]\n", f.Name)
		b.p("    pub fn %s(%s) -> i32;\n", f.Name, strings.Join(ps, ", "))
		if i < len(m.funcs)-1 {
			b.l("")
		}
	}
	b.l("}")
	if err := rustComputeSys(m, &b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func rustTypes(m *model) []byte {
	var b buf
	b.l(header("//"), "",
		"//! Native enums (as newtypes with the native values as associated constants,",
		"//! so that flags combine and any value can be passed) and structs with",
		"//! their native layouts.",
		"")
	for i := range m.enums {
		e := &m.enums[i]
		repr := rustRepr(e.Signed())
		flags := false
		for _, mm := range e.Members {
			if mm.Value >= 0x100 && e.C == "aclrtMemMallocPolicy" {
				flags = true
			}
		}
		rustDoc(&b, "", strings.TrimSuffix(e.Doc, ".")+" (`"+e.C+"`).")
		b.l("#[repr(transparent)]", "#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]")
		b.p("pub struct %s(pub %s);\n\n", e.Go, repr)
		b.p("impl %s {\n", e.Go)
		for _, mm := range e.Members {
			short := strings.TrimPrefix(mm.Name, e.prefix())
			rustDoc(&b, "    ", "`"+mm.Name+"`")
			if mm.Value >= 0x100 {
				b.p("    pub const %s: %s = %s(0x%X);\n", short, e.Go, e.Go, mm.Value)
			} else {
				b.p("    pub const %s: %s = %s(%d);\n", short, e.Go, e.Go, mm.Value)
			}
		}
		b.l("", "    /// Returns the native name of the value, or `None` for a value the", "    /// native enum does not define.")
		b.l("    pub fn name(self) -> Option<&'static str> {", "        match self.0 {")
		for _, mm := range e.Members {
			b.p("            %d => Some(%q),\n", mm.Value, mm.Name)
		}
		b.l("            _ => None,", "        }", "    }", "}", "")
		if flags {
			b.p("impl core::ops::BitOr for %s {\n    type Output = %s;\n\n", e.Go, e.Go)
			b.p("    /// Combines a page policy with flags.\n    fn bitor(self, rhs: %s) -> %s {\n        %s(self.0 | rhs.0)\n    }\n}\n\n", e.Go, e.Go, e.Go)
		}
	}
	b.l("/// Where memory lives: a device (or NUMA) id and a location type",
		"/// (`aclrtMemLocation`, 8 bytes).",
		"#[repr(C)]",
		"#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]",
		"pub struct MemLocation {",
		"    /// The device id for DEVICE; 0 otherwise.",
		"    pub id: u32,",
		"    /// The location type (`type` natively).",
		"    pub type_: MemLocationType,",
		"}",
		"",
		"impl MemLocation {",
		"    /// Device memory of device `id` (the guest's device id).",
		"    pub const fn device(id: u32) -> MemLocation {",
		"        MemLocation { id, type_: MemLocationType::DEVICE }",
		"    }",
		"",
		"    /// Host memory: registered (pinned) guest memory, or any guest memory.",
		"    pub const fn host() -> MemLocation {",
		"        MemLocation { id: 0, type_: MemLocationType::HOST }",
		"    }",
		"",
		"    /// Guest memory that is not registered.",
		"    pub const fn unregistered() -> MemLocation {",
		"        MemLocation { id: 0, type_: MemLocationType::UNREGISTERED }",
		"    }",
		"}",
		"",
		"/// Where the destination and source of the batch entries it applies to",
		"/// must be (`aclrtMemcpyBatchAttr`, 32 bytes). `rsv` must be all zero.",
		"#[repr(C)]",
		"#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]",
		"pub struct MemcpyBatchAttr {",
		"    /// Where the destinations are.",
		"    pub dst_loc: MemLocation,",
		"    /// Where the sources are.",
		"    pub src_loc: MemLocation,",
		"    /// Reserved: must be zero.",
		"    pub rsv: [u8; 16],",
		"}",
		"",
		"impl MemcpyBatchAttr {",
		"    /// An attribute with the given locations and zero reserved bytes.",
		"    pub const fn new(dst_loc: MemLocation, src_loc: MemLocation) -> MemcpyBatchAttr {",
		"        MemcpyBatchAttr { dst_loc, src_loc, rsv: [0; 16] }",
		"    }",
		"}",
		"",
		"/// Where an address lives and its page size (`aclrtPtrAttributes`, 28 bytes).",
		"#[repr(C)]",
		"#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]",
		"pub struct PtrAttributes {",
		"    /// Where the address lives.",
		"    pub location: MemLocation,",
		"    /// The page size of the memory.",
		"    pub page_size: u32,",
		"    /// Reserved.",
		"    pub rsv: [u32; 4],",
		"}",
		"")
	b.p("const _: () = assert!(core::mem::size_of::<MemLocation>() == %d);\n", acl.MemLocationSize)
	b.p("const _: () = assert!(core::mem::size_of::<MemcpyBatchAttr>() == %d);\n", acl.MemcpyBatchAttrSize)
	b.p("const _: () = assert!(core::mem::size_of::<PtrAttributes>() == %d);\n", acl.PtrAttributesSize)
	return b.Bytes()
}

func rustCodes(m *model) []byte {
	var b buf
	b.l(header("//"), "",
		"//! Every native `aclError` value, by its native name.",
		"")
	b.l("/// `ACL_ERROR_NONE`: the old name of `ACL_SUCCESS`.", "pub const ACL_ERROR_NONE: i32 = 0;",
		"/// `ACL_RT_SUCCESS`: the runtime header's name of `ACL_SUCCESS`.", "pub const ACL_RT_SUCCESS: i32 = 0;")
	for _, c := range m.codes {
		b.p("/// `%s` (%d)\npub const %s: i32 = %d;\n", c.Name, c.Value, c.Name, c.Value)
	}
	b.l("", "/// Returns the native name of an error code, such as",
		"/// `\"ACL_ERROR_RT_PARAM_INVALID\"`, or `\"ACL_ERROR_UNKNOWN\"`.",
		"pub fn error_name(code: i32) -> &'static str {", "    match code {")
	for _, c := range m.codes {
		b.p("        %d => %q,\n", c.Value, c.Name)
	}
	b.l("        _ => \"ACL_ERROR_UNKNOWN\",", "    }", "}")
	return b.Bytes()
}

// rustIdent escapes a parameter name that is a Rust keyword.
func rustIdent(n string) string {
	switch n {
	case "type", "ref", "mut", "self", "fn", "match", "move", "use", "impl", "in", "loop", "where":
		return n + "_"
	}
	return n
}
