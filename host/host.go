// Package host is the sandbox: it runs untrusted WebAssembly plugins and
// gives them the ACL memory-copy API as imports from module "acl" (guest
// ABI v1, package abi). Every guest pointer, range and handle is validated
// before anything happens; validated calls are delegated to an acl.Backend,
// the embedded simulated device by default.
//
// A Runtime holds the engine, the backend and the compilation cache. Load
// compiles a module and checks its imports against the ABI and a Policy.
// A Plugin runs as a command (Run) or is instantiated as a reactor
// (Instantiate); each run or instance is a Session with its own address
// space, handles, quotas and statistics, released completely when it ends.
package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/host/internal/module"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

// Errors a run can end with, besides the guest's own exit code. Test them
// with errors.Is.
var (
	// ErrLoad: the module was refused before any guest code ran.
	ErrLoad = errors.New("load refused")
	// ErrTrap: the guest trapped (unreachable, out-of-bounds access, ...).
	ErrTrap = errors.New("guest trapped")
	// ErrTimeout: the policy's timeout stopped the guest. The error wraps
	// context.DeadlineExceeded too.
	ErrTimeout = errors.New("guest timed out")
	// ErrCanceled: the caller's context stopped the guest: its
	// cancellation or its own deadline, which the error wraps as well
	// (context.Canceled or context.DeadlineExceeded); or Close did.
	ErrCanceled = errors.New("guest canceled")
	// ErrBusy: a call of an Instance overlapped another one. It is refused
	// before any guest code runs, and the instance lives on.
	ErrBusy = errors.New("instance is busy: calls must not overlap")
	// ErrClosed: the Instance or Plugin is closed, or was closed during
	// the call (with ErrCanceled then).
	ErrClosed = errors.New("closed")
)

// ExitError reports a guest that exited (proc_exit). Run turns an exit
// into Result.ExitCode; from Instantiate or Instance.Call it is an error,
// with code 0 too, since the guest has ended and the instance with it.
type ExitError struct{ Code uint32 }

// Error implements error.
func (e *ExitError) Error() string { return fmt.Sprintf("guest exited with code %d", e.Code) }

// Option configures a Runtime.
type Option func(*config)

type config struct {
	backend  acl.Backend
	engine   string
	trace    func(CallRecord)
	fuel     uint64
	cache    string
	metrics  *Metrics
	observer Observer

	hostFuncs []HostFunc // WithHostFuncs
}

// WithBackend sets the backend calls are delegated to. The caller keeps
// ownership: Runtime.Close does not close it. The default is a simulated
// device (acl/sim) owned by the runtime.
func WithBackend(b acl.Backend) Option { return func(c *config) { c.backend = b } }

// WithEngine selects the wasm engine: "wazero" (the default, pure Go) or
// "wasmtime" (cgo; needs the build tag wasmtime).
func WithEngine(name string) Option { return func(c *config) { c.engine = name } }

// WithFuel bounds the WebAssembly instructions each guest call may run,
// besides the policy's timeout: every Run, and every call of an Instance
// (_initialize included), starts with n units of fuel, and a guest that
// spends them all traps (ErrTrap). Fuel is deterministic where a timeout
// is not; host calls consume none. Only the wasmtime engine meters fuel:
// NewRuntime fails if it is asked for on wazero. 0 means no fuel limit.
func WithFuel(n uint64) Option { return func(c *config) { c.fuel = n } }

// WithCacheDir keeps compiled modules in dir as well as in memory, so that
// a module loaded again by a later process skips compilation (a 2 MB Go
// plugin compiles in about 0.7 s). Every entry is authenticated with
// HMAC-SHA256 under a secret kept in dir/key and bound to its module's
// bytes: an entry that fails verification (corrupt, truncated, forged,
// another module's) is ignored, the module compiled again and the entry
// replaced. dir is made 0700 and the key 0600 if absent; NewRuntime fails
// if dir is writable by group or others, or dir or the key is another
// user's, or the key is readable by others (see host/RATIONALE.md, "The
// compilation cache"). Only the wazero engine has it: NewRuntime fails if
// it is asked for on wasmtime.
func WithCacheDir(dir string) Option { return func(c *config) { c.cache = dir } }

// WithTrace calls fn after every host call of every session, with the
// function, its arguments, its result and its error message. fn runs on the
// guest's goroutine and must not block.
func WithTrace(fn func(CallRecord)) Option { return func(c *config) { c.trace = fn } }

