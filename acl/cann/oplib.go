//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/ebitengine/purego"

	"github.com/aclwasm/aclwasm/acl"
)

// The operator library (ABI section 13.2) runs on the native backend as a
// native program runs it: libnnopbase.so makes the tensors, scalars and
// arrays (aclnn/acl_meta.h) and libopapi.so has the operators, each as
// aclnnXxxGetWorkspaceSize and aclnnXxx. A launch (acl.Launch with its Op
// set) is replayed from its description alone: every argument is created
// over the native addresses of the launch's regions, the workspace size
// is asked for, a workspace of that size is allocated, and the operator
// is queued, so that no operator needs code of its own here.
//
// The sandbox validates a launch's buffers when it is queued and again
// when it executes (ABI section 13.1), and a native operator cannot be
// stopped once queued. So the launch is a blocking host callback on the
// guest's stream: when the stream reaches it, Check runs, and only then
// is the operator queued, on a stream of the backend's own for the
// device, and waited for. The guest's stream is held meanwhile, so its
// order is the native one; a buffer freed in between fails the launch,
// and nothing is touched.
//
// The launch's bounds (OpCall.Bound: the run's time limit, the session's
// end) hold natively too (ABI section 13.1): a launch whose bounds have
// ended when its stream reaches it does not run, and one running when
// they end is stopped with aclrtStreamAbort on its operator stream and
// waited for, so that nothing touches the regions once the callback has
// returned. Each launch has an operator stream to itself (from a pool per
// device), so that stopping one stops no other session's operator. A
// runtime without aclrtStreamAbort cannot stop a running operator: the
// launch then waits for it (the device's own operator timeout bounds it).

// defaultOpLib is where the CANN toolkit installs libopapi.so by default;
// the operator library is looked for there last.
const defaultOpLib = "/usr/local/Ascend/ascend-toolkit/latest/lib64/libopapi.so"

// Option configures Open.
type Option func(*options)

type options struct{ opLib string }

// WithOpLibrary names the operator library, libopapi.so, whose directory
// also holds libnnopbase.so as in the toolkit. Without it, Open uses
// $ACLWASM_OPAPI_LIB if set (and then nothing else), otherwise the
// directory of the libascendcl.so it loaded, the dynamic loader's search,
// $ASCEND_HOME_PATH/lib64 and the toolkit's default install. A library
// named here or by $ACLWASM_OPAPI_LIB that does not load fails Open; when
// the search finds none, the backend runs no operators (Supports reports
// each missing, and a launch gives 207000).
func WithOpLibrary(path string) Option { return func(o *options) { o.opLib = path } }

// opCandidates returns the operator libraries to try, and whether one is
// required (named explicitly).
func opCandidates(path, aclPath string) ([]string, bool) {
	if path != "" {
		return []string{path}, true
	}
	if p := os.Getenv("ACLWASM_OPAPI_LIB"); p != "" {
		return []string{p}, true
	}
	var c []string
	if strings.ContainsRune(aclPath, '/') {
		c = append(c, filepath.Join(filepath.Dir(aclPath), "libopapi.so"))
	}
	c = append(c, "libopapi.so")
	if h := os.Getenv("ASCEND_HOME_PATH"); h != "" {
		c = append(c, filepath.Join(h, "lib64", "libopapi.so"))
	}
	return append(c, defaultOpLib), false
}

// objects are libnnopbase.so's functions, with their C signatures.
type objects struct {
	aclCreateTensor         func(dims *int64, ndims uint64, dt int32, strides *int64, offset int64, format int32, storage *int64, nstorage uint64, data uintptr) uintptr
	aclDestroyTensor        func(t uintptr) int32
	aclCreateScalar         func(value *byte, dt int32) uintptr
	aclDestroyScalar        func(s uintptr) int32
	aclCreateIntArray       func(v *int64, n uint64) uintptr
	aclDestroyIntArray      func(a uintptr) int32
	aclCreateFloatArray     func(v *float32, n uint64) uintptr
	aclDestroyFloatArray    func(a uintptr) int32
	aclCreateBoolArray      func(v *bool, n uint64) uintptr
	aclDestroyBoolArray     func(a uintptr) int32
	aclCreateTensorList     func(v *uintptr, n uint64) uintptr
	aclDestroyTensorList    func(l uintptr) int32
	aclDestroyAclOpExecutor func(e uintptr) int32 // optional: executors that will not run
}

