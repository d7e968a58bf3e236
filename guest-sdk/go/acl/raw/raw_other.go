//go:build !wasip1

package raw

import "unsafe"

// The imports exist only in a WebAssembly guest (GOOS=wasip1 GOARCH=wasm).
// On any other GOOS every function is declared with the same signature, so
// that programs using the SDK build, vet and document themselves (go doc),
// and every call fails: 200001 (ACL_ERROR_API_NOT_SUPPORT), with
// GetRecentErrMsg saying why. raw_test.go checks that this file declares
// exactly the functions of raw_wasip1.go.

// notSupported is what every call returns outside a wasip1 guest.
const notSupported = 200001 // ACL_ERROR_API_NOT_SUPPORT

// NotWasip1 is the message GetRecentErrMsg gives outside a wasip1 guest.
const NotWasip1 = "aclwasm guest SDK: the acl imports exist only in a WebAssembly guest run by aclwasm (GOOS=wasip1 GOARCH=wasm); this program was built for another GOOS"

// Memcpy fails outside a wasip1 guest (see NotWasip1).
func Memcpy(_ uint64, _ uint64, _ uint64, _ uint64, _ int32) int32 { return notSupported }

// MemcpyAsync fails outside a wasip1 guest (see NotWasip1).
func MemcpyAsync(_ uint64, _ uint64, _ uint64, _ uint64, _ int32, _ uint32) int32 {
	return notSupported
}

// MemcpyAsyncWithCondition fails outside a wasip1 guest (see NotWasip1).
func MemcpyAsyncWithCondition(_ uint64, _ uint64, _ uint64, _ uint64, _ int32, _ uint32) int32 {
	return notSupported
}

// MemcpyBatch fails outside a wasip1 guest (see NotWasip1).
func MemcpyBatch(_ unsafe.Pointer, _ unsafe.Pointer, _ unsafe.Pointer, _ unsafe.Pointer, _ uint64, _ unsafe.Pointer, _ unsafe.Pointer, _ uint64, _ unsafe.Pointer) int32 {
	return notSupported
}

// MemcpyBatchAsync fails outside a wasip1 guest (see NotWasip1).
func MemcpyBatchAsync(_ unsafe.Pointer, _ unsafe.Pointer, _ unsafe.Pointer, _ unsafe.Pointer, _ uint64, _ unsafe.Pointer, _ unsafe.Pointer, _ uint64, _ unsafe.Pointer, _ uint32) int32 {
	return notSupported
}

// MemcpyBatchV2 fails outside a wasip1 guest (see NotWasip1).
func MemcpyBatchV2(_ unsafe.Pointer, _ unsafe.Pointer, _ unsafe.Pointer, _ unsafe.Pointer, _ uint64, _ unsafe.Pointer, _ unsafe.Pointer, _ uint64) int32 {
	return notSupported
}

// MemcpyBatchAsyncV2 fails outside a wasip1 guest (see NotWasip1).
func MemcpyBatchAsyncV2(_ unsafe.Pointer, _ unsafe.Pointer, _ unsafe.Pointer, _ unsafe.Pointer, _ uint64, _ unsafe.Pointer, _ unsafe.Pointer, _ uint64, _ uint32) int32 {
	return notSupported
}

// Memcpy2d fails outside a wasip1 guest (see NotWasip1).
func Memcpy2d(_ uint64, _ uint64, _ uint64, _ uint64, _ uint64, _ uint64, _ int32) int32 {
	return notSupported
}

// Memcpy2dAsync fails outside a wasip1 guest (see NotWasip1).
func Memcpy2dAsync(_ uint64, _ uint64, _ uint64, _ uint64, _ uint64, _ uint64, _ int32, _ uint32) int32 {
	return notSupported
}

// GetMemcpyDescSize fails outside a wasip1 guest (see NotWasip1).
func GetMemcpyDescSize(_ int32, _ unsafe.Pointer) int32 { return notSupported }

// SetMemcpyDesc fails outside a wasip1 guest (see NotWasip1).
func SetMemcpyDesc(_ uint64, _ int32, _ uint64, _ uint64, _ uint64, _ unsafe.Pointer) int32 {
	return notSupported
}

// MemcpyAsyncWithDesc fails outside a wasip1 guest (see NotWasip1).
func MemcpyAsyncWithDesc(_ uint64, _ int32, _ uint32) int32 { return notSupported }