// Runtime runs plugins. It is safe for concurrent use.
type Runtime struct {
	backend    acl.Backend
	ownBackend bool
	engine     engine.Engine
	trace      func(CallRecord)
	metrics    *Metrics
	observer   Observer
	sh         *sandbox.Shared // what the sessions share: regions, peers, host functions

	// mu guards closed and plugins; loads counts the Loads in progress,
	// which Close waits for before it closes the engine they compile on.
	mu      sync.Mutex
	closed  bool
	plugins map[*Plugin]struct{}
	loads   sync.WaitGroup

	// compiles are the compilations Load started, those it abandoned at a
	// timeout included: Close waits for them, since an engine must not be
	// closed under a compilation.
	compiles sync.WaitGroup
	// liveCompiles counts them too, so that tests can see an abandoned
	// one end (and its result closed) without waiting in Close.
	liveCompiles atomic.Int64
}

// errRuntimeClosed is ErrClosed as the runtime's operations report it.
var errRuntimeClosed = fmt.Errorf("host: runtime is %w", ErrClosed)

// NewRuntime returns a Runtime with the given options.
func NewRuntime(ctx context.Context, opts ...Option) (*Runtime, error) {
	c := config{engine: "wazero"}
	for _, o := range opts {
		o(&c)
	}
	r := &Runtime{backend: c.backend, trace: c.trace, metrics: c.metrics, observer: c.observer, plugins: map[*Plugin]struct{}{}}
	if r.backend == nil {
		r.backend, r.ownBackend = sim.New(), true
	}
	hf, err := hostFuncs(c.hostFuncs)
	if err != nil {
		r.closeBackend()
		return nil, fmt.Errorf("host: %w", err)
	}
	r.sh = sandbox.NewShared(r.backend, hf)
	newEngine, ok := engines[c.engine]
	if !ok {
		r.closeBackend()
		if c.engine == "wasmtime" {
			return nil, fmt.Errorf("host: engine wasmtime is not in this build: build with -tags wasmtime (cgo)")
		}
		return nil, fmt.Errorf("host: unknown engine %q (have: %s)", c.engine, engineNames())
	}
	e, err := newEngine(ctx, engine.Options{Fuel: c.fuel, CacheDir: c.cache, Funcs: engineFuncs(hf)})
	if err != nil {
		r.closeBackend()
		return nil, fmt.Errorf("host: engine %s: %w", c.engine, err)
	}
	r.engine = e
	return r, nil
}

// Backend returns the backend the runtime delegates to.
func (r *Runtime) Backend() acl.Backend { return r.backend }

// Close closes the runtime's plugins (Plugin.Close: runs and calls in
// progress are stopped and end with an error wrapping ErrClosed, and
// Close waits for them), waits for Loads in progress and for the
// compilations Load abandoned at a timeout (bounded by the compile
// limits), then releases the engine, and the backend if the runtime
// created it. Later Loads, and the
// Runs, Instantiates and Calls of its plugins, fail with ErrClosed.
// Closing twice does nothing.
func (r *Runtime) Close(ctx context.Context) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	for p := range r.plugins {
		if p.inHostFunc() {
			r.mu.Unlock()
			return errCloseFromGuest("Runtime.Close")
		}
	}
	r.closed = true
	r.mu.Unlock()
	// A Load in progress registers its plugin or sees closed; after the
	// wait, the set is final.
	r.loads.Wait()
	r.mu.Lock()
	live := make([]*Plugin, 0, len(r.plugins))
	for p := range r.plugins {
		live = append(live, p)
	}
	r.mu.Unlock()
	var errs []error
	for _, p := range live {
		errs = append(errs, p.Close(ctx))
	}
	r.compiles.Wait() // no Load runs now to add one
	return errors.Join(append(errs, r.engine.Close(ctx), r.closeBackend())...)
}

// enterLoad counts a Load in progress, or refuses it once Close began.
func (r *Runtime) enterLoad() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return errRuntimeClosed
	}
	r.loads.Add(1)
	return nil
}

func (r *Runtime) closeBackend() error {
	if r.ownBackend {
		return r.backend.Close()
	}
	return nil
}