// opLibrary is the loaded operator library.
type opLibrary struct {
	path    string
	handle  uintptr // libopapi.so
	objects objects

	mu  sync.Mutex
	ops map[string]*opFuncs // by operator name; nil: not exported
}

// opLibs are the operator libraries loaded, by dlopen handle, guarded by
// libsMu: like libascendcl.so, one stays loaded for the process.
var opLibs = map[uintptr]*opLibrary{}

// opFuncs are one operator's two functions: GetWorkspaceSize's type is
// made from its arguments' native types at first use (reflect), so that
// purego passes each in its register class, floats included.
type opFuncs struct {
	getWS reflect.Value
	run   func(workspace uintptr, size uint64, executor, stream uintptr) int32
}

// loadOps loads the operator library for a backend on the libascendcl.so
// at aclPath: nil, nil when the search finds none.
func loadOps(path, aclPath string) (*opLibrary, error) {
	cands, required := opCandidates(path, aclPath)
	var tried []string
	for _, p := range cands {
		h, err := purego.Dlopen(p, purego.RTLD_NOW|purego.RTLD_LOCAL)
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s (%v)", p, err))
			continue
		}
		libsMu.Lock()
		defer libsMu.Unlock()
		if l, ok := opLibs[h]; ok {
			return l, nil
		}
		l := &opLibrary{path: p, handle: h, ops: map[string]*opFuncs{}}
		if err := l.bindObjects(); err != nil {
			return nil, err
		}
		opLibs[h] = l
		return l, nil
	}
	if required {
		return nil, fmt.Errorf("cann: the operator library could not be loaded: tried %s", strings.Join(tried, "; "))
	}
	return nil, nil
}

// bindObjects binds libnnopbase.so's functions: from the libnnopbase.so
// beside libopapi.so (or the loader's), else through libopapi.so, which
// natively links it.
func (l *opLibrary) bindObjects() error {
	base := l.handle
	for _, p := range []string{filepath.Join(filepath.Dir(l.path), "libnnopbase.so"), "libnnopbase.so"} {
		if h, err := purego.Dlopen(p, purego.RTLD_NOW|purego.RTLD_LOCAL); err == nil {
			base = h
			break
		}
	}
	o := &l.objects
	var absent []string
	for _, s := range []symbol{
		{"aclCreateTensor", &o.aclCreateTensor, true},
		{"aclDestroyTensor", &o.aclDestroyTensor, true},
		{"aclCreateScalar", &o.aclCreateScalar, true},
		{"aclDestroyScalar", &o.aclDestroyScalar, true},
		{"aclCreateIntArray", &o.aclCreateIntArray, true},
		{"aclDestroyIntArray", &o.aclDestroyIntArray, true},
		{"aclCreateFloatArray", &o.aclCreateFloatArray, true},
		{"aclDestroyFloatArray", &o.aclDestroyFloatArray, true},
		{"aclCreateBoolArray", &o.aclCreateBoolArray, true},
		{"aclDestroyBoolArray", &o.aclDestroyBoolArray, true},
		{"aclCreateTensorList", &o.aclCreateTensorList, true},
		{"aclDestroyTensorList", &o.aclDestroyTensorList, true},
		{"aclDestroyAclOpExecutor", &o.aclDestroyAclOpExecutor, false},
	} {
		addr, err := purego.Dlsym(base, s.name)
		if err != nil || addr == 0 {
			addr, err = purego.Dlsym(l.handle, s.name)
		}
		if err != nil || addr == 0 {
			if s.required {
				absent = append(absent, s.name)
			}
			continue
		}
		purego.RegisterFunc(s.fptr, addr)
	}
	if len(absent) > 0 {
		return fmt.Errorf("cann: the operator library %s (with libnnopbase.so) does not export %s", l.path, strings.Join(absent, ", "))
	}
	return nil
}

