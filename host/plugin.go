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
	"time"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

// Plugin is a compiled module whose imports passed the check. It is safe
// for concurrent use.
type Plugin struct {
	rt      *Runtime
	mod     engine.Compiled
	start   string // the export the start function was moved to (module.HoistStart), "" if none
	policy  Policy
	kernels map[string]*sandbox.Kernel // those granted (Policy.Kernels)
	native  *nativeKernels             // their native functions, on a backend that runs kernel binaries
	profile abi.Profile                // the ABI profile the module imports: acl or acl32
	name    string                     // LoadName
	exports []string                   // function exports, in the module's order
	m       *sandbox.PluginMetrics     // nil without WithMetrics

	mu     sync.Mutex
	closed bool
	live   map[*Instance]struct{} // runs and instances not yet finished
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
	return errors.Join(append(errs, p.mod.Close(ctx), p.native.unload())...)
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
	// 1 ms per reading, sleeps that return at once, and random_get bytes
	// that are the same in every run, so that runs repeat exactly.
	// Otherwise random_get reads the host's cryptographic generator. Only
	// the wazero engine has them.
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
	// NoStats leaves Run's Result.Stats empty: building them (maps per
	// function called) is a good part of a small command's run, and a
	// caller that does not read them, such as a server running a command
	// per request, need not pay for it: the run's session then keeps no
	// counters at all. Metrics and traces still count every call.
	NoStats bool
}

// Result is how a run ended.
type Result struct {
	// ExitCode is the guest's exit code: 0 when _start returned.
	ExitCode uint32
	// Message is what the guest said about why it failed, with the
	// aclwasm.error_set import ("" if it said nothing).
	Message string
	// Stats are the session's call statistics (none with Config.NoStats).
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
	// The instance's call context, armed once with the policy's timeout,
	// bounds the whole run: the instantiation, the start function, _start
	// and the checking mode's findings (no context, timer and follower of
	// ctx of the run's own, and no second arming).
	deadline := p.runDeadline()
	ro := p.begin(ctx, "_start")
	i, err := p.instantiate(ctx, cfg, ro, p.policy.Timeout, making{keep: true, run: true})
	if err != nil {
		end(ro, nil, 0, err)
		return Result{}, err
	}
	defer i.callMu.Unlock()
	return p.run(ctx, i, ro, deadline, cfg.NoStats)
}

// runDeadline is when a run starting now must end by the policy's
// timeout; zero for none.
func (p *Plugin) runDeadline() time.Time {
	if d := p.policy.Timeout; d >= 0 {
		return time.Now().Add(d)
	}
	return time.Time{}
}

