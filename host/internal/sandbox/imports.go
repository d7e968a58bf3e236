package sandbox

import "github.com/aclwasm/aclwasm/abi"

// imports holds the implementation of every function of abi.Funcs, by
// index. Engine adapters register one host function per entry, all going
// through Session.invoke.
var imports = func() []importFn {
	byName := map[string]importFn{
		"aclrtMemcpy":                       memcpySync,
		"aclrtMemcpyAsync":                  memcpyAsync,
		"aclrtMemcpyAsyncWithCondition":     memcpyAsync,
		"aclrtMemcpyBatch":                  batchFn(false, false),
		"aclrtMemcpyBatchAsync":             batchFn(true, false),
		"aclrtMemcpyBatchV2":                batchFn(false, true),
		"aclrtMemcpyBatchAsyncV2":           batchFn(true, true),
		"aclrtMemcpy2d":                     memcpy2dSync,
		"aclrtMemcpy2dAsync":                memcpy2dAsync,
		"aclrtGetMemcpyDescSize":            getMemcpyDescSize,
		"aclrtSetMemcpyDesc":                setMemcpyDesc,
		"aclrtMemcpyAsyncWithDesc":          memcpyAsyncWithDesc,
		"aclrtMemcpyAsyncWithOffset":        memcpyAsyncWithOffset,
		"aclrtMemset":                       memsetSync,
		"aclrtMemsetAsync":                  memsetAsync,
		"aclInit":                           aclInit,
		"aclFinalize":                       aclFinalize,
		"aclrtGetVersion":                   getVersion,
		"aclrtSetDevice":                    setDevice,
		"aclrtResetDevice":                  resetDevice,
		"aclrtGetDevice":                    getDevice,
		"aclrtGetDeviceCount":               getDeviceCount,
		"aclrtSynchronizeDevice":            synchronizeDevice,
		"aclrtSynchronizeDeviceWithTimeout": synchronizeDeviceWithTimeout,
		"aclrtDeviceCanAccessPeer":          deviceCanAccessPeer,
		"aclrtDeviceEnablePeerAccess":       deviceEnablePeerAccess,
		"aclrtDeviceDisablePeerAccess":      deviceDisablePeerAccess,
		"aclrtGetMemInfo":                   getMemInfo,
		"aclrtMalloc":                       malloc,
		"aclrtFree":                         free,
		"aclrtHostRegister":                 hostRegister,
		"aclrtHostUnregister":               hostUnregister,
		"aclrtPointerGetAttributes":         pointerGetAttributes,
		"aclrtCreateStream":                 createStream,
		"aclrtDestroyStream":                destroyStream,
		"aclrtSynchronizeStream":            synchronizeStream,
		"aclrtSynchronizeStreamWithTimeout": synchronizeStreamWithTimeout,
		"aclrtStreamQuery":                  streamQuery,
		"aclrtCreateEvent":                  createEvent,
		"aclrtDestroyEvent":                 destroyEvent,
		"aclrtRecordEvent":                  recordEvent,
		"aclrtStreamWaitEvent":              streamWaitEvent,
		"aclrtSynchronizeEvent":             synchronizeEvent,
		"aclrtQueryEventStatus":             queryEventStatus,
		"aclrtEventElapsedTime":             eventElapsedTime,
		"aclGetRecentErrMsg":                getRecentErrMsg,
		"aclrtMemsetD32":                    memsetD32Sync,
		"aclrtMemsetD32Async":               memsetD32Async,
		"aclrtResetEvent":                   resetEvent,
		"aclrtSetOpWaitTimeout":             setOpWaitTimeout,
		"aclrtSetOpExecuteTimeOut":          setOpExecuteTimeOut,
		"aclrtSetOpExecuteTimeOutV2":        setOpExecuteTimeOutV2,
		"aclrtGetOpExecuteTimeout":          getOpExecuteTimeout,
		"aclrtGetOpTimeOutInterval":         getOpTimeOutInterval,
		"aclAppLog":                         appLog,
		// ABI v1.1 section 10: contexts, forced resets, configured streams.
		"aclrtResetDeviceForce":       resetDeviceForce,
		"aclrtDestroyStreamForce":     destroyStreamForce,
		"aclrtCreateContext":          createContext,
		"aclrtDestroyContext":         destroyContext,
		"aclrtSetCurrentContext":      setCurrentContext,
		"aclrtGetCurrentContext":      getCurrentContext,
		"aclrtGetRunMode":             getRunMode,
		"aclrtCreateStreamWithConfig": createStreamWithConfig,
		"aclrtSetStreamFailureMode":   setStreamFailureMode,
		// Stream callbacks (ABI section 12): callback.go.
		"aclrtLaunchHostFunc":    launchHostFunc,
		"aclrtSubscribeReport":   subscribeReport,
		"aclrtLaunchCallback":    launchCallback,
		"aclrtProcessReport":     processReport,
		"aclrtUnSubscribeReport": unSubscribeReport,
		// ABI v1.2 section 12: error state and resource queries.
		"aclrtGetLastError":               getLastError,
		"aclrtPeekAtLastError":            peekAtLastError,
		"aclrtGetErrorVerbose":            getErrorVerbose,
		"aclrtCtxGetCurrentDefaultStream": ctxGetCurrentDefaultStream,
		"aclrtGetResInCurrentThread":      getResInCurrentThread,
		"aclrtGetDeviceResLimit":          getDeviceResLimit,
		"aclrtSetDeviceResLimit":          setDeviceResLimit,
		"aclrtGetStreamAvailableNum":      getStreamAvailableNum,
		// ABI v1.2 section 12: notifies (notify.go).
		"aclrtCreateNotify":       createNotify,
		"aclrtDestroyNotify":      destroyNotify,
		"aclrtRecordNotify":       recordNotify,
		"aclrtWaitAndResetNotify": waitAndResetNotify,
		"aclrtGetNotifyId":        getNotifyID,
		// ABI v1.2 section 12: event extras (event.go).
		"aclrtSynchronizeEventWithTimeout": synchronizeEventWithTimeout,
		"aclrtGetEventId":                  getEventID,
		"aclrtGetEventAvailNum":            getEventAvailNum,
		"aclrtCreateEventExWithFlag":       createEventExWithFlag,
		"aclrtEventGetTimestamp":           eventGetTimestamp,
		// ABI v1.2 section 12: event wait status (event.go).
		"aclrtQueryEventWaitStatus": queryEventWaitStatus,
		// ABI v1.3 section 15: per-stream core limits (stream_res.go).
		"aclrtGetStreamResLimit":             getStreamResLimit,
		"aclrtSetStreamResLimit":             setStreamResLimit,
		"aclrtResetStreamResLimit":           resetStreamResLimit,
		"aclrtUseStreamResInCurrentThread":   useStreamResInCurrentThread,
		"aclrtUnuseStreamResInCurrentThread": unuseStreamResInCurrentThread,
		// ABI v1.3 section 15: configured streams and the getters (stream_config.go).
		"aclrtCreateStreamV2":    createStreamV2,
		"aclrtStreamGetPriority": streamGetPriority,
		"aclrtStreamGetFlags":    streamGetFlags,
		"aclrtStreamGetId":       streamGetID,
		// ABI v1.3 section 15: stop, abort, state callbacks (stream.go).
		"aclrtStreamStop":             streamStop,
		"aclrtStreamAbort":            streamAbort,
		"aclrtRegStreamStateCallback": regStreamStateCallback,
		// ABI v1.3 section 15: device and product queries (devinfo.go).
		"aclGetCannAttribute":               getCannAttribute,
		"aclrtGetSocName":                   getSocName,
		"aclrtCheckArchCompatibility":       checkArchCompatibility,
		"aclrtGetDeviceCapability":          getDeviceCapability,
		"aclrtGetDeviceInfo":                getDeviceInfo,
		"aclrtQueryDeviceStatus":            queryDeviceStatus,
		"aclrtGetDeviceUtilizationRate":     getDeviceUtilizationRate,
		"aclrtDeviceGetStreamPriorityRange": deviceGetStreamPriorityRange,
		"aclrtResetDeviceResLimit":          resetDeviceResLimit,
		// ABI v1.3 section 15: notify resets (notify.go), timed event waits (event.go).
		"aclrtNotifyBatchReset":           notifyBatchReset,
		"aclrtStreamWaitEventWithTimeout": streamWaitEventWithTimeout,
		// ABI v1.3 section 15: reduce and random (reduce.go, random.go).
		"aclrtReduceAsync":    reduceAsync,
		"aclrtRandomNumAsync": randomNumAsync,
		// ABI v1.3 section 15: saturation mode and overflow status (overflow.go).
		"aclrtSetDeviceSatMode":        setDeviceSatMode,
		"aclrtGetDeviceSatMode":        getDeviceSatMode,
		"aclrtSetStreamOverflowSwitch": setStreamOverflowSwitch,
		"aclrtGetStreamOverflowSwitch": getStreamOverflowSwitch,
		"aclrtGetOverflowStatus":       getOverflowStatus,
		"aclrtResetOverflowStatus":     resetOverflowStatus,
		// ABI v1.3 section 15: the profiling markers of acl/acl_prof.h (prof.go).
		"aclprofCreateStamp":          createStamp,
		"aclprofDestroyStamp":         destroyStamp,
		"aclprofSetStampTraceMessage": setStampTraceMessage,
		"aclprofMark":                 profMark,
		"aclprofMarkEx":               profMarkEx,
		"aclprofPush":                 profPush,
		"aclprofPop":                  profPop,
		"aclprofRangeStart":           rangeStart,
		"aclprofRangeStop":            rangeStop,
		"aclprofStr2Id":               profStr2Id,
		"aclprofRangePushEx":          rangePushEx,
		"aclprofRangePop":             rangePop,
	}
	// ABI v1.3 section 13.2: the operator library's objects (tensor.go)
	// and, for each row of aclnn.Ops, its two functions (operator.go).
	for name, fn := range map[string]importFn{
		"aclCreateTensor":               createTensor,
		"aclDestroyTensor":              destroyObj(abi.TensorHandle),
		"aclCreateScalar":               createScalar,
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
	} {
		byName[name] = fn
	}
	// ABI v1.3 section 13.4: models (model.go).
	for name, fn := range map[string]importFn{
		"aclmdlLoadFromFile":         loadFromFile(false),
		"aclmdlLoadFromFileWithMem":  loadFromFile(true),
		"aclmdlQuerySize":            querySize,
		"aclmdlLoadFromMem":          loadFromMem(false),
		"aclmdlLoadFromMemWithMem":   loadFromMem(true),
		"aclmdlUnload":               unload,
		"aclmdlCreateDesc":           createMobj(abi.ModelDescHandle),
		"aclmdlDestroyDesc":          destroyMobj(abi.ModelDescHandle),
		"aclmdlGetDesc":              getDesc,
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
		"aclmdlAddDatasetBuffer":     addDatasetBuffer,
		"aclmdlGetDatasetNumBuffers": datasetNumBuffers,
		"aclmdlGetDatasetBuffer":     datasetBuffer,
		"aclmdlExecute":              execute(true),
		"aclmdlExecuteAsync":         execute(false),
	} {
		byName[name] = fn
	}
	// ABI v1.3 section 13.3: the runtime's kernel API (kernelapi.go).
	for name, fn := range map[string]importFn{
		"aclrtBinaryLoadFromFile":             binaryLoadFromFile,
		"aclrtBinaryLoadFromData":             binaryLoadFromData,
		"aclrtBinaryGetFunction":              binaryGetFunction(false),
		"aclrtBinaryGetFunctionByEntry":       binaryGetFunction(true),
		"aclrtKernelArgsInit":                 kernelArgsInit,
		"aclrtKernelArgsAppend":               kernelArgsAppend,
		"aclrtKernelArgsAppendPlaceHolder":    kernelArgsAppendPlaceHolder,
		"aclrtKernelArgsGetPlaceHolderBuffer": kernelArgsGetPlaceHolderBuffer,
		"aclrtKernelArgsFinalize":             kernelArgsFinalize,
		"aclrtLaunchKernelWithConfig":         launchKernelWithConfig,
		"aclrtLaunchKernel":                   launchKernelPacked,
		"aclrtBinaryUnLoad":                   binaryUnLoad,
	} {
		byName[name] = fn
	}
	for _, f := range abi.Funcs {
		if f.Group == abi.Operator {
			byName[f.Name] = getWorkspaceSize
			if f.Launch {
				byName[f.Name] = runOp
			}
		}
	}
	fns := make([]importFn, len(abi.Funcs))
	for i, f := range abi.Funcs {
		fn, ok := byName[f.Name]
		if !ok {
			panic("host: no implementation of " + f.Name)
		}
		fns[i] = fn
		delete(byName, f.Name)
	}
	for name := range byName {
		panic("host: " + name + " is implemented but not in the ABI table")
	}
	return fns
}()
