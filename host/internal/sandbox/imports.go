package sandbox

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/aclwasm/aclwasm/abi"
)

//go:generate go run ./internal/importgen

// imports holds the implementation of every function of abi.Funcs, by
// index. Engine adapters register one host function per entry, all going
// through Session.invoke, which calls imports[fi] directly: the table is
// built once, at init, and costs no lookup per call.
//
// Nothing here is written by hand per function. An implementation is
// found by the naming rule: the function's name without its prefix
// (aclrt, aclprof, aclmdl, acl), its first letter lower case and a final
// "Id" written "ID", a function of this package of the signature
// func(c *Call) error (aclrtQueryEventWaitStatus: queryEventWaitStatus).
// importgen (go generate) writes what the rule finds to imports_gen.go,
// from the source, so a new function that follows it needs no line here.
// The operator library's functions, two per row of aclnn.Ops, share two
// implementations; irregular lists the rest.
var imports = func() []importFn {
	fns, err := link(abi.Funcs, byRule, irregular)
	if err != nil {
		panic("host: " + err.Error())
	}
	return fns
}()

// irregular holds, by name, the implementations the naming rule does not
// find: functions sharing one implementation (the batch copies, the
// model's input and output getters) or made by a function (batchFn,
// destroyObj), and names the rule cannot give (aclInit: init).
var irregular = map[string]importFn{
	// The copies (memcpy.go, batch.go, memcpy2d.go, memset.go).
	"aclrtMemcpy":                   memcpySync,
	"aclrtMemcpyAsyncWithCondition": memcpyAsync,
	"aclrtMemcpyBatch":              batchFn(false, false),
	"aclrtMemcpyBatchAsync":         batchFn(true, false),
	"aclrtMemcpyBatchV2":            batchFn(false, true),
	"aclrtMemcpyBatchAsyncV2":       batchFn(true, true),
	"aclrtMemcpy2d":                 memcpy2dSync,
	"aclrtMemset":                   memsetSync,
	"aclrtMemsetD32":                memsetD32Sync,
	// aclInit and aclFinalize: the rule would name them init and finalize
	// (runtime_imports.go).
	"aclInit":     aclInit,
	"aclFinalize": aclFinalize,
	// The profiling markers (prof.go).
	"aclprofMark":   profMark,
	"aclprofMarkEx": profMarkEx,
	"aclprofPush":   profPush,
	"aclprofPop":    profPop,
	"aclprofStr2Id": profStr2Id,
	// The operator library's objects (tensor.go).
	"aclDestroyTensor":              destroyObj(abi.TensorHandle),
	"aclDestroyScalar":              destroyObj(abi.ScalarHandle),
	"aclCreateIntArray":             createArray(abi.IntArrayHandle, 8),
	"aclDestroyIntArray":            destroyObj(abi.IntArrayHandle),
	"aclCreateFloatArray":           createArray(abi.FloatArrayHandle, 4),
	"aclDestroyFloatArray":          destroyObj(abi.FloatArrayHandle),
	"aclCreateBoolArray":            createArray(abi.BoolArrayHandle, 1),
	"aclDestroyBoolArray":           destroyObj(abi.BoolArrayHandle),
	"aclCreateTensorList":           createArray(abi.TensorListHandle, 4),
	"aclDestroyTensorList":          destroyObj(abi.TensorListHandle),
	"aclSetAclOpExecutorRepeatable": setRepeatable,
	"aclDestroyAclOpExecutor":       destroyExecutor,
	// Models (model.go): the input and output getters share one each.
	"aclmdlLoadFromFile":         loadFromFile(false),
	"aclmdlLoadFromFileWithMem":  loadFromFile(true),
	"aclmdlLoadFromMem":          loadFromMem(false),
	"aclmdlLoadFromMemWithMem":   loadFromMem(true),
	"aclmdlCreateDesc":           createMobj(abi.ModelDescHandle),
	"aclmdlDestroyDesc":          destroyMobj(abi.ModelDescHandle),
	"aclmdlGetNumInputs":         numIOs(false),
	"aclmdlGetNumOutputs":        numIOs(true),
	"aclmdlGetInputSizeByIndex":  ioSize(false),
	"aclmdlGetOutputSizeByIndex": ioSize(true),
	"aclmdlGetInputDims":         ioDims(false),
	"aclmdlGetOutputDims":        ioDims(true),
	"aclmdlGetInputNameByIndex":  ioName(false),
	"aclmdlGetOutputNameByIndex": ioName(true),
	"aclmdlGetInputDataType":     ioEnum(false, false),
	"aclmdlGetOutputDataType":    ioEnum(true, false),
	"aclmdlGetInputFormat":       ioEnum(false, true),
	"aclmdlGetOutputFormat":      ioEnum(true, true),
	"aclmdlGetInputIndexByName":  inputIndexByName,
	"aclmdlCreateDataset":        createMobj(abi.DatasetHandle),
	"aclmdlDestroyDataset":       destroyMobj(abi.DatasetHandle),
	"aclmdlGetDatasetNumBuffers": datasetNumBuffers,
	"aclmdlGetDatasetBuffer":     datasetBuffer,
	"aclmdlExecute":              execute(true),
	"aclmdlExecuteAsync":         execute(false),
	// The runtime's kernel API (kernelapi.go).
	"aclrtBinaryGetFunction":        binaryGetFunction(false),
	"aclrtBinaryGetFunctionByEntry": binaryGetFunction(true),
	"aclrtLaunchKernel":             launchKernelPacked,
}

// link returns the implementation of each of funcs, in their order: the
// one the rule found (byRule) or the irregular one, and for a function of
// the operator library getWorkspaceSize or runOp. A function with none, or
// with two, or an irregular entry naming no function, is an error naming
// it: an init panic that fails every test of the package.
func link(funcs []abi.Func, byRule, irregular map[string]importFn) ([]importFn, error) {
	var errs []error
	fns := make([]importFn, len(funcs))
	for i, f := range funcs {
		fn, ok := byRule[f.Name]
		if g, ok2 := irregular[f.Name]; ok2 {
			if ok {
				errs = append(errs, fmt.Errorf("%s has two implementations: the naming rule's (imports_gen.go) and irregular's (imports.go); drop one", f.Name))
			}
			fn, ok = g, true
		}
		if f.Group == abi.Operator {
			if ok {
				errs = append(errs, fmt.Errorf("%s is an operator function (getWorkspaceSize or runOp) and has an implementation of its own", f.Name))
			}
			fn, ok = getWorkspaceSize, true
			if f.Launch {
				fn = runOp
			}
		}
		if !ok || fn == nil {
			errs = append(errs, fmt.Errorf("no implementation of %s: write it in its family's file, named by the rule of imports.go (aclrtQueryEventWaitStatus: func queryEventWaitStatus(c *Call) error), and run go generate ./host/internal/sandbox; or list it in irregular (imports.go)", f.Name))
		}
		fns[i] = fn
	}
	for _, name := range slices.Sorted(maps.Keys(irregular)) {
		if !slices.ContainsFunc(funcs, func(f abi.Func) bool { return f.Name == name }) {
			errs = append(errs, fmt.Errorf("irregular (imports.go) implements %s, which abi.Funcs lacks", name))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(byRule)) {
		if !slices.ContainsFunc(funcs, func(f abi.Func) bool { return f.Name == name }) {
			errs = append(errs, fmt.Errorf("imports_gen.go implements %s, which abi.Funcs lacks: run go generate ./host/internal/sandbox", name))
		}
	}
	return fns, errors.Join(errs...)
}
