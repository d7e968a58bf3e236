package acl

import (
	"context"
	"time"
)

// DevPtr is a device address as a backend knows it: a native pointer for
// the real runtime, an opaque address for the simulator. 0 is NULL.
// DevPtr arithmetic names bytes inside one allocation: p+k is byte k of the
// allocation at p.
type DevPtr uint64

// HostPin names a host range registered with [Allocator.HostRegister]. 0 means
// the memory is not registered (pageable, "unregistered" in ACL terms).
type HostPin uint64

// Stream is a backend stream handle. 0 is invalid: each device's default
// stream has its own handle ([Streamer.DefaultStream]).
type Stream uint64

// Event is a backend event handle. 0 is invalid.
type Event uint64

// Buf names the memory one side of an operation touches. Exactly one of
// Dev and Host is set.
//
// Host memory is passed as the slice of exactly the bytes the operation may
// touch. Unregistered host memory (Pin == 0) is only touched while the call
// that received it runs, so callers may pass views of memory they do not
// own for longer (a wasm guest's linear memory). Registered host memory
// (Pin != 0) stays valid until HostUnregister returns, so asynchronous
// operations read and write it when they execute.
type Buf struct {
	Dev  DevPtr
	Host []byte
	Pin  HostPin
}

// Device returns a Buf naming device memory at p.
func Device(p DevPtr) Buf { return Buf{Dev: p} }

// Host returns a Buf naming the host bytes b, registered under pin (0 if not).
func Host(b []byte, pin HostPin) Buf { return Buf{Host: b, Pin: pin} }

// IsDevice reports whether b names device memory.
func (b Buf) IsDevice() bool { return b.Dev != 0 }

// Pinned reports whether b is device memory or registered host memory, the
// memory an asynchronous operation may touch after its call returns.
func (b Buf) Pinned() bool { return b.Dev != 0 || b.Pin != 0 }

// Copy is one entry of a batch copy: N bytes from Src to Dst.
type Copy struct {
	Dst, Src Buf
	N        uint64
}

// Backend is the runtime the sandbox delegates to: the embedded simulated
// device or the real libascendcl.so. It receives calls the caller has already
// validated against the native argument checks (see the Check functions) and
// translated into Bufs, so a Backend does not repeat those checks; it still
// rejects handles and device addresses it does not know, so that a caller's
// bug cannot corrupt it.
//
// Backend is the sum of its roles, one per family of the native API, each
// documented with the native functions it serves. Every backend implements
// every method; one it cannot serve (a native library without the
// function) returns [ErrRTFeatureNotSupport], and [Runtime.Supports] says
// so beforehand. The optional roles a backend plays, and what it may or
// may not promise, it reports through [Runtime.Traits].
//
// Device ids are physical. Operations that may block take a context; when
// the context is done they give up waiting and return its error. The
// synchronous copies and memsets take one too: once it is done, a long one
// stops within a bounded time (backends work in chunks of a few MiB and
// check between them) and returns its error; what the chunks already done
// wrote stays written, as when a native call is interrupted.
//
// Asynchronous operations are queued in FIFO order on a stream. An
// operation that fails when it executes has no effect; the stream's next
// synchronize (or that of an event recorded after it, or of its device)
// returns the error. An asynchronous copy that touches unregistered host
// memory first waits for the stream's queued work and then copies before
// returning, as the native runtime does for pageable memory; when that work
// failed, it returns the stream's pending error (clearing it) and copies
// nothing.
type Backend interface {
	Runtime
	DeviceController
	DeviceQuerier
	Allocator
	Copier
	BatchCopier
	DescCopier
	Memsetter
	Streamer
	HostFuncLauncher
	EventRecorder
	Notifier
}

// Runtime is the role of the backend as a whole: what it is, what it
// serves, and its end (aclrtGetVersion, aclrtGetDeviceCount,
// aclrtGetRunMode, aclFinalize).
type Runtime interface {
	// Name identifies the backend ("sim", "cann").
	Name() string
	// Version returns the ACL version the backend implements.
	Version() (major, minor, patch int32)
	// DeviceCount returns how many devices there are.
	DeviceCount() int
	// RunMode returns the run mode aclrtGetRunMode reports.
	RunMode() (RunMode, error)
	// Supports reports whether the backend can serve the native function
	// fn (its name in the native API, "aclrtDestroyStreamForce"): false
	// when the native library does not export it, and the method that
	// calls it returns [ErrRTFeatureNotSupport]. The sandbox asks first
	// where a refusal must come before other checks or before any effect
	// (aclrtResetDeviceForce must not release half a device).
	Supports(fn string) bool
	// Traits returns the backend's optional roles and promises, the same
	// value at every call.
	Traits() Traits
	// Close waits for or cancels all queued work and releases everything.
	Close() error
}

