//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/aclwasm/aclwasm/acl"
)

// ErrLibraryNotFound is wrapped by the error Open returns when no candidate
// path could be loaded, so that callers can tell "no CANN here" apart from
// a library that loads but fails.
var ErrLibraryNotFound = errors.New("cann: libascendcl.so could not be loaded")

// defaultToolkitLib is where the CANN toolkit installs libascendcl.so by
// default; Open tries it last.
const defaultToolkitLib = "/usr/local/Ascend/ascend-toolkit/latest/lib64/libascendcl.so"

// api holds the native functions, bound with their C signatures. aclError
// is int (int32), handles and addresses are void* (uintptr), size_t is
// uint64 (this package builds for 64-bit targets only), enums are int32 or
// uint32 as the header declares them. Arrays and out-parameters are Go
// pointers that purego keeps alive for the call. A nil field is an optional
// function the library does not export.
type api struct {
	aclInit                           func(configPath uintptr) int32
	aclFinalize                       func() int32
	aclrtGetVersion                   func(major, minor, patch *int32) int32
	aclrtGetDeviceCount               func(count *uint32) int32
	aclrtSetDevice                    func(deviceID int32) int32
	aclrtResetDevice                  func(deviceID int32) int32
	aclrtSetCurrentContext            func(ctx uintptr) int32
	aclrtGetCurrentContext            func(ctx *uintptr) int32
	aclrtSynchronizeDeviceWithTimeout func(timeout int32) int32
	aclrtDeviceCanAccessPeer          func(can *int32, deviceID, peerDeviceID int32) int32
	aclrtDeviceEnablePeerAccess       func(peerDeviceID int32, flags uint32) int32
	aclrtDeviceDisablePeerAccess      func(peerDeviceID int32) int32
	aclrtGetMemInfo                   func(attr int32, free, total *uint64) int32

	aclrtMalloc         func(devPtr *uintptr, size uint64, policy uint32) int32
	aclrtFree           func(devPtr uintptr) int32
	aclrtHostRegister   func(ptr uintptr, size uint64, typ uint32, devPtr *uintptr) int32
	aclrtHostUnregister func(ptr uintptr) int32

	aclrtCreateStream                 func(stream *uintptr) int32
	aclrtDestroyStream                func(stream uintptr) int32
	aclrtDestroyStreamForce           func(stream uintptr) int32
	aclrtSynchronizeStreamWithTimeout func(stream uintptr, timeout int32) int32
	aclrtStreamQuery                  func(stream uintptr, status *uint32) int32
	aclrtSubscribeReport              func(threadID uint64, stream uintptr) int32
	aclrtUnSubscribeReport            func(threadID uint64, stream uintptr) int32
	aclrtLaunchCallback               func(fn, userData uintptr, blockType int32, stream uintptr) int32
	aclrtProcessReport                func(timeout int32) int32

	aclrtCreateEvent                 func(event *uintptr) int32
	aclrtDestroyEvent                func(event uintptr) int32
	aclrtRecordEvent                 func(event, stream uintptr) int32
	aclrtStreamWaitEvent             func(stream, event uintptr) int32
	aclrtSynchronizeEvent            func(event uintptr) int32
	aclrtSynchronizeEventWithTimeout func(event uintptr, timeout int32) int32
	aclrtQueryEventStatus            func(event uintptr, status *uint32) int32
	aclrtEventElapsedTime            func(ms *float32, start, end uintptr) int32

	aclrtMemcpy        func(dst uintptr, destMax uint64, src uintptr, count uint64, kind int32) int32
	aclrtMemcpyAsync   func(dst uintptr, destMax uint64, src uintptr, count uint64, kind int32, stream uintptr) int32
	aclrtMemcpy2d      func(dst uintptr, dpitch uint64, src uintptr, spitch, width, height uint64, kind int32) int32
	aclrtMemcpy2dAsync func(dst uintptr, dpitch uint64, src uintptr, spitch, width, height uint64, kind int32, stream uintptr) int32
	aclrtMemset        func(devPtr uintptr, maxCount uint64, value int32, count uint64) int32
	aclrtMemsetAsync   func(devPtr uintptr, maxCount uint64, value int32, count uint64, stream uintptr) int32

	aclrtMemcpyBatch        func(dsts, destMaxs, srcs, sizes unsafe.Pointer, n uint64, attrs, attrsIndexes unsafe.Pointer, numAttrs uint64, failIndex *uint64) int32
	aclrtMemcpyBatchAsync   func(dsts, destMaxs, srcs, sizes unsafe.Pointer, n uint64, attrs, attrsIndexes unsafe.Pointer, numAttrs uint64, failIndex *uint64, stream uintptr) int32
	aclrtMemcpyBatchV2      func(dsts, destMaxs, srcs, sizes unsafe.Pointer, n uint64, attrs, attrsIndexes unsafe.Pointer, numAttrs uint64) int32
	aclrtMemcpyBatchAsyncV2 func(dsts, destMaxs, srcs, sizes unsafe.Pointer, n uint64, attrs, attrsIndexes unsafe.Pointer, numAttrs uint64, stream uintptr) int32

	aclrtGetMemcpyDescSize     func(kind int32, descSize *uint64) int32
	aclrtSetMemcpyDesc         func(desc uintptr, kind int32, srcAddr, dstAddr uintptr, count uint64, config uintptr) int32
	aclrtMemcpyAsyncWithDesc   func(desc uintptr, kind int32, stream uintptr) int32
	aclrtMemcpyAsyncWithOffset func(dst uintptr, destMax, dstDataOffset uint64, src uintptr, count, srcDataOffset uint64, kind int32, stream uintptr) int32

	// ABI v1.1: 32-bit memsets, event resets, timed waits, op timeouts.
	aclrtMemsetD32                  func(ptr uintptr, memSize uint64, value uint32, n uint64) int32
	aclrtMemsetD32Async             func(ptr uintptr, memSize uint64, value uint32, n uint64, stream uintptr) int32
	aclrtResetEvent                 func(event, stream uintptr) int32
	aclrtStreamWaitEventWithTimeout func(stream, event uintptr, timeout int32) int32
	aclrtGetOpTimeOutInterval       func(interval *uint64) int32

	// ABI v1.1 section 10: streams with a configuration, failure modes,
	// the run mode.
	aclrtCreateStreamWithConfig func(stream *uintptr, priority, flag uint32) int32
	aclrtSetStreamFailureMode   func(stream uintptr, mode uint64) int32
	aclrtGetRunMode             func(runMode *uint32) int32

	// ABI v1.2 section 12: error state and resource queries.
	aclrtGetDeviceResLimit func(deviceID, typ int32, value *uint32) int32
	aclrtGetErrorVerbose   func(deviceID int32, errorInfo *byte) int32
	// ABI v1.2 section 12: notifies.
	aclrtCreateNotify       func(notify *uintptr, flag uint64) int32
	aclrtDestroyNotify      func(notify uintptr) int32
	aclrtRecordNotify       func(notify, stream uintptr) int32
	aclrtWaitAndResetNotify func(notify, stream uintptr, timeout uint32) int32
	aclrtEventGetTimestamp  func(event uintptr, timestamp *uint64) int32
	// ABI v1.3 section 15: per-stream core limits (stream_res.go).
	aclrtSetStreamResLimit   func(stream uintptr, typ int32, value uint32) int32
	aclrtResetStreamResLimit func(stream uintptr) int32

	// ABI v1.3 section 15: device and product queries.
	aclrtGetSocName             func() string // NULL reads as ""
	aclrtCheckArchCompatibility func(socVersion string, canCompatible *int32) int32
	aclGetCannAttribute         func(attr int32, value *int32) int32
	aclrtGetDeviceInfo          func(deviceID uint32, attr int32, value *int64) int32
	aclrtGetDeviceCapability    func(deviceID, featureType int32, value *int32) int32
	aclrtQueryDeviceStatus      func(deviceID int32, status *int32) int32
	// ABI v1.3 section 15: notify resets.
	aclrtNotifyBatchReset func(notifies *uintptr, num uint64) int32
	// ABI v1.3 section 15: reduce and random (reduce.go, random.go).
	aclrtReduceAsync func(dst, src uintptr, count uint64, kind, typ int32, stream, reserve uintptr) int32

	// ABI v1.3 section 13.3: kernel binaries the host loads and launches
	// (kernel.go).
	aclrtBinaryLoadFromFile     func(binPath string, options uintptr, binHandle *uintptr) int32
	aclrtBinaryGetFunction      func(binHandle uintptr, kernelName string, funcHandle *uintptr) int32
	aclrtBinaryUnLoad           func(binHandle uintptr) int32
	aclrtKernelArgsInit         func(funcHandle uintptr, argsHandle *uintptr) int32
	aclrtKernelArgsAppend       func(argsHandle uintptr, param unsafe.Pointer, paramSize uint64, paramHandle *uintptr) int32
	aclrtKernelArgsFinalize     func(argsHandle uintptr) int32
	aclrtLaunchKernelWithConfig func(funcHandle uintptr, numBlocks uint32, stream uintptr, cfg unsafe.Pointer, argsHandle, reserve uintptr) int32
	// ABI v1.3 section 15: the stream overflow switch (overflow.go).
	aclrtSetStreamOverflowSwitch func(stream uintptr, flag uint32) int32
	aclrtGetStreamOverflowSwitch func(stream uintptr, flag *uint32) int32
	// ABI v1.3 section 15: random numbers (random.go).
	aclrtRandomNumAsync func(taskInfo unsafe.Pointer, stream, reserve uintptr) int32

	// ABI v1.3 section 13.4: offline models (model.go).
	aclmdlQuerySize            func(fileName string, workSize, weightSize *uint64) int32
	aclmdlLoadFromFile         func(modelPath string, modelID *uint32) int32
	aclmdlUnload               func(modelID uint32) int32
	aclmdlCreateDesc           func() uintptr
	aclmdlDestroyDesc          func(desc uintptr) int32
	aclmdlGetDesc              func(desc uintptr, modelID uint32) int32
	aclmdlGetNumInputs         func(desc uintptr) uint64
	aclmdlGetNumOutputs        func(desc uintptr) uint64
	aclmdlGetInputSizeByIndex  func(desc uintptr, i uint64) uint64
	aclmdlGetOutputSizeByIndex func(desc uintptr, i uint64) uint64
	aclmdlGetInputDims         func(desc uintptr, i uint64, dims *ioDims) int32
	aclmdlGetOutputDims        func(desc uintptr, i uint64, dims *ioDims) int32
	aclmdlGetInputNameByIndex  func(desc uintptr, i uint64) string
	aclmdlGetOutputNameByIndex func(desc uintptr, i uint64) string
	aclmdlGetInputDataType     func(desc uintptr, i uint64) int32
	aclmdlGetOutputDataType    func(desc uintptr, i uint64) int32
	aclmdlGetInputFormat       func(desc uintptr, i uint64) int32
	aclmdlGetOutputFormat      func(desc uintptr, i uint64) int32
	aclCreateDataBuffer        func(data uintptr, size uint64) uintptr
	aclDestroyDataBuffer       func(buf uintptr) int32
	aclmdlCreateDataset        func() uintptr
	aclmdlDestroyDataset       func(ds uintptr) int32
	aclmdlAddDatasetBuffer     func(ds, buf uintptr) int32
	aclmdlExecuteAsync         func(modelID uint32, input, output, stream uintptr) int32
	// ABI v1.3 section 13.1: operators stopped at the run's time limit
	// (oplib.go).
	aclrtStreamAbort func(stream uintptr) int32
}