// MemcpyAsyncWithOffset fails outside a wasip1 guest (see NotWasip1).
func MemcpyAsyncWithOffset(_ uint64, _ uint64, _ uint64, _ uint64, _ uint64, _ uint64, _ int32, _ uint32) int32 {
	return notSupported
}

// Memset fails outside a wasip1 guest (see NotWasip1).
func Memset(_ uint64, _ uint64, _ int32, _ uint64) int32 { return notSupported }

// MemsetAsync fails outside a wasip1 guest (see NotWasip1).
func MemsetAsync(_ uint64, _ uint64, _ int32, _ uint64, _ uint32) int32 { return notSupported }

// Init fails outside a wasip1 guest (see NotWasip1).
func Init(_ unsafe.Pointer) int32 { return notSupported }

// Finalize fails outside a wasip1 guest (see NotWasip1).
func Finalize() int32 { return notSupported }

// GetVersion fails outside a wasip1 guest (see NotWasip1).
func GetVersion(_ unsafe.Pointer, _ unsafe.Pointer, _ unsafe.Pointer) int32 { return notSupported }

// SetDevice fails outside a wasip1 guest (see NotWasip1).
func SetDevice(_ int32) int32 { return notSupported }

// ResetDevice fails outside a wasip1 guest (see NotWasip1).
func ResetDevice(_ int32) int32 { return notSupported }

// GetDevice fails outside a wasip1 guest (see NotWasip1).
func GetDevice(_ unsafe.Pointer) int32 { return notSupported }

// GetDeviceCount fails outside a wasip1 guest (see NotWasip1).
func GetDeviceCount(_ unsafe.Pointer) int32 { return notSupported }

// SynchronizeDevice fails outside a wasip1 guest (see NotWasip1).
func SynchronizeDevice() int32 { return notSupported }

// SynchronizeDeviceWithTimeout fails outside a wasip1 guest (see NotWasip1).
func SynchronizeDeviceWithTimeout(_ int32) int32 { return notSupported }

// DeviceCanAccessPeer fails outside a wasip1 guest (see NotWasip1).
func DeviceCanAccessPeer(_ unsafe.Pointer, _ int32, _ int32) int32 { return notSupported }

// DeviceEnablePeerAccess fails outside a wasip1 guest (see NotWasip1).
func DeviceEnablePeerAccess(_ int32, _ uint32) int32 { return notSupported }

// DeviceDisablePeerAccess fails outside a wasip1 guest (see NotWasip1).
func DeviceDisablePeerAccess(_ int32) int32 { return notSupported }

// GetMemInfo fails outside a wasip1 guest (see NotWasip1).
func GetMemInfo(_ int32, _ unsafe.Pointer, _ unsafe.Pointer) int32 { return notSupported }

// Malloc fails outside a wasip1 guest (see NotWasip1).
func Malloc(_ unsafe.Pointer, _ uint64, _ uint32) int32 { return notSupported }

// Free fails outside a wasip1 guest (see NotWasip1).
func Free(_ uint64) int32 { return notSupported }

// HostRegister fails outside a wasip1 guest (see NotWasip1).
func HostRegister(_ uint64, _ uint64, _ uint32, _ unsafe.Pointer) int32 { return notSupported }

// HostUnregister fails outside a wasip1 guest (see NotWasip1).
func HostUnregister(_ uint64) int32 { return notSupported }

// PointerGetAttributes fails outside a wasip1 guest (see NotWasip1).
func PointerGetAttributes(_ uint64, _ unsafe.Pointer) int32 { return notSupported }

// CreateStream fails outside a wasip1 guest (see NotWasip1).
func CreateStream(_ unsafe.Pointer) int32 { return notSupported }

// DestroyStream fails outside a wasip1 guest (see NotWasip1).
func DestroyStream(_ uint32) int32 { return notSupported }

// SynchronizeStream fails outside a wasip1 guest (see NotWasip1).
func SynchronizeStream(_ uint32) int32 { return notSupported }

// SynchronizeStreamWithTimeout fails outside a wasip1 guest (see NotWasip1).
func SynchronizeStreamWithTimeout(_ uint32, _ int32) int32 { return notSupported }

// StreamQuery fails outside a wasip1 guest (see NotWasip1).
func StreamQuery(_ uint32, _ unsafe.Pointer) int32 { return notSupported }

// CreateEvent fails outside a wasip1 guest (see NotWasip1).
func CreateEvent(_ unsafe.Pointer) int32 { return notSupported }

