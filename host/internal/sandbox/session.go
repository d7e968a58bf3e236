package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host/internal/engine"
)

// Session is the state of one plugin instance, made by New from a Config
// and grouped into parts by who touches them: what never changes after
// New (fixed), the memory the guest holds and its accounting (memState),
// the guest's objects by handle (handles), its device, contexts and
// runtime settings (devState), the host call in flight (callState), its
// error state (errState), what observes its calls (observe) and what it
// shares with stream workers (workState). The parts are embedded, so
// their fields read as the session's own. Host calls of one instance come
// from one goroutine, the guest's: unless its part says otherwise, a
// field is that goroutine's alone, and the embedder reads it only between
// the instance's calls.
type Session struct {
	fixed
	memState
	handles
	devState
	callState
	errState
	observe
	workState
}

// fixed is what New sets from the Config and nothing changes after: any
// goroutine may read it without a lock (a test hook of export_test.go
// aside, which runs before the guest does).
type fixed struct {
	sh      *Shared
	policy  Limits
	b       acl.Backend
	sc      acl.SmallCopier   // b's small copies, nil if it has none (Shared.sc, smallcopy.go)
	comp    acl.Computer      // b's Go compute, nil if it has none (Traits, read once)
	kr      acl.KernelRunner  // b's kernel binaries, nil if it runs none
	prof    abi.Profile       // the module's import profile: acl or acl32
	id      uint64            // ID
	descKey descKey           // the key of the session's descriptor MACs (desc.go), drawn at its first use
	owner   any               // Config.Owner
	vars    map[string]string // Config.Vars, for aclwasm.config_read
	logs    []*logWriter      // Config.Logger's writers, flushed at release
	appLog  *slog.Logger      // Config.Logger with plugin and session, for aclAppLog; made at its first use (appLogger)
	logBase *slog.Logger      // Config.Logger, nil without one
	logName string            // Config.Name
	stdout  io.Writer         // the guest's stdout and stderr (Output)
	stderr  io.Writer
	// Kernels (ABI section 13.3, kernel.go): those granted, their native
	// functions (acl.KernelRunner), and the device prints of launches not
	// yet written to stdout (kernelOut has its own lock).
	kernels map[string]*Kernel
	kfuncs  map[string]acl.KernelFunc
	kout    *kernelOut
	// The launch counters of each granted kernel (atomic), by name for
	// Counts and by kernel for a launch, which so finds its grant and its
	// counters with one lookup by pointer rather than two by name.
	klaunch map[string]*launchCount
	kcount  map[*Kernel]*launchCount
	// klast is the kernel of the last launch and its counters: a guest
	// that launches one kernel in a loop finds them without the map
	// (launchCountOf).
	klast   *Kernel
	klastLC *launchCount
	// kown is the session's own launch record (takeLaunch).
	kown *kernelLaunch
}

// memState is the device memory the session holds and its accounting.
// The guest's goroutine alone writes it; stream workers read the address
// space (descriptor and offset copies), so the guest's goroutine changes
// as under mu, and workers read it under mu.RLock.
type memState struct {
	mu      sync.RWMutex
	as      addrSpace
	region  uint64          // the device address region (Runtime.regions)
	freed   bool            // release has returned the region
	held    []uint64        // device bytes charged, per guest device
	pinned  uint64          // registered bytes
	lent    int             // uncharged leases in as.allocs (LendOptions.Charge)
	zombies []acl.DevPtr    // frees that could not wait; retried at release
	mem     engine.Releaser // the guest memory's reservation, on wazero (engine.Invoker.Hold)
}

// handles is the guest's objects by handle, each map made at its first
// entry (a command run per request that makes no stream or event pays
// for none): the guest's goroutine alone touches them. Handles are never
// reused.
type handles struct {
	nextHandle uint32
	streams    map[uint32]*streamRec
	events     map[uint32]*eventRec
	notifies   map[uint32]*notifyRec // notify.go
	// The operator library's objects (tensor.go), and the values they
	// hold together.
	nn       map[uint32]*nnObj
	objElems int
	// kobjs are the kernel API's binaries, functions, argument lists and
	// parameters (kernelapi.go).
	kobjs map[uint32]*kobj
	// Models (model.go): loaded models by id, and the model objects
	// (descriptions, datasets, data buffers) by handle.
	mdls    map[uint32]*mdlRec
	mdlHeld []*mdlRec // every model loaded, unloaded or not: their compiled models are released at the end
	mdlNext uint32
	mobjs   map[uint32]*mdlObj
}

