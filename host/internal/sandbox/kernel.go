package sandbox

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host/internal/engine"
)

// KernelModule is the import module of the kernel launchers: the host
// renames a guest's launcher import (module "env", the launcher's symbol)
// to it at load time, once it has bound the import to a granted kernel
// (ABI section 13.3). Its names are "kernel/profile/form", KernelFuncName.
const KernelModule = "aclwasm:kernel"

// Kernel is a kernel the embedder registered (host.Kernel), as the
// sandbox runs it: its declaration checked and compiled.
type Kernel struct {
	Name   string
	Params []KernelParam
	// Binary and Entry are the declared binary and entry: the kernel API
	// (kernelapi.go) finds the kernel by them.
	Binary, Entry string
	// Run runs one block of a launch: mem holds each buffer parameter's
	// validated bytes (nil for one of extent 0), args every parameter's
	// value as the guest passed it (scalars zero-extended). Nil for a
	// kernel with only a native binary, whose launches a backend that
	// computes (the simulator) refuses.
	Run func(ctx context.Context, b *Block) error
	// Quick is the declaration's (acl.Launch.Quick).
	Quick bool
	// Cost is the launch's modelled duration, nil for none.
	Cost func(blockDim uint32, args []uint64) time.Duration
}

// KernelParam is one parameter of a kernel after blockDim and the stream.
type KernelParam struct {
	Name string
	// Buffer parameters: Elem bytes an element, Extent the elements the
	// kernel may touch (an error when the formula overflows), Write
	// whether it may write them, Read whether it reads them.
	Buffer      bool
	Elem        uint64
	Write, Read bool
	Extent      func(blockDim uint32, args []uint64) (uint64, error)
	ExtentText  string // the formula, for messages
	// Scalar parameters: the wasm type the launcher passes it as, and
	// its native size, which the kernel API's arguments must have.
	Scalar engine.ValType
	Size   uint64
}

// Block is one block of a launch, what a kernel's Run sees.
type Block struct {
	Index, Dim uint32
	Mem        [][]byte // by parameter: a buffer's bytes, nil for a scalar
	Args       []uint64 // by parameter: a scalar's value, a buffer's address
	// User is the embedder's, kept from block to block of a launch (the
	// view package host makes of it once).
	User any
	out  *kernelOut
}

// Printf writes what the kernel prints on the device (AscendC::printf):
// the plugin's stdout receives it when the guest next calls the host, as
// the native runtime prints a kernel's output when its stream is
// synchronized.
func (b *Block) Printf(format string, args ...any) {
	if b.out != nil {
		b.out.printf(format, args...)
	}
}

// kernelOut buffers the device prints of a session's kernels: stream
// workers write, the guest's goroutine flushes into its stdout, which
// WASI writes too and which need not be safe for concurrent use.
type kernelOut struct {
	pending atomic.Bool // buf holds bytes: the one load a host call pays
	mu      sync.Mutex
	buf     bytes.Buffer
	w       func([]byte)
}

// maxKernelOut bounds the device prints held between two host calls:
// natively the print buffer of a device is bounded too (1 MiB per core by
// default), and what does not fit is dropped.
const maxKernelOut = 1 << 20

func (o *kernelOut) printf(format string, args ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.buf.Len() < maxKernelOut {
		fmt.Fprintf(&o.buf, format, args...)
		o.pending.Store(true)
	}
}

// flush writes what kernels printed to the plugin's stdout.
func (o *kernelOut) flush() {
	if !o.pending.Load() {
		return
	}
	o.mu.Lock()
	b := bytes.Clone(o.buf.Bytes())
	o.buf.Reset()
	o.pending.Store(false)
	o.mu.Unlock()
	o.w(b)
}

// flushKernelOut writes the kernels' device prints, on the guest's
// goroutine.
func (s *Session) flushKernelOut() {
	if s.kout != nil {
		s.kout.flush()
	}
}

// KernelFuncName is the name in KernelModule of kernel's launcher in
// profile prof, returning an i32 (status) or nothing (void, as the
// launchers of the CANN examples).
func KernelFuncName(kernel string, prof abi.Profile, status bool) string {
	form := "void"
	if status {
		form = "status"
	}
	return kernel + "/" + prof.Module() + "/" + form
}

