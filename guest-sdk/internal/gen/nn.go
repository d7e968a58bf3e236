package gen

import (
	"fmt"
	"strings"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/aclnn"
)

// The C SDK's operator-library headers (ABI section 13.2), laid out as
// the native ones so that a program's includes compile unchanged:
// aclnn/acl_meta.h (the objects), aclnn/aclnn_base.h (executors) and one
// header per operator, at the path its aclnn.Ops row names
// (aclnnop/aclnn_add.h). Every function is declared with its native
// signature as its import: from "acl32" by default, from "acl" with
// -DACLWASM_WIDE, where a void * device address is an aclrtPtr. Object
// pointers are handles on the wire, as wasm32 pointers are 32 bits.

// genNN writes the headers.
func genNN(m *model, out map[string][]byte) error {
	const dir = "c/include/"
	var meta, base []*abi.Func
	ops := map[string][]*abi.Func{}
	for _, f := range m.nn {
		switch {
		case f.Group == abi.Operator:
			ops[f.Op] = append(ops[f.Op], f)
		case strings.Contains(f.Name, "Executor"):
			base = append(base, f)
		default:
			meta = append(meta, f)
		}
	}
	b, err := nnMeta(meta)
	if err != nil {
		return err
	}
	out[dir+"aclnn/acl_meta.h"] = b
	if b, err = nnBase(base); err != nil {
		return err
	}
	out[dir+"aclnn/aclnn_base.h"] = b
	// Operators that share a native header (Add and Adds in
	// aclnn_add.h) are declared together, in the table's order.
	var headers []string
	byHeader := map[string][]*aclnn.Op{}
	for _, o := range aclnn.Ops {
		if !strings.HasPrefix(o.Header, "aclnnop/") || !strings.HasSuffix(o.Header, ".h") {
			return fmt.Errorf("gen: operator %s: header %q is not aclnnop/<name>.h", o.Name, o.Header)
		}
		if byHeader[o.Header] == nil {
			headers = append(headers, o.Header)
		}
		byHeader[o.Header] = append(byHeader[o.Header], o)
	}
	for _, h := range headers {
		if b, err = nnOps(h, byHeader[h], ops); err != nil {
			return err
		}
		out[dir+h] = b
	}
	return nil
}

// nnGuard is the include guard of a header path.
func nnGuard(path string) string {
	return "ACLWASM_" + strings.ToUpper(strings.NewReplacer("/", "_", ".", "_").Replace(path)) + "_"
}

// nnType is a parameter's C type in profile wide (an address is an
// aclrtPtr there) or the native layout.
func nnType(q abi.Param, wide bool) (string, error) {
	switch {
	case q.Type == abi.Addr && wide:
		return "aclrtPtr", nil
	case q.Native != "":
		return q.Native, nil
	case q.Type == abi.Addr:
		return "void *", nil
	case q.Type == abi.U64:
		return "uint64_t", nil
	case q.Enum != nil:
		return q.Enum.C, nil
	case q.Type == abi.Handle && q.Kind.IsObject():
		return q.Kind.String() + " *", nil
	case q.Type == abi.Gptr && q.Dir == abi.Out && q.Elem == abi.U64:
		return "uint64_t *", nil
	case q.Type == abi.Gptr && q.Dir == abi.In && q.Kind.IsObject():
		return "const " + q.Kind.String() + " *const *", nil
	}
	return "", fmt.Errorf("gen: parameter %s (%s, kind %v) has no C type in nn.go", q.Name, q.Type, q.Kind)
}

// nnDecl declares f in both profiles.
func nnDecl(b *buf, f *abi.Func) error {
	ret := "aclnnStatus"
	if f.Result != 0 {
		ret = f.Result.String() + " *"
	}
	for _, wide := range []bool{false, true} {
		module := abi.Module32
		if wide {
			module = abi.Module
			b.l("#else")
		} else {
			cDoc(b, "", wrap(f.Doc, 76)...)
			b.l("#ifndef ACLWASM_WIDE")
		}
		ps := make([]string, len(f.Params))
		for i, q := range f.Params {
			t, err := nnType(q, wide)
			if err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
			ps[i] = cDecl(t, q.Name)
		}
		b.p("__attribute__((import_module(\"%s\"), import_name(\"%s\")))\n", module, f.Name)
		b.p("%s%s(%s);\n", cDecl(ret, ""), f.Name, strings.Join(ps, ", "))
	}
	b.l("#endif", "")
	return nil
}