// Plugin is a compiled module whose imports passed the check. It is safe
// for concurrent use.
type Plugin struct {
	rt      *Runtime
	mod     engine.Compiled
	start   string // the export the start function was moved to (module.HoistStart), "" if none
	policy  Policy
	profile abi.Profile            // the ABI profile the module imports: acl or acl32
	name    string                 // LoadName
	exports []string               // function exports, in the module's order
	m       *sandbox.PluginMetrics // nil without WithMetrics

	mu     sync.Mutex
	closed bool
	live   map[*Instance]struct{} // runs and instances not yet finished
}

// LoadError lists why a module was refused. It wraps ErrLoad.
type LoadError struct{ Problems []string }

// Error implements error: every problem, semicolon-separated.
func (e *LoadError) Error() string {
	return "load refused: " + strings.Join(e.Problems, "; ")
}

// Unwrap makes errors.Is(err, ErrLoad) true.
func (e *LoadError) Unwrap() error { return ErrLoad }

// Load compiles wasm and checks it against the ABI and the policy: every
// import of module "acl" must be a function of the ABI with its exact
// signature and allowed by the policy; other imports must be functions of
// WASI preview1 (wasi_snapshot_preview1) with their exact signatures; the
// module's memory must fit the policy. Before compiling, the module's
// sizes are checked against the policy's compile limits (MaxModuleBytes
// to MaxBrTableTargets); the compilation is bounded by the policy's
// CompileTimeout and by ctx: when either ends first, Load returns at once
// (a *LoadError naming the timeout, or ctx's error) and the compilation's
// result is dropped when it finishes. On failure the error is a
// *LoadError naming each problem, and no guest code has run. Options name
// the plugin (LoadName).
func (r *Runtime) Load(ctx context.Context, wasm []byte, p Policy, opts ...LoadOption) (*Plugin, error) {
	if err := r.enterLoad(); err != nil {
		return nil, err
	}
	defer r.loads.Done()
	lc := loadOptions(opts)
	p, err := p.withDefaults(r.backend.DeviceCount())
	if err != nil {
		return nil, fmt.Errorf("host: %w", err)
	}
	mi, scanErr := module.Scan(wasm)
	if probs := module.CompileLimits(len(wasm), mi.Code, p.compileLimits()); len(probs) > 0 {
		r.metrics.refused(lc.name)
		return nil, &LoadError{Problems: probs}
	}
	em, probs := prepare(wasm, &p)
	if len(probs) > 0 {
		r.metrics.refused(lc.name)
		return nil, &LoadError{Problems: r.compileProblems(ctx, wasm, probs, p.CompileTimeout)}
	}
	mod, err := r.compile(ctx, em, p.CompileTimeout)
	var le *LoadError
	switch {
	case errors.As(err, &le):
		r.metrics.refused(lc.name)
		return nil, err
	case err != nil:
		return nil, err
	}
	imps := mod.Imports()
	if probs := r.checkModule(imps, mi, scanErr, &p); len(probs) > 0 {
		mod.Close(ctx)
		r.metrics.refused(lc.name)
		return nil, &LoadError{Problems: probs}
	}
	pl := &Plugin{rt: r, mod: mod, start: em.Start, policy: p, profile: profileOf(imps), name: lc.name, exports: module.FuncExports(wasm), m: r.metrics.plugin(lc.name), live: map[*Instance]struct{}{}}
	r.mu.Lock()
	r.plugins[pl] = struct{}{} // Close waits for this Load: it cannot have begun its sweep
	r.mu.Unlock()
	return pl, nil
}

// compile compiles m within timeout (NoTimeout: none) and ctx. Neither
// engine can interrupt a compilation in progress, so it runs on a
// goroutine of its own: when the timeout or ctx ends first, compile
// returns at once (a *LoadError naming the timeout, or ctx's error) and
// the goroutine closes the module it compiles when it finishes.
func (r *Runtime) compile(ctx context.Context, m engine.Module, timeout time.Duration) (engine.Compiled, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("host: load: %w", context.Cause(ctx))
	}
	cctx, cancel := sandbox.WithPolicyTimeout(ctx, timeout)
	defer cancel()
	type result struct {
		mod engine.Compiled
		err error
	}
	done := make(chan result)      // unbuffered: a result is handed over or closed, never both
	abandon := make(chan struct{}) // closed when Load has returned without it
	r.liveCompiles.Add(1)
	r.compiles.Add(1)
	go func() {
		defer r.liveCompiles.Add(-1)
		defer r.compiles.Done()
		mod, err := r.engine.Compile(cctx, m)
		select {
		case done <- result{mod, err}:
		case <-abandon:
			if err == nil {
				_ = mod.Close(context.Background())
			}
		}
	}()
	select {
	case res := <-done:
		if res.err != nil {
			if cctx.Err() != nil { // the engine gave up waiting (its cache)
				return nil, compileDone(ctx, cctx, timeout)
			}
			return nil, &LoadError{Problems: []string{"compile: " + res.err.Error()}}
		}
		return res.mod, nil
	case <-cctx.Done():
		close(abandon)
		return nil, compileDone(ctx, cctx, timeout)
	}
}