// LauncherType is the wasm type of k's launcher in profile prof: blockDim
// (i32), the stream (a pointer, i32), then each parameter (a buffer as a
// device address of the profile, a scalar by its type), returning an i32
// status or nothing.
func LauncherType(k *Kernel, prof abi.Profile, status bool) engine.FuncType {
	t := engine.FuncType{Params: []engine.ValType{engine.I32, engine.I32}}
	for _, p := range k.Params {
		switch {
		case p.Buffer && prof == abi.Native32:
			t.Params = append(t.Params, engine.I32)
		case p.Buffer:
			t.Params = append(t.Params, engine.I64)
		default:
			t.Params = append(t.Params, p.Scalar)
		}
	}
	if status {
		t.Results = []engine.ValType{engine.I32}
	}
	return t
}

// Launchers returns the host functions of k's launchers: one per profile
// and result form.
func Launchers(k *Kernel) []*HostFunc {
	var out []*HostFunc
	for _, prof := range abi.Profiles {
		for _, status := range []bool{false, true} {
			t := LauncherType(k, prof, status)
			f := abi.Func{Name: k.Name, Group: "kernel", Params: []abi.Param{{Name: "blockDim", Type: abi.I32}, {Name: "stream", Type: abi.Handle}}}
			for _, p := range k.Params {
				ty := abi.I32
				switch {
				case p.Buffer: // a device address: the trace shows it in hex
					ty = abi.Addr
				case p.Scalar.Is64():
					ty = abi.U64
				}
				f.Params = append(f.Params, abi.Param{Name: p.Name, Type: ty})
			}
			h := &HostFunc{
				Module: KernelModule, Name: KernelFuncName(k.Name, prof, status), F: f, Type: &t,
				kernel: k, kprof: prof, kstatus: status,
			}
			h.Typed = h.launch
			out = append(out, h)
		}
	}
	return out
}

// launch is launcher h's Typed: its kernel launched in its profile, with
// or without a status.
func (h *HostFunc) launch(c *Call) error { return c.launchKernel(h.kernel, h.kprof, h.kstatus) }

// launchKernel runs a launcher's call: the launch queued, or its error
// reported. A launcher that returns a status gets the code; a void one,
// as a native <<<>>> launch, leaves the error for the next synchronize of
// its stream (and aclrtGetLastError).
func (c *Call) launchKernel(k *Kernel, prof abi.Profile, status bool) error {
	args := c.args[:2+len(k.Params)]
	if prof == abi.Native32 { // i32s: the upper halves are undefined
		for i, p := range k.Params {
			if p.Buffer || !p.Scalar.Is64() {
				args[2+i] = uint64(uint32(args[2+i]))
			}
		}
	}
	lc := c.s.launchCountOf(k)
	if lc == nil { // the load check binds only granted kernels
		return c.kernelErr(k, nil, status, acl.Errorf(acl.ErrRTParamInvalid, "kernel %s is not granted to the plugin", k.Name))
	}
	st, err := c.stream(uint32(args[1]))
	if err != nil {
		return c.kernelErr(k, nil, status, err)
	}
	return c.kernelErr(k, st, status, c.queueKernel(k, lc, st, args, 0))
}

// kernelErr reports a launch's error: as the call's status, or recorded
// and failing its stream at the next synchronize when the launcher
// returns none.
func (c *Call) kernelErr(k *Kernel, st *streamRec, status bool, err error) error {
	if err == nil { // inlined: most launches succeed
		if status {
			c.args[0] = 0
		}
		return nil
	}
	return c.kernelFailed(k, st, status, err)
}

// kernelFailed is kernelErr of an error.
func (c *Call) kernelFailed(k *Kernel, st *streamRec, status bool, err error) error {
	if status {
		return err // invokeHost records it and writes its code
	}
	c.s.noteErr(k.Name+": "+acl.MessageOf(err), err)
	if st != nil {
		_ = c.s.b.LaunchHostFunc(st.h, func() error { return &fault{err} })
	}
	return nil
}

