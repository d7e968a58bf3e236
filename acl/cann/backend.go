//go:build darwin || freebsd || linux || netbsd

// Package cann is the [acl.Backend] that delegates to the real CANN runtime,
// libascendcl.so, loaded at run time without cgo (through purego).
//
// # Memory
//
// Device memory comes from aclrtMalloc, and a DevPtr is the native device
// address. The backend keeps its own table of live allocations and rejects
// any address outside one, so a caller's bug never reaches the runtime as a
// wild pointer. Streams and events are native handles behind the backend's
// own handle values, which are never reused.
//
// Host memory is handed to the runtime as a host pointer. Unregistered host
// memory (Buf.Pin == 0) is only passed to synchronous calls, and only while
// they run: an asynchronous operation on it synchronizes the stream and then
// copies synchronously, which is what the native runtime does for pageable
// memory anyway. Registered host memory (HostRegister) is registered with
// aclrtHostRegister and may be passed to asynchronous calls, which touch it
// after they return; it must stay valid until HostUnregister, and the
// backend keeps the slice (and, for Go memory, a runtime.Pinner) until then.
//
// # Threads
//
// The native runtime keeps a current context per OS thread, while
// goroutines move between threads. The backend therefore binds each device
// once, with aclrtSetDevice on some thread, and keeps that device's default
// context from aclrtGetCurrentContext; every device-scoped call then runs
// with its goroutine locked to its OS thread (runtime.LockOSThread) right
// after aclrtSetCurrentContext with that context. aclrtSetDevice is
// reference counted natively, so calling it once per device, and
// aclrtResetDevice once in Close, keeps the count balanced. Calls are not
// funnelled through a worker thread, so a call that blocks (a synchronize)
// blocks only its caller.
//
// Waits are done in slices of at most 20 ms with the *WithTimeout
// synchronizes, so that a context that is done, DestroyStream,
// DestroyEvent or Close interrupt a wait within one slice.
//
// Host functions (LaunchHostFunc) are native blocking callbacks
// (aclrtLaunchCallback), run by a report thread per stream: a goroutine
// locked to its OS thread, subscribed to the stream with
// aclrtSubscribeReport, that loops in aclrtProcessReport. A host function
// that blocks therefore holds back only its own stream.
//
// # What the sandbox does not route here
//
// The descriptor and offset copies (SetMemcpyDesc, MemcpyAsyncWithDesc,
// MemcpyAsyncWithOffset) call the native functions with device addresses the
// caller produced, but the native runtime then reads further addresses from
// device memory when the copy executes. Guest code can write device memory,
// so the sandbox must not route guest descriptors or offset slots through
// these methods: it implements them itself with LaunchHostFunc and
// validated copies (ABI.md, section 6).
//
// # What it exports
//
// [Open] and the [Backend] it returns, whose methods are those of
// [acl.Backend] and of the optional interfaces it implements, plus
// [Backend.MissingSymbols], which tells an embedder what the loaded
// library lacks (the calls that then give 207000); and the two
// errors a caller tells apart with [errors.Is]: [ErrLibraryNotFound] (no
// library could be loaded: offer the simulator instead) and [ErrClosed]
// (the backend was closed under a call).
package cann

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aclwasm/aclwasm/acl"
)

// ErrClosed is returned by every method of a Backend after Close has begun.
// It carries ACL_ERROR_RT_CONTEXT_NULL (107002), as acl/sim's error after
// Close does, so both errors.Is(err, ErrClosed) and
// errors.Is(err, acl.ErrRTContextNull) hold.
var ErrClosed error = &acl.CallError{Code: acl.ErrRTContextNull, Msg: "cann: backend is closed"}

// waitSlice bounds one native wait, in milliseconds, so that blocking waits
// notice a done context, a destroyed handle or Close.
const waitSlice = 20