// DeviceController is the role of the device-wide controls: waiting for a
// device, peer access between devices, and the device's limits
// (aclrtSynchronizeDeviceWithTimeout, aclrtDeviceCanAccessPeer,
// aclrtDeviceEnablePeerAccess, aclrtDeviceDisablePeerAccess,
// aclrtGetDeviceResLimit, aclrtGetOpTimeOutInterval).
type DeviceController interface {
	// SynchronizeDevice waits for all work queued on the device's streams.
	// timeoutMs -1 waits forever; 0 and values below -1 give [ErrRTParamInvalid],
	// as natively ([CheckTimeout]); on timeout it returns [ErrRTStreamSyncTimeout].
	SynchronizeDevice(ctx context.Context, dev int32, timeoutMs int32) error
	// CanAccessPeer reports whether dev can access peer's memory.
	CanAccessPeer(dev, peer int32) (bool, error)
	// EnablePeerAccess lets dev reach peer's memory in device-to-device copies.
	EnablePeerAccess(dev, peer int32) error
	// DisablePeerAccess undoes EnablePeerAccess.
	DisablePeerAccess(dev, peer int32) error
	// DeviceResLimit returns how many cores of type t physical device dev
	// has (aclrtGetDeviceResLimit before any aclrtSetDeviceResLimit): the
	// most a session's own limit may be. The sandbox never sets a limit on
	// the backend, which would bind every session on the device.
	DeviceResLimit(dev int32, t DevResLimitType) (uint32, error)
	// OpTimeoutInterval returns the hardware's step for operator timeouts
	// in microseconds (aclrtGetOpTimeOutInterval). Operator timeouts are
	// set in whole multiples of it, from 1 to [MaxOpTimeoutSteps]; kernels
	// never run in the sandbox, so the sandbox only reports them.
	OpTimeoutInterval() (uint64, error)
}

// DeviceQuerier is the role of the device and product queries (ABI
// section 15: aclrtGetSocName, aclrtCheckArchCompatibility,
// aclGetCannAttribute, aclrtGetDeviceInfo, aclrtGetDeviceCapability,
// aclrtQueryDeviceStatus). dev is physical; the caller has applied the
// native argument checks.
type DeviceQuerier interface {
	// SocName returns the SoC name of the devices (aclrtGetSocName):
	// "Ascend910B1".
	SocName() (string, error)
	// ArchCompatible reports whether code built for SoC soc runs on the
	// devices (aclrtCheckArchCompatibility): the two have the same NPU
	// architecture. A name the runtime does not know gives
	// [ErrRTParamInvalid].
	ArchCompatible(soc string) (bool, error)
	// CannAttribute reports whether the installed software offers a
	// (aclGetCannAttribute): 1 or 0.
	CannAttribute(a CannAttr) (int32, error)
	// DeviceInfo returns attribute attr of dev (aclrtGetDeviceInfo). The
	// caller never asks for the attributes that identify the machine
	// ([DevAttr.Identifying]) nor for the total memory, which it answers
	// from the session's quota.
	DeviceInfo(dev int32, attr DevAttr) (int64, error)
	// DeviceCapability reports whether dev has feature f
	// (aclrtGetDeviceCapability): [FeatureSupported] or
	// [FeatureNotSupported].
	DeviceCapability(dev int32, f DevFeature) (int32, error)
	// DeviceStatus returns the health of dev (aclrtQueryDeviceStatus).
	DeviceStatus(dev int32) (DeviceStatus, error)
}