// lookup returns operator name's functions ("Add"), or nil when the
// library does not export both.
func (l *opLibrary) lookup(name string) *opFuncs {
	l.mu.Lock()
	defer l.mu.Unlock()
	if f, ok := l.ops[name]; ok {
		return f
	}
	var f *opFuncs
	ws, err1 := purego.Dlsym(l.handle, "aclnn"+name+"GetWorkspaceSize")
	run, err2 := purego.Dlsym(l.handle, "aclnn"+name)
	if err1 == nil && err2 == nil && ws != 0 && run != 0 {
		f = &opFuncs{}
		purego.RegisterFunc(&f.run, run)
		f.getWS = reflect.ValueOf(ws) // its address until typed makes the function
	}
	l.ops[name] = f
	return f
}

// opName returns the operator of a function name the backend is asked
// about ("aclnnAdd", "aclnnAddGetWorkspaceSize"), or "".
func opName(fn string) string {
	if !strings.HasPrefix(fn, "aclnn") {
		return ""
	}
	return strings.TrimSuffix(strings.TrimPrefix(fn, "aclnn"), "GetWorkspaceSize")
}

// supportsOp reports whether the operator library exports fn's operator.
func (b *Backend) supportsOp(fn string) bool {
	name := opName(fn)
	return name != "" && b.ops != nil && b.ops.lookup(name) != nil
}

// The Go types of the native argument types, for GetWorkspaceSize's
// function type: objects are pointers (uintptr), then the plain values.
var (
	tUintptr = reflect.TypeFor[uintptr]()
	argTypes = map[acl.OpArgKind]reflect.Type{
		acl.ArgInt64: reflect.TypeFor[int64](), acl.ArgInt8: reflect.TypeFor[int8](), acl.ArgBool: reflect.TypeFor[bool](),
		acl.ArgDType: reflect.TypeFor[int32](), acl.ArgFloat: reflect.TypeFor[float32](),
	}
)

// typed returns f's GetWorkspaceSize as a Go function of call's argument
// types, made once: purego then passes floats in floating-point registers
// and the integers in integer ones, as the C ABI does.
func (l *opLibrary) typed(f *opFuncs, call *acl.OpCall) reflect.Value {
	l.mu.Lock()
	defer l.mu.Unlock()
	if f.getWS.Kind() == reflect.Func {
		return f.getWS
	}
	in := make([]reflect.Type, 0, len(call.Args)+2)
	for _, a := range call.Args {
		t, ok := argTypes[a.Kind]
		if !ok {
			t = tUintptr // the objects, and NULL
		}
		in = append(in, t)
	}
	in = append(in, reflect.TypeFor[*uint64](), reflect.TypeFor[*uintptr]())
	fn := reflect.New(reflect.FuncOf(in, []reflect.Type{reflect.TypeFor[int32]()}, false))
	purego.RegisterFunc(fn.Interface(), uintptr(f.getWS.Uint()))
	f.getWS = fn.Elem()
	return f.getWS
}

var _ acl.OpComputer = (*Backend)(nil)

// ComputeOp implements [acl.OpComputer]: l runs, in stream order, as a
// blocking host callback on h that runs l.Check and then the operator
// (see the top of this file). The regions are held until it has run, so
// a Free of their memory waits for it. A backend without the operator
// library, or without l's operator, gives 207000 and queues nothing.
func (b *Backend) ComputeOp(h acl.Stream, l *acl.Launch) error {
	if l == nil || l.Op == nil {
		return acl.Errorf(acl.ErrInvalidParam, "the launch describes no operator call")
	}
	if b.ops == nil {
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "no operator library (libopapi.so) is loaded")
	}
	f := b.ops.lookup(l.Op.Name)
	if f == nil {
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "the operator library does not export aclnn%s", l.Op.Name)
	}
	for i, a := range l.Op.Args {
		for _, t := range a.Tensors {
			if t.Region >= len(l.Regions) {
				return acl.Errorf(acl.ErrInvalidParam, "argument %d: a tensor names region %d of %d", i, t.Region, len(l.Regions))
			}
		}
	}
	reqs, s, err := b.launchRegions(h, l, true)
	if err != nil {
		return err
	}
	dev := s.dev
	return b.launch(h, func() error {
		return runBounded(l, "aclnn"+l.Op.Name, l.Op.Bound, l.Op.Ran, func(ctx context.Context) error { return b.replay(ctx, dev, l, f) })
	}, true, reqs...)
}

