package gen

import (
	"fmt"
	"strings"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// cType is the C type of a parameter in the natural API.
func cType(s Sem) string {
	return [...]string{
		Ptr: "aclrtPtr", Size: "uint64_t", Kind: "aclrtMemcpyKind", Int32: "int32_t", Uint32: "uint32_t",
		MemAttr: "aclrtMemAttr", MallocPolicy: "aclrtMemMallocPolicy", RegisterType: "aclrtHostRegisterType",
		Stream: "aclrtStream", Event: "aclrtEvent",
		OutPtr: "aclrtPtr *", OutSize: "uint64_t *", OutInt32: "int32_t *", OutUint32: "uint32_t *",
		OutFloat: "float *", OutStream: "aclrtStream *", OutEvent: "aclrtEvent *",
		OutStreamStatus: "aclrtStreamStatus *", OutEventStatus: "aclrtEventRecordedStatus *",
		OutPtrAttributes: "aclrtPtrAttributes *", PtrArray: "const aclrtPtr *", SizeArray: "const uint64_t *",
		AttrArray: "const aclrtMemcpyBatchAttr *", CString: "const char *", Reserved: "void *", OutBytes: "char *",
	}[s]
}

// cRawType is the C type of a parameter in the raw import: the wire type.
func cRawType(s Sem) string {
	switch s.Wire() {
	case abi.Addr, abi.Size:
		return "uint64_t"
	case abi.Handle:
		return "uint32_t"
	case abi.I32:
		return "int32_t"
	}
	switch s {
	case PtrArray, SizeArray, AttrArray, CString:
		return "const void *"
	}
	return "void *"
}

// cArg converts a natural-API argument to its raw type.
func cArg(p Param) string {
	switch p.Sem {
	case Stream, Event:
		return "(uint32_t)(uintptr_t)" + p.Name
	case Kind, Uint32, MemAttr, MallocPolicy, RegisterType:
		return "(int32_t)" + p.Name
	}
	return p.Name
}

func cDecl(t, name string) string {
	if strings.HasSuffix(t, "*") {
		return t + name
	}
	return t + " " + name
}

func cParams(f *Func, raw bool) string {
	if len(f.Params) == 0 {
		return "void"
	}
	ps := make([]string, len(f.Params))
	for i, p := range f.Params {
		t := cType(p.Sem)
		if raw {
			t = cRawType(p.Sem)
		}
		ps[i] = cDecl(t, p.Name)
	}
	return strings.Join(ps, ", ")
}

func cDoc(b *buf, indent string, lines ...string) {
	b.p("%s/**\n", indent)
	for _, l := range lines {
		if l == "" {
			b.p("%s *\n", indent)
			continue
		}
		b.p("%s * %s\n", indent, l)
	}
	b.p("%s */\n", indent)
}

const cRawPrefix = "aclwasm_raw_"

func genC(m *model, out map[string][]byte) error {
	const dir = "c/include/acl/"
	out[dir+"acl_base.h"] = cBase(m)
	out[dir+"error_codes/rt_error_codes.h"] = cRTCodes(m)
	out[dir+"aclwasm_imports.h"] = cImports(m)
	out[dir+"acl_rt.h"] = cRT(m)
	out[dir+"acl.h"] = cACL(m)
	return nil
}

func cOpen(b *buf, file, guard string, about ...string) {
	b.l("/*", header(" *"), " *", " * "+file+": "+about[0])
	for _, a := range about[1:] {
		if a == "" {
			b.l(" *")
		} else {
			b.l(" * " + a)
		}
	}
	b.l(" */", "#ifndef "+guard, "#define "+guard, "")
}

func cExternC(b *buf) {
	b.l("#ifdef __cplusplus", `extern "C" {`, "#endif", "")
}

func cClose(b *buf, guard string, externC bool) {
	if externC {
		b.l("#ifdef __cplusplus", "}", "#endif", "")
	}
	b.l("#endif /* " + guard + " */")
}

func cBase(m *model) []byte {
	var b buf
	const g = "ACLWASM_ACL_BASE_H_"
	cOpen(&b, "acl_base.h", g,
		"base types and error codes of the aclwasm C guest SDK,",
		"laid out like the native header of the same name. See guest-sdk/c/README.md.")
	b.l("#include <stddef.h>", "#include <stdint.h>", "")
	b.l("#if !defined(__wasm32__)",
		`#error "aclwasm: these headers are for wasm32 guests (clang --target=wasm32 or --target=wasm32-wasi)"`,
		"#endif", "")
	b.l("#ifdef __cplusplus",
		"#define ACLWASM_STATIC_ASSERT(c, m) static_assert(c, m)",
		"#else",
		"#define ACLWASM_STATIC_ASSERT(c, m) _Static_assert(c, m)",
		"#endif", "")
	cExternC(&b)
	b.p("/** The guest ABI version these headers implement. */\n#define ACLWASM_ABI_VERSION %d\n\n", abi.Version)
	cDoc(&b, "", "The result of every ACL function: ACL_SUCCESS (0) or a native error code.")
	b.l("typedef int aclError;", "")
	cDoc(&b, "",
		"An address in the sandbox's address space: a guest pointer zero-extended",
		"(below 2^32) or an opaque device address from aclrtMalloc (2^32 and above).",
		"Arithmetic works: p + k is byte k of the allocation at p. 0 is NULL.",
		"Device addresses do not fit a wasm32 pointer, so every ACL parameter that",
		"natively is a void * into device or host memory is an aclrtPtr here.")
	b.l("typedef uint64_t aclrtPtr;", "")
	cDoc(&b, "",
		"A stream handle: a nonzero u32 from aclrtCreateStream, or NULL for the",
		"current device's default stream. As natively it is a pointer type, so",
		"code that writes `aclrtStream s = NULL;` builds unchanged; on wasm32 a",
		"pointer is exactly the 32-bit handle. Never dereference it.")
	b.l("typedef void *aclrtStream;", "")
	cDoc(&b, "", "An event handle: a nonzero u32 from aclrtCreateEvent. Never dereference it.")
	b.l("typedef void *aclrtEvent;", "")
	b.l(`ACLWASM_STATIC_ASSERT(sizeof(void *) == 4, "aclwasm guests are wasm32: handles are 32-bit");`, "")
	cDoc(&b, "", "Returns the sandbox address of a guest pointer (NULL stays 0).")
	b.l("static inline aclrtPtr aclPtr(const void *p) { return (aclrtPtr)(uintptr_t)p; }", "")
	cDoc(&b, "",
		"Returns the guest pointer for a sandbox address, or NULL when the address",
		"is not in guest memory (a device address).")
	b.l("static inline void *aclGuestPtr(aclrtPtr a)",
		"{",
		"    return a > (aclrtPtr)UINTPTR_MAX ? NULL : (void *)(uintptr_t)a;",
		"}", "")
	cDoc(&b, "",
		"What a batch copy writes to *failIndex when no single entry failed:",
		"SIZE_MAX of the wire's 64-bit size_t (not wasm32's SIZE_MAX).")
	b.l("#define ACLWASM_FAIL_INDEX_NONE UINT64_MAX", "")

	b.l("/* Error codes of the ACL layer, as natively: static const int, not macros. */",
		"static const int ACL_ERROR_NONE = 0;")
	for _, c := range m.codes {
		if !c.Runtime() {
			b.p("static const int %s = %d;\n", c.Name, c.Value)
		}
	}
	b.l("", "#ifdef __cplusplus", "}", "#endif", "")
	b.l(`#include "error_codes/rt_error_codes.h"`, `#include "aclwasm_imports.h"`, "")
	cExternC(&b)
	cDoc(&b, "",
		"Returns the native name of an error code, such as \"ACL_ERROR_RT_PARAM_INVALID\",",
		"or \"ACL_ERROR_UNKNOWN\". (An aclwasm helper; the native runtime has none.)")
	b.l("static inline const char *aclErrorName(aclError code)", "{", "    switch (code) {")
	for _, c := range m.codes {
		b.p("    case %d: return \"%s\";\n", c.Value, c.Name)
	}
	b.l("    default: return \"ACL_ERROR_UNKNOWN\";", "    }", "}", "")
	b.l("#ifndef ACLWASM_ERRMSG_SIZE",
		"/** Capacity of aclGetRecentErrMsg's buffer; define before including to change it. */",
		"#define ACLWASM_ERRMSG_SIZE 1024",
		"#endif", "")
	cDoc(&b, "",
		"Returns the message of this session's most recent failed call: which argument",
		"was wrong and why. Returns \"\" when no call has failed. The string lives in a",
		"static buffer (one per translation unit) that the next call overwrites; a message",
		"longer than ACLWASM_ERRMSG_SIZE-1 bytes is truncated.",
		"",
		"Wraps the import "+wireSig(m.errMsg())+",",
		"which returns the message's full length.")
	b.l("static inline const char *aclGetRecentErrMsg(void)",
		"{",
		"    static char msg[ACLWASM_ERRMSG_SIZE];",
		"    msg[0] = '\\0';",
		"    (void)"+cRawPrefix+ErrMsgFunc+"(msg, (int32_t)sizeof msg);",
		"    return msg;",
		"}", "")
	cClose(&b, g, true)
	return b.Bytes()
}

func (m *model) errMsg() *Func {
	for i := range m.funcs {
		if m.funcs[i].Name == ErrMsgFunc {
			return &m.funcs[i]
		}
	}
	panic("gen: no " + ErrMsgFunc)
}

func cRTCodes(m *model) []byte {
	var b buf
	const g = "ACLWASM_RT_ERROR_CODES_H_"
	cOpen(&b, "error_codes/rt_error_codes.h", g,
		"the runtime's error codes (107xxx, 207xxx, 507xxx),",
		"as macros like the native header of the same name.")
	b.l("#define ACL_RT_SUCCESS 0")
	for _, c := range m.codes {
		if c.Runtime() {
			b.p("#define %s %d\n", c.Name, c.Value)
		}
	}
	b.l("")
	cClose(&b, g, false)
	return b.Bytes()
}

func cImports(m *model) []byte {
	var b buf
	const g = "ACLWASM_IMPORTS_H_"
	cOpen(&b, "aclwasm_imports.h", g,
		"the raw imports of the guest ABI, with their exact wire",
		"types: addr and size are uint64_t, handles uint32_t, i32 int32_t, gptr a",
		"wasm32 pointer. Use the natural API of acl.h instead; these are for tests",
		"that must pass what the natural API's types forbid.")
	b.l("#include <stdint.h>", "")
	cExternC(&b)
	for i := range m.funcs {
		f := &m.funcs[i]
		cDoc(&b, "", append(wrap(f.Doc, 76), "", "Wire: "+wireSig(f))...)
		b.p("__attribute__((import_module(\"%s\"), import_name(\"%s\")))\n", abi.Module, f.Name)
		b.p("int32_t %s%s(%s);\n\n", cRawPrefix, f.Name, cParams(f, true))
	}
	cClose(&b, g, true)
	return b.Bytes()
}

func cWrapper(b *buf, f *Func) {
	doc := wrap(f.Doc, 76)
	doc = append(doc, "", "Wire: "+wireSig(f))
	cDoc(b, "", doc...)
	b.p("static inline aclError %s(%s)\n{\n", f.Name, cParams(f, false))
	args := make([]string, len(f.Params))
	for i, p := range f.Params {
		args[i] = cArg(p)
	}
	b.p("    return (aclError)%s%s(%s);\n}\n\n", cRawPrefix, f.Name, strings.Join(args, ", "))
}

func cEnum(b *buf, e *Enum) {
	cDoc(b, "", e.Doc)
	b.p("typedef enum %s {\n", e.C)
	for _, mm := range e.Members {
		if mm.Value >= 0x100 {
			b.p("    %s = 0x%X,\n", mm.Name, mm.Value)
		} else {
			b.p("    %s = %d,\n", mm.Name, mm.Value)
		}
	}
	b.p("} %s;\n\n", e.C)
}

func cRT(m *model) []byte {
	var b buf
	const g = "ACLWASM_ACL_RT_H_"
	cOpen(&b, "acl_rt.h", g,
		"the runtime API of the guest ABI (memory copies, memory,",
		"devices, streams, events) with native names, enums and structs, laid out",
		"like the native header of the same name. Each function is a static inline",
		"wrapper over its raw import (aclwasm_imports.h).",
		"",
		"Differences from the native API, all forced by wasm32:",
		"- device and host addresses are aclrtPtr (64-bit): use aclPtr(p) for guest memory;",
		"- sizes are uint64_t: size_t arguments widen implicitly, and size_t arrays and",
		"  out-parameters (batch arrays, failIndex, descSize, free/total) are uint64_t;",
		"- aclrtMallocHost/aclrtFreeHost are implemented in aclwasm_host.h on the guest's",
		"  allocator plus aclrtHostRegister/aclrtHostUnregister.")
	b.l(`#include "acl_base.h"`, "")
	cExternC(&b)
	for i := range m.enums {
		cEnum(&b, &m.enums[i])
	}
	cDoc(&b, "", "Where memory lives: a device (or NUMA) id and a location type. 8 bytes.")
	b.l("typedef struct aclrtMemLocation {", "    uint32_t id;", "    aclrtMemLocationType type;", "} aclrtMemLocation;", "")
	cDoc(&b, "", "Where an address lives, from aclrtPointerGetAttributes. 28 bytes.")
	b.l("typedef struct aclrtPtrAttributes {", "    aclrtMemLocation location;", "    uint32_t pageSize;", "    uint32_t rsv[4];", "} aclrtPtrAttributes;", "")
	cDoc(&b,
		"", "Where the destination and source of the batch entries it applies to must be.",
		"rsv must be all zero. 32 bytes.")
	b.l("typedef struct {", "    aclrtMemLocation dstLoc;", "    aclrtMemLocation srcLoc;", "    uint8_t rsv[16];", "} aclrtMemcpyBatchAttr;", "")
	for _, a := range []struct {
		expr string
		v    int
	}{
		{"sizeof(aclrtMemLocation)", acl.MemLocationSize},
		{"offsetof(aclrtMemLocation, type)", 4},
		{"sizeof(aclrtPtrAttributes)", acl.PtrAttributesSize},
		{"offsetof(aclrtPtrAttributes, pageSize)", 8},
		{"offsetof(aclrtPtrAttributes, rsv)", 12},
		{"sizeof(aclrtMemcpyBatchAttr)", acl.MemcpyBatchAttrSize},
		{"offsetof(aclrtMemcpyBatchAttr, srcLoc)", 8},
		{"offsetof(aclrtMemcpyBatchAttr, rsv)", 16},
	} {
		b.p("ACLWASM_STATIC_ASSERT(%s == %d, \"native layout\");\n", a.expr, a.v)
	}
	b.l("")
	group := abi.Group("")
	for i := range m.funcs {
		f := &m.funcs[i]
		if f.Group == abi.Runtime {
			continue
		}
		if f.Group != group {
			group = f.Group
			b.p("/* ---- %s ---- */\n\n", group)
		}
		cWrapper(&b, f)
	}
	b.l("#ifdef __cplusplus", "}", "#endif", "", `#include "aclwasm_host.h"`, "")
	cClose(&b, g, false)
	return b.Bytes()
}

func cACL(m *model) []byte {
	var b buf
	const g = "ACLWASM_ACL_H_"
	cOpen(&b, "acl.h", g,
		"the header an aclwasm C guest includes: everything of",
		"acl_base.h and acl_rt.h, plus initialization and the version, as natively.")
	b.l(`#include "acl_base.h"`, `#include "acl_rt.h"`, "")
	cExternC(&b)
	b.p("#define ACL_MAJOR_VERSION %d\n#define ACL_MINOR_VERSION %d\n#define ACL_PATCH_VERSION %d\n\n",
		acl.VersionMajor, acl.VersionMinor, acl.VersionPatch)
	for i := range m.funcs {
		f := &m.funcs[i]
		if f.Group == abi.Runtime && !f.ReturnsLength() {
			cWrapper(&b, f)
		}
	}
	cClose(&b, g, true)
	return b.Bytes()
}

var _ = fmt.Sprint
