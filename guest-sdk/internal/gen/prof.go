package gen

import (
	"bytes"
	"fmt"
)

// The C SDK's acl/acl_prof.h (ABI v1.3 section 15): the profiling markers,
// laid out as the native header so that programs that mark their work
// compile unchanged. Each function of the table's Prof group is declared
// as mdl.go declares a model function (an import under the SDK's own name,
// a static inline function of the native name). A stamp is a void *, as
// natively; aclprofDestroyStamp returns void natively, so its function
// drops the code the wire returns; aclprofStr2Id returns the id natively,
// so its function returns what the wire wrote (UINT64_MAX on an error).

const profHeader = "c/include/acl/acl_prof.h"

// profVoid lists the functions whose native result is void.
var profVoid = map[string]bool{"aclprofDestroyStamp": true}

// profID lists the functions whose native result is the id the wire
// writes to its last parameter.
var profID = map[string]bool{"aclprofStr2Id": true}

// genProf writes acl/acl_prof.h.
func genProf(m *model, out map[string][]byte) error {
	var b buf
	g := nnGuard("acl/acl_prof.h")
	cOpen(&b, "acl_prof.h", g, "the profiling markers (aclprof stamps and ranges), laid out like",
		"the native header of the same name. No profiler runs: the host records each",
		"marker in the session's trace (and as an OpenTelemetry span event).")
	b.l(`#include <stddef.h>`, `#include <stdint.h>`, `#include "acl/acl.h"`, "")
	cExternC(&b)
	b.l("#ifndef ACL_PROF_TENSOR_DATA_SHAPE_LEN", "#define ACL_PROF_TENSOR_DATA_SHAPE_LEN 8", "#endif", "")
	b.l("typedef enum { ACL_PROF_MESSAGE_TYPE_TENSOR_INFO = 0 } aclprofMessageType;", "")
	cDoc(&b, "", "The event attributes of aclprofRangePushEx, as natively: define",
		"ACL_PROF_TENSOR_INFO_DEFINED before including this header to keep your own.",
		"The host reads version, size and messageType.")
	b.l("#ifndef ACL_PROF_TENSOR_INFO_DEFINED", "#define ACL_PROF_TENSOR_INFO_DEFINED", "",
		"#define ACL_PROF_EVENT_ATTR_VERSION 1", "",
		"typedef struct aclprofTensor {",
		"    uint32_t type;",
		"    uint32_t format;",
		"    uint32_t dataType;",
		"    uint32_t shapeDim;",
		"    uint32_t shape[ACL_PROF_TENSOR_DATA_SHAPE_LEN];",
		"} aclprofTensor;", "",
		"typedef struct aclprofTensorInfo {",
		"    uint64_t opNameId;",
		"    uint64_t opTypeId;",
		"    uint32_t resv;",
		"    uint32_t tensorNum;",
		"    uint32_t kernelType;",
		"    uint32_t blockNums;",
		"    void *stream;",
		"    aclprofTensor *tensors;",
		"} aclprofTensorInfo;", "",
		"typedef struct aclprofEventAttributes {",
		"    uint16_t version;",
		"    uint16_t size;",
		"    uint32_t messageType;",
		"    union Message {",
		"        aclprofTensorInfo *tensorInfo;",
		"    } message;",
		"} aclprofEventAttributes;", "",
		"#endif", "")
	for _, f := range m.prof {
		var d buf
		if err := mdlDecl(&d, f); err != nil {
			return err
		}
		s := d.Bytes()
		if profVoid[f.Name] {
			s = bytes.Replace(s, []byte("static inline aclError "+f.Name+"("), []byte("static inline void "+f.Name+"("), 1)
			s = bytes.Replace(s, []byte("    return aclwasm_imp_"+f.Name+"_("), []byte("    (void)aclwasm_imp_"+f.Name+"_("), 1)
		}
		if profID[f.Name] {
			r, err := profIDFunc(s, f.Name)
			if err != nil {
				return err
			}
			s = r
		}
		b.Write(s)
	}
	cClose(&b, g, true)
	out[profHeader] = b.Bytes()
	return nil
}

// profIDFunc replaces the static inline function of name in decl (as
// mdlDecl writes it) with one of the native signature, uint64_t
// name(const char *message), over the wire's out-parameter.
func profIDFunc(decl []byte, name string) ([]byte, error) {
	head := []byte("static inline aclError " + name + "(")
	i := bytes.Index(decl, head)
	if i < 0 {
		return nil, fmt.Errorf("gen: %s: no static inline function to replace", name)
	}
	j := bytes.Index(decl[i:], []byte("\n}\n"))
	if j < 0 {
		return nil, fmt.Errorf("gen: %s: unterminated function", name)
	}
	var b buf
	b.Write(decl[:i])
	b.p("static inline uint64_t %s(const char *message)\n{\n", name)
	b.l("    uint64_t id = UINT64_MAX;")
	b.p("    return aclwasm_imp_%s_(message, &id) == ACL_SUCCESS ? id : UINT64_MAX;\n", name)
	b.l("}")
	b.Write(decl[i+j+3:])
	return b.Bytes(), nil
}