// launchRegions is the prelude of an operator's or a model's launch on
// stream h: l's regions as the requests that hold them until it has run
// (a NULL one, or with emptyOK false an empty one, gives 107000), and
// the stream (an unknown one 107017).
func (b *Backend) launchRegions(h acl.Stream, l *acl.Launch, emptyOK bool) ([]req, *stream, error) {
	reqs := make([]req, len(l.Regions))
	for i, r := range l.Regions {
		switch {
		case r.Ptr == 0:
			return nil, nil, acl.Errorf(acl.ErrRTParamInvalid, "%s: buffer %d is NULL", l.Name, i)
		case r.N == 0 && !emptyOK:
			return nil, nil, acl.Errorf(acl.ErrRTParamInvalid, "%s: buffer %d is empty", l.Name, i)
		}
		reqs[i] = req{buf: acl.Device(r.Ptr), n: r.N, write: r.Write}
	}
	b.mu.Lock()
	s := b.streams[h]
	b.mu.Unlock()
	if s == nil {
		return nil, nil, acl.Errorf(acl.ErrRTInvalidHandle, "stream %d is not a live stream of this backend", h)
	}
	return reqs, s, nil
}

// runBounded is the body of an operator's or a model's stream callback:
// l.Check, then run under bound's context (stopped at once, as name,
// when the bounds ended before it began), its time and error reported
// to ran, whose error it returns.
func runBounded(l *acl.Launch, name string, bound func(context.Context) (context.Context, context.CancelFunc),
	ran func(time.Duration, error) error, run func(context.Context) error) error {
	if l.Check != nil {
		if err := l.Check(); err != nil {
			return err
		}
	}
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	if bound != nil {
		ctx, cancel = bound(ctx)
	}
	defer cancel()
	t0 := time.Now()
	var err error
	if cause := ctx.Err(); cause != nil {
		err = acl.LaunchStopped(name, false, cause)
	} else {
		err = run(ctx)
	}
	if ran != nil {
		err = ran(time.Since(t0), err)
	}
	return err
}

