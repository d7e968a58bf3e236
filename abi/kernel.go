package abi

// Kernel is the group of the runtime's kernel API (ABI section 13.3).
const Kernel Group = "kernel"

// The runtime's kernel API of acl/acl_rt.h with the native signatures:
// binaries, functions, argument lists and their parameters are handles of
// the fifth kind (natively void * typedefs, 4 bytes on wasm32 in both
// profiles). A binary is one the host approved: a guest names it, and no
// file or code of the guest's is ever loaded. Every parameter names its
// native C type, which the C SDK declares as it is.
var kernelFuncs = []Func{
	{Name: "aclrtBinaryLoadFromFile", Group: Kernel, Params: []Param{in("binPath", CString).native("const char *"), in("options", BinaryLoadOptions).native("aclrtBinaryLoadOptions *"), out("binHandle", BinHandle).native("aclrtBinHandle *")},
		Doc: "Loads the kernel binary the host approved under the name binPath (no file the guest names is opened) and writes its handle; any other name gives 107000, as a missing file does natively."},
	{Name: "aclrtBinaryLoadFromData", Group: Kernel, Params: []Param{in("data", Bytes).len("length").native("const void *"), size("length").native("size_t"), in("options", BinaryLoadOptions).native("const aclrtBinaryLoadOptions *"), out("binHandle", BinHandle).native("aclrtBinHandle *")},
		Doc: "Refused with 207000: it would run device code the guest supplies, which the sandbox never does."},
	{Name: "aclrtBinaryGetFunction", Group: Kernel, Params: []Param{handle("binHandle", BinHandle).native("const aclrtBinHandle"), in("kernelName", CString).native("const char *"), out("funcHandle", FuncHandle).native("aclrtFuncHandle *")},
		Doc: "Writes the handle of the binary's kernel of that name (a kernel granted to the plugin); another name gives 107000."},
	{Name: "aclrtBinaryGetFunctionByEntry", Group: Kernel, Params: []Param{handle("binHandle", BinHandle).native("aclrtBinHandle"), u64("funcEntry").native("uint64_t"), out("funcHandle", FuncHandle).native("aclrtFuncHandle *")},
		Doc: "Writes the handle of the binary's kernel whose declared entry is the number funcEntry; none gives 107000."},
	{Name: "aclrtKernelArgsInit", Group: Kernel, Params: []Param{handle("funcHandle", FuncHandle).native("aclrtFuncHandle"), out("argsHandle", ArgsHandle).native("aclrtArgsHandle *")},
		Doc: "Writes the handle of a new, empty argument list for the kernel."},
	{Name: "aclrtKernelArgsAppend", Group: Kernel, Params: []Param{handle("argsHandle", ArgsHandle).native("aclrtArgsHandle"), in("param", Bytes).len("paramSize").native("void *"), size("paramSize").native("size_t"), out("paramHandle", ParamHandle).native("aclrtParamHandle *")},
		Doc: "Appends paramSize bytes read from guest memory at param (a device address as the profile writes it, or a scalar's value) and writes the parameter's handle; read by the kernel's declaration at launch."},
	{Name: "aclrtKernelArgsAppendPlaceHolder", Group: Kernel, Params: []Param{handle("argsHandle", ArgsHandle).native("aclrtArgsHandle"), out("paramHandle", ParamHandle).native("aclrtParamHandle *")},
		Doc: "Checks as natively, then gives 207000: a placeholder's data would live in memory the host hands the guest, which it cannot; append a device buffer's address instead."},
	{Name: "aclrtKernelArgsGetPlaceHolderBuffer", Group: Kernel, Params: []Param{handle("argsHandle", ArgsHandle).native("aclrtArgsHandle"), handle("paramHandle", ParamHandle).native("aclrtParamHandle"), size("dataSize").native("size_t"), outOf("bufferAddr", Addr).native("void **")},
		Doc: "Checks as natively; a parameter that is not a placeholder (all are) gives 107000."},
	{Name: "aclrtKernelArgsFinalize", Group: Kernel, Params: []Param{handle("argsHandle", ArgsHandle).native("aclrtArgsHandle")},
		Doc: "Marks the argument list complete: it can be launched, and no more appended to."},
	{Name: "aclrtLaunchKernelWithConfig", Group: Kernel, Params: []Param{handle("funcHandle", FuncHandle).native("aclrtFuncHandle"), u32("numBlocks").native("uint32_t"), handle("stream", StreamHandle).native("aclrtStream"), in("cfg", LaunchKernelCfg).native("aclrtLaunchKernelCfg *"), handle("argsHandle", ArgsHandle).native("aclrtArgsHandle"), in("reserve", Reserved).native("void *")},
		Doc: "Queues the kernel on stream with numBlocks blocks and a finalized argument list, checked against its declaration (count and sizes, every buffer's extent in one live allocation); cfg's timeout bounds it."},
	{Name: "aclrtLaunchKernel", Group: Kernel, Params: []Param{handle("funcHandle", FuncHandle).native("aclrtFuncHandle"), u32("numBlocks").native("uint32_t"), addr("argsData").native("const void *"), size("argsSize").native("size_t"), handle("stream", StreamHandle).native("aclrtStream")},
		Doc: "Queues the kernel with the packed arguments in device memory at argsData (argsSize bytes, read when the launch is queued), checked as aclrtLaunchKernelWithConfig checks them."},
	{Name: "aclrtBinaryUnLoad", Group: Kernel, Params: []Param{handle("binHandle", BinHandle).native("aclrtBinHandle")},
		Doc: "Unloads a binary: its function handles, and argument lists made from them, are no longer valid (launches already queued run)."},
}
