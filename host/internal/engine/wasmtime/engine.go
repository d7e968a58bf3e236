//go:build wasmtime && cgo

// Package wasmtime is the second engine adapter (build tag wasmtime, cgo):
// one wasmtime.Engine and one Linker holding the host functions and WASI,
// shared by every store; each instance gets its own Store. Like the wazero
// adapter it only converts values and hands the session's engine.Invoker
// the guest's memory: every check lives in the host.
package wasmtime

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"unsafe"

	"github.com/bytecodealliance/wasmtime-go/v39"

	"github.com/aclwasm/aclwasm/host/internal/engine"
)

// wasmtimeEngine is one wasmtime.Engine and its Linker.
type wasmtimeEngine struct {
	eng    *wasmtime.Engine
	linker *wasmtime.Linker
	// mountLinker is linker with the shadows of WASI's file functions,
	// for instances with mounts; wasi holds WASI alone, tramp is the
	// module that calls its functions for the shadows (mount.go).
	mountLinker *wasmtime.Linker
	wasi        *wasmtime.Linker
	tramp       *wasmtime.Module
	fuel        uint64
	funcs       []engine.Func

	sigs []sig // of funcs, for host calls

	mu    sync.Mutex
	cache map[[32]byte]*wasmtimeCompiled // by the wasm's hash, until Runtime.Close
}

// wasmtimeMaxMemory is the reservation of every linear memory: all a
// 32-bit memory can ever address (65536 pages).
const wasmtimeMaxMemory = 1 << 32

// New makes the engine.
func New(_ context.Context, o engine.Options) (engine.Engine, error) {
	if err := checkLayout(); err != nil {
		return nil, err
	}
	if o.CacheDir != "" {
		return nil, errors.New("a compilation cache directory (WithCacheDir) needs the wazero engine")
	}
	cfg := wasmtime.NewConfig()
	// Timeouts and cancellation interrupt guest code through epochs (see
	// wasmtimeInstance.enter); fuel is metered only when asked for.
	cfg.SetEpochInterruption(true)
	cfg.SetConsumeFuel(o.Fuel > 0)
	// The guest's memory must never move while the instance lives: async
	// copies on registered guest memory keep views of it while stream
	// workers run (see linmem.go for wazero). Wasmtime's 64-bit default
	// already reserves 4 GiB per 32-bit memory, but says so nowhere in
	// wasmtime-go's API and may change: make it explicit. Each memory is one
	// 4 GiB reservation (plus the default guard) that growth only commits
	// pages in, and memory_may_move=false turns any growth that would need a
	// relocation into a failed memory.grow instead.
	fixedMemory(cfg, wasmtimeMaxMemory)
	// The adapter makes the memories, reusing released reservations
	// (linmem.go).
	ownMemories(cfg)
	// The same proposals as wazero's default (WebAssembly 2.0): what loads
	// on one engine loads on the other. Shared memories (threads) and
	// 64-bit memories are off in particular: the sandbox gives import
	// implementations one plain 32-bit memory.
	cfg.SetWasmThreads(false)
	cfg.SetWasmMemory64(false)
	cfg.SetWasmMultiMemory(false)
	cfg.SetWasmTailCall(false)
	cfg.SetWasmGC(false)
	cfg.SetWasmFunctionReferences(false)
	cfg.SetWasmRelaxedSIMD(false)
	cfg.SetWasmWideArithmetic(false)
	e := &wasmtimeEngine{eng: wasmtime.NewEngineWithConfig(cfg), fuel: o.Fuel, funcs: o.Funcs, cache: map[[32]byte]*wasmtimeCompiled{}}
	e.linker = wasmtime.NewLinker(e.eng)
	e.mountLinker = wasmtime.NewLinker(e.eng)
	e.wasi = wasmtime.NewLinker(e.eng)
	err := e.define(e.linker, false)
	if err == nil {
		err = e.define(e.mountLinker, true)
	}
	if err == nil {
		err = e.defineOriginals()
	}
	if err != nil {
		e.linker.Close()
		e.mountLinker.Close()
		e.wasi.Close()
		e.eng.Close()
		return nil, err
	}
	return e, nil
}

// define puts WASI and the host functions in l, and with files the
// shadows of WASI's file functions (mount.go).
func (e *wasmtimeEngine) define(l *wasmtime.Linker, files bool) error {
	if err := l.DefineWasi(); err != nil {
		return err
	}
	l.AllowShadowing(true)
	if err := e.defineStdio(l); err != nil {
		return err
	}
	if err := e.defineClocks(l); err != nil {
		return err
	}
	if files {
		if err := defineFiles(l); err != nil {
			return err
		}
	}
	return e.defineFuncs(l)
}