// Backend is the [acl.Backend] of libascendcl.so. It is safe for concurrent use.
type Backend struct {
	lib   *library
	api   *api
	ver   [3]int32
	devs  []device
	nextH atomic.Uint64 // handle values for streams, events and pins
	// refused holds the features the node's driver or firmware answered
	// 207000 for (driverFeatures): Supports reports them missing.
	refused sync.Map

	mu       sync.Mutex
	cond     *sync.Cond // broadcast when inflight or a record's refs drop, and on Close
	closed   bool
	inflight int
	allocs   []*alloc // live allocations, sorted by base
	pins     map[acl.HostPin]*pin
	streams  map[acl.Stream]*stream
	events   map[acl.Event]*event
	defaults []acl.Stream // per device; 0 until DefaultStream creates it
	descSize uint64       // aclrtGetMemcpyDescSize(INNER_D2D), 0 until known
	regMu    sync.Mutex   // serializes host registration
	regions  []*region    // native registrations; changed with regMu and mu held

	// Notifies (notify.go), guarded by mu; made on first use.
	notifies map[acl.Notify]*notify

	kern kernels // loaded kernel binaries and their functions (kernel.go)
	// The operator library (oplib.go): nil when none was found; the
	// backend's own streams that run operators, per device, each used by
	// one launch at a time: the pool of idle ones, guarded by opMu.
	ops       *opLibrary
	opMu      sync.Mutex
	opStreams map[int32][]uintptr

	mdl models // loaded offline models (model.go)
}

// device is the binding of one device: its default context, once bound.
type device struct {
	mu  sync.Mutex
	ctx atomic.Uintptr
}

// Backend implements every method of [acl.Backend], each over its native
// function when the library exports it (ErrRTFeatureNotSupport otherwise).
var _ acl.Backend = (*Backend)(nil)

// Open loads libascendcl.so and returns a backend on it.
//
// path names the library; "" means the usual resolution: $ACLWASM_ACL_LIB
// if set (and then nothing else), otherwise "libascendcl.so" through the
// dynamic loader (LD_LIBRARY_PATH, the loader cache), then
// $ASCEND_HOME_PATH/lib64/libascendcl.so and the toolkit's default install,
// /usr/local/Ascend/ascend-toolkit/latest/lib64/libascendcl.so. When none
// loads, the error wraps [ErrLibraryNotFound] and names each path tried and
// why it failed.
//
// The first backend of the process calls aclInit; the last one closed calls
// aclFinalize if aclInit was ours. Devices are bound on first use.
//
// The operator library (libopapi.so and libnnopbase.so) is found as
// [WithOpLibrary] says; without one the backend runs no operators.
func Open(path string, opts ...Option) (*Backend, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	lib, err := load(path)
	if err != nil {
		return nil, err
	}
	ops, err := loadOps(o.opLib, lib.path)
	if err != nil {
		return nil, err
	}
	if err := lib.acquire(); err != nil {
		return nil, err
	}
	b := &Backend{
		lib:     lib,
		api:     &lib.api,
		ops:     ops,
		pins:    map[acl.HostPin]*pin{},
		streams: map[acl.Stream]*stream{},
		events:  map[acl.Event]*event{},
	}
	b.cond = sync.NewCond(&b.mu)
	var n uint32
	if rc := b.api.aclrtGetDeviceCount(&n); rc != 0 {
		return nil, errors.Join(fmt.Errorf("cann: aclrtGetDeviceCount: %w", acl.Error(rc)), lib.release())
	}
	if rc := b.api.aclrtGetVersion(&b.ver[0], &b.ver[1], &b.ver[2]); rc != 0 {
		return nil, errors.Join(fmt.Errorf("cann: aclrtGetVersion: %w", acl.Error(rc)), lib.release())
	}
	b.devs = make([]device, n)
	b.defaults = make([]acl.Stream, n)
	return b, nil
}

// Path returns the path the library was loaded from, as given to the
// dynamic loader.
func (b *Backend) Path() string { return b.lib.path }

// MissingSymbols returns the optional native functions the library does not
// export. Operations that need one of them fail with
// ACL_ERROR_RT_FEATURE_NOT_SUPPORT (207000).
func (b *Backend) MissingSymbols() []string { return append([]string(nil), b.lib.missing...) }