// compileDone is the error of a compilation stopped by the policy's
// CompileTimeout or by ctx.
func compileDone(ctx, cctx context.Context, timeout time.Duration) error {
	if ctx.Err() == nil && errors.Is(context.Cause(cctx), sandbox.ErrPolicyTimeout) {
		return &LoadError{Problems: []string{fmt.Sprintf("compile: not finished within the policy's compile timeout (CompileTimeout %v)", timeout)}}
	}
	return fmt.Errorf("host: load: compilation not finished: %w", context.Cause(ctx))
}

// compileProblems returns why the engine refuses wasm as it is, when it
// does: a module prepare could not rewrite is most often invalid, and
// the engine's validation says precisely why; else probs, prepare's.
func (r *Runtime) compileProblems(ctx context.Context, wasm []byte, probs []string, timeout time.Duration) []string {
	mod, err := r.compile(ctx, engine.Module{Wasm: wasm}, timeout)
	var le *LoadError
	switch {
	case errors.As(err, &le):
		return le.Problems
	case err != nil:
		return []string{"compile: " + err.Error()}
	}
	mod.Close(ctx)
	return probs
}

// Check compiles wasm and returns every problem Load would refuse it for,
// or none.
func (r *Runtime) Check(ctx context.Context, wasm []byte, p Policy) ([]string, error) {
	pl, err := r.Load(ctx, wasm, p)
	var le *LoadError
	switch {
	case errors.As(err, &le):
		return le.Problems, nil
	case err != nil:
		return nil, err
	}
	pl.Close(ctx)
	return nil, nil
}

// profileOf returns the ABI profile a module's imports use: acl32 if it
// imports from "acl32", the wide one otherwise (checkModule refuses a
// module that imports from both).
func profileOf(imps []engine.Import) abi.Profile {
	for _, im := range imps {
		if im.Module == abi.Module32 {
			return abi.Native32
		}
	}
	return abi.Wide
}

// checkModule returns the reasons to refuse a module.
func (r *Runtime) checkModule(imps []engine.Import, mi module.Info, scanErr error, p *Policy) []string {
	var probs []string
	var first [2]string // the first import from each profile, "module.name"
	for _, im := range imps {
		// The guest's names, as messages show them: escaped and short.
		mn, nn := module.ShortName(im.Module), module.ShortName(im.Name)
		switch im.Module {
		case abi.Module, abi.Module32:
			prof, _ := abi.ProfileOf(im.Module)
			if first[prof] == "" {
				first[prof] = mn + "." + nn
			}
			f := abi.Lookup(im.Name)
			switch {
			case f == nil:
				probs = append(probs, fmt.Sprintf("import %s.%s is not a function of ABI v%d", mn, nn, abi.Version))
			case im.Signature != f.SignatureIn(prof):
				probs = append(probs, fmt.Sprintf("import %s.%s has signature %s, ABI v%d expects %s", mn, nn, im.Signature, abi.Version, f.SignatureIn(prof)))
			case !p.allows(im.Name):
				probs = append(probs, fmt.Sprintf("import %s.%s is denied by the policy", mn, nn))
			}
		case wasiModule:
			sig, ok := wasiFuncs[im.Name]
			switch {
			case !ok:
				probs = append(probs, fmt.Sprintf("import %s.%s is not a function of WASI preview1", mn, nn))
			case im.Signature != sig:
				probs = append(probs, fmt.Sprintf("import %s.%s has signature %s, WASI preview1 expects %s", mn, nn, im.Signature, sig))
			}
		default:
			h := r.lookupHost(im.Module, im.Name)
			switch {
			case h != nil && im.Signature != h.F.Signature():
				probs = append(probs, fmt.Sprintf("import %s.%s has signature %s, the host function has %s", mn, nn, im.Signature, h.F.Signature()))
			case h == nil && slices.Contains(r.hostModules(), im.Module):
				probs = append(probs, fmt.Sprintf("import %s.%s is not a function of host module %q", mn, nn, im.Module))
			case h == nil:
				probs = append(probs, fmt.Sprintf("import %s.%s: module %q is not provided (only %q, %q, wasi_snapshot_preview1 and %s)", mn, nn, im.Module, abi.Module, abi.Module32, strings.Join(r.hostModules(), ", ")))
			}
		}
	}
	if first[abi.Wide] != "" && first[abi.Native32] != "" {
		probs = append(probs, fmt.Sprintf("the module imports from both %q (%s) and %q (%s): a module uses one profile, the wide one or the native 32-bit layout, never both (ABI section 9)", abi.Module, first[abi.Wide], abi.Module32, first[abi.Native32]))
	}
	if scanErr != nil {
		return append(probs, scanErr.Error())
	}
	for _, im := range mi.Imports {
		if im.Kind != 0 {
			probs = append(probs, fmt.Sprintf("import %s.%s is a %s: the host provides only functions", module.ShortName(im.Module), module.ShortName(im.Name), im.KindName()))
		}
	}
	if mi.HasMemory && mi.MinPages > uint64(p.MemoryPages) {
		probs = append(probs, fmt.Sprintf("memory needs %d pages at start, the policy allows %d", mi.MinPages, p.MemoryPages))
	}
	return probs
}