// DestroyEvent fails outside a wasip1 guest (see NotWasip1).
func DestroyEvent(_ uint32) int32 { return notSupported }

// RecordEvent fails outside a wasip1 guest (see NotWasip1).
func RecordEvent(_ uint32, _ uint32) int32 { return notSupported }

// StreamWaitEvent fails outside a wasip1 guest (see NotWasip1).
func StreamWaitEvent(_ uint32, _ uint32) int32 { return notSupported }

// SynchronizeEvent fails outside a wasip1 guest (see NotWasip1).
func SynchronizeEvent(_ uint32) int32 { return notSupported }

// QueryEventStatus fails outside a wasip1 guest (see NotWasip1).
func QueryEventStatus(_ uint32, _ unsafe.Pointer) int32 { return notSupported }

// EventElapsedTime fails outside a wasip1 guest (see NotWasip1).
func EventElapsedTime(_ unsafe.Pointer, _ uint32, _ uint32) int32 { return notSupported }

// ResetDeviceForce fails outside a wasip1 guest (see NotWasip1).
func ResetDeviceForce(_ int32) int32 { return notSupported }

// DestroyStreamForce fails outside a wasip1 guest (see NotWasip1).
func DestroyStreamForce(_ uint32) int32 { return notSupported }

// CreateContext fails outside a wasip1 guest (see NotWasip1).
func CreateContext(_ unsafe.Pointer, _ int32) int32 { return notSupported }

// DestroyContext fails outside a wasip1 guest (see NotWasip1).
func DestroyContext(_ uint32) int32 { return notSupported }

// SetCurrentContext fails outside a wasip1 guest (see NotWasip1).
func SetCurrentContext(_ uint32) int32 { return notSupported }

// GetCurrentContext fails outside a wasip1 guest (see NotWasip1).
func GetCurrentContext(_ unsafe.Pointer) int32 { return notSupported }

// GetRunMode fails outside a wasip1 guest (see NotWasip1).
func GetRunMode(_ unsafe.Pointer) int32 { return notSupported }

// CreateStreamWithConfig fails outside a wasip1 guest (see NotWasip1).
func CreateStreamWithConfig(_ unsafe.Pointer, _ uint32, _ uint32) int32 { return notSupported }

// SetStreamFailureMode fails outside a wasip1 guest (see NotWasip1).
func SetStreamFailureMode(_ uint32, _ uint64) int32 { return notSupported }

// GetRecentErrMsg writes NotWasip1 (up to bufLen-1 bytes and a NUL) to buf
// and returns its length, as the import does with the session's message.
func GetRecentErrMsg(buf unsafe.Pointer, bufLen int32) int32 {
	if buf != nil && bufLen > 0 {
		b := unsafe.Slice((*byte)(buf), bufLen)
		b[copy(b[:bufLen-1], NotWasip1)] = 0
	}
	return int32(len(NotWasip1))
}

// MemsetD32 fails outside a wasip1 guest (see NotWasip1).
func MemsetD32(_ uint64, _ uint64, _ uint32, _ uint64) int32 { return notSupported }

// MemsetD32Async fails outside a wasip1 guest (see NotWasip1).
func MemsetD32Async(_ uint64, _ uint64, _ uint32, _ uint64, _ uint32) int32 { return notSupported }

// ResetEvent fails outside a wasip1 guest (see NotWasip1).
func ResetEvent(_ uint32, _ uint32) int32 { return notSupported }

// SetOpWaitTimeout fails outside a wasip1 guest (see NotWasip1).
func SetOpWaitTimeout(_ uint32) int32 { return notSupported }

// SetOpExecuteTimeOut fails outside a wasip1 guest (see NotWasip1).
func SetOpExecuteTimeOut(_ uint32) int32 { return notSupported }

// SetOpExecuteTimeOutV2 fails outside a wasip1 guest (see NotWasip1).
func SetOpExecuteTimeOutV2(_ uint64, _ unsafe.Pointer) int32 { return notSupported }

// GetOpExecuteTimeout fails outside a wasip1 guest (see NotWasip1).
func GetOpExecuteTimeout(_ unsafe.Pointer) int32 { return notSupported }

// GetOpTimeOutInterval fails outside a wasip1 guest (see NotWasip1).
func GetOpTimeOutInterval(_ unsafe.Pointer) int32 { return notSupported }

// AppLog fails outside a wasip1 guest (see NotWasip1).
func AppLog(_ int32, _ unsafe.Pointer, _ unsafe.Pointer, _ uint32, _ unsafe.Pointer) int32 {
	return notSupported
}

