// Package wazero is the default engine adapter: pure Go, one
// wazero.Runtime with the host functions and WASI, and a compilation
// cache. It only compiles, instantiates and calls, and routes every host
// function to the session's engine.Invoker.
package wazero

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/experimental/sysfs"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"

	"github.com/aclwasm/aclwasm/host/internal/engine"
)

// Engine is one wazero.Runtime with the host modules and WASI, and an
// in-memory (or on-disk) compilation cache.
type Engine struct {
	rt    wazero.Runtime
	cache wazero.CompilationCache
	host  []string   // the host modules' names: a few, compared on every host call
	disk  *diskCache // WithCacheDir's, nil without
	// mounted maps the instances with mounts (api.Module) to their WASI
	// call in progress (mountcalls.go).
	mounted sync.Map
	// nmounted counts mounted's entries: while there are none (no
	// instance has mounts), a WASI call's listener asks no map.
	nmounted atomic.Int64
	mems     memPool // released guest memories, for the next instances
	// base is what every instance's configuration starts from, made once:
	// base[0] with wazero's fake clocks, base[1] with the host's clocks
	// and random source (its sleep is the instance's own). Each With
	// call copies a configuration, so these save an instantiation five
	// copies; a configuration is immutable, so instances share them.
	// noArgs are the bases as the instances without arguments start
	// from them, with their stdio configurations (stdio.go).
	base   [2]wazero.ModuleConfig
	noArgs [2]*argsConfig
}

// New makes the engine.
func New(ctx context.Context, o engine.Options) (engine.Engine, error) {
	if o.Fuel != 0 {
		return nil, errors.New("fuel metering (WithFuel) needs the wasmtime engine")
	}
	cache := wazero.NewCompilationCache()
	var disk *diskCache
	if o.CacheDir != "" {
		var err error
		if disk, err = openDiskCache(o.CacheDir); err != nil {
			return nil, fmt.Errorf("compilation cache: %w", err)
		}
		// wazero reads only the staging directory, which the host fills
		// with verified entries (cache.go).
		if cache, err = wazero.NewCompilationCacheWithDir(disk.staging); err == nil {
			err = disk.setWazeroDir()
		}
		if err != nil {
			return nil, errors.Join(fmt.Errorf("compilation cache: %w", err), disk.close())
		}
	}
	cfg := wazero.NewRuntimeConfig().
		WithCloseOnContextDone(true). // a timeout stops a spinning guest
		WithCompilationCache(cache)
	r := wazero.NewRuntimeWithConfig(ctx, cfg)
	e := &Engine{rt: r, cache: cache, disk: disk}
	e.base[0] = wazero.NewModuleConfig().
		WithName(""). // many instances of one module coexist
		WithStartFunctions()
	// The host's clocks, as on wasmtime. random_get from the host's
	// generator, as on wasmtime: wazero's default is a fixed sequence, the
	// same in every instance (a guest's hash seeds and nonces would
	// repeat), and seeding it costs more than the rest of a small module's
	// instantiation.
	e.base[1] = e.base[0].WithSysWalltime().WithSysNanotime().WithRandSource(rand.Reader)
	e.noArgs = [2]*argsConfig{{det: true, mc: e.base[0]}, {mc: e.base[1]}}
	// WASI's data and path functions are listened to for the mounts
	// (mountcalls.go).
	if _, err := wasi_snapshot_preview1.Instantiate(experimental.WithFunctionListenerFactory(ctx, listenerFactory{e}), r); err != nil {
		return nil, errors.Join(err, e.Close(ctx))
	}
	if err := e.hostModules(ctx, o.Funcs); err != nil {
		return nil, errors.Join(err, e.Close(ctx))
	}
	return e, nil
}