// Policy returns the plugin's policy with its defaults filled in.
func (p *Plugin) Policy() Policy { return p.policy }

// Exports returns the names of the functions the module exports, in the
// order of its export section: whether it is a command (_start) or a
// reactor, and what Instance.Call can name.
func (p *Plugin) Exports() []string { return slices.Clone(p.exports) }

// Close closes the plugin's instances and stops its runs still going
// (their calls end with ErrCanceled and ErrClosed, see Instance.Close),
// then releases the compiled module. Later Runs and Instantiates fail
// with ErrClosed.
func (p *Plugin) Close(ctx context.Context) error {
	if p.inHostFunc() {
		return errCloseFromGuest("Plugin.Close")
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	live := make([]*Instance, 0, len(p.live))
	for i := range p.live {
		live = append(live, i)
	}
	p.mu.Unlock()
	var errs []error
	for _, i := range live {
		errs = append(errs, i.Close(ctx))
	}
	p.rt.mu.Lock()
	delete(p.rt.plugins, p)
	p.rt.mu.Unlock()
	return errors.Join(append(errs, p.mod.Close(ctx))...)
}

// inHostFunc reports whether the caller runs inside a host function of
// one of the plugin's runs or instances: closing the plugin from there
// would release the module under the guest that called it.
func (p *Plugin) inHostFunc() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range p.live {
		if i.s.s.InHostFunc() {
			return true
		}
	}
	return false
}

// errCloseFromGuest refuses a Plugin or Runtime Close made from a host
// function of a guest it would have to stop and wait for.
func errCloseFromGuest(what string) error {
	return fmt.Errorf("host: %s called from a host function of one of its guests, which cannot be waited for from inside: close after the call returns (Instance.Close may be called there), %w", what, ErrBusy)
}

// Config is what one run or instance gets from the outside world: nothing
// unless given here (no filesystem, no environment).
type Config struct {
	// Args are the guest's argv; Args[0] is the program name.
	Args []string
	// Env are KEY=VALUE pairs; none by default.
	Env    []string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// DeterministicClocks gives the guest fake clocks instead of the host's:
	// a wall clock fixed at 2022-01-01, a monotonic clock that advances by
	// 1 ms per reading, and sleeps that return at once, so that runs
	// repeat exactly. Only the wazero engine has them.
	DeterministicClocks bool
	// Vars are configuration values the guest reads by key with
	// aclwasm.config_read (docs/EMBEDDING.md); a manifest's config.
	Vars map[string]string
	// Name names the plugin in logs (default Args[0]).
	Name string
	// Logger, when set, receives the guest's stdout (level Info) and
	// stderr (level Warn) one record per line, with the attributes plugin,
	// session and stream, for the streams Stdout and Stderr leave unset.
	Logger *slog.Logger
}

// Result is how a run ended.
type Result struct {
	// ExitCode is the guest's exit code: 0 when _start returned.
	ExitCode uint32
	// Stats are the session's call statistics.
	Stats Stats
}