// Supports implements [acl.Backend]: whether the library exports fn, and
// the node's driver has not refused it (driverFeatures). fn may also be
// [acl.DeviceOnlyNotify], or an operator's function ("aclnnAdd",
// "aclnnAddGetWorkspaceSize"): whether the operator library is loaded and
// exports both of the operator's functions.
func (b *Backend) Supports(fn string) bool {
	if opName(fn) != "" {
		return b.supportsOp(fn)
	}
	_, refused := b.refused.Load(fn)
	return !refused && !slices.Contains(b.lib.missing, fn)
}

// driverFeatures are the native functions whose 207000 means that the
// node's driver or TS firmware lacks the feature, whatever the arguments:
// the runtime answers so before it looks at them. The backend passes the
// code on, as natively, and Supports reports the feature missing from then
// on.
var driverFeatures = map[string]bool{
	"aclrtMemcpyBatchAsync":      true,
	"aclrtMemcpyBatchAsyncV2":    true,
	"aclrtMemcpyAsyncWithOffset": true,
	acl.DeviceOnlyNotify:         true,
	"aclrtNotifyBatchReset":      true, // a TS firmware without MC2_ENHANCE (api_impl.cc:4874-4878)
}

// noteRefused records that the driver refused feature fn when rc says so.
func (b *Backend) noteRefused(fn string, rc int32) {
	if rc == int32(acl.ErrRTFeatureNotSupport) && driverFeatures[fn] {
		b.refused.Store(fn, true)
	}
}

// Name implements [acl.Backend].
func (b *Backend) Name() string { return "cann" }

// Version implements [acl.Backend]: the version aclrtGetVersion reported.
func (b *Backend) Version() (major, minor, patch int32) { return b.ver[0], b.ver[1], b.ver[2] }

// DeviceCount implements [acl.Backend]: what aclrtGetDeviceCount reported at Open.
func (b *Backend) DeviceCount() int { return len(b.devs) }

// enter counts a call in flight, so that Close waits for it; every method
// that touches the runtime brackets itself with enter and exit.
func (b *Backend) enter() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return ErrClosed
	}
	b.inflight++
	return nil
}

func (b *Backend) exit() {
	b.mu.Lock()
	b.inflight--
	if b.inflight == 0 {
		b.cond.Broadcast()
	}
	b.mu.Unlock()
}

func (b *Backend) isClosed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}

// nativeErr turns a native return code into an error carrying it. Messages
// never include native addresses: they may reach an untrusted guest.
func nativeErr(rc int32, fn string) error {
	if rc == 0 {
		return nil
	}
	return acl.Errorf(acl.Error(rc), "%s failed in libascendcl", fn)
}

// missing is the error of an operation whose optional native function the
// library does not export.
func (b *Backend) missing(fn string) error {
	return acl.Errorf(acl.ErrRTFeatureNotSupport, "this libascendcl.so does not export %s", fn)
}

func (b *Backend) checkDevice(dev int32) error {
	if dev < 0 || int(dev) >= len(b.devs) {
		return acl.Errorf(acl.ErrRTInvalidDeviceID, "device %d does not exist: there are %d", dev, len(b.devs))
	}
	return nil
}