// replay runs l's operator call on an operator stream of dev and waits
// for it, stopping it when ctx is done: the objects over the regions'
// native addresses, the workspace size, a native workspace, the
// operator; everything it made is released whatever happens, once the
// operator has ended.
func (b *Backend) replay(ctx context.Context, dev int32, l *acl.Launch, f *opFuncs) (err error) {
	lib, call := b.ops, l.Op
	o := &lib.objects
	var undo []func()
	defer func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}()
	onDev := func(fn func()) {
		if e := b.onDevice(dev, fn); e != nil && err == nil {
			err = e
		}
	}
	tensor := func(t acl.OpTensor) uintptr {
		var data uintptr
		if t.Region >= 0 {
			data = uintptr(l.Regions[t.Region].Ptr)
		}
		var h uintptr
		onDev(func() {
			h = o.aclCreateTensor(first(t.Dims), uint64(len(t.Dims)), int32(t.Type), first(t.Strides), t.Offset, int32(t.Format), first(t.Storage), uint64(len(t.Storage)), data)
		})
		return h
	}
	args := make([]reflect.Value, 0, len(call.Args)+2)
	for i, a := range call.Args {
		var h uintptr // the object made for a, if any
		var destroy func(uintptr) int32
		switch a.Kind {
		case acl.ArgNull:
		case acl.ArgTensor:
			h, destroy = tensor(a.Tensors[0]), o.aclDestroyTensor
		case acl.ArgTensorList:
			ts := make([]uintptr, len(a.Tensors))
			for j, t := range a.Tensors {
				if ts[j] = tensor(t); ts[j] == 0 {
					for _, x := range ts[:j] {
						onDev(func() { o.aclDestroyTensor(x) })
					}
					return acl.Errorf(acl.ErrNNInner, "argument %d: aclCreateTensor returned NULL", i)
				}
			}
			onDev(func() { h = o.aclCreateTensorList(first(ts), uint64(len(ts))) })
			destroy = o.aclDestroyTensorList // which destroys its tensors
			if h == 0 {
				for _, x := range ts {
					onDev(func() { o.aclDestroyTensor(x) })
				}
			}
		case acl.ArgScalar:
			bits := a.Scalar.Bits
			onDev(func() { h = o.aclCreateScalar(&bits[0], int32(a.Scalar.Type)) })
			destroy = o.aclDestroyScalar
		case acl.ArgIntArray:
			onDev(func() { h = o.aclCreateIntArray(first(a.Ints), uint64(len(a.Ints))) })
			destroy = o.aclDestroyIntArray
		case acl.ArgFloatArray:
			onDev(func() { h = o.aclCreateFloatArray(first(a.Floats), uint64(len(a.Floats))) })
			destroy = o.aclDestroyFloatArray
		case acl.ArgBoolArray:
			onDev(func() { h = o.aclCreateBoolArray(first(a.Bools), uint64(len(a.Bools))) })
			destroy = o.aclDestroyBoolArray
		case acl.ArgInt64:
			args = append(args, reflect.ValueOf(a.Int))
			continue
		case acl.ArgInt8:
			args = append(args, reflect.ValueOf(int8(a.Int)))
			continue
		case acl.ArgBool:
			args = append(args, reflect.ValueOf(a.Int != 0))
			continue
		case acl.ArgDType:
			args = append(args, reflect.ValueOf(int32(a.Int)))
			continue
		case acl.ArgFloat:
			args = append(args, reflect.ValueOf(a.Float))
			continue
		default:
			return acl.Errorf(acl.ErrNNInner, "argument %d has kind %d, which has no native form", i, a.Kind)
		}
		if err != nil {
			return err
		}
		if a.Kind != acl.ArgNull && h == 0 {
			return acl.Errorf(acl.ErrNNInner, "argument %d: the operator library could not create it (NULL)", i)
		}
		if destroy != nil {
			undo = append(undo, func() { onDev(func() { destroy(h) }) })
		}
		args = append(args, reflect.ValueOf(h))
	}
	var wsSize uint64
	var ex uintptr
	args = append(args, reflect.ValueOf(&wsSize), reflect.ValueOf(&ex))
	getWS := lib.typed(f, call)
	var rc int32
	onDev(func() { rc = int32(getWS.Call(args)[0].Int()) })
	if err != nil {
		return err
	}
	if rc != 0 {
		return acl.Errorf(acl.Error(rc), "aclnn%sGetWorkspaceSize returned %d", call.Name, rc)
	}
	ran := false
	defer func() {
		if !ran && ex != 0 && o.aclDestroyAclOpExecutor != nil {
			onDev(func() { o.aclDestroyAclOpExecutor(ex) })
		}
	}()
	st, err := b.takeOpStream(dev)
	if err != nil {
		return err
	}
	keep := true // whether st goes back to the pool
	defer func() { b.putOpStream(dev, st, keep) }()
	var ws uintptr
	if wsSize > 0 {
		if err := b.call(dev, "aclrtMalloc", func() int32 { return b.api.aclrtMalloc(&ws, wsSize, uint32(acl.MemMallocHugeFirst)) }); err != nil {
			return err
		}
		defer func() {
			if e := b.call(dev, "aclrtFree", func() int32 { return b.api.aclrtFree(ws) }); e != nil && err == nil {
				err = e
			}
		}()
	}
	ran = true
	onDev(func() { rc = f.run(ws, wsSize, ex, st) })
	if err != nil {
		return err
	}
	if rc != 0 {
		return acl.Errorf(acl.Error(rc), "aclnn%s returned %d", call.Name, rc)
	}
	// The operator uses the workspace and the tensors until it has run.
	keep, err = b.waitOpStream(ctx, dev, st, "aclnn"+call.Name)
	return err
}