// devState is the guest's current device and contexts, and the runtime
// settings it changed, the session's as the process's natively: the
// guest's goroutine alone touches it. Its maps are made at their first
// entry.
type devState struct {
	dev int32   // current guest device, -1 before aclrtSetDevice
	cur *ctxRec // the current context while dev >= 0
	// ctxs are the contexts, default ones included, in the order of
	// their handles (context.go): a few, and a slice of them one small
	// allocation where two maps (by handle and by device) took four.
	ctxs      []*ctxRec
	deadCtxs  map[uint32]bool   // handles of destroyed contexts (context.go)
	peers     map[[2]int32]bool // peer access this session enabled (guest ids)
	inited    bool              // runtime_imports.go
	finalized bool
	opWait    uint32 // aclrtSetOpWaitTimeout, seconds; 0: no limit
	opExec    uint64 // the operator execute timeout in effect, µs; 0: never set (the maximum)
	// ABI v1.2 section 12: core limits the session set (resource.go).
	resLimits map[resKey]uint32
	// kcores is each guest device's cube cores as the backend reports
	// them, 0 until a launch asked (kernel.go's launchCores).
	kcores []uint32
	// ABI v1.3 section 15 (stream_res.go): the stream whose core limits
	// aclrtGetResInCurrentThread answers with, or nil.
	useRes *streamRec
	// ABI v1.3 section 15 (overflow.go): the saturation mode and the
	// overflow status.
	ov overflowState
	// ABI v1.3 section 15 (prof.go): the profiling markers' stamps,
	// stack and latest range attributes; nil until first use (profs).
	pf *profState
	// ABI v1.3 section 15 (random.go): the generator aclrtRandomNumAsync
	// draws each task's seed from; nil until first use, unless
	// Config.Deterministic seeded it.
	rng *mrand.Rand
}

// callState is the host call in flight and what it keeps between calls.
// The guest's goroutine alone touches it, but for inHost.
type callState struct {
	call Call // the host call in flight (see invoke)
	io   *IO  // the bytes call in progress, or nil (SetIO, between calls)
	// recovers: the engine recovers the panics of memcpyFast and
	// launchFast, which have no recover of their own (engine.Recoverer);
	// inFast: memcpyFast is in flight, so a panic the engine recovers is
	// its own.
	recovers, inFast bool
	// inLaunch is 1 + the index (Shared.HostFuncs) of the launcher
	// launchFast runs without a recover of its own, 0 for none: a panic
	// the engine recovers is then that launch's.
	inLaunch int
	// inHost counts the embedder's host functions in flight for the
	// session (invokeHost): Close called from one must not wait for the
	// call it is part of (InHostFunc). Atomic: any goroutine reads it.
	inHost atomic.Int32
	// hostArgs keeps a typed host function's parameters for its trace,
	// which its results overwrite on the stack; made when first needed.
	hostArgs []uint64
	// batchBuf is the entries of the synchronous batch in flight, kept
	// between calls so that a batch allocates nothing (batch.go).
	batchBuf []acl.Copy
}

// errState is the session's error state (errstate.go), which
// aclGetRecentErrMsg and aclrtGetLastError report: the guest's goroutine
// writes it; the embedder reads it between calls (LastError).
type errState struct {
	lastErr string
	// guestMsg is what the guest said with error_set about why its call
	// fails (io.go).
	guestMsg string
	lastCode acl.Error // the last error; 0 when none
	msgRead  bool      // aclGetRecentErrMsg has returned lastErr whole (beside lastCode: no padding of its own)
}

// observe is what counts and follows the session's calls: the guest's
// goroutine writes it; the embedder reads the counts between calls
// (Counts) and changes the tracer between calls (SetTracer).
type observe struct {
	stats  stats
	tracer Tracer         // nil when nothing traces the session's calls
	ms     sessionMetrics // see metrics.go; ms.pm is Config.Metrics
}

