package acl

import (
	"unsafe"

	"github.com/aclwasm/aclwasm/guest-sdk/go/acl/raw"
)

// Check turns the code a call of fn returned into an error: nil for 0,
// else an *Error with the code and the host's message, read now. It is for
// calls the package does not wrap: raw imports, and the launchers of kernels
// the host registers (imports from "env", see the README).
func Check(fn string, code int32) error { return check(fn, code) }

// check turns a returned code into an error.
func check(fn string, code int32) error {
	if code == 0 {
		return nil
	}
	return &Error{Func: fn, Code: Code(code), Message: RecentErrMsg(), FailIndex: -1}
}

// RecentErrMsg returns the message of this session's most recent failed call.
// Where the native aclGetRecentErrMsg returns NULL (nothing has failed yet),
// it returns "", Go's "no message". As natively, reading the message clears
// it: a second read without a new failure returns "" (an Error made by a
// failing call has already read it into Message).
func RecentErrMsg() string {
	var small [512]byte
	n := raw.GetRecentErrMsg(unsafe.Pointer(&small[0]), int32(len(small)))
	if n <= 0 {
		return ""
	}
	if int(n) < len(small) {
		return string(small[:n])
	}
	big := make([]byte, n+1)
	m := raw.GetRecentErrMsg(unsafe.Pointer(&big[0]), int32(len(big)))
	return string(big[:min(int(m), int(n))])
}

// Init initializes the runtime (aclInit). It is optional; a second call fails
// with ErrRepeatInitialize. An empty configPath passes NULL.
func Init(configPath string) error {
	if configPath == "" {
		return check("aclInit", raw.Init(nil))
	}
	b := append([]byte(configPath), 0)
	return check("aclInit", raw.Init(unsafe.Pointer(&b[0])))
}

// Finalize finalizes the runtime (aclFinalize).
func Finalize() error { return check("aclFinalize", raw.Finalize()) }

// Version returns the ACL version the host implements (aclrtGetVersion).
func Version() (major, minor, patch int32, err error) {
	err = check("aclrtGetVersion", raw.GetVersion(unsafe.Pointer(&major), unsafe.Pointer(&minor), unsafe.Pointer(&patch)))
	return
}

// SetDevice makes id the current device (aclrtSetDevice); required before device work.
func SetDevice(id int32) error { return check("aclrtSetDevice", raw.SetDevice(id)) }

// ResetDevice waits for the session's work on the device, then releases
// everything it holds there (aclrtResetDevice).
func ResetDevice(id int32) error { return check("aclrtResetDevice", raw.ResetDevice(id)) }

// Device returns the current device id (aclrtGetDevice).
func Device() (int32, error) {
	var id int32
	err := check("aclrtGetDevice", raw.GetDevice(unsafe.Pointer(&id)))
	return id, err
}

// DeviceCount returns how many devices the session sees (aclrtGetDeviceCount).
func DeviceCount() (uint32, error) {
	var n uint32
	err := check("aclrtGetDeviceCount", raw.GetDeviceCount(unsafe.Pointer(&n)))
	return n, err
}

// SynchronizeDevice waits for all of the session's work on the current device.
func SynchronizeDevice() error { return check("aclrtSynchronizeDevice", raw.SynchronizeDevice()) }

// SynchronizeDeviceWithTimeout is SynchronizeDevice with a timeout in
// milliseconds (-1: forever); ErrRTStreamSyncTimeout when it expires.
func SynchronizeDeviceWithTimeout(timeoutMs int32) error {
	return check("aclrtSynchronizeDeviceWithTimeout", raw.SynchronizeDeviceWithTimeout(timeoutMs))
}

// CanAccessPeer reports whether device can access peer's memory (aclrtDeviceCanAccessPeer).
func CanAccessPeer(device, peer int32) (bool, error) {
	var can int32
	err := check("aclrtDeviceCanAccessPeer", raw.DeviceCanAccessPeer(unsafe.Pointer(&can), device, peer))
	return can != 0, err
}

// EnablePeerAccess lets the current device copy to and from peer
// (aclrtDeviceEnablePeerAccess with flags 0).
func EnablePeerAccess(peer int32) error {
	return check("aclrtDeviceEnablePeerAccess", raw.DeviceEnablePeerAccess(peer, 0))
}

// DisablePeerAccess undoes EnablePeerAccess (aclrtDeviceDisablePeerAccess).
func DisablePeerAccess(peer int32) error {
	return check("aclrtDeviceDisablePeerAccess", raw.DeviceDisablePeerAccess(peer))
}

// MemInfo returns the session's free and total device memory of a class on
// the current device: its quota, and the part it does not hold (aclrtGetMemInfo).
func MemInfo(attr MemAttr) (free, total uint64, err error) {
	err = check("aclrtGetMemInfo", raw.GetMemInfo(int32(attr), unsafe.Pointer(&free), unsafe.Pointer(&total)))
	return
}

// PointerAttributes reports where p lives (aclrtPointerGetAttributes): DEVICE
// with the device id, HOST for registered guest memory, UNREGISTERED for
// other guest memory.
func PointerAttributes(p Ptr) (PtrAttributes, error) {
	var a PtrAttributes
	err := check("aclrtPointerGetAttributes", raw.PointerGetAttributes(uint64(p), unsafe.Pointer(&a)))
	return a, err
}
