package gen

import (
	"fmt"
	"strings"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// The C headers serve two profiles of the guest ABI (ABI.md section 9):
//
//   - the native layout (the default): every function has its native
//     signature (void *, size_t, void **, size_t *) and is the import itself,
//     from module cModule32; on wasm32 those types are exactly the acl32 wire
//     types;
//   - the wide profile (-DACLWASM_WIDE): addresses are aclrtPtr (uint64_t),
//     sizes uint64_t, and each function is a static inline wrapper over its
//     raw import from module abi.Module. In C a macro per function turns a
//     pointer passed where an address (or an 8-byte out-parameter) is
//     expected into a compile error; in C++ the language already refuses it.

// cModule32 is the import module of the native-layout profile.
const cModule32 = abi.Module32

// cType is the C type of a parameter in the wide profile's natural API.
func cType(p Param) (string, error) {
	switch p.Sem {
	case Ptr:
		return "aclrtPtr", nil
	case Size:
		return "uint64_t", nil
	case OutPtr:
		return "aclrtPtr *", nil
	case OutSize:
		return "uint64_t *", nil
	case PtrArray:
		return "const aclrtPtr *", nil
	case SizeArray:
		return "const uint64_t *", nil
	}
	return cCommonType(p)
}

// cCommonType is the C type of a parameter whose type does not depend on
// the profile.
func cCommonType(p Param) (string, error) {
	switch p.Sem {
	case EnumValue:
		return p.Enum.C, nil
	case OutEnum:
		return p.Enum.C + " *", nil
	case Int32:
		return "int32_t", nil
	case Uint32:
		return "uint32_t", nil
	case Stream:
		return "aclrtStream", nil
	case Event:
		return "aclrtEvent", nil
	case OutInt32:
		return "int32_t *", nil
	case OutUint32:
		return "uint32_t *", nil
	case OutFloat:
		return "float *", nil
	case OutStream:
		return "aclrtStream *", nil
	case OutEvent:
		return "aclrtEvent *", nil
	case OutPtrAttributes:
		return "aclrtPtrAttributes *", nil
	case AttrArray:
		return "const aclrtMemcpyBatchAttr *", nil
	case CString:
		return "const char *", nil
	case Reserved:
		return "void *", nil
	case OutBytes:
		return "char *", nil
	case Uint64:
		return "uint64_t", nil
	case OutUint64:
		if p.Native != "" { // an int64_t * (aclrtGetDeviceInfo): the same 8 bytes
			return p.Native, nil
		}
		return "uint64_t *", nil
	case Context:
		return "aclrtContext", nil
	case OutContext:
		return "aclrtContext *", nil
	case HostFn:
		return "aclrtHostFunc", nil
	case UserData:
		return "void *", nil
	case OutErrorInfo:
		return "void *", nil // any aclrtErrorInfo *: the SDK does not declare the struct yet
	case OutUtilizationInfo:
		return "aclrtUtilizationInfo *", nil
	case NotifyArray:
		return "aclrtNotify *", nil
	case Notify:
		return "aclrtNotify", nil
	case OutNotify:
		return "aclrtNotify *", nil
	case InStreamConfig:
		return "const aclrtStreamConfigHandle *", nil
	case InRandomTask:
		return "const aclrtRandomNumTaskInfo *", nil
	}
	return "", fmt.Errorf("gen: the C generator has no type for parameter class %d (add it to cCommonType in guest-sdk/internal/gen/c.go)", p.Sem)
}

// cNativeType is the C type of a parameter in the native header (acl_rt.h
// of the native runtime), which the native-layout profile declares: the
// table's Native where it gives one, else what the class implies.
func cNativeType(p Param) (string, error) {
	if p.Native != "" {
		return p.Native, nil
	}
	switch p.Sem {
	case Ptr:
		return "void *", nil
	case Size:
		return "size_t", nil
	case OutPtr, PtrArray:
		return "void **", nil
	case OutSize, SizeArray:
		return "size_t *", nil
	}
	return cCommonType(p)
}

// wasm32Is64 reports whether a C type of cNativeType travels as an i64 on
// wasm32: only the 64-bit integers do (pointers, size_t, int and enums are
// 32-bit).
func wasm32Is64(t string) bool {
	switch t {
	case "uint64_t", "int64_t":
		return true
	}
	return false
}

// acl32Is64 reports whether parameter p travels as an i64 in the acl32
// profile (ABI.md section 9): addresses and sizes become i32, values that
// are uint64_t natively stay i64.
func acl32Is64(p Param) bool { return abi.Native32.Is64(p.Type) }

// cElemTypes are the C types a gptr parameter may have in the native
// declaration when it holds values whose width depends on the profile
// (abi.Param.Elem); nil when it holds none.
func cElemTypes(p Param) []string {
	switch p.Elem {
	case abi.Addr:
		return []string{"void **", "const void **"}
	case abi.Size:
		return []string{"size_t *"}
	case abi.U64:
		return []string{"uint64_t *", "int64_t *"}
	}
	return nil
}

// cCheckNative fails unless each native C type of f travels as its acl32
// wire type and each gptr points to values of the width the table says.
func cCheckNative(f *Func) error {
	for _, p := range f.Params {
		t, err := cNativeType(p)
		if err != nil {
			return err
		}
		if wasm32Is64(t) != acl32Is64(p) {
			return fmt.Errorf("gen: %s parameter %s: native C type %s does not travel as its acl32 wire type %s", f.Name, p.Name, t, abi.Native32.Wasm(p.Type))
		}
		if p.Type != abi.Gptr {
			continue
		}
		want := cElemTypes(p)
		ok := len(want) == 0
		for _, w := range want {
			ok = ok || t == w
		}
		if want == nil {
			switch t {
			case "void **", "const void **", "size_t *", "uint64_t *":
				ok = false
			}
		}
		if !ok {
			return fmt.Errorf("gen: %s parameter %s: native C type %s does not point to what the ABI table says it holds (%v)", f.Name, p.Name, t, want)
		}
	}
	return nil
}

// cRawType is the C type of a parameter in the raw import: the wire type of
// the profile (wide: abi's; narrow: acl32's).
func cRawType(f *Func, p Param, narrow bool) string {
	switch p.Sem.Wire() {
	case abi.Addr, abi.Size:
		if narrow && !acl32Is64(p) {
			return "uint32_t"
		}
		return "uint64_t"
	case abi.U64:
		return "uint64_t"
	case abi.Handle:
		return "uint32_t"
	case abi.I32:
		return "int32_t"
	}
	switch p.Sem {
	case PtrArray, SizeArray, AttrArray, CString, InStreamConfig, InRandomTask:
		return "const void *"
	}
	return "void *"
}

// cArg converts a natural-API argument to its raw type.
func cArg(p Param) string {
	switch p.Sem {
	case Stream, Event, Context, Notify:
		return "(uint32_t)(uintptr_t)" + p.Name
	case EnumValue, Uint32:
		return "(int32_t)" + p.Name
	case HostFn:
		return "(void *)(uintptr_t)" + p.Name
	}
	return p.Name
}

func cDecl(t, name string) string {
	if strings.HasSuffix(t, "*") {
		return t + name
	}
	return t + " " + name
}

// cProfile says which form of a function's parameters to write.
type cProfile int

const (
	cWide      cProfile = iota // the wide profile's natural API (aclrtPtr, uint64_t)
	cNative                    // the native signatures (void *, size_t)
	cRawWide                   // the raw wide import: wire types
	cRawNarrow                 // the raw acl32 import: wire types
)

func cParams(f *Func, pr cProfile) (string, error) {
	if len(f.Params) == 0 {
		return "void", nil
	}
	ps := make([]string, len(f.Params))
	for i, p := range f.Params {
		var t string
		var err error
		switch pr {
		case cWide:
			t, err = cType(p)
		case cNative:
			t, err = cNativeType(p)
		default:
			t = cRawType(f, p, pr == cRawNarrow)
		}
		if err != nil {
			return "", fmt.Errorf("%s parameter %s: %w", f.Name, p.Name, err)
		}
		ps[i] = cDecl(t, p.Name)
	}
	return strings.Join(ps, ", "), nil
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
	for _, g := range []struct {
		name string
		gen  func(*model) ([]byte, error)
	}{
		{"acl_base.h", cBase},
		{"error_codes/rt_error_codes.h", cRTCodes},
		{"aclwasm_imports.h", cImports},
		{"acl_rt.h", cRT},
		{"acl.h", cACL},
		{cSymbolsFile, cSymbols},
	} {
		b, err := g.gen(m)
		if err != nil {
			return err
		}
		out[dir+g.name] = b
	}
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

func cEndExternC(b *buf) {
	b.l("#ifdef __cplusplus", "}", "#endif", "")
}

func cClose(b *buf, guard string, externC bool) {
	if externC {
		cEndExternC(b)
	}
	b.l("#endif /* " + guard + " */")
}

func cBase(m *model) ([]byte, error) {
	var b buf
	const g = "ACLWASM_ACL_BASE_H_"
	cOpen(&b, "acl_base.h", g,
		"base types and error codes of the aclwasm C/C++ guest SDK,",
		"laid out like the native header of the same name. See guest-sdk/c/README.md.",
		"",
		"Two profiles (guest ABI section 9): by default the native layout (module",
		"\""+cModule32+"\": void * device pointers, size_t sizes, as natively); with",
		"-DACLWASM_WIDE the wide profile (module \""+abi.Module+"\": 64-bit aclrtPtr addresses).")
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
	cDoc(&b, "",
		"The import module of the profile these headers were included for: \""+abi.Module+"\"",
		"with -DACLWASM_WIDE, else \""+cModule32+"\".")
	b.l("#ifdef ACLWASM_WIDE", `#define ACLWASM_MODULE "`+abi.Module+`"`, "#else", `#define ACLWASM_MODULE "`+cModule32+`"`, "#endif", "")
	cDoc(&b, "", "The result of every ACL function: ACL_SUCCESS (0) or a native error code.")
	b.l("typedef int aclError;", "")
	cDoc(&b, "",
		"A stream handle: a nonzero u32 from aclrtCreateStream, or NULL for the",
		"current device's default stream. As natively it is a pointer type, so",
		"code that writes `aclrtStream s = NULL;` builds unchanged; on wasm32 a",
		"pointer is exactly the 32-bit handle. Never dereference it.")
	b.l("typedef void *aclrtStream;", "")
	cDoc(&b, "", "An event handle: a nonzero u32 from aclrtCreateEvent. Never dereference it.")
	b.l("typedef void *aclrtEvent;", "")
	cDoc(&b, "", "A context handle: a device plus its own default stream. Never dereference it.")
	b.l("typedef void *aclrtContext;", "")
	cDoc(&b, "",
		"A stream callback of aclrtLaunchHostFunc, as natively. On wasm32 a function",
		"pointer is an index into the module's table: the host hands it back to the",
		"dispatcher (aclwasm_dispatch_callback below).")
	b.l("typedef void (*aclrtHostFunc)(void *args);", "")
	cDoc(&b, "", "A callback of aclrtLaunchCallback, as natively (the same type).")
	b.l("typedef void (*aclrtCallback)(void *userData);", "")
	cDoc(&b, "", "Whether an aclrtLaunchCallback callback holds its stream's later work, as natively.")
	b.l("typedef enum aclrtCallbackBlockType {", "    ACL_CALLBACK_NO_BLOCK,", "    ACL_CALLBACK_BLOCK,", "} aclrtCallbackBlockType;", "")
	var launchers []string
	for i := range m.funcs {
		if launchesCallback(&m.funcs[i]) {
			launchers = append(launchers, m.funcs[i].Name)
		}
	}
	cDoc(&b, "", wrap("The stream callback dispatcher (ABI section 12): the host runs every stream "+
		"callback through this export, on the module's own thread, inside one of its "+
		"host calls, and refuses to load a module that launches a callback without "+
		"it. The SDK's library libaclwasm.a defines it (lib/dispatch.c), not these "+
		"headers: the functions that launch a callback ("+strings.Join(launchers, ", ")+") "+
		"reference it, so wasm-ld takes it and its export from the library into "+
		"exactly the modules that launch one, and a module that never does carries "+
		"nothing. Link the library as every program does (`pkg-config --libs "+
		"aclwasm`: -L<prefix>/lib/aclwasm -laclwasm); no compiler flag is involved "+
		"(ACLWASM_CALLBACKS and ACLWASM_NO_CALLBACKS, which were, are no longer "+
		"read). A program's own definition of the same name and type takes the "+
		"library's place. The call is call_indirect: a pointer that is not a "+
		"function of this type traps.", 76)...)
	b.l("void aclwasm_dispatch_callback(uint32_t fn, void *userData);", "")
	cDoc(&b, "",
		"Used by the SDK functions that launch a callback: a reference to the",
		"dispatcher that no optimization removes (an empty asm that takes its",
		"address), so that the object file names it and wasm-ld links it in.")
	b.l(`#define ACLWASM_LINK_DISPATCHER_() __asm__ volatile("" : : "r"(aclwasm_dispatch_callback))`, "")
	cDoc(&b, "", "A notify handle (ABI v1.2): a flag set and waited for in stream order. Never dereference it.")
	b.l("typedef void *aclrtNotify;", "")
	cDoc(&b, "", "A device or host buffer and its size (aclCreateDataBuffer); opaque, as natively.")
	b.l("typedef struct aclDataBuffer aclDataBuffer;", "")
	cDoc(&b, "", "The level of an application log line (aclAppLog, ACL_APP_LOG).")
	b.l("typedef enum {", "    ACL_DEBUG = 0,", "    ACL_INFO = 1,", "    ACL_WARNING = 2,", "    ACL_ERROR = 3,", "} aclLogLevel;", "")
	b.l(`ACLWASM_STATIC_ASSERT(sizeof(void *) == 4, "aclwasm guests are wasm32: handles are 32-bit");`, "")
	b.l("#ifdef ACLWASM_WIDE", "")
	cDoc(&b, "",
		"An address in the wide profile's address space: a guest pointer zero-extended",
		"(below 2^32) or an opaque device address from aclrtMalloc (2^32 and above).",
		"Arithmetic works: p + k is byte k of the allocation at p. 0 is NULL.",
		"Device addresses do not fit a wasm32 pointer, so every ACL parameter that",
		"natively is a void * into device or host memory is an aclrtPtr here.")
	b.l("typedef uint64_t aclrtPtr;", "")
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
	b.l("#ifndef __cplusplus",
		"/*",
		" * C lets a pointer pass where an integer is expected (a warning), and a",
		" * void ** where a uint64_t * is (a warning, then an 8-byte write into a",
		" * 4-byte pointer). The wide profile's C macros turn both into compile",
		" * errors with these checks; C++ refuses both by itself.",
		" */",
		"#define ACLWASM_CHECK_(c, m) ((void)sizeof(struct { int aclwasm_; _Static_assert(c, m); }))",
		"#define ACLWASM_NOT_ADDR_ \" ACLWASM_WIDE: an aclrtPtr (a 64-bit sandbox address) is expected, not a pointer: pass aclPtr(p) for guest memory, or build without -DACLWASM_WIDE for the native void * API\"",
		"#define ACLWASM_NOT_OUT_ \" ACLWASM_WIDE: an aclrtPtr * / uint64_t * (8 bytes) is expected, not a pointer to a 4-byte void * or size_t; build without -DACLWASM_WIDE for the native void ** / size_t * API\"",
		"#define ACLWASM_ADDR_(x, what) (ACLWASM_CHECK_(__builtin_classify_type(x) != 5, what ACLWASM_NOT_ADDR_), (x))",
		"#define ACLWASM_U64P_(x, what) (ACLWASM_CHECK_(_Generic((x), uint64_t *: 1, const uint64_t *: 1, void *: 1, default: 0), what ACLWASM_NOT_OUT_), (x))",
		"#endif", "")
	b.l("#else /* the native layout */", "")
	cDoc(&b, "",
		"In the native layout an address is a void *, as natively. aclrtPtr, aclPtr,",
		"aclGuestPtr and ACLWASM_FAIL_INDEX_NONE exist here too, so that code written",
		"for the wide profile with them builds in both profiles.")
	b.l("typedef void *aclrtPtr;", "")
	cDoc(&b, "", "Returns p: in the native layout a guest pointer is its own address.")
	b.l("static inline aclrtPtr aclPtr(const void *p) { return (aclrtPtr)(uintptr_t)p; }", "")
	cDoc(&b, "", "Returns a when it is in the guest's memory, or NULL (a device address).")
	b.l("static inline void *aclGuestPtr(aclrtPtr a)",
		"{",
		"    return (uintptr_t)a < (uintptr_t)__builtin_wasm_memory_size(0) * 65536u ? a : NULL;",
		"}", "")
	cDoc(&b, "", "What a batch copy writes to *failIndex when no single entry failed: SIZE_MAX.")
	b.l("#define ACLWASM_FAIL_INDEX_NONE SIZE_MAX", "")
	b.l("#endif /* ACLWASM_WIDE */", "")

	b.l("/* Error codes of the ACL layer, as natively: static const int, not macros. */",
		"static const int ACL_ERROR_NONE = 0;")
	for _, c := range m.codes {
		if !c.Runtime() {
			b.p("static const int %s = %d;\n", c.Name, c.Value)
		}
	}
	b.l("")
	cEndExternC(&b)
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
		"was wrong and why. Returns NULL when no call has failed yet, as natively. The string lives in a",
		"static buffer (one per translation unit) that the next call overwrites; a message",
		"longer than ACLWASM_ERRMSG_SIZE-1 bytes is truncated.",
		"",
		"Wraps the import "+wireSig(m.errMsg())+",",
		"which returns the message's full length.")
	b.l("static inline const char *aclGetRecentErrMsg(void)",
		"{",
		"    static char msg[ACLWASM_ERRMSG_SIZE];",
		"    msg[0] = '\\0';",
		"    return "+cRawPrefix+ErrMsgFunc+"(msg, (int32_t)sizeof msg) > 0 ? msg : NULL;",
		"}", "")
	if f := m.lookup(SocNameFunc); f != nil {
		cDoc(&b, "",
			"Returns the SoC name of the session's devices (\"Ascend910B1\"), or NULL when the",
			"host's runtime cannot tell, as natively. The string lives in a static buffer",
			"(one per translation unit).",
			"",
			"Wraps the import "+wireSig(f)+",",
			"which returns the name's full length.")
		b.l("static inline const char *aclrtGetSocName(void)",
			"{",
			fmt.Sprintf("    static char name[%d];", acl.SocNameMax),
			"    name[0] = '\\0';",
			"    int32_t n = "+cRawPrefix+SocNameFunc+"(name, (int32_t)sizeof name);",
			"    return n > 0 && n < (int32_t)sizeof name ? name : NULL;",
			"}", "")
	}
	if f := m.lookup(cAppLog); f != nil {
		cAppLogSDK(&b, f)
	}
	cEndExternC(&b)
	// The SDK functions of the native acl_base.h (data types, fp16, the
	// package versions) and, in C++, the exception entry points: hand-written.
	b.l(`#include "aclwasm_sys.h"`, "")
	cClose(&b, g, false)
	return b.Bytes(), nil
}

func (m *model) errMsg() *Func {
	for i := range m.funcs {
		if m.funcs[i].Name == ErrMsgFunc {
			return &m.funcs[i]
		}
	}
	panic("gen: no " + ErrMsgFunc)
}

func cRTCodes(m *model) ([]byte, error) {
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
	return b.Bytes(), nil
}

func cImports(m *model) ([]byte, error) {
	var b buf
	const g = "ACLWASM_IMPORTS_H_"
	cOpen(&b, "aclwasm_imports.h", g,
		"the raw imports of the guest ABI, with their exact wire",
		"types: in the wide profile (-DACLWASM_WIDE, module \""+abi.Module+"\") addr and size",
		"are uint64_t; in the native layout (module \""+cModule32+"\") they are uint32_t,",
		"except parameters that are uint64_t natively. Handles are uint32_t, i32",
		"int32_t, gptr a wasm32 pointer. Use the API of acl.h instead; these are for",
		"tests that must pass what the typed API forbids.")
	b.l("#include <stdint.h>", "")
	cExternC(&b)
	for _, pr := range []cProfile{cRawWide, cRawNarrow} {
		module := abi.Module
		if pr == cRawWide {
			b.l("#ifdef ACLWASM_WIDE", "")
		} else {
			module = cModule32
			b.l("#else /* the native layout: "+cModule32+" */", "")
		}
		for i := range m.funcs {
			f := &m.funcs[i]
			ps, err := cParams(f, pr)
			if err != nil {
				return nil, err
			}
			sig := wireSig(f)
			if pr == cRawNarrow {
				sig = wireSig32(f)
			}
			cDoc(&b, "", append(wrap(f.Doc, 76), "", "Wire: "+sig)...)
			b.p("__attribute__((import_module(\"%s\"), import_name(\"%s\")))\n", module, f.Name)
			b.p("int32_t %s%s(%s);\n\n", cRawPrefix, f.Name, ps)
		}
	}
	b.l("#endif /* ACLWASM_WIDE */", "")
	cClose(&b, g, true)
	return b.Bytes(), nil
}

// wireSig32 is wireSig in the acl32 profile.
func wireSig32(f *Func) string {
	ps := make([]string, len(f.Params))
	for i, p := range f.Params {
		t := "i32"
		if acl32Is64(p) {
			t = "i64"
		}
		ps[i] = p.Name + " " + t
	}
	return f.Name + "(" + strings.Join(ps, ", ") + ") -> i32"
}

// cWrapper writes the wide profile's wrapper of f, and in C a macro of the
// same name that refuses pointers where f takes an address or an 8-byte
// out-parameter.
func cWrapper(b *buf, f *Func) error {
	ps, err := cParams(f, cWide)
	if err != nil {
		return err
	}
	doc := wrap(f.Doc, 76)
	doc = append(doc, "", "Wire: "+wireSig(f))
	cDoc(b, "", doc...)
	b.p("static inline aclError %s(%s)\n{\n", f.Name, ps)
	args := make([]string, len(f.Params))
	for i, p := range f.Params {
		args[i] = cArg(p)
	}
	if launchesCallback(f) {
		b.l("    ACLWASM_LINK_DISPATCHER_();")
	}
	b.p("    return (aclError)%s%s(%s);\n}\n", cRawPrefix, f.Name, strings.Join(args, ", "))
	names := make([]string, len(f.Params))
	checked := make([]string, len(f.Params))
	guarded := false
	for i, p := range f.Params {
		names[i] = p.Name
		checked[i] = p.Name
		what := fmt.Sprintf(`"%s: %s:"`, f.Name, p.Name)
		switch p.Sem {
		case Ptr:
			checked[i] = fmt.Sprintf("ACLWASM_ADDR_(%s, %s)", p.Name, what)
			guarded = true
		case OutPtr, OutSize, PtrArray, SizeArray:
			checked[i] = fmt.Sprintf("ACLWASM_U64P_(%s, %s)", p.Name, what)
			guarded = true
		}
	}
	if guarded {
		b.l("#ifndef __cplusplus")
		b.p("#define %s(%s) %s(%s)\n", f.Name, strings.Join(names, ", "), f.Name, strings.Join(checked, ", "))
		b.l("#endif")
	}
	b.l("")
	return nil
}

// cNativeDecl writes f's native declaration as its acl32 import, or for a
// function that launches a callback, the SDK function over that import
// that links the dispatcher.
func cNativeDecl(b *buf, f *Func) error {
	ps, err := cParams(f, cNative)
	if err != nil {
		return err
	}
	if err := cCheckNative(f); err != nil {
		return err
	}
	doc := wrap(f.Doc, 76)
	doc = append(doc, "", "Wire ("+cModule32+"): "+wireSig32(f))
	if !launchesCallback(f) {
		cDoc(b, "", doc...)
		b.p("__attribute__((import_module(\"%s\"), import_name(\"%s\")))\n", cModule32, f.Name)
		b.p("aclError %s(%s);\n\n", f.Name, ps)
		return nil
	}
	doc = append(doc, "", "An SDK function over that import: it links the callback dispatcher from",
		"libaclwasm.a (see aclwasm_dispatch_callback).")
	cDoc(b, "", doc...)
	args := make([]string, len(f.Params))
	for i, p := range f.Params {
		args[i] = cArg32(p)
	}
	b.p("static inline aclError %s(%s)\n{\n    ACLWASM_LINK_DISPATCHER_();\n", f.Name, ps)
	b.p("    return (aclError)%s%s(%s);\n}\n\n", cRawPrefix, f.Name, strings.Join(args, ", "))
	return nil
}

// launchesCallback reports whether f takes a guest function that the host
// later runs through the dispatcher (ABI section 12): the SDK's form of f
// references the dispatcher, so that only modules that launch a callback
// link it.
func launchesCallback(f *Func) bool {
	for _, p := range f.Params {
		if p.Sem == HostFn {
			return true
		}
	}
	return false
}

// cArg32 converts a native-layout argument to its raw acl32 type.
func cArg32(p Param) string {
	switch p.Sem {
	case Ptr, Size:
		if !acl32Is64(p) {
			return "(uint32_t)(uintptr_t)" + p.Name
		}
	}
	return cArg(p)
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

// cFuncs writes the functions of the groups keep selects: the native
// declarations, then the wide profile's wrappers.
func cFuncs(b *buf, m *model, keep func(*Func) bool) error {
	for _, pr := range []cProfile{cNative, cWide} {
		if pr == cNative {
			b.l("#ifndef ACLWASM_WIDE", "", "/* The native layout: each function is its "+cModule32+" import, with the native signature. */", "")
		} else {
			b.l("#else /* ACLWASM_WIDE */", "", "/* The wide profile: aclrtPtr addresses and uint64_t sizes over the \""+abi.Module+"\" imports. */", "")
		}
		group := abi.Group("")
		for i := range m.funcs {
			f := &m.funcs[i]
			if !keep(f) || f.Name == cAppLog {
				continue
			}
			if f.Group != group {
				group = f.Group
				b.p("/* ---- %s ---- */\n\n", group)
			}
			var err error
			if pr == cNative {
				err = cNativeDecl(b, f)
			} else {
				err = cWrapper(b, f)
			}
			if err != nil {
				return err
			}
		}
	}
	b.l("#endif /* ACLWASM_WIDE */", "")
	return nil
}

func cRT(m *model) ([]byte, error) {
	var b buf
	const g = "ACLWASM_ACL_RT_H_"
	cOpen(&b, "acl_rt.h", g,
		"the runtime API of the guest ABI (memory copies, memory,",
		"devices, streams, events) with native names, enums and structs, laid out",
		"like the native header of the same name.",
		"",
		"By default every function has its native signature and is the import of",
		"module \""+cModule32+"\" (guest ABI section 9): native C and C++ sources compile",
		"unchanged for wasm32. With -DACLWASM_WIDE each function is a static inline",
		"wrapper over its import from \""+abi.Module+"\" with 64-bit addresses and sizes:",
		"- device and host addresses are aclrtPtr: use aclPtr(p) for guest memory; in C",
		"  a pointer passed where an aclrtPtr is expected is a compile error (C++ refuses",
		"  it by itself);",
		"- sizes are uint64_t: size_t arguments widen implicitly, and size_t arrays and",
		"  out-parameters (batch arrays, failIndex, descSize, free/total) are uint64_t.",
		"The SDK functions of the native API that are no imports (aclrtMallocHost, the",
		"aclDataBuffer family, ...) are in aclwasm_host.h, included at the end.")
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
	cDoc(&b, "", "An attribute of aclrtMallocWithCfg/aclrtMallocHostWithCfg, as natively.",
		"Each function accepts the ones the native runtime does (see them); a",
		"module id or VA flag has no meaning in the sandbox.")
	b.l("typedef enum {", "    ACL_RT_MEM_ATTR_RSV = 0,", "    ACL_RT_MEM_ATTR_MODULE_ID = 1,", "    ACL_RT_MEM_ATTR_DEVICE_ID = 2,", "    ACL_RT_MEM_ATTR_VA_FLAG = 3,", "} aclrtMallocAttrType;", "")
	b.l("typedef union {", "    uint16_t moduleId;", "    uint32_t deviceId;", "    uint32_t vaFlag;", "    uint8_t rsv[8];", "} aclrtMallocAttrValue;", "")
	b.l("typedef struct {", "    aclrtMallocAttrType attr;", "    aclrtMallocAttrValue value;", "} aclrtMallocAttribute;", "")
	b.l("typedef struct {", "    aclrtMallocAttribute *attrs;", "    size_t numAttrs;", "} aclrtMallocConfig;", "")
	b.l("/* The memory types of aclrtCheckMemType, as natively. */",
		"#define ACL_RT_MEM_TYPE_DEV (0X2U)", "#define ACL_RT_MEM_TYPE_DVPP (0X8U)", "#define ACL_RT_MEM_TYPE_RSVD (0X10U)", "")
	b.l("/* The failure modes of aclrtSetStreamFailureMode, as natively. */",
		"#define ACL_CONTINUE_ON_FAILURE 0x00000000U", "#define ACL_STOP_ON_FAILURE 0x00000001U", "")
	b.l("/* The flags of aclrtCreateStreamWithConfig, as natively. None changes what a",
		" * stream does in the sandbox: they are accepted and the trace names them. */")
	for f := acl.StreamFlag(1); f <= acl.StreamDeviceUseOnly; f <<= 1 {
		b.p("#define %s 0x%08XU\n", f, uint32(f))
	}
	b.l("")
	// Section 12 (v1.2): the flag names native notify and event code passes.
	b.l("/* The flags of aclrtCreateEventExWithFlag, as natively (ABI section 12 says",
		" * which the sandbox accepts). */",
		"#define ACL_EVENT_SYNC 0x00000001U", "#define ACL_EVENT_CAPTURE_STREAM_PROGRESS 0x00000002U",
		"#define ACL_EVENT_TIME_LINE 0x00000008U", "#define ACL_EVENT_DEVICE_USE_ONLY 0x00000010U",
		"#define ACL_EVENT_EXTERNAL 0x00000020U", "#define ACL_EVENT_IPC 0x00000040U", "")
	b.p("/* The flags of aclrtCreateNotify, as natively. */\n#define ACL_NOTIFY_DEFAULT 0x%08XU\n#define ACL_NOTIFY_DEVICE_USE_ONLY 0x%08XU\n\n",
		acl.NotifyDefault, acl.NotifyDeviceUseOnly)
	// aclrtGetErrorVerbose's struct: its native layout is the acl32 one
	// (ILP32, 1292 bytes); the wide profile's is LP64's (2576), which C on
	// wasm32 cannot declare, so there the argument stays a buffer.
	b.l("#ifndef ACLWASM_WIDE")
	cDoc(&b, "", "The fault kinds of aclrtErrorInfo, as natively.")
	b.l("typedef enum {")
	for _, t := range []acl.ErrorType{acl.ErrorTypeNone, acl.ErrorTypeMemory, acl.ErrorTypeL2, acl.ErrorTypeAicore, acl.ErrorTypeLink, acl.ErrorTypeL3Port, acl.ErrorTypeOthers} {
		if t >= 0x100 {
			b.p("    %s = 0x%X,\n", t, uint32(t))
		} else {
			b.p("    %s = %d,\n", t, uint32(t))
		}
	}
	b.l("} aclrtErrorType;", "")
	b.l("typedef enum aclrtAicoreErrorType {", "    ACL_RT_AICORE_ERROR_UNKNOWN,", "    ACL_RT_AICORE_ERROR_SW,",
		"    ACL_RT_AICORE_ERROR_HW_LOCAL,", "} aclrtAicoreErrorType;", "")
	b.l("#define MAX_MEM_UCE_INFO_ARRAY_SIZE 128", "#define UCE_INFO_RESERVED_SIZE 14", "#define ACL_RT_MEM_UCE_INFO_MAX_NUM 20", "")
	b.l("typedef struct aclrtMemUceInfo {", "    void *addr;", "    size_t len;", "    size_t reserved[UCE_INFO_RESERVED_SIZE];", "} aclrtMemUceInfo;", "")
	b.l("typedef struct {", "    size_t arraySize;", "    aclrtMemUceInfo memUceInfoArray[ACL_RT_MEM_UCE_INFO_MAX_NUM];", "} aclrtMemUceInfoArray;", "")
	b.l("typedef union aclrtErrorInfoDetail {", "    aclrtMemUceInfoArray uceInfo;", "    aclrtAicoreErrorType aicoreErrType;", "} aclrtErrorInfoDetail;", "")
	cDoc(&b, "", "What aclrtGetErrorVerbose writes, in the native layout (acl32 only: with",
		"-DACLWASM_WIDE the function takes a buffer of the LP64 size, 2576 bytes).")
	b.l("typedef struct aclrtErrorInfo {", "    uint8_t tryRepair;", "    uint8_t hasDetail;", "    uint8_t reserved[2];",
		"    aclrtErrorType errorType;", "    aclrtErrorInfoDetail detail;", "} aclrtErrorInfo;", "")
	b.p("ACLWASM_STATIC_ASSERT(sizeof(aclrtErrorInfo) == %d, \"native layout\");\n", acl.ErrorInfoSize32)
	b.l("#endif /* !ACLWASM_WIDE */", "")
	// aclrtCreateStreamV2's configuration (ABI v1.3 section 15), in the
	// profile's layout: the wide profile's address and sizes are 64-bit.
	cDoc(&b, "", "The stream states of aclrtRegStreamStateCallback, as natively.")
	b.l("typedef enum {", "    ACL_RT_STREAM_STATE_CREATE_POST = 1,", "    ACL_RT_STREAM_STATE_DESTROY_PRE,", "} aclrtStreamState;", "")
	b.l("typedef void (*aclrtStreamStateCallback)(aclrtStream stm, aclrtStreamState state, void *args);", "")
	cDoc(&b, "", "The attributes aclrtSetStreamConfigOpt sets, as natively.")
	b.l("typedef enum {", "    ACL_RT_STREAM_WORK_ADDR_PTR = 0,", "    ACL_RT_STREAM_WORK_SIZE,", "    ACL_RT_STREAM_FLAG,",
		"    ACL_RT_STREAM_PRIORITY,", "} aclrtStreamConfigAttr;", "")
	cDoc(&b, "", "A stream's configuration for aclrtCreateStreamV2, in the native layout (with",
		"-DACLWASM_WIDE the work area is an aclrtPtr and the sizes are uint64_t). The",
		"SDK functions of aclwasm_host.h make and fill one in guest memory.")
	b.l("typedef struct aclrtStreamConfigHandle {", "    aclrtPtr workptr;", "#ifdef ACLWASM_WIDE", "    uint64_t workSize;", "    uint64_t flag;",
		"#else", "    size_t workSize;", "    size_t flag;", "#endif", "    uint32_t priority;", "} aclrtStreamConfigHandle;", "")
	b.p("#ifdef ACLWASM_WIDE\nACLWASM_STATIC_ASSERT(sizeof(aclrtStreamConfigHandle) == %d, \"native layout\");\n#else\n", acl.StreamConfigSize(8))
	b.p("ACLWASM_STATIC_ASSERT(sizeof(aclrtStreamConfigHandle) == %d, \"native layout\");\n#endif\n", acl.StreamConfigSize(4))
	// aclrtGetDeviceUtilizationRate's struct (ABI v1.3): the same layout in
	// both profiles, a wasm32 pointer being 4 bytes in either.
	b.l("typedef struct aclrtUtilizationExtendInfo aclrtUtilizationExtendInfo;", "")
	cDoc(&b, "", "What aclrtGetDeviceUtilizationRate fills, as natively: percentages, -1 for a unit",
		"not measured (the sandbox measures none). utilizationExtend is reserved and must be NULL.")
	b.l("typedef struct aclrtUtilizationInfo {", "    int32_t cubeUtilization;", "    int32_t vectorUtilization;",
		"    int32_t aicpuUtilization;", "    int32_t memoryUtilization;", "    aclrtUtilizationExtendInfo *utilizationExtend;", "} aclrtUtilizationInfo;", "")
	b.p("ACLWASM_STATIC_ASSERT(sizeof(aclrtUtilizationInfo) == %d, \"native layout\");\n\n", acl.UtilizationInfoSize32)
	// aclrtRandomNumAsync's task (ABI v1.3 section 15), in the profile's
	// layout: the wide profile's addresses are aclrtPtr.
	cDoc(&b, "", "The distributions of aclrtRandomNumAsync, as natively.")
	b.l("typedef enum {", "    ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK = 0,", "    ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS,",
		"    ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS,", "    ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS,", "} aclrtRandomNumFuncType;", "")
	cDoc(&b, "", "One parameter of a random task: a value of the task's type (isAddr 0) in",
		"valueOrAddr, of which size bytes count. The sandbox takes values only.")
	b.l("typedef struct {", "    uint8_t isAddr;", "    uint8_t valueOrAddr[8];", "    uint8_t size;", "    uint8_t rsv[6];", "} aclrtRandomParaInfo;", "")
	b.l("typedef struct { aclrtRandomParaInfo dropoutRation; } aclrtDropoutBitmaskInfo;",
		"typedef struct { aclrtRandomParaInfo min; aclrtRandomParaInfo max; } aclrtUniformDisInfo;",
		"typedef struct { aclrtRandomParaInfo mean; aclrtRandomParaInfo stddev; } aclrtNormalDisInfo;", "")
	b.l("typedef struct {", "    aclrtRandomNumFuncType funcType;", "    union {", "        aclrtDropoutBitmaskInfo dropoutBitmaskInfo;",
		"        aclrtUniformDisInfo uniformDisInfo;", "        aclrtNormalDisInfo normalDisInfo;", "    } paramInfo;", "} aclrtRandomNumFuncParaInfo;", "")
	cDoc(&b, "", "The task of aclrtRandomNumAsync, in the native layout (with -DACLWASM_WIDE",
		"the three addresses are aclrtPtr). The ACL layer writes its own code for",
		"dataType over the caller's, as natively.")
	b.l("typedef struct {", "    aclDataType dataType;", "    aclrtRandomNumFuncParaInfo randomNumFuncParaInfo;",
		"    aclrtPtr randomParaAddr;", "    aclrtPtr randomResultAddr;", "    aclrtPtr randomCounterAddr;",
		"    aclrtRandomParaInfo randomSeed;", "    aclrtRandomParaInfo randomNum;", "    uint8_t rsv[8];", "} aclrtRandomNumTaskInfo;", "")
	b.p("#ifdef ACLWASM_WIDE\nACLWASM_STATIC_ASSERT(sizeof(aclrtRandomNumTaskInfo) == %d, \"native layout\");\n#else\n", acl.RandomTaskSize(8))
	b.p("ACLWASM_STATIC_ASSERT(sizeof(aclrtRandomNumTaskInfo) == %d, \"native layout\");\n#endif\n", acl.RandomTaskSize(4))
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
		{"sizeof(aclrtMallocAttribute)", 12},
		{"sizeof(aclrtMallocConfig)", 8},
	} {
		b.p("ACLWASM_STATIC_ASSERT(%s == %d, \"native layout\");\n", a.expr, a.v)
	}
	b.l("")
	if err := cFuncs(&b, m, func(f *Func) bool { return f.Group != abi.Runtime }); err != nil {
		return nil, err
	}
	if err := cKernel(&b, m); err != nil {
		return nil, err
	}
	cEndExternC(&b)
	b.l(`#include "aclwasm_host.h"`, "")
	cClose(&b, g, false)
	return b.Bytes(), nil
}

func cACL(m *model) ([]byte, error) {
	var b buf
	const g = "ACLWASM_ACL_H_"
	cOpen(&b, "acl.h", g,
		"the header an aclwasm C/C++ guest includes: everything of",
		"acl_base.h and acl_rt.h, plus initialization and the version, as natively.")
	b.l(`#include "acl_base.h"`, `#include "acl_rt.h"`, "")
	cExternC(&b)
	b.p("#define ACL_MAJOR_VERSION %d\n#define ACL_MINOR_VERSION %d\n#define ACL_PATCH_VERSION %d\n\n",
		acl.VersionMajor, acl.VersionMinor, acl.VersionPatch)
	if err := cFuncs(&b, m, func(f *Func) bool { return f.Group == abi.Runtime && !f.ReturnsLength() }); err != nil {
		return nil, err
	}
	if m.lookup("aclGetCannAttribute") != nil {
		cDoc(&b, "",
			"Points *cannAttrList at the CANN attributes available on this host and writes",
			"their number to *num, as natively: an SDK function over aclGetCannAttribute",
			"(ABI v1.3). The list lives in a static array (one per translation unit).")
		b.l("static inline aclError aclGetCannAttributeList(const aclCannAttr **cannAttrList, size_t *num)",
			"{",
			fmt.Sprintf("    static aclCannAttr list[%d];", len(acl.CannAttrs)),
			"    if (cannAttrList == NULL || num == NULL) {",
			"        return ACL_ERROR_INVALID_PARAM;",
			"    }",
			"    size_t n = 0;")
		for _, a := range acl.CannAttrs {
			b.l("    {",
				"        int32_t v = 0;",
				"        aclError rc = aclGetCannAttribute("+a.String()+", &v);",
				"        if (rc != ACL_SUCCESS) {",
				"            return rc;",
				"        }",
				"        if (v == 1) {",
				"            list[n++] = "+a.String()+";",
				"        }",
				"    }")
		}
		b.l("    *cannAttrList = list;", "    *num = n;", "    return ACL_SUCCESS;", "}", "")
	}
	cClose(&b, g, true)
	return b.Bytes(), nil
}

// cAppLog is the import whose native form is a variadic SDK function
// (aclAppLog formats guest-side), not the import itself.
const cAppLog = "aclAppLog"

func (m *model) lookup(name string) *Func {
	for i := range m.funcs {
		if m.funcs[i].Name == name {
			return &m.funcs[i]
		}
	}
	return nil
}

// cAppLogSDK writes the native aclAppLog and ACL_APP_LOG: the message is
// formatted in the guest (vsnprintf), then the import logs it.
func cAppLogSDK(b *buf, f *Func) {
	b.l("#if defined(__has_include)", "#if __has_include(<stdio.h>) && __has_include(<stdarg.h>)", "#define ACLWASM_HAVE_STDIO_ 1", "#endif", "#endif", "")
	b.l("#ifndef ACLWASM_APPLOG_SIZE",
		"/** Capacity of aclAppLog's formatted message; define before including to change it (at most 4096). */",
		"#define ACLWASM_APPLOG_SIZE 1024",
		"#endif", "")
	b.l("#ifdef ACLWASM_HAVE_STDIO_", "#include <stdarg.h>", "#include <stdio.h>", "")
	cDoc(b, "",
		"Logs a message as the plugin's own, at logLevel, with the function, file and",
		"line it comes from, as natively. The message is formatted here (vsnprintf,",
		"truncated to ACLWASM_APPLOG_SIZE-1 bytes) and handed to the import",
		wireSig(f)+".",
		"Use ACL_APP_LOG, which fills in func, file and line.")
	b.l("static inline void aclAppLog(aclLogLevel logLevel, const char *func, const char *file, uint32_t line, const char *fmt, ...)",
		"{",
		"    char msg[ACLWASM_APPLOG_SIZE];",
		"    va_list ap;",
		"    va_start(ap, fmt);",
		"    vsnprintf(msg, sizeof msg, fmt, ap);",
		"    va_end(ap);",
		"    (void)"+cRawPrefix+f.Name+"((int32_t)logLevel, func, file, (int32_t)line, msg);",
		"}",
		"#else",
		"void aclAppLog(aclLogLevel logLevel, const char *func, const char *file, uint32_t line, const char *fmt, ...)",
		`    __attribute__((unavailable("aclAppLog formats with vsnprintf: build with wasi-libc (--target=wasm32-wasi), or call `+cRawPrefix+f.Name+` with a formatted message")));`,
		"#endif", "")
	b.l("/** Logs a formatted message with the caller's function, file and line, as natively. */",
		"#define ACL_APP_LOG(level, fmt, ...) aclAppLog(level, __FUNCTION__, __FILE__, __LINE__, fmt, ##__VA_ARGS__)", "")
}