// queueKernel validates a launch as ABI section 13.1 says and queues it on
// st: blockDim within the session's core limit, every buffer's declared
// extent inside one live device allocation of the session with the
// access it needs, the queue's limit. args are blockDim, the stream and
// each parameter's value; timeout, when not 0, bounds the launch's run
// (aclrtLaunchKernelWithConfig's attribute); lc is k's counters in the
// session (kcount), nil if it is not granted. Both guest surfaces, the
// launchers and the kernel API, launch through it.
func (c *Call) queueKernel(k *Kernel, lc *launchCount, st *streamRec, args []uint64, timeout time.Duration) error {
	comp, kr := c.s.comp, c.s.kr
	isComp, isNative := comp != nil, kr != nil
	var fn acl.KernelFunc
	switch {
	case isNative:
		var ok bool
		if fn, ok = c.s.kfuncs[k.Name]; !ok {
			return acl.Errorf(acl.ErrRTFeatureNotSupport, "kernel %s has no native binary (host.Kernel.Binary): the %s backend runs only kernel binaries", k.Name, c.s.b.Name())
		}
	case !isComp:
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "this backend runs no registered kernels (the simulator does)")
	case k.Run == nil:
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "kernel %s has only a native binary (%s), no simulator implementation (host.Kernel.Run): the %s backend runs only kernels implemented in Go; the native backend runs this one", k.Name, filepath.Base(k.Binary), c.s.b.Name())
	}
	if lc == nil { // both surfaces find their kernels among those granted
		return acl.Errorf(acl.ErrRTParamInvalid, "kernel %s is not granted to the plugin", k.Name)
	}
	blockDim := uint32(args[0])
	limit, err := c.launchCores()
	if err != nil {
		return err
	}
	if blockDim == 0 || blockDim > limit {
		return acl.Errorf(acl.ErrRTParamInvalid, "%s: blockDim %d is out of range: from 1 to the device's %d cores (aclrtGetDeviceResLimit)", k.Name, blockDim, limit)
	}
	vals := args[2:]
	var kl *kernelLaunch
	if isNative { // never recycled: the native backend calls no Done
		kl = newKernelLaunch()
	} else {
		kl = c.s.takeLaunch()
	}
	// Until a backend owns kl, each failure recycles it (unused): no
	// deferred call, whose closure and frame cost a launch of a kernel
	// that does little as much as a map lookup.
	kl.s, kl.k, kl.blockDim, kl.timeout, kl.bytes = c.s, k, blockDim, timeout, 0
	l := &kl.l
	l.Name, l.Quick, l.Regions, l.InCall = k.Name, k.Quick, l.Regions[:0], false
	kl.hs = kl.hs[:0]
	if len(k.Params) > 0 {
		if err := c.holdBuffers(k, kl, blockDim, vals); err != nil {
			kl.unused()
			return err
		}
	}
	// A launch without buffers has nothing to check again: no Check,
	// which the backend would call for nothing.
	if len(kl.hs) > 0 {
		l.Check = kl.recheck
	} else if l.Check != nil {
		l.Check = nil
	}
	if err := c.enqueueKernel(st); err != nil {
		kl.unused()
		return err
	}
	if isNative {
		regs := make([]int, len(k.Params)) // by parameter: its region, -1 for none
		for i := range regs {
			regs[i] = -1
		}
		for _, h := range kl.hs {
			regs[h.param] = h.reg
		}
		l.Kernel = nativeCall(k, fn, blockDim, vals, regs, c.ctx)
		if timeout > 0 && (l.Kernel.Timeout == 0 || timeout < l.Kernel.Timeout) { // the launch's own
			l.Kernel.Timeout = timeout
		}
		// Never recycled: the native backend calls no Done.
		if err := kr.LaunchKernel(st.h, l); err != nil {
			return be(err)
		}
		lc.ran.Add(1) // natively counted as queued: the runtime times and fails streams, not launches
		if len(st.kernels) < maxFaultNames && !slices.Contains(st.kernels, k.Name) {
			st.kernels = append(st.kernels, k.Name)
		}
		return nil
	}
	kl.lc = lc
	kl.vals = append(kl.vals[:0], vals...) // the call's arguments are reused
	kl.bufs = slices.Grow(kl.bufs[:0], len(vals))[:len(vals)]
	kl.deadline = c.runDeadline()
	// Field by field, User kept: a composite literal is built on the
	// stack and copied in 16-byte moves that stall on the stores before.
	b := &kl.blk
	b.Index, b.Dim, b.Mem, b.Args, b.out = 0, blockDim, kl.bufs, kl.vals, c.s.kout
	l.Cost = 0
	if k.Cost != nil {
		l.Cost = k.Cost(blockDim, kl.vals)
	}
	// The simulator calls Done, which recycles kl.
	err = comp.Compute(st.h, l)
	if kl.own && !l.InCall { // held by the backend until its Done
		kl.queued = true
	}
	return be(err)
}