// hostModules instantiates one host module per module of funcs, each
// function routed to Invoker.Invoke with its index.
func (e *Engine) hostModules(ctx context.Context, funcs []engine.Func) error {
	builders := map[string]wazero.HostModuleBuilder{}
	var order []string
	for fi, f := range funcs {
		b, ok := builders[f.Module]
		if !ok {
			b = e.rt.NewHostModuleBuilder(f.Module)
			builders[f.Module] = b
			order = append(order, f.Module)
			e.host = append(e.host, f.Module)
		}
		t := f.Types()
		fn := e.hostFunc(fi)
		if f.Unguarded {
			fn = e.recoveringHostFunc(fi)
		}
		fb := b.NewFunctionBuilder().WithGoModuleFunction(fn, valueTypes(t.Params), valueTypes(t.Results))
		if len(f.Params) == len(t.Params) {
			names := make([]string, len(f.Params))
			for k, p := range f.Params {
				names[k] = p.Name
			}
			fb = fb.WithParameterNames(names...)
		}
		if f.Type == nil {
			fb = fb.WithResultNames("result")
		}
		fb.Export(f.Name)
	}
	for _, m := range order {
		if _, err := builders[m].Instantiate(ctx); err != nil {
			return fmt.Errorf("host module %s: %w", m, err)
		}
	}
	return nil
}

// hostFunc makes host function fi, called with the Invoker of the call's
// context and the guest's memory.
func (e *Engine) hostFunc(fi int) api.GoModuleFunc {
	return func(ctx context.Context, mod api.Module, stack []uint64) {
		b := engine.BindingFrom(ctx)
		if b == nil { // only reachable by calling a guest outside the host's API
			stack[0] = uint64(uint32(int32(500000)))
			return
		}
		// The memory of the instance the binding names: its guest called,
		// or the host called an import it re-exports (wazero then passes
		// the host module as mod), on its behalf as wasmtime does.
		var mem []byte
		if g, ok := b.Guest.(*guest); ok {
			mem = g.memory()
		} else { // during instantiation, before the adapter set Guest
			mem = e.guestMemory(mod)
		}
		b.Invoke(ctx, fi, mem, stack)
		if err := ctx.Err(); err != nil {
			exit(err)
		}
	}
}

// recoveringHostFunc is hostFunc for a function marked
// engine.Func.Unguarded: it hands the panics of a Recoverer's Invoke to
// Recover, which ends the call itself; any other, and any Recover leaves,
// goes on to wazero, which fails the guest's call with it. Only these
// functions pay for the deferred recover (a few ns per call).
func (e *Engine) recoveringHostFunc(fi int) api.GoModuleFunc {
	return func(ctx context.Context, mod api.Module, stack []uint64) {
		b := engine.BindingFrom(ctx)
		if b == nil {
			stack[0] = uint64(uint32(int32(500000)))
			return
		}
		var mem []byte
		if g, ok := b.Guest.(*guest); ok {
			mem = g.memory()
		} else {
			mem = e.guestMemory(mod)
		}
		defer func() {
			if r := recover(); r != nil {
				if rc, ok := b.Invoker.(engine.Recoverer); !ok || !rc.Recover(r, stack) {
					panic(r)
				}
				if err := ctx.Err(); err != nil {
					exit(err)
				}
			}
		}()
		b.Invoke(ctx, fi, mem, stack)
		if err := ctx.Err(); err != nil {
			exit(err)
		}
	}
}

// exit stops the guest after a host call whose context ended (err) while
// the import blocked: the guest must not resume. This is how proc_exit
// stops it.
func exit(err error) {
	code := sys.ExitCodeContextCanceled
	if errors.Is(err, context.DeadlineExceeded) {
		code = sys.ExitCodeDeadlineExceeded
	}
	panic(sys.NewExitError(code))
}

// valueTypes returns ts as wazero's value types (the same encoding).
func valueTypes(ts []engine.ValType) []api.ValueType {
	out := make([]api.ValueType, len(ts))
	for k, t := range ts {
		out[k] = api.ValueType(t)
	}
	return out
}

// guest is an instance as its host functions see it (engine.Binding's
// Guest): the module, to recognize its calls, and its memory.
type guest struct {
	mod api.Module
	lm  *linearMemory // nil without a memory
}

// memory returns the guest's memory now.
func (g *guest) memory() []byte {
	if g.lm != nil {
		return g.lm.bytes()
	}
	return memoryOf(g.mod)
}

