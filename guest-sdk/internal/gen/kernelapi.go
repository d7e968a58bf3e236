package gen

import (
	"fmt"
	"strings"

	"github.com/aclwasm/aclwasm/abi"
)

// The runtime's kernel API (ABI section 13.3) in the C SDK's acl/acl_rt.h,
// as natively: the handle typedefs, the option and configuration structs,
// and each function of the table's Kernel group declared with its native
// signature as its import (from "acl32" by default; from "acl" with
// -DACLWASM_WIDE, where a device address is an aclrtPtr and a size_t a
// uint64_t). Every parameter of the group names its native C type in the
// table.

// kernelAPIType is a parameter's C type in profile wide or the native layout.
func kernelAPIType(f *abi.Func, q abi.Param, wide bool) (string, error) {
	switch {
	case q.Native == "":
		return "", fmt.Errorf("gen: %s parameter %s names no native C type in abi/kernel.go", f.Name, q.Name)
	case wide && q.Type == abi.Addr:
		return "aclrtPtr", nil
	case wide && q.Type == abi.Size:
		return "uint64_t", nil
	case wide && q.Type == abi.Gptr && q.Elem == abi.Addr:
		return "aclrtPtr *", nil
	}
	return q.Native, nil
}

// cKernel writes the kernel API's types and functions into acl_rt.h.
func cKernel(b *buf, m *model) error {
	cDoc(b, "", "The kernel API's objects, as natively: opaque handles of the sandbox.")
	for _, k := range []abi.Kind{abi.BinHandle, abi.FuncHandle, abi.ArgsHandle, abi.ParamHandle} {
		b.p("typedef void *%s;\n", k)
	}
	b.l("")
	cDoc(b, "", "The options of aclrtBinaryLoadFromFile, as natively (20 bytes each).")
	b.l("typedef enum aclrtBinaryLoadOptionType {", "    ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD = 1,", "    ACL_RT_BINARY_LOAD_OPT_LAZY_MAGIC = 2,",
		"    ACL_RT_BINARY_LOAD_OPT_MAGIC = 2,", "    ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE = 3,", "} aclrtBinaryLoadOptionType;", "")
	b.l("typedef union aclrtBinaryLoadOptionValue {", "    uint32_t isLazyLoad;", "    uint32_t magic;", "    int32_t cpuKernelMode;", "    uint32_t rsv[4];", "} aclrtBinaryLoadOptionValue;", "")
	b.l("typedef struct {", "    aclrtBinaryLoadOptionType type;", "    aclrtBinaryLoadOptionValue value;", "} aclrtBinaryLoadOption;", "")
	b.l("typedef struct aclrtBinaryLoadOptions {", "    aclrtBinaryLoadOption *options;", "    size_t numOpt;", "} aclrtBinaryLoadOptions;", "")
	cDoc(b, "", "The attributes of aclrtLaunchKernelWithConfig, as natively (20 bytes each).",
		"ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT (seconds) and _TIMEOUT_US bound the launch.")
	b.l("typedef enum aclrtLaunchKernelAttrId {", "    ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE = 1,", "    ACL_RT_LAUNCH_KERNEL_ATTR_LOCAL_MEMORY_SIZE = 2,",
		"    ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE = 2,", "    ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE = 3,", "    ACL_RT_LAUNCH_KERNEL_ATTR_BLOCKDIM_OFFSET = 4,",
		"    ACL_RT_LAUNCH_KERNEL_ATTR_BLOCK_TASK_PREFETCH = 5,", "    ACL_RT_LAUNCH_KERNEL_ATTR_DATA_DUMP = 6,", "    ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT = 7,",
		"    ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US = 8,", "    ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING = 9,", "} aclrtLaunchKernelAttrId;", "")
	b.l("typedef enum {", "    ACL_RT_ENGINE_TYPE_AIC = 0,", "    ACL_RT_ENGINE_TYPE_AIV,", "} aclrtEngineType;", "")
	b.l("typedef struct {", "    uint32_t timeoutLow;", "    uint32_t timeoutHigh;", "} aclrtTimeoutUs;", "")
	b.l("typedef union aclrtLaunchKernelAttrValue {", "    uint8_t schemMode;", "    uint32_t localMemorySize;", "    uint32_t dynUBufSize;",
		"    aclrtEngineType engineType;", "    uint32_t blockDimOffset;", "    uint8_t isBlockTaskPrefetch;", "    uint8_t isDataDump;",
		"    uint16_t timeout;", "    aclrtTimeoutUs timeoutUs;", "    uint8_t enableProfiling;", "    uint32_t rsv[4];", "} aclrtLaunchKernelAttrValue;", "")
	b.l("typedef struct aclrtLaunchKernelAttr {", "    aclrtLaunchKernelAttrId id;", "    aclrtLaunchKernelAttrValue value;", "} aclrtLaunchKernelAttr;", "")
	b.l("typedef struct aclrtLaunchKernelCfg {", "    aclrtLaunchKernelAttr *attrs;", "    size_t numAttrs;", "} aclrtLaunchKernelCfg;", "")
	// The two configurations hold a guest pointer and a count: wasm32's
	// 8 bytes in both profiles (no device address or size in them).
	b.l("ACLWASM_STATIC_ASSERT(sizeof(aclrtBinaryLoadOption) == 20, \"native layout\");",
		"ACLWASM_STATIC_ASSERT(sizeof(aclrtLaunchKernelAttr) == 20, \"native layout\");",
		"ACLWASM_STATIC_ASSERT(sizeof(aclrtBinaryLoadOptions) == 8, \"wasm32 layout, both profiles\");",
		"ACLWASM_STATIC_ASSERT(sizeof(aclrtLaunchKernelCfg) == 8, \"wasm32 layout, both profiles\");", "")
	for _, f := range m.kern {
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
				t, err := kernelAPIType(f, q, wide)
				if err != nil {
					return err
				}
				ps[i] = cDecl(t, q.Name)
			}
			b.p("__attribute__((import_module(\"%s\"), import_name(\"%s\")))\n", module, f.Name)
			b.p("aclError %s(%s);\n", f.Name, strings.Join(ps, ", "))
		}
		b.l("#endif", "")
	}
	return nil
}