// waitOpStream waits for the work queued on st, an operator stream of
// dev, to end, and returns its error. When ctx ends first (its bounds, or
// the backend closing) the work is stopped with aclrtStreamAbort where the
// runtime has it and waited for, so that nothing touches the launch's
// memory afterwards, and name's launch fails as stopped; st, aborted, is
// then not to be used again (keep false).
func (b *Backend) waitOpStream(ctx context.Context, dev int32, st uintptr, name string) (keep bool, err error) {
	rc, werr := b.wait(ctx, -1, acl.ErrRTStreamSyncTimeout, nil, func(ms int32) (int32, error) {
		var rc int32
		err := b.onDevice(dev, func() { rc = b.api.aclrtSynchronizeStreamWithTimeout(st, ms) })
		return rc, err
	})
	if werr == nil {
		return true, nativeErr(rc, "aclrtSynchronizeStreamWithTimeout")
	}
	if abort := b.api.aclrtStreamAbort; abort != nil {
		if e := b.call(dev, "aclrtStreamAbort", func() int32 { return abort(st) }); e != nil {
			return false, e
		}
	}
	// After an abort the synchronize reports ACL_ERROR_RT_STREAM_ABORT.
	if e := b.call(dev, "aclrtSynchronizeStreamWithTimeout", func() int32 { return b.api.aclrtSynchronizeStreamWithTimeout(st, -1) }); e != nil && !errors.Is(e, acl.ErrRTStreamAbort) {
		return false, e
	}
	if cause := ctx.Err(); cause != nil {
		return false, acl.LaunchStopped(name, true, cause)
	}
	return false, werr
}

// first returns a pointer to v's first element, nil for none.
func first[T any](v []T) *T {
	if len(v) == 0 {
		return nil
	}
	return &v[0]
}

// takeOpStream returns an operator stream of dev that no other launch
// uses: one from the pool, or a new one.
func (b *Backend) takeOpStream(dev int32) (uintptr, error) {
	b.opMu.Lock()
	if free := b.opStreams[dev]; len(free) > 0 {
		st := free[len(free)-1]
		b.opStreams[dev] = free[:len(free)-1]
		b.opMu.Unlock()
		return st, nil
	}
	b.opMu.Unlock()
	var st uintptr
	if err := b.call(dev, "aclrtCreateStream", func() int32 { return b.api.aclrtCreateStream(&st) }); err != nil {
		return 0, err
	}
	return st, nil
}

// putOpStream gives st back to dev's pool when keep, or destroys it (a
// stream that was aborted, which holds nothing any more).
func (b *Backend) putOpStream(dev int32, st uintptr, keep bool) {
	if !keep {
		// Nothing is queued on it: an error here leaves only a stream.
		_ = b.call(dev, "aclrtDestroyStream", func() int32 { return b.api.aclrtDestroyStream(st) })
		return
	}
	b.opMu.Lock()
	defer b.opMu.Unlock()
	if b.opStreams == nil {
		b.opStreams = map[int32][]uintptr{}
	}
	b.opStreams[dev] = append(b.opStreams[dev], st)
}

// closeOps destroys the pooled operator streams, once the work on them is
// done.
func (b *Backend) closeOps() error {
	b.opMu.Lock()
	defer b.opMu.Unlock()
	var errs []error
	for dev, free := range b.opStreams {
		for _, st := range free {
			if err := b.call(dev, "aclrtDestroyStream", func() int32 { return b.api.aclrtDestroyStream(st) }); err != nil {
				errs = append(errs, err)
			}
		}
	}
	b.opStreams = nil
	return errors.Join(errs...)
}