// holdBuffers validates the buffers of k's launch kl as ABI section 13.1
// says (args are its parameters' values) and records them in kl: its
// held buffers, its regions and their bytes. Apart from queueKernel, so
// that a launch of a kernel without buffers runs none of its frame.
func (c *Call) holdBuffers(k *Kernel, kl *kernelLaunch, blockDim uint32, vals []uint64) error {
	l := &kl.l
	for i, p := range k.Params {
		if !p.Buffer {
			continue
		}
		elems, err := p.Extent(blockDim, vals)
		if err != nil {
			return acl.Errorf(acl.ErrRTParamInvalid, "%s: %s: extent %s: %v", k.Name, p.Name, p.ExtentText, err)
		}
		hi, n := bits.Mul64(elems, p.Elem)
		if hi != 0 {
			return acl.Errorf(acl.ErrRTParamInvalid, "%s: %s: extent %s = %d elements of %d bytes overflows", k.Name, p.Name, p.ExtentText, elems, p.Elem)
		}
		if n == 0 {
			continue
		}
		addr := vals[i]
		if addr == 0 {
			return acl.Errorf(acl.ErrInvalidParam, "%s: %s is NULL", k.Name, p.Name)
		}
		if addr%p.Elem != 0 {
			return acl.Errorf(acl.ErrRTParamInvalid, "%s: %s %#x is not aligned to its %d-byte elements", k.Name, p.Name, addr, p.Elem)
		}
		sp, err := c.s.resolveDevice(k.Name+": "+p.Name, addr, n)
		if err == nil && p.Write {
			err = sp.writable(k.Name+": "+p.Name, addr, n)
		}
		if err != nil {
			return err
		}
		kl.hs = append(kl.hs, held{a: sp.a, addr: addr, n: n, param: i, reg: len(l.Regions)})
		kl.bytes += n
		l.Regions = append(l.Regions, acl.Region{Ptr: sp.buf.Dev, N: n, Write: p.Write})
	}
	return nil
}

// launchCountOf returns the counters of kernel k in the session, nil if
// it is not granted.
func (s *Session) launchCountOf(k *Kernel) *launchCount {
	if k == s.klast {
		return s.klastLC
	}
	lc := s.kcount[k]
	if lc != nil {
		s.klast, s.klastLC = k, lc
	}
	return lc
}

// takeLaunch returns a record for a launch on a backend that computes:
// the session's own when no queued launch holds it, else a pooled one.
// The guest's goroutine alone takes it. A quick launch that ran in its
// call (acl.Launch.InCall) is done with it when Compute returns, without
// an atomic operation; one the backend queued gives it back at its Done,
// on the stream's worker (back).
func (s *Session) takeLaunch() *kernelLaunch {
	if kl := s.kown; kl != nil && !kl.queued { // inlined: the common case
		return kl
	}
	return s.takeLaunchQueued()
}

// takeLaunchQueued is takeLaunch when the session has no record yet, or
// a backend queued its last launch.
func (s *Session) takeLaunchQueued() *kernelLaunch {
	kl := s.kown
	switch {
	case kl == nil:
		kl = newKernelLaunch()
		kl.own = true
		s.kown = kl
	case kl.queued:
		if !kl.back.Load() {
			return newKernelLaunch()
		}
		kl.queued = false
		kl.back.Store(false)
	}
	return kl
}

// kernelLaunches are kernel launches to reuse: a launch of a quick kernel
// costs a few hundred nanoseconds, and allocating its record, its
// functions and its buffers as much again, and more in the collector.
var kernelLaunches sync.Pool

// newKernelLaunch returns a pooled launch, or a new one.
func newKernelLaunch() *kernelLaunch {
	if kl, ok := kernelLaunches.Get().(*kernelLaunch); ok {
		return kl
	}
	kl := &kernelLaunch{}
	kl.recheck = kl.check
	kl.l.Run, kl.l.Done, kl.l.Recovers = kl.run, kl.recycle, true
	return kl
}

