package acl

import (
	"sync"
	"unsafe"

	"github.com/aclwasm/aclwasm/guest-sdk/go/acl/raw"
)

// Stream callbacks (ABI section 12). The host runs a due callback on the
// guest's own goroutine, re-entrantly inside one of its host calls, through
// the export aclwasm_dispatch_callback(fn, userData), which the package
// github.com/aclwasm/aclwasm/guest-sdk/go/acl/callback defines: import it
// (import _ ".../acl/callback") in a guest that launches callbacks; the
// host refuses to load one that launches them without the export.
//
// Go cannot hand the host a function pointer from the wasm table as C
// does, so the SDK keeps a registry of the queued funcs: the host's
// userData is the address of the func's registry entry, and fn the
// address of a tag of this package; the host never dereferences either,
// it only hands them back. DispatchCallback looks the entry up, removes it
// and calls its func: each launched func runs at most once, and a dispatch
// naming no entry does nothing.

// CallbackBlockType is how a callback queued by LaunchCallback holds its
// stream (aclrtCallbackBlockType).
type CallbackBlockType int32

// The native block types.
const (
	// CallbackNoBlock (ACL_CALLBACK_NO_BLOCK): later work on the stream
	// does not wait for the callback.
	CallbackNoBlock CallbackBlockType = 0
	// CallbackBlock (ACL_CALLBACK_BLOCK): later work on the stream waits
	// until the callback has run.
	CallbackBlock CallbackBlockType = 1
)

// cbEntry is one launched func; its address is the userData the host holds.
type cbEntry struct{ f func() }

// cbTag is the fn every launch passes: a non-NULL address of this package,
// which DispatchCallback checks before it looks userData up.
var cbTag byte

var (
	cbMu sync.Mutex
	// cbPending holds the launched funcs not yet run, by entry address; it
	// keeps each entry reachable while only the host holds its address.
	cbPending = map[uint32]*cbEntry{}
)

// cbRegister records f and returns the fn and userData to launch it with;
// a nil f gets a NULL fn, which the host refuses with the native code.
func cbRegister(f func()) (fn, user unsafe.Pointer, key uint32) {
	if f == nil {
		return nil, nil, 0
	}
	e := &cbEntry{f: f}
	key = uint32(uintptr(unsafe.Pointer(e)))
	cbMu.Lock()
	cbPending[key] = e
	cbMu.Unlock()
	return unsafe.Pointer(&cbTag), unsafe.Pointer(e), key
}

// cbLaunched keeps the registry entry of a launch that succeeded and drops
// that of one that failed (the host never runs it).
func cbLaunched(key uint32, err error) error {
	if err != nil && key != 0 {
		cbMu.Lock()
		delete(cbPending, key)
		cbMu.Unlock()
	}
	return err
}

// DispatchCallback runs the func that the host's dispatch (fn, userData)
// names and removes it from the registry; it does nothing when fn is not
// this SDK's tag or userData names no pending func. The package
// acl/callback exports it as aclwasm_dispatch_callback: a guest calls it
// only to write its own dispatcher export.
func DispatchCallback(fn, userData uint32) {
	if fn != uint32(uintptr(unsafe.Pointer(&cbTag))) {
		return
	}
	cbMu.Lock()
	e := cbPending[userData]
	delete(cbPending, userData)
	cbMu.Unlock()
	if e != nil {
		e.f()
	}
}

// PendingCallbacks returns how many launched funcs have not run yet.
func PendingCallbacks() int {
	cbMu.Lock()
	defer cbMu.Unlock()
	return len(cbPending)
}

// LaunchHostFunc queues f on the stream (aclrtLaunchHostFunc; the zero
// Stream is the default stream): f runs on the guest's goroutine once the
// work queued before it is done, and later work on the stream waits for
// it. A stream bound with SubscribeReport refuses it (LaunchCallback
// instead). Needs the export of the package acl/callback.
func (s Stream) LaunchHostFunc(f func()) error {
	fn, user, key := cbRegister(f)
	return cbLaunched(key, check("aclrtLaunchHostFunc", raw.LaunchHostFunc(uint32(s), fn, user)))
}

// LaunchCallback queues f on the stream, which SubscribeReport bound
// (aclrtLaunchCallback): once due, ProcessReport (or any blocking wait of
// the guest) runs it; with CallbackBlock later work on the stream waits
// until it has run. Needs the export of the package acl/callback.
func (s Stream) LaunchCallback(f func(), b CallbackBlockType) error {
	fn, user, key := cbRegister(f)
	return cbLaunched(key, check("aclrtLaunchCallback", raw.LaunchCallback(fn, user, int32(b), uint32(s))))
}

// SubscribeReport binds the stream to the guest's thread, for
// LaunchCallback (aclrtSubscribeReport); the guest has one thread, so any
// threadID names it.
func (s Stream) SubscribeReport(threadID uint64) error {
	return check("aclrtSubscribeReport", raw.SubscribeReport(threadID, uint32(s)))
}

// UnSubscribeReport unbinds the stream from the thread SubscribeReport
// named (aclrtUnSubscribeReport).
func (s Stream) UnSubscribeReport(threadID uint64) error {
	return check("aclrtUnSubscribeReport", raw.UnSubscribeReport(threadID, uint32(s)))
}

// ProcessReport runs the LaunchCallback callbacks that are due, waiting up
// to timeoutMs milliseconds (-1: no limit) for one
// (aclrtProcessReport); ErrRTReportTimeout (507012) if none came.
func ProcessReport(timeoutMs int32) error {
	return check("aclrtProcessReport", raw.ProcessReport(timeoutMs))
}