// Run runs the plugin as a command: it instantiates it in a new session,
// runs its start function if it has one, calls _start, and releases the
// session, all within the policy's timeout. A guest that exits (proc_exit),
// in the start function or in _start, gives a Result with its exit code
// and a nil error, and nothing more of it runs; a trap, timeout or
// cancellation (of ctx, or by Plugin.Close) gives an error wrapping
// ErrTrap, ErrTimeout or ErrCanceled. Either way the session and the
// guest's memory have been released when Run returns.
func (p *Plugin) Run(ctx context.Context, cfg Config) (Result, error) {
	ctx, cancel := sandbox.WithPolicyTimeout(ctx, p.policy.Timeout)
	defer cancel()
	ro := p.begin(ctx, "_start")
	i, err := p.instantiate(ctx, cfg, ro, NoTimeout)
	if err != nil {
		end(ro, nil, 0, err)
		return Result{}, err
	}
	defer i.callMu.Unlock()
	if start := p.start; start != "" {
		_, err = i.exec(ctx, NoTimeout, start, "start function")
	}
	if err == nil {
		_, err = i.exec(ctx, NoTimeout, "_start", "_start")
	}
	var ee *ExitError
	res := Result{}
	if errors.As(err, &ee) {
		res.ExitCode, err = ee.Code, nil
	}
	cerr := i.finish(ctx, err != nil)
	res.Stats = i.s.Stats()
	p.ran(res.ExitCode, errors.Join(err, cerr))
	end(ro, i.s, res.ExitCode, errors.Join(err, cerr))
	return res, errors.Join(err, cerr)
}

// Instance is a plugin instantiated as a reactor: its exports can be called
// until Close. It is safe for concurrent use, but its calls must not
// overlap: a call made while another is in progress fails with ErrBusy
// (guest code is not reentrant, and silently queueing calls would hide
// the caller's bug and let one call's wait eat another's timeout).
type Instance struct {
	p     *Plugin
	s     *Session
	inst  engine.Instance
	stdin *sandbox.Stdin // Config.Stdin, made interruptible; nil if it never blocks

	// callMu is held while guest code runs (a call, the start function,
	// _initialize, a whole Run) and while the instance finishes: Close
	// takes it to wait for a call it cancelled, and Call only tries it.
	callMu sync.Mutex

	mu      sync.Mutex
	cc      sandbox.CallCtx // the context of the call in progress
	armed   bool            // a call is in progress: cc is armed
	closing bool            // Close was called: no new call may start
	done    bool            // finished: session and engine instance released
}

// Instantiate instantiates the plugin in a new session, runs its start
// function if it has one and calls its _initialize export if it has one
// (a reactor's WASI initialization), within the policy's timeout. If the
// guest exits in either (proc_exit, even with code 0), traps, times out or
// is cancelled, the instance is released and the error wraps the
// *ExitError, ErrTrap, ErrTimeout or ErrCanceled: an instance whose guest
// has ended has nothing left to call.
func (p *Plugin) Instantiate(ctx context.Context, cfg Config) (*Instance, error) {
	// Without a start function or _initialize, the instantiation is all
	// there is to bound, and its call context does it (one context and
	// timer less per instance).
	d := p.policy.Timeout
	if p.start != "" || slices.Contains(p.exports, "_initialize") {
		var cancel context.CancelFunc
		ctx, cancel = sandbox.WithPolicyTimeout(ctx, p.policy.Timeout)
		defer cancel()
		d = NoTimeout
	}
	ro := p.begin(ctx, "_initialize")
	i, err := p.instantiate(ctx, cfg, ro, d)
	if err != nil {
		end(ro, nil, 0, err)
		return nil, err
	}
	defer i.callMu.Unlock()
	label := "start function"
	if start := p.start; start != "" {
		_, err = i.exec(ctx, NoTimeout, start, label)
	}
	if err == nil && i.inst.Has("_initialize") {
		label = "_initialize"
		_, err = i.exec(ctx, NoTimeout, "_initialize", label)
	}
	if err != nil {
		var ee *ExitError
		if errors.As(err, &ee) && err == error(ee) {
			err = fmt.Errorf("%s: %w", label, err)
		}
		err = errors.Join(err, i.finish(ctx, true))
		end(ro, i.s, 0, err)
		return nil, err
	}
	end(ro, i.s, 0, nil)
	return i, nil
}