// guestMemory is the memory of the module mod, which called a host
// function outside an instance's binding.
func (e *Engine) guestMemory(mod api.Module) []byte {
	if slices.Contains(e.host, mod.Name()) {
		// A guest that re-exports an import, called from the host: wazero
		// passes the host module, whose Memory is a nil *MemoryInstance in
		// a non-nil interface. There is no guest memory to give.
		return nil
	}
	return memoryOf(mod)
}

func memoryOf(mod api.Module) []byte {
	m := mod.Memory()
	if m == nil {
		return nil
	}
	b, _ := m.Read(0, m.Size())
	return b
}

// Close closes the runtime and the cache, and removes the cache's staging
// directory.
func (e *Engine) Close(ctx context.Context) error {
	err := errors.Join(e.rt.Close(ctx), e.cache.Close(ctx))
	e.mems.close()
	if e.disk != nil {
		err = errors.Join(err, e.disk.close())
	}
	return err
}

// CacheStats returns what the on-disk cache did so far (zeros without
// one): tests prove with it that a valid entry is used and a bad one is
// not.
func (e *Engine) CacheStats() CacheStats {
	if e.disk == nil {
		return CacheStats{}
	}
	return e.disk.stats()
}

// Compile compiles m, through the on-disk cache if there is one.
func (e *Engine) Compile(ctx context.Context, m engine.Module) (engine.Compiled, error) {
	var cm wazero.CompiledModule
	var err error
	if e.disk != nil {
		err = e.disk.compile(ctx, m.Wasm, func() (err error) {
			cm, err = e.rt.CompileModule(ctx, m.Wasm)
			return err
		})
	} else {
		cm, err = e.rt.CompileModule(ctx, m.Wasm)
	}
	if err != nil {
		return nil, err
	}
	if f := cm.ExportedFunctions()[m.Start]; m.Start != "" && (f == nil || len(f.ParamTypes()) > 0 || len(f.ResultTypes()) > 0) {
		return nil, errors.Join(engine.ErrStartType, cm.Close(ctx))
	}
	return &module{e: e, cm: cm, stack: m.Stack}, nil
}

type module struct {
	e     *Engine
	cm    wazero.CompiledModule
	stack string                     // engine.Module.Stack
	args  atomic.Pointer[argsConfig] // the last instance's arguments (baseWithArgs)
	funcs funcPool                   // the call engines of closed instances (funcreuse.go)
}

func (m *module) Imports() []engine.Import {
	var out []engine.Import
	for _, f := range m.cm.ImportedFunctions() {
		mod, name, _ := f.Import()
		out = append(out, engine.Import{Module: mod, Name: name, Signature: signature(f.ParamTypes(), f.ResultTypes())})
	}
	return out
}

func signature(params, results []api.ValueType) string {
	ts := make([]string, len(params))
	for i, t := range params {
		ts[i] = api.ValueTypeName(t)
	}
	rs := make([]string, len(results))
	for i, t := range results {
		rs[i] = api.ValueTypeName(t)
	}
	return "(" + strings.Join(ts, ", ") + ") -> " + strings.Join(rs, ", ")
}

func (m *module) Close(ctx context.Context) error { return m.cm.Close(ctx) }

// making is one instantiation: the guest memory it made and the module
// once made, which the memory allocator and the guest's sleeps use; one
// allocation for what were a closure and a captured variable each.
type making struct {
	ctx   context.Context // the instantiation's
	mems  *memPool
	limit uint64 // engine.Config.MemoryLimit
	inv   engine.Invoker
	lm    *linearMemory // nil until the memory is made, and without one
	mod   api.Module    // the instance, once there is one
}

// Allocate implements experimental.MemoryAllocator: a reservation of the
// limit (or the module's maximum, if lower), held by the session too.
func (k *making) Allocate(_, max uint64) experimental.LinearMemory {
	k.lm = newLinearMemory(k.mems, min(max, k.limit))
	k.inv.Hold(k.lm)
	return k.lm
}