// Allocator is the role of device memory and host registrations
// (aclrtMalloc, aclrtFree, aclrtGetMemInfo, aclrtHostRegister,
// aclrtHostUnregister), with the allocation table the sandbox checks
// addresses against.
type Allocator interface {
	// Malloc allocates size bytes on dev. Out of memory is [ErrRTMemoryAllocation].
	Malloc(dev int32, size uint64, policy MemMallocPolicy) (DevPtr, error)
	// Free waits for queued work that uses the allocation at p, then frees it.
	Free(ctx context.Context, p DevPtr) error
	// DeviceOf returns the device of the allocation containing p.
	DeviceOf(p DevPtr) (int32, error)
	// Allocation returns the live allocation that holds the byte at p:
	// its first address, its size (the bytes Malloc was asked for) and its
	// device. An embedder's range is checked against it before the host
	// hands any of it to a guest (host.Instance.Lend).
	Allocation(p DevPtr) (base DevPtr, size uint64, dev int32, err error)
	// MemInfo returns the free and total bytes of a device's memory class.
	MemInfo(dev int32, attr MemAttr) (free, total uint64, err error)
	// HostRegister pins b so that asynchronous operations may use it.
	HostRegister(b []byte, typ HostRegisterType) (HostPin, error)
	// HostUnregister waits for queued work that uses the range, then unpins it.
	HostUnregister(ctx context.Context, pin HostPin) error
}

// Copier is the role of the plain copies (aclrtMemcpy, aclrtMemcpyAsync,
// aclrtMemcpy2d, aclrtMemcpy2dAsync).
type Copier interface {
	// Memcpy copies n bytes now. It does not wait for any stream.
	Memcpy(ctx context.Context, dst, src Buf, n uint64) error
	// MemcpyAsync queues a copy of n bytes on s.
	MemcpyAsync(ctx context.Context, dst, src Buf, n uint64, s Stream) error
	// Memcpy2D copies height rows of width bytes, rows dpitch and spitch apart.
	Memcpy2D(ctx context.Context, dst Buf, dpitch uint64, src Buf, spitch, width, height uint64) error
	// Memcpy2DAsync queues a Memcpy2D on s.
	Memcpy2DAsync(ctx context.Context, dst Buf, dpitch uint64, src Buf, spitch, width, height uint64, s Stream) error
}

// BatchCopier is the role of the batch copies (aclrtMemcpyBatch,
// aclrtMemcpyBatchAsync).
type BatchCopier interface {
	// MemcpyBatch runs every copy, in no fixed order, before returning.
	MemcpyBatch(ctx context.Context, copies []Copy) error
	// MemcpyBatchAsync queues the copies on s as one operation.
	MemcpyBatchAsync(ctx context.Context, copies []Copy, s Stream) error
}

// DescCopier is the role of the copies whose addresses the device reads
// when they execute (aclrtGetMemcpyDescSize, aclrtSetMemcpyDesc,
// aclrtMemcpyAsyncWithDesc, aclrtMemcpyAsyncWithOffset).
type DescCopier interface {
	// MemcpyDescSize returns the size of a copy descriptor for kind.
	MemcpyDescSize(kind MemcpyKind) (uint64, error)
	// SetMemcpyDesc writes a descriptor for a copy of n bytes from src to dst
	// into device memory at desc.
	SetMemcpyDesc(desc DevPtr, kind MemcpyKind, src, dst DevPtr, n uint64) error
	// MemcpyAsyncWithDesc queues the copy the descriptor at desc describes;
	// the descriptor is read when the operation executes.
	MemcpyAsyncWithDesc(desc DevPtr, kind MemcpyKind, s Stream) error
	// MemcpyAsyncWithOffset queues a copy of n bytes from *srcSlot+srcOff to
	// *dstSlot+dstOff; the base addresses are read from device memory at the
	// slots when the operation executes.
	MemcpyAsyncWithOffset(dstSlot DevPtr, destMax, dstOff uint64, srcSlot DevPtr, n, srcOff uint64, kind MemcpyKind, s Stream) error
}

// Memsetter is the role of the memsets (aclrtMemset, aclrtMemsetAsync,
// aclrtMemsetD32, aclrtMemsetD32Async).
type Memsetter interface {
	// Memset sets n bytes to value now.
	Memset(ctx context.Context, dst Buf, value byte, n uint64) error
	// MemsetAsync queues a Memset on s.
	MemsetAsync(ctx context.Context, dst Buf, value byte, n uint64, s Stream) error
	// MemsetD32 sets n 32-bit words at dst to value now (little-endian, as
	// the device stores them): aclrtMemsetD32. The sandbox sets guest
	// memory itself and calls it for device memory only.
	MemsetD32(ctx context.Context, dst Buf, value uint32, n uint64) error
	// MemsetD32Async queues a MemsetD32 on s: aclrtMemsetD32Async.
	MemsetD32Async(ctx context.Context, dst Buf, value uint32, n uint64, s Stream) error
}