// recycle is kl's Done: it drops what kl refers to of its launch (the
// session, the allocations, the memory), keeping its functions, its Run's
// context and the room of its slices, and pools it; queueKernel sets every
// other field again. The session's own record keeps what is the
// session's, and is given back (takeLaunch). Nothing may refer to it
// after: its backend is done with it, and its kernel's Run has returned.
func (kl *kernelLaunch) recycle() {
	if kl.own { // the session's: what it refers to is the session's
		kl.drop()
		if !kl.l.InCall {
			kl.back.Store(true)
		}
		return
	}
	kl.unused()
}

// unused recycles kl, which no backend holds: its launch failed before
// it was queued.
func (kl *kernelLaunch) unused() {
	kl.drop()
	if kl.own {
		return
	}
	kl.s, kl.k, kl.lc = nil, nil, nil
	kl.blk.Mem, kl.blk.Args, kl.blk.out = nil, nil, nil
	kl.l.Kernel = nil
	kernelLaunches.Put(kl)
}

// drop drops the bytes and allocations of kl's buffers.
func (kl *kernelLaunch) drop() {
	if len(kl.hs) > 0 {
		clear(kl.hs)
		clear(kl.bufs)
	}
}

// kernelLaunch is a launch of a registered kernel on the simulator, from
// its queueing to its run.
type kernelLaunch struct {
	l        acl.Launch
	s        *Session
	k        *Kernel
	lc       *launchCount
	blockDim uint32
	timeout  time.Duration // the launch's own, 0 for none
	bytes    uint64        // its buffers' extents, together
	deadline time.Time     // the run's, zero for none (Call.runDeadline)
	hs       []held        // its buffers, as validated when queued
	vals     []uint64      // by parameter: a scalar's value, a buffer's address
	bufs     [][]byte      // by parameter: a buffer's bytes when it runs
	recheck  func() error  // check, made once: l.Check of a launch with buffers
	// bc is Run's context, kept from launch to launch while no Run asked
	// for its Done (endCtx). Pooled, it may keep the last launch's
	// contexts (the stream's and the session's) alive until the pool
	// drops it, two collections at most.
	bc *boundCtx
	// blk is the block its kernel sees; its User, the embedder's view of
	// it, is kept from launch to launch.
	blk Block
	// own marks the session's own record (takeLaunch), never pooled;
	// queued, that a backend queued its last launch (the guest's
	// goroutine alone reads and writes it), and back that the launch's
	// Done gave it back since.
	own, queued bool
	back        atomic.Bool
}

// held is one buffer of a launch: its extent in allocation a, the
// parameter it is and its region in the launch.
type held struct {
	a          *alloc
	addr, n    uint64
	param, reg int
}

// check validates the launch's buffers again when it executes, in stream
// order: a buffer freed or a lease revoked in between fails the launch
// before it touches anything.
func (kl *kernelLaunch) check() error {
	s := kl.s
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, h := range kl.hs {
		if a := s.as.find(h.addr); a != h.a || h.n > a.end()-h.addr {
			err := &fault{acl.Errorf(acl.ErrRTParamInvalid, "%s: %s [%#x, +%d) was freed before the kernel ran", kl.k.Name, kl.k.Params[h.param].Name, h.addr, h.n)}
			s.kernelRan(kl.lc, kl.k.Name, 0, err)
			return err
		}
	}
	return nil
}

// run runs the launch's blocks, stopped by the stream's cancellation
// (ctx), the end of the session, the run's time limit and the launch's
// own timeout.
func (kl *kernelLaunch) run(ctx context.Context, mem [][]byte) (err error) {
	k, s := kl.k, kl.s
	if kl.bc == nil {
		kl.bc = &boundCtx{}
	}
	kl.bc.bind(ctx, s.halt, kl.deadline, kl.timeout) // the launch's bounds
	kl.bc.calm = kl.l.InCall
	// One deferred call releases Run's context and recovers every panic
	// of Run (acl.Launch.Recovers): a block's is the launch's fault as
	// runBlocks makes of one, counted as the launch's end; any other a
	// device fault, as a backend makes of a panic in Run. A guard of each
	// block and the backend's own besides cost a quick launch two
	// deferred calls more.
	var sampled, timed, inBlocks bool
	var t0 time.Duration
	defer func() {
		if r := recover(); r != nil {
			if inBlocks {
				err = kl.ended(ctx, blockPanicked(k, &kl.blk, r), sampled, timed, t0)
			} else {
				err = acl.Errorf(acl.ErrRTAicoreException, "%s failed on the device: it panicked: %v", k.Name, r)
			}
		}
		kl.endCtx()
	}()
	for _, h := range kl.hs {
		kl.bufs[h.param] = mem[h.reg]
	}
	sampled, timed = kl.lc.times(k.Quick && kl.bytes <= sampleMax, s.computeObserved(), kl.l.InCall)
	if timed {
		t0 = time.Since(epoch)
	}
	inBlocks = true
	err = blocksOf(kl.bc, k, &kl.blk)
	inBlocks = false
	if err == nil && sampled && !timed { // counted by times: ended has nothing to do
		return nil
	}
	return kl.ended(ctx, err, sampled, timed, t0)
}