// stopped reports whether the guest's sleep must end: the instantiation's
// context ended before there was a module, or the module is closed.
func (k *making) stopped() bool {
	return k.mod == nil && k.ctx.Err() != nil || k.mod != nil && k.mod.IsClosed()
}

// sleep is the guest's nanosleep: a sleep ends early when the call's
// context ends (wazero then closes the module); a start function is such
// a call too (the host calls it).
func (k *making) sleep(ns int64) { sleep(ns, k.stopped) }

// argsConfig is a base configuration with arguments set, kept for the
// next instance given the same: a command run per request is given the
// same arguments every time, and setting them copies the configuration
// and converts each argument.
type argsConfig struct {
	det   bool // made from base[0]
	args  []string
	mc    wazero.ModuleConfig
	stdio [8]sync.Pool // *stdio made from mc, of instances closed, by stdio.has
}

// baseWithArgs returns the base configuration (deterministic clocks or
// not) with args set.
func (m *module) baseWithArgs(det bool, args []string) *argsConfig {
	if len(args) == 0 {
		if det {
			return m.e.noArgs[0]
		}
		return m.e.noArgs[1]
	}
	if c := m.args.Load(); c != nil && c.det == det && slices.Equal(c.args, args) {
		return c
	}
	base := m.e.base[1]
	if det {
		base = m.e.base[0]
	}
	c := &argsConfig{det: det, args: slices.Clone(args), mc: base.WithArgs(args...)}
	m.args.Store(c)
	return c
}

func (m *module) Instantiate(ctx context.Context, cfg engine.Config) (engine.Instance, error) {
	// The instance is made first: its making is a part of it (one
	// allocation fewer per instance, where serve makes one per request).
	i := &instance{e: m.e, m: m, stack: m.stack}
	mk := &i.mk
	*mk = making{mems: &m.e.mems, limit: cfg.MemoryLimit, inv: cfg.Invoker}
	if rc, ok := cfg.Invoker.(engine.Recoverer); ok { // recoveringHostFunc recovers the Unguarded functions' panics
		rc.Recovering()
	}
	ctx = experimental.WithMemoryAllocator(ctx, mk)
	mk.ctx = ctx
	ac := m.baseWithArgs(cfg.DeterministicClocks, cfg.Args)
	mc := ac.mc
	var err error
	if routable(cfg.Stdin, cfg.Stdout, cfg.Stderr) {
		i.io = ac.take(cfg.Stdin, cfg.Stdout, cfg.Stderr, mk)
		mc = i.io.mc
	} else {
		if !cfg.DeterministicClocks {
			mc = mc.WithNanosleep(mk.sleep)
		}
		if cfg.Stdin != nil {
			mc = mc.WithStdin(cfg.Stdin)
		}
		if cfg.Stdout != nil {
			mc = mc.WithStdout(cfg.Stdout)
		}
		if cfg.Stderr != nil {
			mc = mc.WithStderr(cfg.Stderr)
		}
	}
	for _, kv := range cfg.Env {
		k, v, _ := strings.Cut(kv, "=")
		mc = mc.WithEnv(k, v)
	}
	var roots []*rootFS
	var st *calls
	if len(cfg.Mounts) > 0 {
		st = &calls{}
		fsc := wazero.NewFSConfig()
		for _, mt := range cfg.Mounts {
			r, err := newRootFS(mt, cfg.Files, st)
			if err != nil {
				return nil, errors.Join(fmt.Errorf("mount %s: %w", mt.GuestDir, err), closeRoots(roots))
			}
			roots = append(roots, r)
			fsc = fsc.(sysfs.FSConfig).WithSysFSMount(r, mt.GuestDir)
		}
		mc = mc.WithFSConfig(fsc)
	}
	mod, err := m.e.rt.InstantiateModule(ctx, m.cm, mc)
	mk.mod = mod
	if err != nil {
		err = errors.Join(err, closeRoots(roots))
		// No guest code has run (the host calls the start function), but
		// wazero may have made the memory before failing (a data segment
		// out of bounds), and drops such a module without freeing it.
		if mod != nil {
			_ = mod.Close(ctx)
		}
		if mk.lm != nil {
			mk.lm.Free()
		}
		i.io = nil // not reused: wazero may have kept the module
		return nil, runError("instantiate", err)
	}
	if st != nil {
		m.e.mounted.Store(mod, st)
		m.e.nmounted.Add(1)
	}
	i.mod, i.lm, i.roots = mod, mk.lm, roots
	i.g, i.w.closed = guest{mod: mod, lm: mk.lm}, reach(mod)
	if cfg.Binding != nil {
		cfg.Binding.Guest = &i.g
	}
	return i, nil
}