// Streamer is the role of streams (aclrtCreateStream,
// aclrtCreateStreamWithConfig, aclrtDestroyStream, aclrtDestroyStreamForce,
// aclrtSynchronizeStreamWithTimeout, aclrtStreamQuery,
// aclrtSetStreamFailureMode), with the queue counts the sandbox keeps its
// limits by.
type Streamer interface {
	// DefaultStream returns the default stream of dev.
	DefaultStream(dev int32) (Stream, error)
	// CreateStream creates a stream on dev.
	CreateStream(dev int32) (Stream, error)
	// CreateStreamWithConfig creates a stream on dev as
	// aclrtCreateStreamWithConfig does; the caller has applied the native
	// checks ([CheckStreamFlags]).
	CreateStreamWithConfig(dev int32, priority uint32, flags StreamFlag) (Stream, error)
	// DestroyStream waits for the stream's queued work, then destroys it. If
	// ctx is done first, the work not yet started is cancelled. Either way no
	// operation of the stream runs after it returns, and it returns nil once
	// the stream is destroyed.
	DestroyStream(ctx context.Context, s Stream) error
	// DestroyStreamForce destroys s without waiting for its queued work
	// (aclrtDestroyStreamForce, and aclrtResetDeviceForce): the operations
	// not yet started are cancelled (they never run, move no byte and
	// count nothing; records of events queued there complete with
	// [ErrRTStreamAbort]), the running one is waited for.
	DestroyStreamForce(s Stream) error
	// SynchronizeStream waits for the stream's queued work and returns the
	// first error an operation met since the last synchronize.
	SynchronizeStream(ctx context.Context, s Stream, timeoutMs int32) error
	// StreamQuery reports whether the stream's queued work is complete.
	StreamQuery(s Stream) (StreamStatus, error)
	// Pending returns how many operations are queued on s and not yet complete.
	Pending(s Stream) (int, error)
	// Idle reports whether s is known to have completed all its queued
	// work with no error pending (so every operation of it ran and
	// succeeded), without asking a native runtime: false when it cannot
	// tell so cheaply, or s is unknown. The sandbox asks after queuing a
	// small copy, to count its bytes at once when it has run instead of
	// through OnComplete.
	Idle(s Stream) bool
	// SetStreamFailureMode sets what s does after an operation fails: with
	// [StopOnFailure] the operations queued after it fail without effect
	// until the stream is synchronized (the synchronize returns the first
	// error). The caller has applied [CheckFailureModeChange].
	SetStreamFailureMode(s Stream, mode FailureMode) error
}

// HostFuncLauncher is the role of host work in stream order
// (aclrtLaunchCallback, aclrtLaunchHostFunc): the guest's callbacks and
// the sandbox's own checks and accounting.
type HostFuncLauncher interface {
	// LaunchHostFunc queues fn on s; it runs in stream order, and an error it
	// returns is the stream's asynchronous error. The sandbox uses it for work
	// it must validate when it executes (descriptors, offset base slots).
	LaunchHostFunc(s Stream, fn func() error) error
	// OnComplete queues fn on s to run once the operations queued on s
	// before it have run, in stream order as LaunchHostFunc, but as a mark
	// rather than an operation: Pending does not count it, and it is
	// dropped, never run, when the work before it is cancelled. fn must be
	// quick and must not call the backend: it may run on the goroutine of
	// a caller that synchronizes s. The sandbox counts the bytes of queued
	// copies with it, once they have moved.
	OnComplete(s Stream, fn func()) error
}