// onDevice runs f on a locked OS thread whose current context is dev's
// default context, binding the device on first use.
func (b *Backend) onDevice(dev int32, f func()) error {
	if err := b.checkDevice(dev); err != nil {
		return err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	d := &b.devs[dev]
	ctx := d.ctx.Load()
	if ctx == 0 {
		var err error
		if ctx, err = b.bindDevice(dev); err != nil {
			return err
		}
	}
	if rc := b.api.aclrtSetCurrentContext(ctx); rc != 0 {
		return nativeErr(rc, "aclrtSetCurrentContext")
	}
	f()
	return nil
}

// bindDevice calls aclrtSetDevice once for dev, on the calling (locked)
// thread, and keeps the default context it creates.
func (b *Backend) bindDevice(dev int32) (uintptr, error) {
	d := &b.devs[dev]
	d.mu.Lock()
	defer d.mu.Unlock()
	if ctx := d.ctx.Load(); ctx != 0 {
		return ctx, nil
	}
	if rc := b.api.aclrtSetDevice(dev); rc != 0 {
		return 0, nativeErr(rc, "aclrtSetDevice")
	}
	var ctx uintptr
	if rc := b.api.aclrtGetCurrentContext(&ctx); rc != 0 || ctx == 0 {
		b.api.aclrtResetDevice(dev)
		if rc == 0 {
			return 0, acl.Errorf(acl.ErrRTContextNull, "aclrtGetCurrentContext returned no context for device %d", dev)
		}
		return 0, nativeErr(rc, "aclrtGetCurrentContext")
	}
	d.ctx.Store(ctx)
	return ctx, nil
}

// call runs one native function on dev and converts its code.
func (b *Backend) call(dev int32, fn string, f func() int32) error {
	var rc int32
	if err := b.onDevice(dev, func() { rc = f() }); err != nil {
		return err
	}
	b.noteRefused(fn, rc)
	return nativeErr(rc, fn)
}

// wait repeats try, a native wait of at most the given milliseconds that
// returns timeoutCode when the time runs out, until it returns something
// else, the timeout (-1 forever, 0 poll) has passed, ctx is done, or stop
// reports true. It returns the native code, or the error that ended it early.
// A nil ctx never ends the wait, as in acl/sim.
func (b *Backend) wait(ctx context.Context, timeoutMs int32, timeoutCode acl.Error, stop func() error, try func(ms int32) (int32, error)) (int32, error) {
	ctx = orBackground(ctx)
	var deadline time.Time
	if timeoutMs > 0 {
		deadline = time.Now().Add(time.Duration(timeoutMs) * time.Millisecond)
	}
	for {
		step := int32(waitSlice)
		switch {
		case timeoutMs == 0:
			step = 0
		case timeoutMs > 0:
			left := time.Until(deadline)
			if left <= 0 {
				return int32(timeoutCode), nil
			}
			if ms := int32((left + time.Millisecond - 1) / time.Millisecond); ms < step {
				step = ms
			}
		}
		rc, err := try(step)
		if err != nil || rc != int32(timeoutCode) || timeoutMs == 0 {
			return rc, err
		}
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if b.isClosed() {
			return 0, ErrClosed
		}
		if stop != nil {
			if err := stop(); err != nil {
				return 0, err
			}
		}
	}
}

// waitFor blocks until cond (evaluated with b.mu held) is true or ctx is
// done (never for a nil ctx). It is called with b.mu held and returns with
// it held.
func (b *Backend) waitFor(ctx context.Context, cond func() bool) error {
	if cond() {
		return nil
	}
	ctx = orBackground(ctx)
	stop := context.AfterFunc(ctx, func() {
		b.mu.Lock()
		b.cond.Broadcast()
		b.mu.Unlock()
	})
	defer stop()
	for !cond() {
		if err := ctx.Err(); err != nil {
			return err
		}
		b.cond.Wait()
	}
	return nil
}

// orBackground returns ctx, or context.Background() for a nil ctx.
func orBackground(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}

// Close implements [acl.Backend]. It waits for calls in flight (blocking
// waits give up within one wait slice), cancels queued work where the
// runtime can (aclrtDestroyStreamForce) and waits for it otherwise, destroys
// every stream and event, unregisters every host range, frees every
// allocation, resets every device it bound, and finalizes the runtime when
// it is the last backend and aclInit was its own. Close is idempotent.
func (b *Backend) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	b.cond.Broadcast()
	for b.inflight > 0 {
		b.cond.Wait()
	}
	streams, events, pins, allocs := b.streams, b.events, b.pins, b.allocs
	b.streams, b.events, b.pins, b.allocs = nil, nil, nil, nil
	notifies := b.notifies // notify.go
	b.notifies = nil
	b.mu.Unlock()

	var errs []error
	keep := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	// Forced destruction drops queued work, including waits on events that
	// will never be recorded; without it, destroying the events first
	// releases such waits, and the streams are then drained.
	// A running host function is let finish: the forced destruction waits
	// for it, which is why report threads stop only after their stream.
	var drain []*stream
	for _, s := range streams {
		switch {
		case s.isDefault:
		case b.api.aclrtDestroyStreamForce != nil:
			err := b.call(s.dev, "aclrtDestroyStreamForce", func() int32 { return b.api.aclrtDestroyStreamForce(s.native) })
			keep(err)
			s.stopReporter(err == nil)
		default:
			drain = append(drain, s)
		}
	}
	for _, e := range events {
		keep(b.call(e.dev, "aclrtDestroyEvent", func() int32 { return b.api.aclrtDestroyEvent(e.native) }))
	}
	keep(b.destroyNotifies(notifies)) // as events: releases the waits on them
	for _, s := range drain {
		keep(b.call(s.dev, "aclrtSynchronizeStreamWithTimeout", func() int32 { return b.api.aclrtSynchronizeStreamWithTimeout(s.native, -1) }))
		s.stopReporter(false)
		keep(b.call(s.dev, "aclrtDestroyStream", func() int32 { return b.api.aclrtDestroyStream(s.native) }))
	}
	// The default streams may still use registered memory and allocations;
	// their report threads stop once they are idle.
	for i := range b.devs {
		if b.devs[i].ctx.Load() != 0 {
			keep(b.call(int32(i), "aclrtSynchronizeDeviceWithTimeout", func() int32 { return b.api.aclrtSynchronizeDeviceWithTimeout(-1) }))
		}
	}
	for _, s := range streams {
		if s.isDefault {
			s.stopReporter(false)
		}
	}
	keep(b.unloadKernels()) // kernel.go: no launch is left to run
	keep(b.unloadModels())  // model.go: likewise
	forgetHostCalls(func(hc *hostCall) bool { return hc.b == b })
	keep(b.closeOps()) // idle: the streams whose callbacks used them are gone or drained
	for _, p := range pins {
		keep(b.unregister(p))
		p.unpin()
	}
	for _, a := range allocs {
		keep(b.call(a.dev, "aclrtFree", func() int32 { return b.api.aclrtFree(uintptr(a.base)) }))
	}
	for i := range b.devs {
		if b.devs[i].ctx.Load() == 0 {
			continue
		}
		runtime.LockOSThread()
		keep(nativeErr(b.api.aclrtResetDevice(int32(i)), "aclrtResetDevice"))
		runtime.UnlockOSThread()
		b.devs[i].ctx.Store(0)
	}
	keep(b.lib.release())
	if len(errs) > 0 {
		return fmt.Errorf("cann: close: %w", errors.Join(errs...))
	}
	return nil
}

// RunMode implements [acl.Backend] with aclrtGetRunMode; a library without
// it gives 207000.
func (b *Backend) RunMode() (acl.RunMode, error) {
	f := b.api.aclrtGetRunMode
	if f == nil {
		return 0, b.missing("aclrtGetRunMode")
	}
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.exit()
	var m uint32
	if rc := f(&m); rc != 0 {
		return 0, nativeErr(rc, "aclrtGetRunMode")
	}
	return acl.RunMode(m), nil
}

// OpTimeoutInterval implements [acl.Backend] with
// aclrtGetOpTimeOutInterval, asked in device 0's context.
func (b *Backend) OpTimeoutInterval() (uint64, error) {
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.exit()
	if b.api.aclrtGetOpTimeOutInterval == nil {
		return 0, b.missing("aclrtGetOpTimeOutInterval")
	}
	var iv uint64
	if err := b.call(0, "aclrtGetOpTimeOutInterval", func() int32 { return b.api.aclrtGetOpTimeOutInterval(&iv) }); err != nil {
		return 0, err
	}
	if iv == 0 {
		return 0, acl.Errorf(acl.ErrRTInternal, "aclrtGetOpTimeOutInterval reported an interval of 0")
	}
	return iv, nil
}