// closeRoots closes the roots of an instance's mounts.
func closeRoots(roots []*rootFS) error {
	var err error
	for _, r := range roots {
		err = errors.Join(err, r.root.Close())
	}
	return err
}

// instance is one module instance. Its calls never overlap (the host
// serializes them), so each export's function and stack are made once and
// reused: wazero's ExportedFunction makes a new call engine, with its own
// stack, on every lookup.
type instance struct {
	e     *Engine
	m     *module
	roots []*rootFS // the mounts, closed after the module
	mod   api.Module
	lm    *linearMemory      // nil without a memory
	first *export            // the first export looked up: a command's _start needs no map
	funcs map[string]*export // the others
	stack string             // the stack counter's export, "" if none
	g     guest              // engine.Binding's Guest, made with the instance
	w     watch              // ends a call whose context ends (terminate.go)
	mk    making             // the instantiation's: the guest's sleeps use it after
	io    *stdio             // the configuration it was made with, nil if its own
}

// export is an exported function, looked up once.
type export struct {
	name    string
	fn      api.Function
	params  int
	results []api.ValueType
	stack   []uint64 // parameters in, results out (CallWithStack)
}

func (i *instance) export(name string) *export {
	if x := i.first; x != nil && x.name == name {
		return x
	}
	if x, ok := i.funcs[name]; ok {
		return x
	}
	fn := i.m.funcs.take(name, i.mod) // a closed instance's (funcreuse.go)
	if fn == nil {
		if fn = i.mod.ExportedFunction(name); fn == nil {
			return nil // not cached: a typo must not grow the map
		}
		ceLayoutOf(fn, i.mod)
	}
	d := fn.Definition()
	x := &export{name: name, fn: fn, params: len(d.ParamTypes()), results: d.ResultTypes()}
	x.stack = make([]uint64, max(x.params, len(x.results)))
	if i.first == nil {
		i.first = x
		return x
	}
	if i.funcs == nil {
		i.funcs = map[string]*export{}
	}
	i.funcs[name] = x
	return x
}

// stackExhausted reports whether the guest's stack counter holds the mark
// of a call stopped at the policy's stack limit.
func (i *instance) stackExhausted() bool {
	if i.stack == "" {
		return false
	}
	g := i.mod.ExportedGlobal(i.stack)
	return g != nil && uint32(g.Get()) == engine.StackExhausted
}

func (i *instance) Has(name string) bool { return i.export(name) != nil }

func (i *instance) Memory() []byte { return memoryOf(i.mod) }

func (i *instance) Call(ctx context.Context, name string, args ...uint64) ([]uint64, error) {
	x := i.export(name)
	if x == nil {
		return nil, fmt.Errorf("host: %w: %q", engine.ErrNoExport, name)
	}
	if len(args) != x.params {
		return nil, fmt.Errorf("host: %s: %w: it takes %d, got %d", name, engine.ErrArgs, x.params, len(args))
	}
	copy(x.stack, args)
	if err := i.call(ctx, x); err != nil {
		if _, ok := err.(*engine.ExitError); ok { // the context was done before the call
			return nil, err
		}
		err = runError(name, err)
		if te, ok := err.(*engine.Trap); ok && i.stackExhausted() {
			te.Reason = engine.StackLimitReason
		}
		return nil, err
	}
	if len(x.results) == 0 {
		return nil, nil
	}
	res := make([]uint64, len(x.results)) // the caller's to keep
	for k, t := range x.results {
		res[k] = x.stack[k]
		// wazero leaves the upper half of an i32 result undefined.
		if t == api.ValueTypeI32 || t == api.ValueTypeF32 {
			res[k] = uint64(uint32(res[k]))
		}
	}
	return res, nil
}