// ABI v1.2 section 12: error state and resource queries.

// GetLastError fails outside a wasip1 guest (see NotWasip1).
func GetLastError(_ int32) int32 { return notSupported }

// PeekAtLastError fails outside a wasip1 guest (see NotWasip1).
func PeekAtLastError(_ int32) int32 { return notSupported }

// GetErrorVerbose fails outside a wasip1 guest (see NotWasip1).
func GetErrorVerbose(_ int32, _ unsafe.Pointer) int32 { return notSupported }

// CtxGetCurrentDefaultStream fails outside a wasip1 guest (see NotWasip1).
func CtxGetCurrentDefaultStream(_ unsafe.Pointer) int32 { return notSupported }

// GetResInCurrentThread fails outside a wasip1 guest (see NotWasip1).
func GetResInCurrentThread(_ int32, _ unsafe.Pointer) int32 { return notSupported }

// GetDeviceResLimit fails outside a wasip1 guest (see NotWasip1).
func GetDeviceResLimit(_ int32, _ int32, _ unsafe.Pointer) int32 { return notSupported }

// SetDeviceResLimit fails outside a wasip1 guest (see NotWasip1).
func SetDeviceResLimit(_ int32, _ int32, _ uint32) int32 { return notSupported }

// GetStreamAvailableNum fails outside a wasip1 guest (see NotWasip1).
func GetStreamAvailableNum(_ unsafe.Pointer) int32 { return notSupported }

// ABI v1.2 section 12: notifies and event extras.

// CreateNotify fails outside a wasip1 guest (see NotWasip1).
func CreateNotify(_ unsafe.Pointer, _ uint64) int32 { return notSupported }

// DestroyNotify fails outside a wasip1 guest (see NotWasip1).
func DestroyNotify(_ uint32) int32 { return notSupported }

// RecordNotify fails outside a wasip1 guest (see NotWasip1).
func RecordNotify(_ uint32, _ uint32) int32 { return notSupported }

// WaitAndResetNotify fails outside a wasip1 guest (see NotWasip1).
func WaitAndResetNotify(_ uint32, _ uint32, _ uint32) int32 { return notSupported }

// GetNotifyId fails outside a wasip1 guest (see NotWasip1).
func GetNotifyId(_ uint32, _ unsafe.Pointer) int32 { return notSupported }

// SynchronizeEventWithTimeout fails outside a wasip1 guest (see NotWasip1).
func SynchronizeEventWithTimeout(_ uint32, _ int32) int32 { return notSupported }

// GetEventId fails outside a wasip1 guest (see NotWasip1).
func GetEventId(_ uint32, _ unsafe.Pointer) int32 { return notSupported }

// GetEventAvailNum fails outside a wasip1 guest (see NotWasip1).
func GetEventAvailNum(_ unsafe.Pointer) int32 { return notSupported }

// CreateEventExWithFlag fails outside a wasip1 guest (see NotWasip1).
func CreateEventExWithFlag(_ unsafe.Pointer, _ uint32) int32 { return notSupported }

// EventGetTimestamp fails outside a wasip1 guest (see NotWasip1).
func EventGetTimestamp(_ uint32, _ unsafe.Pointer) int32 { return notSupported }

// ABI v1.2 section 12: stream callbacks.

// LaunchHostFunc fails outside a wasip1 guest (see NotWasip1).
func LaunchHostFunc(_ uint32, _ unsafe.Pointer, _ unsafe.Pointer) int32 { return notSupported }

// SubscribeReport fails outside a wasip1 guest (see NotWasip1).
func SubscribeReport(_ uint64, _ uint32) int32 { return notSupported }

// LaunchCallback fails outside a wasip1 guest (see NotWasip1).
func LaunchCallback(_ unsafe.Pointer, _ unsafe.Pointer, _ int32, _ uint32) int32 {
	return notSupported
}

// ProcessReport fails outside a wasip1 guest (see NotWasip1).
func ProcessReport(_ int32) int32 { return notSupported }

// UnSubscribeReport fails outside a wasip1 guest (see NotWasip1).
func UnSubscribeReport(_ uint64, _ uint32) int32 { return notSupported }

// ABI v1.2 section 12: event wait status.

// QueryEventWaitStatus fails outside a wasip1 guest (see NotWasip1).
func QueryEventWaitStatus(_ uint32, _ unsafe.Pointer) int32 { return notSupported }