func (e *wasmtimeEngine) Close(context.Context) error {
	e.mu.Lock()
	for k, c := range e.cache {
		c.mod.Close()
		delete(e.cache, k)
	}
	e.mu.Unlock()
	e.linker.Close()
	e.mountLinker.Close()
	e.wasi.Close()
	e.tramp.Close()
	e.eng.Close()
	return nil
}

// compile compiles wasm, or returns the module compiled from the same bytes
// before: like wazero's compilation cache, compiled code lives as long as
// the runtime, so loading a plugin again costs only the import check.
func (e *wasmtimeEngine) Compile(_ context.Context, m engine.Module) (engine.Compiled, error) {
	key := sha256.Sum256(m.Wasm)
	e.mu.Lock()
	c, ok := e.cache[key]
	e.mu.Unlock()
	if ok {
		return c, nil
	}
	mod, err := wasmtime.NewModule(e.eng, m.Wasm)
	if err != nil {
		return nil, err
	}
	if m.Start != "" && !emptyFunc(mod, m.Start) {
		mod.Close()
		return nil, engine.ErrStartType
	}
	c = &wasmtimeCompiled{e: e, mod: mod, memName: m.Memory, stackName: m.Stack, wasi: usesWasi(mod), funcs: map[string]bool{}}
	for _, ex := range mod.Exports() {
		if ex.Type().FuncType() != nil {
			c.funcs[ex.Name()] = true
		}
	}
	e.mu.Lock()
	if prev, ok := e.cache[key]; ok { // compiled concurrently
		e.mu.Unlock()
		mod.Close()
		return prev, nil
	}
	e.cache[key] = c
	e.mu.Unlock()
	return c, nil
}

// emptyFunc reports whether mod exports a function of type [] -> [] as name.
func emptyFunc(mod *wasmtime.Module, name string) bool {
	for _, ex := range mod.Exports() {
		if ex.Name() == name {
			ft := ex.Type().FuncType()
			return ft != nil && len(ft.Params()) == 0 && len(ft.Results()) == 0
		}
	}
	return false
}

// wasmtimeCompiled is a compiled module, shared by the plugins loaded from
// the same bytes and owned by the engine's cache.
type wasmtimeCompiled struct {
	e         *wasmtimeEngine
	mod       *wasmtime.Module
	memName   string          // the export naming memory 0, "" if none
	stackName string          // the export of the stack counter, "" if none
	wasi      bool            // imports a WASI function of wasmtime's (not one the adapter shadows)
	funcs     map[string]bool // the function exports
}

// usesWasi reports whether mod imports a WASI function that wasmtime's WASI
// serves, which needs the store's WASI state: a store without one (for a
// module that imports no WASI, or only the functions the adapter serves
// itself) is made faster.
func usesWasi(mod *wasmtime.Module) bool {
	for _, im := range mod.Imports() {
		if im.Module() != "wasi_snapshot_preview1" {
			continue
		}
		switch name := im.Name(); {
		case name == nil:
			return true
		case *name == "fd_read", *name == "fd_write", *name == "clock_time_get", *name == "poll_oneoff":
		default:
			return true
		}
	}
	return false
}

func (m *wasmtimeCompiled) Imports() []engine.Import {
	var out []engine.Import
	for _, im := range m.mod.Imports() {
		ft := im.Type().FuncType()
		if ft == nil {
			continue
		}
		name := ""
		if n := im.Name(); n != nil {
			name = *n
		}
		out = append(out, engine.Import{Module: im.Module(), Name: name, Signature: wasmtimeSignature(ft)})
	}
	return out
}

// wasmtimeSignature writes a function type as abi.Func.Signature does.
func wasmtimeSignature(ft *wasmtime.FuncType) string {
	names := func(ts []*wasmtime.ValType) string {
		s := make([]string, len(ts))
		for i, t := range ts {
			switch k := t.Kind(); k {
			case wasmtime.KindI32, wasmtime.KindI64, wasmtime.KindF32, wasmtime.KindF64, wasmtime.KindExternref, wasmtime.KindFuncref:
				s[i] = k.String()
			default:
				s[i] = "v128" // the only other value type the engine accepts
			}
		}
		return strings.Join(s, ", ")
	}
	return "(" + names(ft.Params()) + ") -> " + names(ft.Results())
}

// close does nothing: the module belongs to the engine's cache.
func (m *wasmtimeCompiled) Close(context.Context) error { return nil }