// workState is what the session shares with its stream workers: each
// field says how it is shared.
type workState struct {
	// halt is the context of the host's own work on stream workers
	// (descriptor and offset copies): release cancels it once its own
	// context is done, so that a running copy stops between chunks
	// instead of holding the release up. Set by New.
	halt context.Context
	stop context.CancelFunc
	// batchEntries counts the entries of queued asynchronous batches that
	// have not run yet (Policy.MaxBatchEntries); workers decrement it.
	batchEntries atomic.Int64
	// Stream callbacks (callback.go): nil until the first launch (the
	// callbacks have their own lock), and the way to run the guest's
	// callbacks (SetDispatcher, once the instance exists).
	cb         *callbacks
	cbDispatch Dispatcher
	// ck is the checking mode's state (asynccheck.go); nil when it is off.
	// The guest's goroutine alone touches it.
	ck *asyncCheck
}

// addStream records stream id.
func (h *handles) addStream(id uint32, st *streamRec) {
	if h.streams == nil {
		h.streams = map[uint32]*streamRec{}
	}
	h.streams[id] = st
}

// addEvent records event id.
func (h *handles) addEvent(id uint32, ev *eventRec) {
	if h.events == nil {
		h.events = map[uint32]*eventRec{}
	}
	h.events[id] = ev
}

type streamRec struct {
	h     acl.Stream
	dev   int32
	ctx   *ctxRec        // the context it was created in
	flags acl.StreamFlag // aclrtCreateStreamWithConfig's, as the ACL layer passes them on
	prio  uint32         // its priority as the runtime keeps it (acl.StreamPriority)
	// queued counts the operations queued on it since the backend last
	// said how many are pending: at least what is pending (call.go's
	// enqueue). The guest's goroutine alone uses it.
	queued int
	mode   acl.FailureMode
	// batch counts the entries of asynchronous batches queued on it that
	// have not run: those a forced destruction or a stopped stream dropped
	// go back to the session's budget when the stream is destroyed.
	batch atomic.Int64
	// cbQueued counts the callbacks launched on it that have not become
	// due: those a forced destruction or a stopped stream dropped leave
	// the session's pending count when the stream is destroyed.
	cbQueued atomic.Int64
	res      coreLimits // aclrtSetStreamResLimit's (stream_res.go)
	kernels  []string   // native kernels launched since its last synchronize (kernel.go's synced)
	ovSwitch bool       // aclrtSetStreamOverflowSwitch's (overflow.go)
}

type eventRec struct {
	h        acl.Event
	dev      int32
	recorded bool       // aclrtRecordEvent queued a record of it: a wait may follow (event.go)
	newMode  bool       // aclrtCreateEventExWithFlag's: a wait before any record succeeds at once (createEventExWithFlag)
	flag     uint32     // aclrtCreateEventExWithFlag's flag (newMode only)
	reset    bool       // aclrtResetEvent queued a reset since its last record: a wait waits for the next record
	waits    eventWaits // aclrtStreamWaitEvent's waits not yet known finished (event.go)
}

// Config is what a session is made of (New): its runtime, its limits and
// module, and what its embedder gives it.
type Config struct {
	Shared  *Shared     // the runtime
	Limits  Limits      // the plugin's policy
	Profile abi.Profile // the module's import profile: acl or acl32
	// Owner is the embedder's view of the session (host.Session), for
	// the host functions that ask for it (Owner).
	Owner   any
	Metrics *PluginMetrics    // the plugin's series; nil: none
	Vars    map[string]string // for aclwasm.config_read
	// Deterministic seeds the generator of aclrtRandomNumAsync with a
	// fixed seed, as the guest's clocks are then fixed too; otherwise it
	// is seeded from the host's entropy on first use.
	Deterministic bool
	// NoStats: the session counts nothing of module "acl" (Counts has
	// none of its functions), for an embedder that never reads the
	// counts, such as a command's run whose caller asked for none: a
	// session that counts allocates its counters at its first calls.
	// Metrics and traces still see every call.
	NoStats bool
	// Logger, when not nil, receives the guest's stdout (level Info) and
	// stderr (level Warn) where Stdout and Stderr are nil, with the
	// attributes plugin (Name), session and stream, and aclAppLog's
	// records with plugin and session (applog.go).
	Logger         *slog.Logger
	Name           string
	Stdout, Stderr io.Writer
	// Late, when not nil: Logger, Stdout and Stderr (and the engine's
	// stdin) are not given yet but bound by Bind before the guest runs
	// (a run prepared ahead, whose engine instance is made before its
	// streams are known): Output returns Late's writers and Late.Stdin
	// its reader, which reach what Bind gives.
	// The caller holds it, in an allocation of its own.
	Late *Late
	// Kernels are those the plugin was granted; their device prints go to
	// the guest's stdout (Output; none: they are dropped).
	Kernels map[string]*Kernel
	// KernelFuncs are the native functions of the granted kernels, by
	// kernel name, for a backend that runs kernel binaries
	// (acl.KernelRunner): the host loaded them with its plugin.
	KernelFuncs map[string]acl.KernelFunc
}