// run is Run once its instance is made, its call context armed (to be
// disarmed here) and callMu held: the start function, _start, the
// checking mode's findings and the release, by deadline (zero: none)
// for the queued work left.
func (p *Plugin) run(ctx context.Context, i *Instance, ro RunObserver, deadline time.Time, noStats bool) (Result, error) {
	var err error
	if start := p.start; start != "" {
		_, err = i.execArmed(start, "start function")
	}
	if err == nil {
		_, err = i.execArmed("_start", "_start")
	}
	res := Result{}
	if err != nil { // errors.As's target escapes: none for a run that ends well
		if code, ok := exitCode(err); ok {
			res.ExitCode, err = code, nil
		}
	}
	aborted := err != nil
	switch { // the checking mode's findings, where the guest ended by itself
	case !aborted:
		err = i.asyncErr(&i.cc, "_start")
	case errors.Is(err, ErrTrap):
		if aerr := i.asyncErr(&i.cc, "_start"); aerr != nil {
			err = errors.Join(err, aerr) // often why it trapped
		}
	}
	i.end()
	res.Message = i.s.s.GuestMessage()
	if !deadline.IsZero() && !i.s.s.Idle() {
		// Queued work is finished within what is left of the run's
		// timeout, as the rest of the run was.
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadlineCause(ctx, deadline, sandbox.TimeoutCause(p.policy.Timeout))
		defer cancel()
	}
	cerr := i.finish(ctx, aborted)
	if !noStats {
		res.Stats = i.s.Stats()
	}
	p.ran(res.ExitCode, errors.Join(err, cerr))
	end(ro, i.s, res.ExitCode, errors.Join(err, cerr))
	return res, errors.Join(err, cerr)
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
	i, err := p.instantiate(ctx, cfg, ro, d, making{})
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

// made is an instance and its session, made together.
type made struct {
	i Instance
	s Session
}

// making says how instantiate makes an instance.
type making struct {
	keep bool          // its call context stays armed (Run's: it disarms it)
	run  bool          // for a run, whose session no one else reads: Config.NoStats applies
	late *preparedMade // where its streams and logger, bound at its run, go (Prepare); nil: given now
}

// instantiate makes the engine's instance in a new session, within the
// timeout d (NoTimeout: ctx's deadline alone). It returns the Instance
// with callMu held, registered with the plugin so that Plugin.Close can
// stop it. The session reports its host calls to ro (nil: none).
func (p *Plugin) instantiate(ctx context.Context, cfg Config, ro RunObserver, d time.Duration, mk making) (*Instance, error) {
	for _, kv := range cfg.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" || strings.ContainsRune(kv, 0) {
			return nil, fmt.Errorf("host: Config.Env entry %q is not KEY=VALUE", kv)
		}
	}
	lim := p.policy.limits()
	lim.CheckAsync = lim.CheckAsync || p.rt.checkAsync
	name := cfg.Name
	if name == "" && len(cfg.Args) > 0 {
		name = cfg.Args[0]
	}
	// The instance and its session in one allocation, with what a
	// prepared run adds: they live as long.
	var both *made
	var late *sandbox.Late
	if pr := mk.late; pr != nil {
		both, late = &pr.made, &pr.late
	} else {
		both = &made{}
	}
	both.s.rt = p.rt
	sess := &both.s
	sc := sandbox.Config{
		Shared: p.rt.sh, Limits: lim, Profile: p.profile,
		Owner: sess, Metrics: p.m, Vars: cfg.Vars,
		Deterministic: cfg.DeterministicClocks, // aclrtRandomNumAsync repeats too
		Logger:        cfg.Logger, Name: name, Stdout: cfg.Stdout, Stderr: cfg.Stderr,
		Kernels: p.kernels,
		// Run's session is its own, read by no one but Run: with NoStats
		// it need not count (an instance's may be read by its embedder).
		NoStats: mk.run && cfg.NoStats,
		Late:    late,
	}
	if p.native != nil {
		sc.KernelFuncs = p.native.funcs
	}
	ss, err := sandbox.New(sc)
	if err != nil {
		return nil, err
	}
	sess.s = ss
	cfg.Stdout, cfg.Stderr = ss.Output()
	i := &both.i
	i.p, i.s = p, sess
	i.callMu.Lock()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		i.callMu.Unlock()
		return nil, errors.Join(fmt.Errorf("host: plugin is %w", ErrClosed), ss.Release(ctx))
	}
	p.live[i] = struct{}{}
	p.mu.Unlock()
	sess.observe(ro)
	if late != nil {
		cfg.Stdin = late.Stdin()
	} else {
		cfg.Stdin, i.stdin = sandbox.NewStdin(cfg.Stdin)
	}
	i.cc.Bind = engine.Binding{Invoker: ss.Invoker()}
	cctx, err := i.arm(ctx, d, "instantiate")
	if err == nil {
		mounts, files := p.policy.engineMounts()
		i.inst, err = p.mod.Instantiate(cctx, engine.Config{
			Mounts: mounts, Files: files,
			Invoker:     ss.Invoker(),
			Binding:     &i.cc.Bind,
			MemoryLimit: engine.MemoryBytes(p.policy.MemoryPages),
			Args:        cfg.Args, Env: cfg.Env,
			Stdin: cfg.Stdin, Stdout: cfg.Stdout, Stderr: cfg.Stderr,
			DeterministicClocks: cfg.DeterministicClocks,
		})
		if err != nil {
			i.inst = nil // not a typed nil in the interface
		} else if slices.Contains(p.exports, sandbox.DispatchExport) {
			inst := i.inst // stream callbacks run through the guest's dispatcher
			ss.SetDispatcher(func(ctx context.Context, fn, arg uint32) error {
				return inst.Reenter(ctx, sandbox.DispatchExport, uint64(fn), uint64(arg))
			})
		}
		err = i.settle(cctx, "instantiate", engineErr(cctx, err), !mk.keep)
		if err != nil && mk.keep {
			i.end()
		}
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

// exitCode returns the code of the *ExitError err is or wraps.
func exitCode(err error) (uint32, bool) {
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code, true
	}
	return 0, false
}
