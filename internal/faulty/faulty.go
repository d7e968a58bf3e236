// Package faulty wraps an [acl.Backend] so that it fails on command, for
// tests of what a caller does when the runtime fails: an error at the Nth
// call of a method, before the call reaches the wrapped backend (FailCall),
// or an asynchronous operation that fails when it executes, in stream
// order, without touching memory (FailExec). Calls without a fault pass
// through unchanged.
//
// It exists because a real runtime fails in ways a correct caller cannot
// provoke: a device that runs out of memory between two calls, a copy that
// the hardware aborts, a stream whose synchronize reports an error. The
// sandbox must still give the guest the native code at the right call or
// synchronize, leave no effect of the failed operation, and release
// everything when the session ends.
//
// The package is internal: tests of acl/cann and of host (host/faults_test.go)
// use it, and it lives at the module's root so that both may import it. It
// exports [Wrap] and the [Faulty] it returns, [Injected] (an error to inject
// when any will do) and [Roles] (the optional roles and promises a backend
// reports in its acl.Traits, which the tests compare before and after
// Wrap).
package faulty

import (
	"context"
	"fmt"
	"sync"

	"github.com/aclwasm/aclwasm/acl"
)

// wrapper is an [acl.Backend] that fails the calls it is told to. It
// reports the Traits of the backend it wraps, so that it needs no type per
// combination of optional roles. It is safe for concurrent use.
type wrapper struct {
	acl.Backend

	mu     sync.Mutex
	calls  map[string]int
	faults []*fault
}

type fault struct {
	method string
	at     int  // the call number it fires at
	exec   bool // queue a failing operation instead of failing the call
	err    error
	fired  bool
}

// Faulty is what Wrap returns: an [acl.Backend] that fails on command.
type Faulty interface {
	acl.Backend
	FailCall(method string, n int, err error)
	FailExec(method string, n int, err error)
	Calls(method string) int
	Unfired() int
}

// Wrap returns b wrapped. It fails nothing until told to, and it reports
// b's optional roles and promises ([acl.Traits]): the sandbox takes
// different paths for a backend with and without each, so a wrapper with
// other traits than b would test other host code than b's.
func Wrap(b acl.Backend) Faulty {
	return &wrapper{Backend: b, calls: map[string]int{}}
}

// Traits implements [acl.Runtime]: b's, with its DeviceRegisterer (if any)
// failing as HostRegister does, since the sandbox registers through it
// in HostRegister's place (both are aclrtHostRegister). The other roles
// are b's own: no fault is injected into them. b's SmallCopier is not the
// wrapper, so the sandbox takes none ([acl.SmallCopierOf]) and every copy
// meets Memcpy's faults.
func (b *wrapper) Traits() acl.Traits {
	t := b.Backend.Traits()
	if t.DeviceRegisterer != nil {
		t.DeviceRegisterer = registerer{b, t.DeviceRegisterer}
	}
	return t
}

// registerer is a wrapped backend's [acl.DeviceRegisterer].
type registerer struct {
	b *wrapper
	r acl.DeviceRegisterer
}

// HostRegisterOn implements [acl.DeviceRegisterer]; its calls count, and
// fail, as HostRegister's.
func (r registerer) HostRegisterOn(dev int32, buf []byte, typ acl.HostRegisterType) (acl.HostPin, error) {
	if err := r.b.fail("HostRegister"); err != nil {
		return 0, err
	}
	return r.r.HostRegisterOn(dev, buf, typ)
}

// Injected is the error the tests inject when any will do: a runtime
// failure a guest cannot cause.
var Injected = acl.Errorf(acl.ErrRTInternal, "faulty: injected failure")

// FailCall makes the nth call of method (1 is the next one), named as the
// [acl.Backend] method, return err without reaching the wrapped backend: the
// call has no effect. The methods that can fail are those of this type;
// another name is a test bug and panics.
func (b *wrapper) FailCall(method string, n int, err error) { b.add(method, n, false, err) }

// FailExec makes the nth call of the asynchronous method (1 is the next
// one) queue, in place of its operation, one that fails with err when it
// executes: it runs in stream order, nothing of the original operation
// happens, and the stream's next synchronize returns err. method is one of
// MemcpyAsync, Memcpy2DAsync, MemcpyBatchAsync, MemsetAsync,
// MemcpyAsyncWithDesc, MemcpyAsyncWithOffset; another name panics.
func (b *wrapper) FailExec(method string, n int, err error) {
	switch method {
	case "MemcpyAsync", "Memcpy2DAsync", "MemcpyBatchAsync", "MemsetAsync", "MemcpyAsyncWithDesc", "MemcpyAsyncWithOffset":
	default:
		panic(fmt.Sprintf("faulty: FailExec: %s is not an asynchronous copy", method))
	}
	b.add(method, n, true, err)
}