// symbol names one native function and where to bind it.
type symbol struct {
	name     string
	fptr     any
	required bool
}

// symbols lists every native function the backend uses. The required ones
// have been in every libascendcl.so that has aclrtSetCurrentContext, the
// *WithTimeout synchronizes and host callbacks (aclrtLaunchCallback); the
// optional ones came later (batch copies, their V2 forms, descriptor and
// offset copies, host registration, forced stream destruction, event
// synchronize with a timeout, 32-bit memsets, event resets, timed event
// waits, the operator timeout interval, configured streams, failure modes,
// the run mode), and their absence only disables what needs
// them.
func (a *api) symbols() []symbol {
	return []symbol{
		{"aclInit", &a.aclInit, true},
		{"aclFinalize", &a.aclFinalize, true},
		{"aclrtGetVersion", &a.aclrtGetVersion, true},
		{"aclrtGetDeviceCount", &a.aclrtGetDeviceCount, true},
		{"aclrtSetDevice", &a.aclrtSetDevice, true},
		{"aclrtResetDevice", &a.aclrtResetDevice, true},
		{"aclrtSetCurrentContext", &a.aclrtSetCurrentContext, true},
		{"aclrtGetCurrentContext", &a.aclrtGetCurrentContext, true},
		{"aclrtSynchronizeDeviceWithTimeout", &a.aclrtSynchronizeDeviceWithTimeout, true},
		{"aclrtDeviceCanAccessPeer", &a.aclrtDeviceCanAccessPeer, true},
		{"aclrtDeviceEnablePeerAccess", &a.aclrtDeviceEnablePeerAccess, true},
		{"aclrtDeviceDisablePeerAccess", &a.aclrtDeviceDisablePeerAccess, true},
		{"aclrtGetMemInfo", &a.aclrtGetMemInfo, true},
		{"aclrtMalloc", &a.aclrtMalloc, true},
		{"aclrtFree", &a.aclrtFree, true},
		{"aclrtHostRegister", &a.aclrtHostRegister, false},
		{"aclrtHostUnregister", &a.aclrtHostUnregister, false},
		{"aclrtCreateStream", &a.aclrtCreateStream, true},
		{"aclrtDestroyStream", &a.aclrtDestroyStream, true},
		{"aclrtDestroyStreamForce", &a.aclrtDestroyStreamForce, false},
		{"aclrtSynchronizeStreamWithTimeout", &a.aclrtSynchronizeStreamWithTimeout, true},
		{"aclrtStreamQuery", &a.aclrtStreamQuery, true},
		{"aclrtSubscribeReport", &a.aclrtSubscribeReport, true},
		{"aclrtUnSubscribeReport", &a.aclrtUnSubscribeReport, true},
		{"aclrtLaunchCallback", &a.aclrtLaunchCallback, true},
		{"aclrtProcessReport", &a.aclrtProcessReport, true},
		{"aclrtCreateEvent", &a.aclrtCreateEvent, true},
		{"aclrtDestroyEvent", &a.aclrtDestroyEvent, true},
		{"aclrtRecordEvent", &a.aclrtRecordEvent, true},
		{"aclrtStreamWaitEvent", &a.aclrtStreamWaitEvent, true},
		{"aclrtSynchronizeEvent", &a.aclrtSynchronizeEvent, true},
		{"aclrtSynchronizeEventWithTimeout", &a.aclrtSynchronizeEventWithTimeout, false},
		{"aclrtQueryEventStatus", &a.aclrtQueryEventStatus, true},
		{"aclrtEventElapsedTime", &a.aclrtEventElapsedTime, true},
		{"aclrtMemcpy", &a.aclrtMemcpy, true},
		{"aclrtMemcpyAsync", &a.aclrtMemcpyAsync, true},
		{"aclrtMemcpy2d", &a.aclrtMemcpy2d, true},
		{"aclrtMemcpy2dAsync", &a.aclrtMemcpy2dAsync, true},
		{"aclrtMemset", &a.aclrtMemset, true},
		{"aclrtMemsetAsync", &a.aclrtMemsetAsync, true},
		{"aclrtMemcpyBatch", &a.aclrtMemcpyBatch, false},
		{"aclrtMemcpyBatchAsync", &a.aclrtMemcpyBatchAsync, false},
		{"aclrtMemcpyBatchV2", &a.aclrtMemcpyBatchV2, false},
		{"aclrtMemcpyBatchAsyncV2", &a.aclrtMemcpyBatchAsyncV2, false},
		{"aclrtGetMemcpyDescSize", &a.aclrtGetMemcpyDescSize, false},
		{"aclrtSetMemcpyDesc", &a.aclrtSetMemcpyDesc, false},
		{"aclrtMemcpyAsyncWithDesc", &a.aclrtMemcpyAsyncWithDesc, false},
		{"aclrtMemcpyAsyncWithOffset", &a.aclrtMemcpyAsyncWithOffset, false},
		{"aclrtMemsetD32", &a.aclrtMemsetD32, false},
		{"aclrtMemsetD32Async", &a.aclrtMemsetD32Async, false},
		{"aclrtResetEvent", &a.aclrtResetEvent, false},
		{"aclrtStreamWaitEventWithTimeout", &a.aclrtStreamWaitEventWithTimeout, false},
		{"aclrtGetOpTimeOutInterval", &a.aclrtGetOpTimeOutInterval, false},

		{"aclrtCreateStreamWithConfig", &a.aclrtCreateStreamWithConfig, false},
		{"aclrtSetStreamFailureMode", &a.aclrtSetStreamFailureMode, false},
		{"aclrtGetRunMode", &a.aclrtGetRunMode, false},

		// ABI v1.2 section 12: error state and resource queries.
		{"aclrtGetDeviceResLimit", &a.aclrtGetDeviceResLimit, false},
		{"aclrtGetErrorVerbose", &a.aclrtGetErrorVerbose, false},
		// ABI v1.2 section 12: notifies.
		{"aclrtCreateNotify", &a.aclrtCreateNotify, false},
		{"aclrtDestroyNotify", &a.aclrtDestroyNotify, false},
		{"aclrtRecordNotify", &a.aclrtRecordNotify, false},
		{"aclrtWaitAndResetNotify", &a.aclrtWaitAndResetNotify, false},
		{"aclrtEventGetTimestamp", &a.aclrtEventGetTimestamp, false},
		// ABI v1.3 section 15: per-stream core limits.
		{"aclrtSetStreamResLimit", &a.aclrtSetStreamResLimit, false},
		{"aclrtResetStreamResLimit", &a.aclrtResetStreamResLimit, false},
		// ABI v1.3 section 15: device and product queries.
		{"aclrtGetSocName", &a.aclrtGetSocName, false},
		{"aclrtCheckArchCompatibility", &a.aclrtCheckArchCompatibility, false},
		{"aclGetCannAttribute", &a.aclGetCannAttribute, false},
		{"aclrtGetDeviceInfo", &a.aclrtGetDeviceInfo, false},
		{"aclrtGetDeviceCapability", &a.aclrtGetDeviceCapability, false},
		{"aclrtQueryDeviceStatus", &a.aclrtQueryDeviceStatus, false},
		// ABI v1.3 section 15: notify resets.
		{"aclrtNotifyBatchReset", &a.aclrtNotifyBatchReset, false},
		// ABI v1.3 section 15: reduce and random.
		{"aclrtReduceAsync", &a.aclrtReduceAsync, false},
		// ABI v1.3 section 13.3: kernels.
		{"aclrtBinaryLoadFromFile", &a.aclrtBinaryLoadFromFile, false},
		{"aclrtBinaryGetFunction", &a.aclrtBinaryGetFunction, false},
		{"aclrtBinaryUnLoad", &a.aclrtBinaryUnLoad, false},
		{"aclrtKernelArgsInit", &a.aclrtKernelArgsInit, false},
		{"aclrtKernelArgsAppend", &a.aclrtKernelArgsAppend, false},
		{"aclrtKernelArgsFinalize", &a.aclrtKernelArgsFinalize, false},
		{"aclrtLaunchKernelWithConfig", &a.aclrtLaunchKernelWithConfig, false},
		// ABI v1.3 section 15: the stream overflow switch.
		{"aclrtSetStreamOverflowSwitch", &a.aclrtSetStreamOverflowSwitch, false},
		{"aclrtGetStreamOverflowSwitch", &a.aclrtGetStreamOverflowSwitch, false},
		// ABI v1.3 section 15: random numbers.
		{"aclrtRandomNumAsync", &a.aclrtRandomNumAsync, false},
		// ABI v1.3 section 13.4: offline models.
		{"aclmdlQuerySize", &a.aclmdlQuerySize, false},
		{"aclmdlLoadFromFile", &a.aclmdlLoadFromFile, false},
		{"aclmdlUnload", &a.aclmdlUnload, false},
		{"aclmdlCreateDesc", &a.aclmdlCreateDesc, false},
		{"aclmdlDestroyDesc", &a.aclmdlDestroyDesc, false},
		{"aclmdlGetDesc", &a.aclmdlGetDesc, false},
		{"aclmdlGetNumInputs", &a.aclmdlGetNumInputs, false},
		{"aclmdlGetNumOutputs", &a.aclmdlGetNumOutputs, false},
		{"aclmdlGetInputSizeByIndex", &a.aclmdlGetInputSizeByIndex, false},
		{"aclmdlGetOutputSizeByIndex", &a.aclmdlGetOutputSizeByIndex, false},
		{"aclmdlGetInputDims", &a.aclmdlGetInputDims, false},
		{"aclmdlGetOutputDims", &a.aclmdlGetOutputDims, false},
		{"aclmdlGetInputNameByIndex", &a.aclmdlGetInputNameByIndex, false},
		{"aclmdlGetOutputNameByIndex", &a.aclmdlGetOutputNameByIndex, false},
		{"aclmdlGetInputDataType", &a.aclmdlGetInputDataType, false},
		{"aclmdlGetOutputDataType", &a.aclmdlGetOutputDataType, false},
		{"aclmdlGetInputFormat", &a.aclmdlGetInputFormat, false},
		{"aclmdlGetOutputFormat", &a.aclmdlGetOutputFormat, false},
		{"aclCreateDataBuffer", &a.aclCreateDataBuffer, false},
		{"aclDestroyDataBuffer", &a.aclDestroyDataBuffer, false},
		{"aclmdlCreateDataset", &a.aclmdlCreateDataset, false},
		{"aclmdlDestroyDataset", &a.aclmdlDestroyDataset, false},
		{"aclmdlAddDatasetBuffer", &a.aclmdlAddDatasetBuffer, false},
		{"aclmdlExecuteAsync", &a.aclmdlExecuteAsync, false},
		// ABI v1.3 section 13.1: stopping operators.
		{"aclrtStreamAbort", &a.aclrtStreamAbort, false},
	}
}