// call calls x with its stack, stopped when ctx ends: by the instance's
// watcher, or by wazero's (w.closed nil). It returns an
// *engine.ExitError only when ctx was done before the call, wazero's
// errors otherwise.
func (i *instance) call(ctx context.Context, x *export) error {
	if i.w.closed == nil {
		return x.fn.CallWithStack(ctx, x.stack)
	}
	if err := i.w.arm(ctx, i.mod); err != nil {
		return err
	}
	err := x.fn.CallWithStack(ctx, x.stack)
	i.w.disarm(err)
	return err
}

// Idle implements engine.Instance: it drops the exports looked up, each
// an api.Function whose call engine holds a stack of its own (10 KiB at
// least, made by wazero at the lookup, not at the call), so that an idle
// pooled instance holds none; the next call looks its export up again.
func (i *instance) Idle() { i.first, i.funcs = nil, nil }

// Reenter implements engine.Instance: wazero lets a host function call
// an export of the module that called it, on its own goroutine. A fresh
// api.Function each time: the cached one's call engine may be the one in
// flight further up (a callback that dispatches another). The error is
// wazero's own, so that an exit or the call's end (*sys.ExitError), once
// panicked with from the host function, ends the outer call alike. The
// outer call's watcher stops it: both run in the one module, whose
// closed word the checks read.
func (i *instance) Reenter(ctx context.Context, name string, args ...uint64) error {
	fn := i.mod.ExportedFunction(name)
	if fn == nil {
		return fmt.Errorf("host: %w: %q", engine.ErrNoExport, name)
	}
	if d := fn.Definition(); len(d.ParamTypes()) != len(args) || len(d.ResultTypes()) != 0 {
		return fmt.Errorf("host: %s: %w: it takes %d and returns %d, the host passes %d and wants none", name, engine.ErrArgs, len(d.ParamTypes()), len(d.ResultTypes()), len(args))
	}
	_, err := fn.Call(ctx, args...)
	return err
}

// Close closes the module and frees its memory. wazero frees it itself
// only when the module was not already closed: a module it closed because
// a call's context ended (a timeout in a host call or proc_exit racing
// the deadline) keeps its memory, so Close frees it here (Free is
// idempotent).
func (i *instance) Close(ctx context.Context) error {
	err := i.w.close(ctx, i.mod)
	if i.io != nil { // the module is closed: its stdio and sleeps serve no guest
		i.io.release()
		i.io = nil
	}
	// Nor its exports' call engines: the next instance's (funcreuse.go).
	if x := i.first; x != nil {
		i.m.funcs.give(x.name, x.fn)
	}
	for name, x := range i.funcs {
		i.m.funcs.give(name, x.fn)
	}
	i.first, i.funcs = nil, nil
	if i.lm != nil {
		i.lm.Free()
	}
	if i.roots != nil {
		i.e.mounted.Delete(i.mod)
		i.e.nmounted.Add(-1)
		err = errors.Join(err, closeRoots(i.roots))
		i.roots = nil
	}
	return err
}

// runError classifies how a guest call ended.
func runError(name string, err error) error {
	// wazero reports a done context as reserved exit codes, which a guest
	// can also pass to proc_exit: they stay exit codes here, and the host
	// turns them into its timeout or cancellation only when the call's
	// context really is done. An exit with code 0 is an exit too: the
	// module is closed, whatever the code.
	var ee *sys.ExitError
	if errors.As(err, &ee) {
		return &engine.ExitError{Code: ee.ExitCode()}
	}
	t := engine.WazeroTrap(name, err.Error())
	var ht *engine.HostTrap
	if errors.As(err, &ht) { // wazero wraps a host function's panic: its own words
		t.Reason = ht.Msg
	}
	return t
}