func (b *wrapper) add(method string, n int, exec bool, err error) {
	if !faultable[method] || n < 1 || err == nil {
		panic(fmt.Sprintf("faulty: cannot fail call %d of %q with %v", n, method, err))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.faults = append(b.faults, &fault{method: method, at: b.calls[method] + n, exec: exec, err: err})
}

// Calls returns how many times method has been called.
func (b *wrapper) Calls(method string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.calls[method]
}

// Unfired returns how many of the faults asked for have not fired yet, so
// that a test can tell its fault was injected where it meant.
func (b *wrapper) Unfired() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, f := range b.faults {
		if !f.fired {
			n++
		}
	}
	return n
}

// hit counts a call of method and returns the fault it meets, if any.
func (b *wrapper) hit(method string) *fault {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls[method]++
	for _, f := range b.faults {
		if !f.fired && f.method == method && f.at == b.calls[method] {
			f.fired = true
			return f
		}
	}
	return nil
}

// async handles a fault of an asynchronous method on s: a failed call, or
// a failing operation queued in its place. ok is false when there is none.
func (b *wrapper) async(method string, s acl.Stream) (err error, ok bool) {
	f := b.hit(method)
	if f == nil {
		return nil, false
	}
	if !f.exec {
		return f.err, true
	}
	return b.Backend.LaunchHostFunc(s, func() error { return f.err }), true
}

// fail returns the error of a fault of method, if the call meets one.
func (b *wrapper) fail(method string) error {
	if f := b.hit(method); f != nil {
		return f.err
	}
	return nil
}

// faultable are the methods this type intercepts.
var faultable = map[string]bool{
	"SynchronizeDevice": true, "Malloc": true, "Free": true, "HostRegister": true, "HostUnregister": true,
	"CreateStream": true, "DestroyStream": true, "SynchronizeStream": true, "LaunchHostFunc": true,
	"CreateEvent": true, "RecordEvent": true, "StreamWaitEvent": true, "SynchronizeEvent": true,
	"Memcpy": true, "MemcpyAsync": true, "Memcpy2D": true, "Memcpy2DAsync": true,
	"MemcpyBatch": true, "MemcpyBatchAsync": true, "Memset": true, "MemsetAsync": true,
	"SetMemcpyDesc": true, "MemcpyAsyncWithDesc": true, "MemcpyAsyncWithOffset": true,
}

// SynchronizeDevice implements [acl.Backend].
func (b *wrapper) SynchronizeDevice(ctx context.Context, dev int32, timeoutMs int32) error {
	if err := b.fail("SynchronizeDevice"); err != nil {
		return err
	}
	return b.Backend.SynchronizeDevice(ctx, dev, timeoutMs)
}

// Malloc implements [acl.Backend].
func (b *wrapper) Malloc(dev int32, size uint64, policy acl.MemMallocPolicy) (acl.DevPtr, error) {
	if err := b.fail("Malloc"); err != nil {
		return 0, err
	}
	return b.Backend.Malloc(dev, size, policy)
}

// Free implements [acl.Backend].
func (b *wrapper) Free(ctx context.Context, p acl.DevPtr) error {
	if err := b.fail("Free"); err != nil {
		return err
	}
	return b.Backend.Free(ctx, p)
}

// HostRegister implements [acl.Backend].
func (b *wrapper) HostRegister(buf []byte, typ acl.HostRegisterType) (acl.HostPin, error) {
	if err := b.fail("HostRegister"); err != nil {
		return 0, err
	}
	return b.Backend.HostRegister(buf, typ)
}

// HostUnregister implements [acl.Backend].
func (b *wrapper) HostUnregister(ctx context.Context, pin acl.HostPin) error {
	if err := b.fail("HostUnregister"); err != nil {
		return err
	}
	return b.Backend.HostUnregister(ctx, pin)
}

// CreateStream implements [acl.Backend].
func (b *wrapper) CreateStream(dev int32) (acl.Stream, error) {
	if err := b.fail("CreateStream"); err != nil {
		return 0, err
	}
	return b.Backend.CreateStream(dev)
}

// DestroyStream implements [acl.Backend].
func (b *wrapper) DestroyStream(ctx context.Context, s acl.Stream) error {
	if err := b.fail("DestroyStream"); err != nil {
		return err
	}
	return b.Backend.DestroyStream(ctx, s)
}

// SynchronizeStream implements [acl.Backend].
func (b *wrapper) SynchronizeStream(ctx context.Context, s acl.Stream, timeoutMs int32) error {
	if err := b.fail("SynchronizeStream"); err != nil {
		return err
	}
	return b.Backend.SynchronizeStream(ctx, s, timeoutMs)
}

// LaunchHostFunc implements [acl.Backend].
func (b *wrapper) LaunchHostFunc(s acl.Stream, fn func() error) error {
	if err := b.fail("LaunchHostFunc"); err != nil {
		return err
	}
	return b.Backend.LaunchHostFunc(s, fn)
}

// CreateEvent implements [acl.Backend].
func (b *wrapper) CreateEvent(dev int32) (acl.Event, error) {
	if err := b.fail("CreateEvent"); err != nil {
		return 0, err
	}
	return b.Backend.CreateEvent(dev)
}