// library is one loaded libascendcl.so. It lives for the rest of the
// process: the runtime starts threads of its own, so unloading it is never
// safe. Backends share it and count themselves in users, so that aclInit
// and aclFinalize happen once per process however many backends come and go.
type library struct {
	path    string
	handle  uintptr
	api     api
	missing []string // optional symbols the library does not export

	// Guarded by libsMu.
	users    int
	ownsInit bool // aclInit returned 0 for us, so aclFinalize is ours to call
}

var (
	libsMu sync.Mutex
	libs   = map[uintptr]*library{} // by dlopen handle: one file loaded under two names is one library
)

// candidates returns the paths Open tries, in order, for path.
func candidates(path string) []string {
	if path != "" {
		return []string{path}
	}
	// An explicit choice in the environment is the only candidate: falling
	// back to another library behind the user's back would hide a typo.
	if p := os.Getenv("ACLWASM_ACL_LIB"); p != "" {
		return []string{p}
	}
	c := []string{"libascendcl.so"} // the dynamic loader's search: LD_LIBRARY_PATH, ld.so.cache
	if h := os.Getenv("ASCEND_HOME_PATH"); h != "" {
		c = append(c, filepath.Join(h, "lib64", "libascendcl.so"))
	}
	return append(c, defaultToolkitLib)
}