// New returns a session of c.Shared with c.Limits for a module of profile
// c.Profile, holding a device address region of its own until its
// release. An acl32 session's device addresses are instead 32-bit values
// in a window above the largest guest memory the limits allow (ABI
// section 9).
func New(c Config) (*Session, error) {
	sh, p := c.Shared, c.Limits
	region, ok := sh.regions.get()
	if !ok {
		return nil, fmt.Errorf("host: %d sessions are live, as many as there are device address regions: release one first", regions)
	}
	s := &Session{
		fixed: fixed{sh: sh, policy: p, b: sh.b, prof: c.Profile, owner: c.Owner, vars: c.Vars,
			id: sessionIDs.Add(1), stdout: c.Stdout, stderr: c.Stderr},
		memState: memState{region: region, as: newAddrSpace(region)},
		devState: devState{dev: -1},
		observe:  observe{stats: stats{off: c.NoStats}},
	}
	// A tiny allocation of its own: inline, the charges would take the
	// session past 1.5 KiB, the next size of allocation.
	s.held = make([]uint64, len(p.Devices))
	t := sh.b.Traits()
	s.sc, s.comp, s.kr = sh.sc, t.Computer, t.KernelRunner
	if c.Profile == abi.Native32 {
		s.as = newWindowSpace(engine.MemoryBytes(p.MemoryPages))
	}
	if p.CheckAsync {
		s.ck = newAsyncCheck()
	}
	s.halt, s.stop = context.WithCancel(context.Background())
	if c.Deterministic {
		s.rng = mrand.New(mrand.NewChaCha8(deterministicSeed))
	}
	if l := c.Late; l != nil {
		s.stdout, s.stderr, s.logName = &l.out, &l.err, c.Name
	} else {
		s.setupLog(c.Logger, c.Name)
	}
	if len(c.Kernels) > 0 {
		s.kernels, s.kfuncs = c.Kernels, c.KernelFuncs
		s.klaunch = make(map[string]*launchCount, len(c.Kernels))
		s.kcount = make(map[*Kernel]*launchCount, len(c.Kernels))
		for name, k := range c.Kernels {
			lc := &launchCount{}
			s.klaunch[name], s.kcount[k] = lc, lc
		}
		if w := s.stdout; w != nil {
			s.kout = &kernelOut{w: func(b []byte) { _, _ = w.Write(b) }}
		}
	}
	s.startMetrics(c.Metrics)
	return s, nil
}

// sessionIDs numbers sessions process-wide, for logs and traces.
var sessionIDs atomic.Uint64

// ID returns the session's number, unique in the process.
func (s *Session) ID() uint64 { return s.id }

// LastError returns the session's most recent error message, as
// aclGetRecentErrMsg reports it. Call it between the instance's calls.
func (s *Session) LastError() string { return s.lastErr }

func (s *Session) phys(dev int32) int32 { return s.policy.Devices[dev] }

// newHandle returns a handle never handed out before in this session, or
// 207012 once all 2^32-1 of them have been.
func (s *Session) newHandle() (uint32, error) {
	if s.nextHandle == ^uint32(0) {
		return 0, acl.Errorf(acl.ErrRTOverLimit, "the session has used every stream and event handle (handles are never reused)")
	}
	s.nextHandle++
	return s.nextHandle, nil
}