// ended counts the end of the launch's run with err, its blocks' error,
// which a stop at a deadline the kernel met becomes the launch's timeout;
// sampled, timed and t0 are what run measured it by.
func (kl *kernelLaunch) ended(ctx context.Context, err error, sampled, timed bool, t0 time.Duration) error {
	k, s := kl.k, kl.s
	if err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil && s.halt.Err() == nil {
		switch run, own := kl.bc.expired(); {
		case run:
			err = &fault{acl.Errorf(acl.ErrRTAicoreTimeout, "kernel %s was stopped at the run's time limit", k.Name)}
		case own:
			err = &fault{acl.Errorf(acl.ErrRTAicoreTimeout, "kernel %s ran past its launch's timeout of %v and was stopped", k.Name, kl.timeout)}
		}
	}
	var d time.Duration
	if timed {
		d = time.Since(epoch) - t0
	}
	s.kernelRanSampled(kl.lc, k.Name, sampled, timed, d, err)
	return err
}

// endCtx releases what Run's context made once Run has returned. The
// context is kept with kl for its next launch, so that a launch allocates
// none, unless Run asked for its Done: the goroutines of the context
// package that Run started from it (WithCancel, AfterFunc) may look at it
// after Run, so it is left to them and the collector.
func (kl *kernelLaunch) endCtx() {
	if !kl.bc.reusable() { // release has nothing to do otherwise
		kl.dropCtx()
	}
}

// dropCtx releases and forgets a context that Done was asked of.
func (kl *kernelLaunch) dropCtx() {
	kl.bc.release()
	kl.bc = nil
}

// epoch is a time that launches are timed from: time.Since(epoch) reads
// only the monotonic clock, where time.Now reads the wall clock too, and
// reading a clock is a good part of a quick launch.
var epoch = time.Now()

// maxFaultNames bounds the kernel names a stream keeps for the message of
// a device fault (synced).
const maxFaultNames = 8

// synced is err, what a synchronize of st returned, with a device fault's
// message naming the native kernels launched on st since its last
// synchronize (the native runtime reports only the code); a synchronize
// that finished forgets them.
func (s *Session) synced(st *streamRec, err error) error {
	code := acl.CodeOf(err)
	switch {
	case err == nil:
	case code == acl.ErrRTAicoreException || code == acl.ErrRTAicoreTimeout:
		if len(st.kernels) > 0 {
			err = &fault{acl.Errorf(code, "a kernel failed on the device (%s): one launched on the stream since its last synchronize (%s)", code.Name(), strings.Join(st.kernels, ", "))}
		}
	default:
		return err // not finished: a timeout, an interruption
	}
	st.kernels = st.kernels[:0]
	return err
}

// deviceGrace is how long after the run's deadline a native launch's
// device timeout falls.
const deviceGrace = time.Second

// nativeCall is a launch of k as its native function fn receives it: a
// buffer as its validated region (regs, by parameter; a buffer of extent 0
// as NULL, which the kernel may not touch), a scalar as its native bytes,
// and the run's time left (plus deviceGrace) as the launch's timeout on
// the device.
func nativeCall(k *Kernel, fn acl.KernelFunc, blockDim uint32, vals []uint64, regs []int, ctx context.Context) *acl.KernelCall {
	kc := &acl.KernelCall{Func: fn, BlockDim: blockDim, Args: make([]acl.KernelArg, len(k.Params))}
	for i, p := range k.Params {
		switch {
		case p.Buffer && regs[i] >= 0:
			kc.Args[i] = acl.KernelArg{Region: regs[i]}
		case p.Buffer:
			kc.Args[i] = acl.KernelArg{Region: -1, Value: make([]byte, 8)}
		default:
			kc.Args[i] = acl.KernelArg{Region: -1, Value: binary.LittleEndian.AppendUint64(nil, vals[i])[:p.Size]}
		}
	}
	// The host's own deadline ends the run first; the device's stops a
	// kernel still running a grace later (a forced destruction of its
	// stream need not stop a running kernel natively).
	if dl, ok := ctx.Deadline(); ok {
		kc.Timeout = max(time.Until(dl), 0) + deviceGrace
	}
	return kc
}