// RecordEvent implements [acl.Backend].
func (b *wrapper) RecordEvent(e acl.Event, s acl.Stream) error {
	if err := b.fail("RecordEvent"); err != nil {
		return err
	}
	return b.Backend.RecordEvent(e, s)
}

// StreamWaitEvent implements [acl.Backend].
func (b *wrapper) StreamWaitEvent(s acl.Stream, e acl.Event) error {
	if err := b.fail("StreamWaitEvent"); err != nil {
		return err
	}
	return b.Backend.StreamWaitEvent(s, e)
}

// SynchronizeEvent implements [acl.Backend].
func (b *wrapper) SynchronizeEvent(ctx context.Context, e acl.Event, timeoutMs int32) error {
	if err := b.fail("SynchronizeEvent"); err != nil {
		return err
	}
	return b.Backend.SynchronizeEvent(ctx, e, timeoutMs)
}

// Memcpy implements [acl.Backend].
func (b *wrapper) Memcpy(ctx context.Context, dst, src acl.Buf, n uint64) error {
	if err := b.fail("Memcpy"); err != nil {
		return err
	}
	return b.Backend.Memcpy(ctx, dst, src, n)
}

// MemcpyAsync implements [acl.Backend].
func (b *wrapper) MemcpyAsync(ctx context.Context, dst, src acl.Buf, n uint64, s acl.Stream) error {
	if err, ok := b.async("MemcpyAsync", s); ok {
		return err
	}
	return b.Backend.MemcpyAsync(ctx, dst, src, n, s)
}

// Memcpy2D implements [acl.Backend].
func (b *wrapper) Memcpy2D(ctx context.Context, dst acl.Buf, dpitch uint64, src acl.Buf, spitch, width, height uint64) error {
	if err := b.fail("Memcpy2D"); err != nil {
		return err
	}
	return b.Backend.Memcpy2D(ctx, dst, dpitch, src, spitch, width, height)
}

// Memcpy2DAsync implements [acl.Backend].
func (b *wrapper) Memcpy2DAsync(ctx context.Context, dst acl.Buf, dpitch uint64, src acl.Buf, spitch, width, height uint64, s acl.Stream) error {
	if err, ok := b.async("Memcpy2DAsync", s); ok {
		return err
	}
	return b.Backend.Memcpy2DAsync(ctx, dst, dpitch, src, spitch, width, height, s)
}

// MemcpyBatch implements [acl.Backend].
func (b *wrapper) MemcpyBatch(ctx context.Context, copies []acl.Copy) error {
	if err := b.fail("MemcpyBatch"); err != nil {
		return err
	}
	return b.Backend.MemcpyBatch(ctx, copies)
}

// MemcpyBatchAsync implements [acl.Backend].
func (b *wrapper) MemcpyBatchAsync(ctx context.Context, copies []acl.Copy, s acl.Stream) error {
	if err, ok := b.async("MemcpyBatchAsync", s); ok {
		return err
	}
	return b.Backend.MemcpyBatchAsync(ctx, copies, s)
}

// Memset implements [acl.Backend].
func (b *wrapper) Memset(ctx context.Context, dst acl.Buf, value byte, n uint64) error {
	if err := b.fail("Memset"); err != nil {
		return err
	}
	return b.Backend.Memset(ctx, dst, value, n)
}

// MemsetAsync implements [acl.Backend].
func (b *wrapper) MemsetAsync(ctx context.Context, dst acl.Buf, value byte, n uint64, s acl.Stream) error {
	if err, ok := b.async("MemsetAsync", s); ok {
		return err
	}
	return b.Backend.MemsetAsync(ctx, dst, value, n, s)
}

// SetMemcpyDesc implements [acl.Backend].
func (b *wrapper) SetMemcpyDesc(desc acl.DevPtr, kind acl.MemcpyKind, src, dst acl.DevPtr, n uint64) error {
	if err := b.fail("SetMemcpyDesc"); err != nil {
		return err
	}
	return b.Backend.SetMemcpyDesc(desc, kind, src, dst, n)
}

// MemcpyAsyncWithDesc implements [acl.Backend].
func (b *wrapper) MemcpyAsyncWithDesc(desc acl.DevPtr, kind acl.MemcpyKind, s acl.Stream) error {
	if err, ok := b.async("MemcpyAsyncWithDesc", s); ok {
		return err
	}
	return b.Backend.MemcpyAsyncWithDesc(desc, kind, s)
}

// MemcpyAsyncWithOffset implements [acl.Backend].
func (b *wrapper) MemcpyAsyncWithOffset(dstSlot acl.DevPtr, destMax, dstOff uint64, srcSlot acl.DevPtr, n, srcOff uint64, kind acl.MemcpyKind, s acl.Stream) error {
	if err, ok := b.async("MemcpyAsyncWithOffset", s); ok {
		return err
	}
	return b.Backend.MemcpyAsyncWithOffset(dstSlot, destMax, dstOff, srcSlot, n, srcOff, kind, s)
}

var _ acl.Backend = (*wrapper)(nil)