func (m *wasmtimeCompiled) Instantiate(ctx context.Context, cfg engine.Config) (engine.Instance, error) {
	if cfg.DeterministicClocks {
		return nil, errors.New("host: deterministic clocks need the wazero engine (Config.DeterministicClocks)")
	}
	e := m.e
	w := &wasmtimeInstance{e: e, inv: cfg.Invoker, memName: m.memName, stackName: m.stackName, exports: m.funcs, stdin: cfg.Stdin, stdout: cfg.Stdout, stderr: cfg.Stderr}
	if rc, ok := cfg.Invoker.(engine.Recoverer); ok { // aclwasmHostCall recovers every host call's panic
		rc.Recovering()
		w.rec = rc
	}
	w.store = wasmtime.NewStoreWithData(e.eng, w)
	// The policy's memory limit: growing past it makes memory.grow return
	// -1, as on wazero. One memory, as the sandbox knows only one.
	w.cx, w.data = setupStore(w.store, int64(cfg.MemoryLimit))
	setLive(w.data, w)
	engine.LiveMemories.Add(1)
	if m.wasi || len(cfg.Mounts) > 0 {
		wc := wasmtime.NewWasiConfig()
		wc.SetArgv(cfg.Args)
		keys, vals := make([]string, len(cfg.Env)), make([]string, len(cfg.Env))
		for i, kv := range cfg.Env {
			keys[i], vals[i], _ = strings.Cut(kv, "=")
		}
		wc.SetEnv(keys, vals)
		// Nothing else: the mounts alone, no inherited stdio. Stdio goes
		// through the shadowed fd_read/fd_write (wasi.go).
		if err := preopen(wc, cfg.Mounts); err != nil {
			_ = w.Close(ctx)
			return nil, err
		}
		w.store.SetWasi(wc)
	}
	var (
		inst *wasmtime.Instance
		mem  *wasmtime.Memory
		base unsafe.Pointer
	)
	err := w.enter(ctx, func() (err error) {
		l := e.linker
		if len(cfg.Mounts) > 0 {
			l = e.mountLinker
		}
		inst, mem, base, err = instantiate(l, w.cx, m.mod, m.memName)
		return err
	})
	if err = w.runError(ctx, "instantiate", err); err != nil {
		// No guest code has run (the host calls the start function itself),
		// but release the session before the store goes all the same (the
		// caller's release then finds nothing left).
		_ = cfg.Invoker.Release(ctx)
		_ = w.Close(ctx)
		return nil, err
	}
	w.inst, w.mem, w.base = inst, mem, base
	countReused()
	if len(cfg.Mounts) > 0 {
		if err := w.mountState(cfg.Mounts, cfg.Files); err != nil {
			_ = cfg.Invoker.Release(ctx)
			_ = w.Close(ctx)
			return nil, fmt.Errorf("mounts: %w", err)
		}
	}
	return w, nil
}

// wasmtimeInstance is one instance in its own store.
type wasmtimeInstance struct {
	e         *wasmtimeEngine
	inv       engine.Invoker
	rec       engine.Recoverer // inv, if it leaves panics to the adapter (aclwasmHostCall)
	store     *wasmtime.Store
	data      uintptr        // the store's data (setupStore)
	cx        unsafe.Pointer // the store's C context
	inst      *wasmtime.Instance
	mem       *wasmtime.Memory // memory 0, once instantiated; nil if none
	base      unsafe.Pointer   // its data, which never moves
	memName   string
	stackName string          // the stack counter's export, "" if none
	exports   map[string]bool // the module's function exports

	ctx    context.Context // the call in progress: its deadline and session
	funcs  map[string]*export
	watch  engine.CallWatch // advances the epoch when ctx ends (arm)
	stack  [16]uint64       // parameters of the host call in progress
	caller unsafe.Pointer   // the wasmtime_caller_t of the host call in progress (Reenter)
	stdin  io.Reader        // Config's stdio, served by fd_read and fd_write
	stdout io.Writer
	stderr io.Writer

	// The mounts (mount.go), nil without: wasmtime's functions the
	// shadows run, the limits, the fds the guest opened (path_open) and
	// where the fds are, the roots of the mounts (closed with the store).
	orig   [origCount]*wasmtime.Func
	files  *engine.Files
	open   map[uint32]bool
	dirs   map[uint32]dirRef
	mounts []engine.Mount
	roots  []*os.Root
}