// RunBlocks runs a launch of k: its blocks in order, on the buffers mem
// and the arguments args (by parameter), the device prints to out (nil:
// dropped). The first block that fails ends it with its error.
func RunBlocks(ctx context.Context, k *Kernel, blockDim uint32, mem [][]byte, args []uint64, out *kernelOut) error {
	return runBlocks(ctx, k, &Block{Dim: blockDim, Mem: mem, Args: args, out: out})
}

// runBlocks runs b.Dim blocks of k on b, a block's panic the launch's
// fault.
func runBlocks(ctx context.Context, k *Kernel, b *Block) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = blockPanicked(k, b, r)
		}
	}()
	return blocksOf(ctx, k, b)
}

// blocksOf is runBlocks whose caller recovers a block's panic
// (blockPanicked).
func blocksOf(ctx context.Context, k *Kernel, b *Block) error {
	// A launch's context (kernelLaunch.run) is asked directly: each call
	// through an interface or a function value on a quick launch's path
	// cost it more than the check.
	bc, _ := ctx.(*boundCtx)
	for i := range b.Dim {
		var err error
		if bc != nil {
			err = bc.Err()
		} else {
			err = ctx.Err()
		}
		if err != nil {
			return err
		}
		b.Index = i
		if err := runBlock(ctx, k, b); err != nil {
			return err
		}
	}
	return nil
}

// blockPanicked is the launch's fault for the panic r of block b.Index.
func blockPanicked(k *Kernel, b *Block, r any) error {
	return &fault{acl.Errorf(acl.ErrRTAicoreException, "kernel %s failed on the device: block %d of %d panicked: %v", k.Name, b.Index, b.Dim, r)}
}

// runBlock runs one block, its error the launch's fault.
func runBlock(ctx context.Context, k *Kernel, b *Block) error {
	err := k.Run(ctx, b)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		return err
	}
	var ce *acl.CallError
	if errors.As(err, &ce) {
		return &fault{acl.Errorf(ce.Code, "kernel %s failed on the device: block %d of %d: %s", k.Name, b.Index, b.Dim, ce.Msg)}
	}
	return &fault{acl.Errorf(acl.ErrRTAicoreException, "kernel %s failed on the device: block %d of %d: %v", k.Name, b.Index, b.Dim, strings.TrimSpace(err.Error()))}
}

// launchCores is the most blocks a launch on the current device may have:
// the session's own limit of its cube cores (aclrtSetDeviceResLimit), else
// the device's count, which a backend reports the same at every call and
// the session so asks for once.
func (c *Call) launchCores() (uint32, error) {
	s := c.s
	if len(s.resLimits) > 0 { // most sessions set none: no lookup
		if v, ok := s.resLimits[resKey{s.dev, acl.DevResCubeCore}]; ok {
			return v, nil
		}
	}
	if i := int(s.dev); i < len(s.kcores) && s.kcores[i] != 0 {
		return s.kcores[i], nil
	}
	v, err := c.resLimit(s.dev, acl.DevResCubeCore)
	if err != nil || s.dev < 0 {
		return v, err
	}
	if int(s.dev) >= len(s.kcores) {
		s.kcores = slices.Grow(s.kcores, int(s.dev)+1-len(s.kcores))[:s.dev+1]
	}
	s.kcores[s.dev] = v
	return v, nil
}

// enqueueKernel is enqueue for a launch, which no ABI function index
// counts in the metrics.
func (c *Call) enqueueKernel(st *streamRec) error {
	if st.queued < c.s.policy.MaxQueued { // inlined: room by the session's own count
		st.queued++
		return nil
	}
	return c.enqueueKernelFull(st)
}

