package gen

import (
	"fmt"
	"strings"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// The C SDK's acl/acl_mdl.h (ABI section 13.4), laid out as the native
// header so that inference programs compile unchanged. Each function of
// the table's Model group is an import under the SDK's own name
// (aclwasm_imp_<name>_, wire types of the profile: from "acl32" by
// default, from "acl" with -DACLWASM_WIDE) and a static inline function
// of the native name and signature that calls it: a wide size_t is a
// uint64_t on the wire, a name is returned as the native const char *
// (kept by the SDK, as natively by the description).

const mdlHeader = "c/include/acl/acl_mdl.h"

// genMdl writes acl/acl_mdl.h.
func genMdl(m *model, out map[string][]byte) error {
	var b buf
	g := nnGuard("acl/acl_mdl.h")
	cOpen(&b, "acl_mdl.h", g, "models the host approved (aclmdl), laid out like the native",
		"header of the same name. aclmdlLoadFromFile names a model the embedder",
		"approved (--model NAME=FILE); no file the guest names is opened. Data",
		"buffers are the SDK's aclDataBuffer of acl_base.h.")
	b.l(`#include <stddef.h>`, `#include <stdint.h>`, `#include "acl/acl.h"`, "")
	cExternC(&b)
	b.p("#define ACL_MAX_DIM_CNT %d\n", acl.MaxDimCount)
	b.p("#define ACL_MAX_TENSOR_NAME_LEN %d\n\n", acl.MaxTensorNameLen)
	b.l("#ifndef ACLWASM_ACL_FORMAT_DEFINED_", "#define ACLWASM_ACL_FORMAT_DEFINED_")
	cDoc(&b, "", "The memory layout of a tensor (natively in acl/acl_base.h).")
	b.l("typedef enum {")
	for _, f := range acl.Formats {
		b.p("    %s = %d,\n", f, int32(f))
	}
	b.l("} aclFormat;", "#endif", "")
	b.l("typedef struct aclmdlDesc aclmdlDesc;", "typedef struct aclmdlDataset aclmdlDataset;", "")
	cDoc(&b, "", fmt.Sprintf("The name and dims of a model input or output: %d bytes in both profiles", acl.IODimsSize),
		"(dimCount's 4 bytes are followed by 4 of padding in wasm32; the host writes 8 there in the wide profile).")
	b.l("typedef struct aclmdlIODims {", "    char name[ACL_MAX_TENSOR_NAME_LEN];", "    size_t dimCount;", "    int64_t dims[ACL_MAX_DIM_CNT];", "} aclmdlIODims;", "")
	b.l("#ifdef __cplusplus")
	b.p("static_assert(sizeof(aclmdlIODims) == %d, \"aclmdlIODims\");\n", acl.IODimsSize)
	b.l("#else")
	b.p("_Static_assert(sizeof(aclmdlIODims) == %d, \"aclmdlIODims\");\n", acl.IODimsSize)
	b.l("#endif", "")
	for _, f := range m.mdl {
		if err := mdlDecl(&b, f); err != nil {
			return err
		}
	}
	cClose(&b, g, true)
	out[mdlHeader] = b.Bytes()
	return nil
}

// mdlTypes returns a parameter's native C type and its wire C type in
// profile wide.
func mdlTypes(f *abi.Func, q abi.Param, wide bool) (native, wire string, err error) {
	sz := "size_t"
	if wide {
		sz = "uint64_t"
	}
	switch {
	case q.Native != "":
		native = q.Native
	case q.Type == abi.Addr:
		native = "aclwasmDevPtr_"
	case q.Type == abi.Size:
		native = "size_t"
	case q.Type == abi.I32 && q.Kind == abi.Uint:
		native = "uint32_t"
	case q.Type == abi.Handle && q.Kind == abi.StreamHandle:
		native = "aclrtStream"
	case q.Type == abi.Handle:
		native = q.Kind.String() + " *"
	case q.Type == abi.Gptr && q.Kind == abi.CString:
		native = "const char *"
	case q.Type == abi.Gptr && q.Kind == abi.Uint:
		native = "uint32_t *"
	case q.Type == abi.Gptr && q.Elem == abi.Size:
		native = "size_t *"
	case q.Type == abi.Gptr && q.Kind == abi.IODims:
		native = "aclmdlIODims *"
	case q.Type == abi.Gptr && q.Kind == abi.Bytes && q.Dir == abi.Out:
		native = "char *"
	default:
		return "", "", fmt.Errorf("gen: %s parameter %s has no C type in mdl.go", f.Name, q.Name)
	}
	wire = native
	switch {
	case q.Type == abi.Size:
		wire = sz
	case q.Type == abi.Gptr && q.Elem == abi.Size:
		wire = sz + " *"
	}
	return native, wire, nil
}

// mdlResult is f's native C result type.
func mdlResult(f *abi.Func) string {
	switch {
	case f.Result == abi.Uint && strings.Contains(f.Name, "NameByIndex"):
		return "const char *"
	case f.Result == abi.Uint:
		return "size_t"
	case f.Result == abi.Int && strings.HasSuffix(f.Name, "Format"):
		return "aclFormat"
	case f.Result == abi.Int:
		return "aclDataType"
	case f.Result == abi.DataBuffer:
		return "aclDataBuffer *"
	case f.Result == abi.StampHandle: // acl_prof.h's (prof.go): a void *, as natively
		return "void *"
	case f.Result != 0:
		return f.Result.String() + " *"
	}
	return "aclError"
}

// mdlDecl declares f's import in both profiles and its native function.
func mdlDecl(b *buf, f *abi.Func) error {
	imp := "aclwasm_imp_" + f.Name + "_"
	ret := mdlResult(f)
	wireRet := ret
	if ret == "const char *" || ret == "size_t" {
		wireRet = "uint32_t"
	}
	var natives, names []string
	for _, wide := range []bool{false, true} {
		module := abi.Module32
		if wide {
			module = abi.Module
			b.l("#else")
		} else {
			b.l("#ifndef ACLWASM_WIDE")
		}
		var ps []string
		for _, q := range f.Params {
			n, w, err := mdlTypes(f, q, wide)
			if err != nil {
				return err
			}
			ps = append(ps, cDecl(w, q.Name))
			if !wide {
				natives = append(natives, cDecl(n, q.Name))
				names = append(names, q.Name)
			}
		}
		if len(ps) == 0 {
			ps = []string{"void"}
		}
		b.p("__attribute__((import_module(\"%s\"), import_name(\"%s\")))\n", module, f.Name)
		b.p("%s%s(%s);\n", cDecl(wireRet, ""), imp, strings.Join(ps, ", "))
	}
	b.l("#endif", "")
	cDoc(b, "", wrap(f.Doc, 76)...)
	if ret == "const char *" { // the name functions: the SDK keeps each name
		b.p("static inline const char *%s(const aclmdlDesc *modelDesc, size_t index)\n{\n", f.Name)
		b.l("    static struct aclwasmMdlName_ {",
			"        const aclmdlDesc *desc;",
			"        size_t index;",
			"        char *name;",
			"        struct aclwasmMdlName_ *next;",
			"    } *names;",
			"    for (struct aclwasmMdlName_ *p = names; p != NULL; p = p->next) {",
			"        if (p->desc == modelDesc && p->index == index) {",
			"            return p->name;",
			"        }",
			"    }")
		b.p("    uint32_t n = %s((aclmdlDesc *)modelDesc, index, NULL, 0);\n", imp)
		b.l("    if (n == 0) {", "        return NULL;", "    }",
			"    struct aclwasmMdlName_ *p = (struct aclwasmMdlName_ *)ACL_HOST_ALLOC(sizeof(struct aclwasmMdlName_));",
			"    char *s = (char *)ACL_HOST_ALLOC((size_t)n + 1);",
			"    if (p == NULL || s == NULL) {",
			"        return NULL;",
			"    }")
		b.p("    %s((aclmdlDesc *)modelDesc, index, s, (size_t)n + 1);\n", imp)
		b.l("    p->desc = modelDesc;", "    p->index = index;", "    p->name = s;", "    p->next = names;", "    names = p;", "    return s;", "}", "")
		return nil
	}
	if len(natives) == 0 {
		natives = []string{"void"}
	}
	b.p("static inline %s%s(%s)\n{\n", cDecl(ret, ""), f.Name, strings.Join(natives, ", "))
	// A wide size_t out-parameter is 8 bytes on the wire: through a local.
	var pre, post []string
	args := make([]string, len(names))
	for i, q := range f.Params {
		args[i] = names[i]
		if strings.HasSuffix(natives[i], "*") || strings.Contains(natives[i], "*") {
			args[i] = "(" + strings.TrimPrefix(strings.TrimSpace(strings.TrimSuffix(natives[i], names[i])), "const ") + ")" + names[i]
			if strings.HasPrefix(natives[i], "const char") || q.Kind == abi.CString {
				args[i] = names[i]
			}
		}
		if q.Type == abi.Gptr && q.Elem == abi.Size {
			pre = append(pre, fmt.Sprintf("    uint64_t %s_ = 0;", q.Name))
			args[i] = fmt.Sprintf("%s == NULL ? NULL : &%s_", q.Name, q.Name)
			post = append(post, fmt.Sprintf("    if (%s != NULL && r == 0) {", q.Name), fmt.Sprintf("        *%s = (size_t)%s_;", q.Name, q.Name), "    }")
		}
	}
	if len(pre) > 0 {
		b.l("#ifdef ACLWASM_WIDE")
		b.l(pre...)
		b.p("    aclError r = %s(%s);\n", imp, strings.Join(args, ", "))
		b.l(post...)
		b.l("    return r;", "#else")
		b.p("    return %s(%s);\n", imp, strings.Join(names, ", "))
		b.l("#endif", "}", "")
		return nil
	}
	cast := ""
	if ret != wireRet {
		cast = "(" + ret + ")"
	}
	b.p("    return %s%s(%s);\n}\n\n", cast, imp, strings.Join(args, ", "))
	return nil
}