// startMemory returns the guest's memory before instantiation recorded it
// (a start function run by the engine: the host calls it itself, but a
// host call must never see a memory it cannot check against).
func (w *wasmtimeInstance) startMemory(caller unsafe.Pointer) []byte {
	if w.memName == "" {
		return nil
	}
	c := new(wasmtime.Caller) // caller's wasmtime-go form (see checkLayout)
	*(*unsafe.Pointer)(unsafe.Pointer(c)) = caller
	defer func() { *(*unsafe.Pointer)(unsafe.Pointer(c)) = nil }()
	ext := c.GetExport(w.memName)
	if ext == nil || ext.Memory() == nil {
		return nil
	}
	return ext.Memory().UnsafeData(c)
}

// enter runs fn, which runs guest code, under ctx: the session's context
// for host calls, fuel, and the interruption of guest code when ctx is
// done. Epochs are engine-wide, so each store's deadline is one epoch
// ahead and the epoch advances only when some call's context ends; a
// store that reaches its deadline asks aclwasmEpochDeadline whether its
// own context is done, and runs on (one more epoch) if not. The deadline
// is set before the watcher can advance the epoch, so no end is missed.
func (w *wasmtimeInstance) enter(ctx context.Context, fn func() error) error {
	if err := w.arm(ctx); err != nil {
		return err
	}
	defer w.disarm()
	return fn()
}

// arm and disarm are enter's halves, for the calls of exports, which make
// no closure: the watcher is the instance's, its closure made once.
func (w *wasmtimeInstance) arm(ctx context.Context) error {
	w.ctx = ctx
	if w.e.fuel > 0 {
		if err := setFuel(w.cx, w.e.fuel); err != nil {
			w.ctx = nil
			return err
		}
	}
	setEpochDeadline(w.cx, 1)
	if w.watch.On == nil {
		w.watch.On = w.e.eng.IncrementEpoch
	}
	w.watch.Arm(ctx)
	return nil
}

func (w *wasmtimeInstance) disarm() {
	w.watch.Disarm() // after it, the engine outlives no watcher
	w.ctx = nil
}

// export is an exported function, looked up once, and the raw values
// its calls pass (see Call).
type export struct {
	f       *wasmtime.Func
	params  []wasmtime.ValKind
	results []wasmtime.ValKind
	raw     []rawVal // max(params, results, 1) values
}

func (w *wasmtimeInstance) export(name string) *export {
	if x, ok := w.funcs[name]; ok {
		return x
	}
	if !w.exports[name] { // no call into C for what the module lacks (Has("_initialize"))
		return nil
	}
	f := w.inst.GetFunc(w.store, name)
	if f == nil {
		return nil // not cached: a typo must not grow the map
	}
	ty := f.Type(w.store)
	x := &export{f: f}
	for _, p := range ty.Params() {
		x.params = append(x.params, p.Kind())
	}
	for _, r := range ty.Results() {
		x.results = append(x.results, r.Kind())
	}
	x.raw = make([]rawVal, max(len(x.params), len(x.results), 1))
	if w.funcs == nil {
		w.funcs = map[string]*export{}
	}
	w.funcs[name] = x
	return x
}

func (w *wasmtimeInstance) Has(name string) bool { return w.export(name) != nil }

func (w *wasmtimeInstance) Memory() []byte {
	if w.mem == nil || w.store == nil {
		return nil
	}
	return unsafe.Slice((*byte)(w.base), w.mem.DataSize(w.store))
}

func (w *wasmtimeInstance) Call(ctx context.Context, name string, args ...uint64) ([]uint64, error) {
	x := w.export(name)
	if x == nil {
		return nil, fmt.Errorf("host: %w: %q", engine.ErrNoExport, name)
	}
	if len(args) != len(x.params) {
		return nil, fmt.Errorf("host: %s: %w: it takes %d, got %d", name, engine.ErrArgs, len(x.params), len(args))
	}
	for k, p := range x.params {
		switch p {
		case wasmtime.KindI32, wasmtime.KindF32:
			x.raw[k] = rawVal{uint64(uint32(args[k])), 0}
		case wasmtime.KindI64, wasmtime.KindF64:
			x.raw[k] = rawVal{args[k], 0}
		default:
			return nil, &engine.Trap{Call: name, Reason: fmt.Sprintf("parameter %d has a type that cannot be passed from the host", k)}
		}
	}
	// An unchecked call: the types are the export's own, and raw holds
	// both its parameters and its results, so nothing is allocated or
	// converted (wasmtime-go's Func.Call allocates several times a call).
	err := w.arm(ctx)
	if err == nil {
		err = callRaw(w.cx, x.f, x.raw)
		w.disarm()
	}
	if err := w.runError(ctx, name, err); err != nil {
		return nil, err
	}
	if len(x.results) == 0 {
		return nil, nil
	}
	out := make([]uint64, len(x.results)) // the caller's to keep
	for k, r := range x.results {
		switch r {
		case wasmtime.KindI32, wasmtime.KindF32: // i32 zero-extended, floats as their bits
			out[k] = uint64(uint32(x.raw[k][0]))
		case wasmtime.KindI64, wasmtime.KindF64:
			out[k] = x.raw[k][0]
		}
		// references: 0
	}
	return out, nil
}