// instantiate makes the engine's instance in a new session, within the
// timeout d (NoTimeout: ctx's deadline alone). It returns the Instance
// with callMu held, registered with the plugin so that Plugin.Close can
// stop it. The session reports its host calls to ro (nil: none).
func (p *Plugin) instantiate(ctx context.Context, cfg Config, ro RunObserver, d time.Duration) (*Instance, error) {
	for _, kv := range cfg.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" || strings.ContainsRune(kv, 0) {
			return nil, fmt.Errorf("host: Config.Env entry %q is not KEY=VALUE", kv)
		}
	}
	ss, err := sandbox.New(p.rt.sh, p.policy.limits(), p.profile)
	if err != nil {
		return nil, err
	}
	sess := &Session{s: ss, rt: p.rt}
	ss.SetOwner(sess)
	i := &Instance{p: p, s: sess}
	i.callMu.Lock()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		i.callMu.Unlock()
		return nil, errors.Join(fmt.Errorf("host: plugin is %w", ErrClosed), ss.Release(ctx))
	}
	p.live[i] = struct{}{}
	p.mu.Unlock()
	ss.StartMetrics(p.m)
	sess.observe(ro)
	ss.SetVars(cfg.Vars)
	name := cfg.Name
	if name == "" && len(cfg.Args) > 0 {
		name = cfg.Args[0]
	}
	ss.SetupLog(cfg.Logger, name, &cfg.Stdout, &cfg.Stderr)
	cfg.Stdin, i.stdin = sandbox.NewStdin(cfg.Stdin)
	i.cc.Inv = ss.Invoker()
	cctx, err := i.arm(ctx, d, "instantiate")
	if err == nil {
		i.inst, err = p.mod.Instantiate(cctx, engine.Config{
			Invoker:     ss.Invoker(),
			MemoryLimit: engine.MemoryBytes(p.policy.MemoryPages),
			Args:        cfg.Args, Env: cfg.Env,
			Stdin: cfg.Stdin, Stdout: cfg.Stdout, Stderr: cfg.Stderr,
			DeterministicClocks: cfg.DeterministicClocks,
		})
		if err != nil {
			i.inst = nil // not a typed nil in the interface
		}
		err = i.disarm(cctx, "instantiate", engineErr(cctx, err))
	}
	if err != nil {
		if i.inst == nil { // the engine released what it made
			i.mu.Lock()
			i.done = true
			i.mu.Unlock()
			p.forget(i)
			err = errors.Join(err, ss.Release(ctx))
		} else { // made, but the context ended meanwhile
			err = errors.Join(err, i.finish(ctx, true))
		}
		i.callMu.Unlock()
		return nil, err
	}
	return i, nil
}

func (p *Plugin) forget(i *Instance) {
	p.mu.Lock()
	delete(p.live, i)
	p.mu.Unlock()
}

// Session returns the instance's session.
func (i *Instance) Session() *Session { return i.s }

// Call calls an exported function with wasm values (i32 zero-extended,
// floats as their bits; results likewise) within the policy's timeout.
// A call that is refused before guest code runs (no such export, wrong
// number of arguments, ErrBusy) leaves the instance as it was. A call
// whose guest exits (an *ExitError, code 0 included), traps, times out or
// is cancelled ends the instance: its session is released, and later
// calls fail with ErrClosed.
func (i *Instance) Call(ctx context.Context, name string, args ...uint64) ([]uint64, error) {
	if err := i.tryLock(); err != nil {
		return nil, fmt.Errorf("host: call %s: %w", name, err)
	}
	defer i.callMu.Unlock()
	return i.call(ctx, name, args...)
}

// call is Call with callMu held.
func (i *Instance) call(ctx context.Context, name string, args ...uint64) ([]uint64, error) {
	if name == i.p.start {
		return nil, fmt.Errorf("host: %w: %q", errNoExport, name)
	}
	ro := i.p.begin(ctx, name)
	i.s.observe(ro)
	res, err := i.exec(ctx, i.p.policy.Timeout, name, name, args...)
	i.p.ran(0, err)
	if err != nil && !errors.Is(err, errNoExport) && !errors.Is(err, errArgs) {
		err = errors.Join(err, i.finish(ctx, true))
		end(ro, i.s, 0, err)
		return nil, err
	}
	end(ro, i.s, 0, err)
	return res, err
}