// EventRecorder is the role of events (aclrtCreateEvent,
// aclrtDestroyEvent, aclrtRecordEvent, aclrtResetEvent,
// aclrtStreamWaitEvent, aclrtStreamWaitEventWithTimeout,
// aclrtSynchronizeEventWithTimeout, aclrtQueryEventStatus,
// aclrtEventElapsedTime, aclrtEventGetTimestamp).
type EventRecorder interface {
	// CreateEvent creates an event on dev.
	CreateEvent(dev int32) (Event, error)
	// DestroyEvent destroys an event; queued waits on it are released.
	DestroyEvent(e Event) error
	// RecordEvent queues a record of e on s.
	RecordEvent(e Event, s Stream) error
	// ResetEvent queues on s a reset of e (aclrtResetEvent): a wait queued
	// after it waits for e's next record. As natively, the record before
	// it still decides e's status, synchronize, timestamp and elapsed time.
	ResetEvent(e Event, s Stream) error
	// StreamWaitEvent makes s wait for the most recent record of e queued
	// before this call, or, when e has none yet, for its next record: an ACL
	// event wait blocks until a record arrives (ABI section 7), so "wait,
	// then record on another stream" is a valid handshake.
	StreamWaitEvent(s Stream, e Event) error
	// StreamWaitEventTimeout is StreamWaitEvent, except that a wait still
	// blocked after timeout ends and fails with [ErrRTWaitTimeout], which
	// the stream's next synchronize returns; 0 means no limit. The sandbox
	// uses it when a guest set a limit with aclrtSetOpWaitTimeout.
	StreamWaitEventTimeout(s Stream, e Event, timeout time.Duration) error
	// SynchronizeEvent waits for the most recent record of e to complete.
	SynchronizeEvent(ctx context.Context, e Event, timeoutMs int32) error
	// QueryEvent reports whether the most recent record of e has completed.
	QueryEvent(e Event) (EventRecordedStatus, error)
	// EventElapsedTime returns the milliseconds between two completed records.
	EventElapsedTime(start, end Event) (float32, error)
	// EventTimestamp returns when the most recent record of e ran, in
	// microseconds of the device's clock (aclrtEventGetTimestamp): an
	// event never recorded gives [ErrRTInternal], one whose record has not
	// completed or was cancelled [ErrRTEventTimestampInvalid].
	EventTimestamp(e Event) (uint64, error)
}

// Notifier is the role of notifies (ABI sections 12 and 15:
// aclrtCreateNotify, aclrtDestroyNotify, aclrtRecordNotify,
// aclrtWaitAndResetNotify, aclrtNotifyBatchReset).
type Notifier interface {
	// CreateNotify creates a notify on dev, not set (aclrtCreateNotify);
	// the caller has applied [CheckNotifyFlag].
	CreateNotify(dev int32, flag uint64) (Notify, error)
	// DestroyNotify destroys n (aclrtDestroyNotify); queued waits on it
	// are released.
	DestroyNotify(n Notify) error
	// RecordNotify queues on s the setting of n (aclrtRecordNotify).
	RecordNotify(n Notify, s Stream) error
	// WaitAndResetNotify queues on s a wait until n is set, which then
	// clears it (aclrtWaitAndResetNotify). A wait still blocked after
	// timeout (0: no limit) ends and fails with [ErrRTWaitTimeout], which
	// the stream's next synchronize returns; n stays as it was.
	WaitAndResetNotify(n Notify, s Stream, timeout time.Duration) error
	// ResetNotify clears n now (aclrtNotifyBatchReset of one notify): a
	// record that ran before it no longer releases a later wait; one still
	// queued sets n when it runs. The caller has waited for the work the
	// runtime's reset task would have queued behind.
	ResetNotify(n Notify) error
}

// DeviceRegisterer is the optional role ([Traits.DeviceRegisterer]) of a
// backend whose host registrations belong to a device, as native ones do:
// aclrtHostRegister registers for the device of the caller's current
// context (api_impl.cc:2557-2566). HostRegisterOn registers b for dev, and
// HostUnregister undoes it for the same device. The sandbox registers for
// the session's current device; a backend without it (the simulator)
// registers memory for every device alike.
type DeviceRegisterer interface {
	HostRegisterOn(dev int32, b []byte, typ HostRegisterType) (HostPin, error)
}

// MaxOpTimeoutSteps is how many intervals an operator timeout may be: a
// longer one is cut to it, and 0 asks for it (the native documentation
// of aclrtGetOpTimeOutInterval).
const MaxOpTimeoutSteps = 254

// Queues reports whether an asynchronous operation on dst and src is
// queued on its stream. One that touches unregistered (pageable) host
// memory is not: it waits for the stream's queued work, then runs before
// its call returns, as the native runtime copies pageable memory. The
// sandbox (which counts bytes when they move) and every backend follow
// this one rule.
func Queues(dst, src Buf) bool { return dst.Pinned() && src.Pinned() }

// CheckAsyncSides refuses an asynchronous copy between two host buffers,
// which the native runtime of a PCIe-attached card does not support
// ([ErrRTFeatureNotSupport]); the sandbox and every backend refuse it
// with this error.
func CheckAsyncSides(dst, src Buf) error {
	if !dst.IsDevice() && !src.IsDevice() {
		return Errorf(ErrRTFeatureNotSupport, "asynchronous host-to-host copies are not supported (PCIe-attached card): neither dst nor src is device memory")
	}
	return nil
}