// load opens the first candidate that the dynamic loader accepts and binds
// its symbols, once per library and process.
func load(path string) (*library, error) {
	var tried []string
	for _, p := range candidates(path) {
		// RTLD_NOW reports missing dependencies here rather than at the
		// first call; RTLD_LOCAL keeps the runtime's symbols out of the
		// global namespace.
		h, err := purego.Dlopen(p, purego.RTLD_NOW|purego.RTLD_LOCAL)
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s (%v)", p, err))
			continue
		}
		libsMu.Lock()
		defer libsMu.Unlock()
		if l, ok := libs[h]; ok {
			return l, nil
		}
		l := &library{path: p, handle: h}
		if err := l.bind(); err != nil {
			return nil, err
		}
		libs[h] = l
		return l, nil
	}
	return nil, fmt.Errorf("%w: tried %s", ErrLibraryNotFound, strings.Join(tried, "; "))
}

// bind resolves every symbol, failing if a required one is missing.
func (l *library) bind() error {
	var absent []string
	for _, s := range l.api.symbols() {
		addr, err := purego.Dlsym(l.handle, s.name)
		if err != nil || addr == 0 {
			if s.required {
				absent = append(absent, s.name)
			} else {
				l.missing = append(l.missing, s.name)
			}
			continue
		}
		purego.RegisterFunc(s.fptr, addr)
	}
	if len(absent) > 0 {
		return fmt.Errorf("cann: %s does not export %s, which this backend requires", l.path, strings.Join(absent, ", "))
	}
	return nil
}

// acquire counts a new backend on l, initializing the runtime for the first.
// aclInit may be called once per process: ACL_ERROR_REPEAT_INITIALIZE means
// that someone else in this process did it, which is fine.
func (l *library) acquire() error {
	libsMu.Lock()
	defer libsMu.Unlock()
	if l.users == 0 {
		switch rc := l.api.aclInit(0); acl.Error(rc) {
		case acl.Success:
			l.ownsInit = true
		case acl.ErrRepeatInitialize:
			l.ownsInit = false
		default:
			return fmt.Errorf("cann: aclInit: %w", acl.Error(rc))
		}
	}
	l.users++
	return nil
}

// release uncounts a backend, finalizing the runtime after the last one if
// this package initialized it. A runtime that another part of the process
// initialized is left to it.
func (l *library) release() error {
	libsMu.Lock()
	defer libsMu.Unlock()
	l.users--
	if l.users > 0 || !l.ownsInit {
		return nil
	}
	l.ownsInit = false
	if rc := l.api.aclFinalize(); rc != 0 {
		return fmt.Errorf("cann: aclFinalize: %w", acl.Error(rc))
	}
	return nil
}