// tryLock takes callMu for a call, or for an operation of the embedder's
// that reads or changes what a call uses (guest memory, the session's
// address space), or says why not: ErrBusy while a call runs, ErrClosed
// (as "instance is closed") once the instance is closing or done.
func (i *Instance) tryLock() error {
	if i.callMu.TryLock() {
		return nil
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.closing || i.done {
		return errInstanceClosed
	}
	return ErrBusy
}

// errInstanceClosed is ErrClosed as an instance's operations report it.
var errInstanceClosed = fmt.Errorf("instance is %w", ErrClosed)

// exec runs the guest's export name, as label in errors, under ctx and
// the timeout d (NoTimeout: ctx's own deadline only); the caller holds
// callMu. It does not finish the instance.
func (i *Instance) exec(ctx context.Context, d time.Duration, name, label string, args ...uint64) ([]uint64, error) {
	cctx, err := i.arm(ctx, d, label)
	if err != nil {
		return nil, err
	}
	i.stdin.Watch(cctx)
	res, err := i.inst.Call(cctx, name, args...)
	i.stdin.Unwatch()
	return res, i.disarm(cctx, label, engineErr(cctx, err))
}

// arm refuses a call once the instance is closing, or returns the call's
// context (the instance's callCtx, armed with ctx and the timeout d),
// which Close cancels.
func (i *Instance) arm(ctx context.Context, d time.Duration, label string) (context.Context, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.closing || i.done {
		return nil, fmt.Errorf("host: call %s: instance is %w", label, ErrClosed)
	}
	i.cc.Arm(ctx, d)
	i.armed = true
	return &i.cc, nil
}

// disarm ends the call armed for ctx and classifies its error (ctxErr),
// saying so when Close cancelled it.
func (i *Instance) disarm(ctx context.Context, label string, err error) error {
	err = ctxErr(ctx, label, err)
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.armed {
		i.cc.End()
		i.armed = false
	}
	if i.closing && errors.Is(err, ErrCanceled) {
		err = fmt.Errorf("%w: the instance was %w during the call", err, ErrClosed)
	}
	return err
}

// Close ends the instance and releases its session: queued work is
// finished (cancelling what has not started once ctx is done, or after the
// policy's timeout if ctx has no deadline). A call in progress, on another
// goroutine, is cancelled first and Close waits for it to return (it ends
// with ErrCanceled and ErrClosed), so nothing is released under a running
// guest. Closing twice does nothing.
//
// Called from one of the embedder's host functions during a call of the
// instance itself, Close cannot wait for that call: it cancels it and
// returns nil, and the instance is released as the call returns (the call
// ends with ErrCanceled and ErrClosed).
func (i *Instance) Close(ctx context.Context) error {
	i.mu.Lock()
	i.closing = true
	if i.armed {
		i.cc.Cancel(context.Canceled, context.Canceled)
	}
	i.mu.Unlock()
	if i.s.s.InHostFunc() {
		return nil
	}
	i.callMu.Lock()
	defer i.callMu.Unlock()
	return i.finish(ctx, false)
}

// finish releases the session, then the engine's instance, once; the
// caller holds callMu. After a trap or timeout (abort), queued work not
// yet started is cancelled; otherwise it is finished first, by ctx's
// deadline (a run's own: the policy's Timeout bounds the whole run) or
// within the policy's timeout.
func (i *Instance) finish(ctx context.Context, abort bool) error {
	i.mu.Lock()
	if i.done {
		i.mu.Unlock()
		return nil
	}
	i.done = true
	i.mu.Unlock()
	defer i.p.forget(i)
	if i.s.s.Idle() { // nothing to wait for: no deadline to bound the waits
		return errors.Join(i.s.s.Release(ctx), i.inst.Close(context.WithoutCancel(ctx)))
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = sandbox.WithPolicyTimeout(ctx, i.p.policy.Timeout)
		defer cancel()
	}
	if abort {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		cancel()
	}
	return errors.Join(i.s.s.Release(ctx), i.inst.Close(context.WithoutCancel(ctx)))
}

// ctxErr returns err, or, when the call ended normally or by an exit but
// its context is done, the timeout or cancellation: the engines stop a guest
// whose blocking host call was interrupted, but one may slip out first.
func ctxErr(ctx context.Context, name string, err error) error {
	if ctx.Err() == nil || (err != nil && !isExit(err)) {
		return err
	}
	return doneErr(ctx, name)
}
