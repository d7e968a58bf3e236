// Package host runs untrusted WebAssembly plugins and gives them the ACL
// memory-copy API as imports from module "acl" (the guest ABI, package
// abi). Every guest pointer, range and handle is validated before anything
// happens; validated calls are delegated to an [acl.Backend], the embedded
// simulated device by default.
//
// This package is the embedding API; the sandbox itself (sessions, the
// imports, module rewriting, the engines) is internal. A [Runtime] holds
// the engine, the backend and the compilation cache. [Runtime.Load]
// compiles a module and checks its imports against the ABI and a
// [Policy]. A [Plugin] runs as a command ([Plugin.Run]) or is instantiated
// as a reactor ([Plugin.Instantiate], [Pool]); each run or [Instance] is a
// [Session] with its own address space, handles, quotas and statistics,
// released completely when it ends.
//
// The package exports: the runtime and its options (NewRuntime, With*),
// Load and its options, Plugin, Instance, Pool, Config and Result, the
// policy and its defaults, Manifest (a plugin's policy in a file), the
// embedder's host functions and their grants (HostFunc, NewHostFunc,
// ValueType, HostCall, WithGrantedHostFuncs, LoadHostFuncs), lent device
// memory (Lend, Lease), the bytes convention (CallBytes, CallBytesTo), Session with Stats,
// traces (CallRecord) and observers (Observer, RunObserver), Prometheus
// Metrics, and the errors a run can end with (ErrLoad, ErrTrap,
// ErrTimeout, ErrCanceled, ErrBusy, ErrClosed, ExitError, TrapError,
// LoadError, StatusError).
package host

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

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

	checkAsync bool // WithCheckAsync

	hostFuncs []HostFunc  // WithHostFuncs, WithGrantedHostFuncs
	grantOnly []string    // WithGrantedHostFuncs', as module.name
	kernels   []kernelReg // WithKernels, WithKernelSet
}

// WithBackend sets the backend calls are delegated to. The caller keeps
// ownership: Runtime.Close does not close it. The default is a simulated
// device (acl/sim) owned by the runtime.
func WithBackend(b acl.Backend) Option { return func(c *config) { c.backend = b } }

// WithCheckAsync turns on the asynchronous checking mode
// (Policy.CheckAsync) for every plugin of the runtime, whatever its
// policy says: what a plugin author's tests and `aclwasm run
// --check-async` use.
func WithCheckAsync() Option { return func(c *config) { c.checkAsync = true } }

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
	engineName string // WithEngine's
	trace      func(CallRecord)
	metrics    *Metrics
	observer   Observer
	sh         *sandbox.Shared    // what the sessions share: regions, peers, host functions
	grantOnly  []string           // the host functions granted only by name (WithGrantedHostFuncs)
	kernels    map[string]*kernel // WithKernels, WithKernelSet: by name
	checkAsync bool               // WithCheckAsync

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

// NewRuntime returns a Runtime with the given options.
func NewRuntime(ctx context.Context, opts ...Option) (*Runtime, error) {
	c := config{engine: "wazero"}
	for _, o := range opts {
		o(&c)
	}
	r := &Runtime{backend: c.backend, trace: c.trace, metrics: c.metrics, observer: c.observer, grantOnly: c.grantOnly, checkAsync: c.checkAsync, plugins: map[*Plugin]struct{}{}}
	if r.backend == nil {
		r.backend, r.ownBackend = sim.New(), true
	}
	hf, err := hostFuncs(c.hostFuncs)
	if err == nil {
		r.kernels, err = compileKernels(c.kernels)
	}
	if err != nil {
		r.closeBackend()
		return nil, fmt.Errorf("host: %w", err)
	}
	for _, n := range r.Kernels() { // their launchers (ABI section 13.3)
		hf = append(hf, sandbox.Launchers(r.kernels[n].sb)...)
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
	r.engine, r.engineName = e, c.engine
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
	r.compiles.Wait()  // no Load runs now to add one
	r.sh.CloseModels() // the sessions have ended: the compiled models go
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