// enqueueKernelFull is enqueueKernel when the session's count reached the
// limit: the backend's count is asked for.
func (c *Call) enqueueKernelFull(st *streamRec) error {
	if st.queued >= c.s.policy.MaxQueued {
		n, err := c.s.b.Pending(st.h)
		if err != nil {
			return be(err)
		}
		if n >= c.s.policy.MaxQueued {
			return acl.Errorf(acl.ErrRTOverLimit, "the stream already has %d queued operations, the policy's limit", n)
		}
		st.queued = n
	}
	st.queued++
	return nil
}

// launchCount counts the launches of one granted kernel in a session:
// made by New, counted on stream workers as launches execute (Counts, the
// metrics).
//
// The time they ran is measured for every launch but the small ones of a
// quick kernel (at most sampleMax bytes of buffers) while no metrics
// observe each: reading the clock twice costs more than such a launch (100
// to 200 ns a read on a virtual machine whose clock is not the TSC, where
// the launch of a kernel that does little is a few hundred), so of those
// the first timeFirst are timed and then one in timeEvery, and the time
// of the rest is estimated from them (compute).
type launchCount struct {
	// ran and ns count the launches timed because they had to be, failed
	// the failures of all.
	ran, failed atomic.Uint64
	ns          atomic.Int64
	// The launches that may be sampled: how many, how many of them were
	// timed, and their time.
	sampled, sampledTimed atomic.Uint64
	sampledNs             atomic.Int64
	// inCall counts the launches that may be sampled and ran in their
	// call, on the guest's goroutine (acl.Launch.InCall), which alone
	// writes it: a launch so counted takes no atomic operation. Counts
	// reads it between host calls.
	inCall uint64
}

// launches is the count of the launches that executed.
func (lc *launchCount) launches() uint64 { return lc.ran.Load() + lc.sampled.Load() + lc.inCall }

// Sampling of a quick kernel's launch times (launchCount).
const (
	timeFirst = 64 // the first launches are all timed: a short run is exact
	timeEvery = 64 // then one in timeEvery
	// sampleMax is the most bytes of buffers a sampled launch has: the
	// most the simulator runs in the launch's call (acl.Launch.Quick), a
	// launch whose own cost the clock's is close to.
	sampleMax = 64 << 10
)

// times reports whether a launch of the kernel counted by lc may be
// sampled (a quick kernel's, no metrics observing each launch) and
// whether it is timed. inCall says it runs in its call, on the guest's
// goroutine (lc.inCall).
func (lc *launchCount) times(quick, observed, inCall bool) (sampled, timed bool) {
	if !quick || observed {
		return false, true
	}
	var n uint64
	if inCall {
		lc.inCall++
		n = lc.inCall
	} else {
		n = lc.sampled.Add(1)
	}
	return true, n <= timeFirst || n%timeEvery == 0
}

// compute is the time the counted launches ran: that of those timed, and
// for the launches of which one in timeEvery was timed, their count times
// the mean of those timed.
func (lc *launchCount) compute() time.Duration {
	d := time.Duration(lc.ns.Load())
	n, t, ns := lc.sampled.Load()+lc.inCall, lc.sampledTimed.Load(), lc.sampledNs.Load()
	if t == 0 {
		return d
	}
	if n == t {
		return d + time.Duration(ns)
	}
	return d + time.Duration(float64(ns)*float64(n)/float64(t))
}

// computeObserved reports whether each launch's time is observed (the
// metrics' compute series), so that none may be sampled.
func (s *Session) computeObserved() bool { return s.ms.pm != nil && s.ms.pm.m.Compute != nil }

// kernelRan counts a launch of kernel name that executed for d (0: it
// did not run) and ended with err, in the session's counts and the
// metrics (the compute series, by the kernel's name).
func (s *Session) kernelRan(lc *launchCount, name string, d time.Duration, err error) {
	s.kernelRanSampled(lc, name, false, true, d, err)
}

// kernelRanSampled is kernelRan for a launch that may have been sampled
// (launchCount.times), and timed or not: d counts only if it was.
func (s *Session) kernelRanSampled(lc *launchCount, name string, sampled, timed bool, d time.Duration, err error) {
	switch {
	case !sampled:
		lc.ran.Add(1)
		lc.ns.Add(int64(d))
	case timed: // counted by times
		lc.sampledTimed.Add(1)
		lc.sampledNs.Add(int64(d))
	}
	if err != nil {
		lc.failed.Add(1)
	}
	if timed {
		s.computeMetricsOf(name, d, err != nil)
	}
}