func nnMeta(fs []*abi.Func) ([]byte, error) {
	var b buf
	const path = "aclnn/acl_meta.h"
	g := nnGuard(path)
	cOpen(&b, path, g, "the operator library's objects (tensors, scalars, arrays,",
		"tensor lists), laid out like the native header of the same name. Each is a",
		"handle of the sandbox behind an opaque pointer: never dereference one.",
		"A tensor's storage must lie in one device allocation of the plugin",
		"(aclrtMalloc): aclCreateTensor returns NULL otherwise, and",
		"aclGetRecentErrMsg says why.")
	b.l("#include <stdbool.h>", "#include <stdint.h>", `#include "acl/acl.h"`, "")
	cExternC(&b)
	cDoc(&b, "", "The result of the operator library's functions: ACLNN_SUCCESS (0) or a code.")
	b.l("typedef int32_t aclnnStatus;", "")
	for _, c := range []struct {
		name string
		v    acl.Error
	}{
		{"ACLNN_SUCCESS", 0}, {"ACLNN_ERR_PARAM_NULLPTR", acl.ErrNNParamNullptr}, {"ACLNN_ERR_PARAM_INVALID", acl.ErrNNParamInvalid},
		{"ACLNN_ERR_RUNTIME_ERROR", acl.ErrNNRuntime}, {"ACLNN_ERR_INNER", acl.ErrNNInner}, {"ACLNN_ERR_INNER_NULLPTR", acl.ErrNNInnerNullptr},
	} {
		b.p("#define %s %d\n", c.name, int32(c.v))
	}
	b.l("")
	b.l("#ifndef ACLWASM_ACL_FORMAT_DEFINED_", "#define ACLWASM_ACL_FORMAT_DEFINED_")
	cDoc(&b, "", "The memory layout a tensor declares (natively in acl/acl_base.h).")
	b.l("typedef enum {")
	for _, f := range acl.Formats {
		b.p("    %s = %d,\n", f, int32(f))
	}
	b.l("} aclFormat;", "#endif", "")
	for _, k := range []abi.Kind{abi.TensorHandle, abi.ScalarHandle, abi.IntArrayHandle, abi.FloatArrayHandle, abi.BoolArrayHandle, abi.TensorListHandle} {
		b.p("typedef struct %s %s;\n", k, k)
	}
	b.l("")
	for _, f := range fs {
		if err := nnDecl(&b, f); err != nil {
			return nil, err
		}
	}
	cClose(&b, g, true)
	return b.Bytes(), nil
}

func nnBase(fs []*abi.Func) ([]byte, error) {
	var b buf
	const path = "aclnn/aclnn_base.h"
	g := nnGuard(path)
	cOpen(&b, path, g, "the operator library's executors, laid out like the native",
		"header of the same name. aclnnXxxGetWorkspaceSize makes an executor; aclnnXxx",
		"runs it once, unless aclSetAclOpExecutorRepeatable made it repeatable.")
	b.l(`#include "aclnn/acl_meta.h"`, "")
	cExternC(&b)
	b.l("typedef struct aclOpExecutor aclOpExecutor;", "")
	for _, f := range fs {
		if err := nnDecl(&b, f); err != nil {
			return nil, err
		}
	}
	cClose(&b, g, true)
	return b.Bytes(), nil
}

func nnOps(path string, os []*aclnn.Op, fns map[string][]*abi.Func) ([]byte, error) {
	var b buf
	g := nnGuard(path)
	var names []string
	for _, o := range os {
		names = append(names, "aclnn"+o.Name)
	}
	about := []string{strings.Join(names, ", ") + ", as the native header of the same name declares them."}
	for _, o := range os {
		about = append(about, "")
		about = append(about, wrap(o.Name+": "+o.Doc, 76)...)
	}
	cOpen(&b, path, g, about...)
	b.l(`#include "aclnn/aclnn_base.h"`, "")
	cExternC(&b)
	for _, o := range os {
		fs := fns[o.Name]
		if len(fs) != 2 {
			return nil, fmt.Errorf("gen: operator %s has %d functions in the ABI table, want 2", o.Name, len(fs))
		}
		for _, f := range fs {
			if err := nnDecl(&b, f); err != nil {
				return nil, err
			}
		}
	}
	cClose(&b, g, true)
	return b.Bytes(), nil
}