// Idle implements engine.Instance. It keeps the exports looked up: each
// is a few words and its value slots (wasmtime's stack is the store's,
// not a function's), and a lookup is a call into C.
func (w *wasmtimeInstance) Idle() {}

// Reenter implements engine.Instance: it calls the export through the
// context of the host call in flight (w.caller), as wasmtime lets a host
// function call into its own store. The raw values are fresh (a callback
// may dispatch another), and the parameters of the host call in flight,
// which the nested host calls overwrite, are restored after. The epoch
// deadline and fuel are the outer call's. A trap comes back as the
// callError that aclwasmHostCall turns into a trap of the outer call.
func (w *wasmtimeInstance) Reenter(_ context.Context, name string, args ...uint64) error {
	x := w.export(name)
	if x == nil {
		return fmt.Errorf("host: %w: %q", engine.ErrNoExport, name)
	}
	if len(args) != len(x.params) || len(x.results) != 0 {
		return fmt.Errorf("host: %s: %w: it takes %d and returns %d, the host passes %d and wants none", name, engine.ErrArgs, len(x.params), len(x.results), len(args))
	}
	if w.caller == nil {
		return fmt.Errorf("host: %s: called outside a host call", name)
	}
	raw := make([]rawVal, max(len(x.params), 1))
	for k, p := range x.params {
		switch p {
		case wasmtime.KindI32, wasmtime.KindF32:
			raw[k] = rawVal{uint64(uint32(args[k])), 0}
		case wasmtime.KindI64, wasmtime.KindF64:
			raw[k] = rawVal{args[k], 0}
		default:
			return &engine.Trap{Call: name, Reason: fmt.Sprintf("parameter %d has a type that cannot be passed from the host", k)}
		}
	}
	saved, caller := w.stack, w.caller
	err := callRawIn(caller, x.f, raw)
	w.stack, w.caller = saved, caller
	if err != nil {
		return err
	}
	return nil
}

// runError classifies how a guest call ended, as the wazero adapter does:
// a WASI exit gives an *engine.ExitError (code 0 too), a done context an
// *engine.Done (whether the epoch stopped guest code or a blocking host
// call returned early because of it), anything else an *engine.Trap.
func (w *wasmtimeInstance) runError(ctx context.Context, name string, err error) error {
	fuel := false
	if err != nil { // no errors.As: its target would escape, an allocation per call
		code, exited := int32(0), false
		if e, ok := err.(*callError); ok {
			code, exited, fuel = e.status, e.exited, e.fuel
		}
		if exited {
			return &engine.ExitError{Code: uint32(code)} // 0 too: the guest has ended
		}
	}
	if ctx.Err() != nil {
		return &engine.Done{Call: name}
	}
	if err == nil {
		return nil
	}
	te := engine.WasmtimeTrap(name, err.Error())
	if fuel || strings.Contains(te.Reason, "all fuel consumed") { // the C API returns most traps as errors
		te.Reason = fmt.Sprintf("out of fuel (%d units per call)", w.e.fuel)
	}
	if w.stackExhausted() {
		te.Reason = engine.StackLimitReason
	}
	return te
}

// stackExhausted reports whether the guest's stack counter holds the mark
// of a call stopped at the policy's stack limit.
func (w *wasmtimeInstance) stackExhausted() bool {
	if w.stackName == "" || w.inst == nil {
		return false
	}
	ext := w.inst.GetExport(w.store, w.stackName)
	if ext == nil || ext.Global() == nil {
		return false
	}
	return uint32(ext.Global().Get(w.store).I32()) == engine.StackExhausted
}

// Close deletes the store: the instance, its memory and its WASI state. The
// session has been released before (the host's Instance.finish), so no
// stream worker still uses the memory.
func (w *wasmtimeInstance) Close(context.Context) error {
	if w.store == nil {
		return nil
	}
	setLive(w.data, nil)
	storeClosing() // before the store's data can name another store
	w.store.Close()
	engine.LiveMemories.Add(-1)
	w.store, w.inst, w.mem, w.base, w.cx = nil, nil, nil, nil, nil
	var err error
	for _, r := range w.roots {
		err = errors.Join(err, r.Close())
	}
	w.roots = nil
	return err
}
