package acl

import (
	"unsafe"

	"github.com/aclwasm/aclwasm/guest-sdk/go/acl/raw"
)

// Context is a context handle (ABI v1.1): a device plus its own default
// stream, the target of DefaultStream while the context is current.
// SetDevice makes the device's default context current; CreateContext
// makes a new one. Destroy a context you created when done (a device's
// default context cannot be destroyed).
type Context uint32

// CreateContext creates a context on device and makes it current
// (aclrtCreateContext).
func CreateContext(device int32) (Context, error) {
	var c Context
	err := check("aclrtCreateContext", raw.CreateContext(unsafe.Pointer(&c), device))
	return c, err
}

// CurrentContext returns the current context (aclrtGetCurrentContext).
func CurrentContext() (Context, error) {
	var c Context
	err := check("aclrtGetCurrentContext", raw.GetCurrentContext(unsafe.Pointer(&c)))
	return c, err
}

// SetCurrent makes the context's device current and its default stream the
// target of DefaultStream (aclrtSetCurrentContext).
func (c Context) SetCurrent() error {
	return check("aclrtSetCurrentContext", raw.SetCurrentContext(uint32(c)))
}

// Destroy destroys the context and its streams after their queued work
// (aclrtDestroyContext).
func (c Context) Destroy() error { return check("aclrtDestroyContext", raw.DestroyContext(uint32(c))) }

// GetRunMode reports where the application runs (aclrtGetRunMode):
// RunModeHost for a host-attached card and for the simulator.
func GetRunMode() (RunMode, error) {
	var m RunMode
	err := check("aclrtGetRunMode", raw.GetRunMode(unsafe.Pointer(&m)))
	return m, err
}

// ResetDeviceForce is ResetDevice, but the session's queued work on the
// device is cancelled, not awaited (aclrtResetDeviceForce).
func ResetDeviceForce(device int32) error {
	return check("aclrtResetDeviceForce", raw.ResetDeviceForce(device))
}