// defaultStream returns the NULL stream of the session's current context,
// creating it on first use. Sessions never share a backend stream, so one
// session's synchronize neither waits for nor reports another's work.
func (s *Session) defaultStream() (*streamRec, error) {
	cx := s.cur
	if cx.def != nil {
		return cx.def, nil
	}
	h, err := s.b.CreateStream(s.phys(cx.dev))
	if err != nil {
		return nil, be(err)
	}
	cx.def = &streamRec{h: h, dev: cx.dev, ctx: cx}
	return cx.def, nil
}

// sessionStreams returns every stream of the session on guest device dev
// (all devices when dev < 0), default streams included.
func (s *Session) sessionStreams(dev int32) []*streamRec {
	var out []*streamRec
	for _, cx := range s.ctxs {
		if cx.def != nil && (dev < 0 || cx.dev == dev) {
			out = append(out, cx.def)
		}
	}
	for _, st := range s.streams {
		if dev < 0 || st.dev == dev {
			out = append(out, st)
		}
	}
	return out
}

// syncStreams waits for every stream of guest device dev within timeoutMs
// (-1: forever) and returns the first error.
func (s *Session) syncStreams(ctx context.Context, dev int32, timeoutMs int32) error {
	var deadline time.Time
	if timeoutMs >= 0 {
		deadline = time.Now().Add(time.Duration(timeoutMs) * time.Millisecond)
	}
	var first error
	for _, st := range s.sessionStreams(dev) {
		ms := int32(-1)
		if timeoutMs >= 0 {
			ms = max(int32(time.Until(deadline)/time.Millisecond), 1) // 0 is not a timeout natively
		}
		if err := s.synced(st, s.b.SynchronizeStream(ctx, st.h, ms)); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// releaseWait bounds how long a session's release waits for memory to be
// free of queued work once its own streams are gone (work of streams a
// backend could not destroy).
const releaseWait = 10 * time.Second

// destroyEvents destroys the session's events on guest device dev (every
// device when dev < 0). Destroying an event releases the waits on it, so
// a stream blocked on a record that will never come drains at once instead
// of running out the clock.
func (s *Session) destroyEvents(dev int32) (errs []error) {
	for h, ev := range s.events {
		if dev < 0 || ev.dev == dev {
			errs = append(errs, s.b.DestroyEvent(ev.h))
			delete(s.events, h)
		}
	}
	return errs
}

// destroyStreams destroys the session's streams on dev (every device when
// dev < 0), finishing their work, or cancelling what has not started once
// ctx is done, or at once when force (aclrtResetDeviceForce).
func (s *Session) destroyStreams(ctx context.Context, dev int32, force bool) (errs []error) {
	for h, st := range s.streams {
		if dev < 0 || st.dev == dev {
			errs = append(errs, s.destroyStream(ctx, st, force))
			delete(s.streams, h)
		}
	}
	for _, cx := range s.ctxs {
		if cx.def != nil && (dev < 0 || cx.dev == dev) {
			errs = append(errs, s.destroyStream(ctx, cx.def, force))
			cx.def = nil
		}
	}
	return errs
}

// destroyStream destroys st in the backend: after its queued work, or
// cancelling it (force). The entries of queued batches that did not run go
// back to the session's budget.
func (s *Session) destroyStream(ctx context.Context, st *streamRec, force bool) error {
	if s.useRes == st { // natively a dangling pointer; here the use ends
		s.useRes = nil
	}
	var err error
	if force { // a callback due meanwhile runs: the forced destruction waits for the running one
		err = s.blocking(ctx, func(context.Context) error { return s.b.DestroyStreamForce(st.h) })
	} else {
		err = s.b.DestroyStream(ctx, st.h)
	}
	if err == nil {
		s.batchEntries.Add(-st.batch.Swap(0))
		if s.cb != nil {
			s.cb.pending -= int(st.cbQueued.Swap(0))
		}
	}
	return err
}

// freeAllocs frees the session's allocations on dev (every device when
// dev < 0). A free waits for queued work that still uses the memory (a
// stream of another device may); one that cannot finish before ctx is done
// leaves the allocation to the session's release.
func (s *Session) freeAllocs(ctx context.Context, dev int32) (errs []error) {
	for _, a := range append([]*alloc(nil), s.as.allocs...) {
		if dev >= 0 && a.dev != dev || a.lease != nil && dev >= 0 {
			continue // a lease outlives aclrtResetDevice: it is the host's
		}
		if a.lease != nil { // the session ends: so does the lease
			s.mu.Lock()
			s.as.remove(a)
			a.lease.drop()
			s.mu.Unlock()
			continue
		}
		s.mu.Lock()
		s.as.remove(a)
		s.mu.Unlock()
		s.held[a.dev] -= a.charged
		if err := s.b.Free(ctx, a.ptr); err != nil {
			s.zombies = append(s.zombies, a.ptr)
			errs = append(errs, err)
		}
	}
	return errs
}

// dropPeers undoes the peer access this session enabled from dev (from
// every device when dev < 0).
func (s *Session) dropPeers(dev int32) {
	for k := range s.peers {
		if dev < 0 || k[0] == dev {
			s.sh.peerRelease(s.phys(k[0]), s.phys(k[1]))
			delete(s.peers, k)
		}
	}
}

// releaseDevice releases the session's streams, events and allocations on
// guest device dev, and the peer access it enabled from there: the second
// half of aclrtResetDevice, which synchronizes first.
func (s *Session) releaseDevice(ctx context.Context, dev int32, force bool) error {
	var errs []error
	if force { // cancel first: destroying an event releases the waits on it, which would let work run
		errs = append(s.destroyStreams(ctx, dev, true), s.destroyEvents(dev)...)
		errs = append(errs, s.destroyNotifies(dev)...)
	} else {
		errs = append(s.destroyEvents(dev), s.destroyNotifies(dev)...)
		errs = append(errs, s.destroyStreams(ctx, dev, false)...)
	}
	errs = append(errs, s.freeAllocs(ctx, dev)...)
	s.dropPeers(dev)
	s.dropContexts(dev)
	return errors.Join(errs...)
}

// release ends the session: queued work is finished (or cancelled once ctx
// is done), and every stream, event, allocation and registration is
// released, so the device accounting returns to what it was before. Only
// then is the guest's memory unmapped. Streams of every device go before
// any memory, since a stream may use another device's memory.
func (s *Session) Release(ctx context.Context) error {
	defer s.flushLogs()
	defer s.stop()
	defer s.flushKernelOut() // what the last launches printed: their streams are done by then
	s.cancelCallbacks()      // stream callbacks: the guest runs no more
	idle := s.Idle()         // nothing waits: no context to follow or make
	if !idle {
		unwatch := context.AfterFunc(ctx, s.stop)
		defer unwatch()
	}
	errs := s.releaseChecks(ctx)
	errs = append(errs, s.destroyEvents(-1)...)
	errs = append(errs, s.destroyNotifies(-1)...)
	errs = append(errs, s.destroyStreams(ctx, -1, false)...)
	errs = append(errs, s.unloadModels()...) // after the streams: no execution is left to run
	wait := ctx
	if !idle {
		var cancel context.CancelFunc
		wait, cancel = context.WithTimeout(context.WithoutCancel(ctx), releaseWait)
		defer cancel()
	}
	for _, p := range s.zombies { // frees that gave up earlier
		errs = append(errs, s.b.Free(wait, p))
	}
	s.zombies = nil
	errs = append(errs, s.freeAllocs(wait, -1)...)
	s.zombies = nil // what still failed is in errs: nothing more to try
	for _, p := range append([]*pin(nil), s.as.pins...) {
		errs = append(errs, s.b.HostUnregister(wait, p.h))
		s.mu.Lock()
		s.as.removePin(p)
		s.mu.Unlock()
		s.pinned -= p.end - p.start
	}
	s.dropPeers(-1)
	s.dropContexts(-1)
	s.endMetrics()
	if s.mem != nil {
		s.mem.Release()
		s.mem = nil
	}
	if !s.freed { // its allocations are gone: another session may have it
		s.freed = true
		s.sh.regions.put(s.region)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("host: release session: %w", err)
	}
	return nil
}

// idle reports whether the session holds nothing that its release would
// wait for: no stream, event, allocation or registration, no failed free.
func (s *Session) Idle() bool {
	return len(s.streams) == 0 && len(s.events) == 0 && len(s.notifies) == 0 && len(s.as.allocs) == 0 && len(s.as.pins) == 0 && len(s.zombies) == 0
}

// Owner returns Config.Owner.
func (s *Session) Owner() any { return s.owner }
