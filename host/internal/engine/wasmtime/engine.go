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
	"math"
	"runtime/cgo"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/bytecodealliance/wasmtime-go/v39"

	"github.com/aclwasm/aclwasm/host/internal/engine"
)

// wasmtimeEngine is one wasmtime.Engine and its Linker.
type wasmtimeEngine struct {
	eng    *wasmtime.Engine
	linker *wasmtime.Linker
	fuel   uint64
	funcs  []engine.Func

	mu    sync.Mutex
	cache map[[32]byte]*wasmtimeCompiled // by the wasm's hash, until Runtime.Close

	// byData finds a host call's instance by its store's data (storeData)
	// without wasmtime-go's global lock: a table replaced, never changed,
	// under liveMu.
	liveMu sync.Mutex
	byData atomic.Pointer[[]*wasmtimeInstance]
}

// setLive records w (nil: none) as the instance of the store with data d.
func (e *wasmtimeEngine) setLive(d uintptr, w *wasmtimeInstance) {
	e.liveMu.Lock()
	defer e.liveMu.Unlock()
	var t []*wasmtimeInstance
	if old := e.byData.Load(); old != nil {
		t = *old
	}
	t = append(make([]*wasmtimeInstance, 0, max(len(t), int(d)+1)), t...)
	t = t[:max(len(t), int(d)+1)]
	t[d] = w
	e.byData.Store(&t)
}

// caller returns the instance of a host call's store (nil if the store is
// not one of this engine's) and the guest's memory now (nil if none), in
// one call into C in the steady state (callerStore). The memory's base
// never moves (see New), so views that async copies keep of registered
// ranges stay valid until the session is released, which happens before
// the store is closed.
func (e *wasmtimeEngine) caller(c *wasmtime.Caller) (*wasmtimeInstance, []byte) {
	d, size, known := callerStore(c)
	var w *wasmtimeInstance
	if t := e.byData.Load(); t != nil && d < uintptr(len(*t)) {
		w = (*t)[d]
	}
	switch {
	case w == nil:
		return nil, nil
	case w.mem == nil:
		return w, w.startMemory(c)
	case !known:
		size = callerMemory(c, d, w.mem)
	}
	return w, unsafe.Slice((*byte)(w.base), size)
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
	if err := e.define(); err != nil {
		e.linker.Close()
		e.eng.Close()
		return nil, err
	}
	return e, nil
}

// define puts WASI and the host functions in the linker.
func (e *wasmtimeEngine) define() error {
	if err := e.linker.DefineWasi(); err != nil {
		return err
	}
	e.linker.AllowShadowing(true)
	if err := e.defineStdio(); err != nil {
		return err
	}
	if err := e.defineClocks(); err != nil {
		return err
	}
	i32 := wasmtime.NewValType(wasmtime.KindI32)
	i64 := wasmtime.NewValType(wasmtime.KindI64)
	for fi, f := range e.funcs {
		params := make([]*wasmtime.ValType, len(f.Params))
		for k, p := range f.Params {
			params[k] = i32
			if f.Profile.Is64(p.Type) {
				params[k] = i64
			}
		}
		ty := wasmtime.NewFuncType(params, []*wasmtime.ValType{i32})
		err := e.linker.FuncNew(f.Module, f.Name, ty, trapPanics(func(c *wasmtime.Caller, args []wasmtime.Val) ([]wasmtime.Val, *wasmtime.Trap) {
			w, mem := e.caller(c)
			if w == nil { // not a store of this adapter
				return []wasmtime.Val{wasmtime.ValI32(500000)}, nil
			}
			r := w.hostCall(mem, fi, args)
			if w.ctx != nil && w.ctx.Err() != nil {
				// The call's context ended while the import blocked: the
				// guest must not resume (runError reports the timeout).
				return nil, wasmtime.NewTrap("interrupted: " + w.ctx.Err().Error())
			}
			return []wasmtime.Val{wasmtime.ValI32(r)}, nil
		}))
		if err != nil {
			return err
		}
	}
	return nil
}

// trapPanics turns a panic in a host function (a trace callback's, a
// Stdout writer's: the Invoker already recovers the imports' own) into a
// trap of the guest, as wazero does; wasmtime-go would re-raise it in the
// host's goroutine instead.
func trapPanics(fn func(*wasmtime.Caller, []wasmtime.Val) ([]wasmtime.Val, *wasmtime.Trap)) func(*wasmtime.Caller, []wasmtime.Val) ([]wasmtime.Val, *wasmtime.Trap) {
	return func(c *wasmtime.Caller, args []wasmtime.Val) (res []wasmtime.Val, trap *wasmtime.Trap) {
		defer func() {
			if r := recover(); r != nil {
				res, trap = nil, wasmtime.NewTrap(fmt.Sprintf("host function panicked: %v", r))
			}
		}()
		return fn(c, args)
	}
}

func (e *wasmtimeEngine) Close(context.Context) error {
	e.mu.Lock()
	for k, c := range e.cache {
		c.mod.Close()
		delete(e.cache, k)
	}
	e.mu.Unlock()
	e.linker.Close()
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
	c = &wasmtimeCompiled{e: e, mod: mod, memName: m.Memory, wasi: usesWasi(mod)}
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
	e       *wasmtimeEngine
	mod     *wasmtime.Module
	memName string // the export naming memory 0, "" if none
	wasi    bool   // imports a WASI function of wasmtime's (not one the adapter shadows)
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
	w := &wasmtimeInstance{e: e, inv: cfg.Invoker, memName: m.memName, stdin: cfg.Stdin, stdout: cfg.Stdout, stderr: cfg.Stderr}
	w.store = wasmtime.NewStoreWithData(e.eng, w)
	w.data = storeData(w.store)
	e.setLive(w.data, w)
	engine.LiveMemories.Add(1)
	w.handle = cgo.NewHandle(w)
	setEpochCallback(w.store, w.handle)
	// The policy's memory limit: growing past it makes memory.grow return
	// -1, as on wazero. One memory, as the sandbox knows only one.
	w.store.Limiter(int64(cfg.MemoryLimit), -1, -1, -1, 1)
	if m.wasi {
		wc := wasmtime.NewWasiConfig()
		wc.SetArgv(cfg.Args)
		keys, vals := make([]string, len(cfg.Env)), make([]string, len(cfg.Env))
		for i, kv := range cfg.Env {
			keys[i], vals[i], _ = strings.Cut(kv, "=")
		}
		wc.SetEnv(keys, vals)
		// Nothing else: no preopened directory, no inherited stdio. Stdio
		// goes through the shadowed fd_read/fd_write (wasi.go).
		w.store.SetWasi(wc)
	}
	var inst *wasmtime.Instance
	err := w.enter(ctx, func() (err error) {
		inst, err = e.linker.Instantiate(w.store, m.mod)
		return err
	})
	if err = w.runError(ctx, "instantiate", err); err == nil && inst == nil {
		err = &engine.Trap{Call: "instantiate", Reason: "no instance"}
	}
	if err != nil {
		// No guest code has run (the host calls the start function itself),
		// but release the session before the store goes all the same (the
		// caller's release then finds nothing left).
		_ = cfg.Invoker.Release(ctx)
		_ = w.Close(ctx)
		return nil, err
	}
	w.inst = inst
	if m.memName != "" {
		if ext := inst.GetExport(w.store, m.memName); ext != nil && ext.Memory() != nil {
			w.mem = ext.Memory()
			w.base = w.mem.Data(w.store)
		}
	}
	return w, nil
}

// wasmtimeInstance is one instance in its own store.
type wasmtimeInstance struct {
	e       *wasmtimeEngine
	inv     engine.Invoker
	store   *wasmtime.Store
	handle  cgo.Handle // the store's reference to w, for the epoch callback
	data    uintptr    // the store's data (storeData)
	inst    *wasmtime.Instance
	mem     *wasmtime.Memory // memory 0, once instantiated; nil if none
	base    unsafe.Pointer   // its data, which never moves
	memName string

	ctx    context.Context // the call in progress: its deadline and session
	funcs  map[string]*export
	watch  func()        // advances the epoch when ctx ends (arm)
	fired  chan struct{} // closed by watch
	stop   func() bool   // stops watch
	stack  [16]uint64    // parameters of the host call in progress
	stdin  io.Reader     // Config's stdio, served by fd_read and fd_write
	stdout io.Writer
	stderr io.Writer
}

// startMemory returns the guest's memory before instantiation recorded it
// (a start function run by the engine: the host calls it itself, but a
// host call must never see a memory it cannot check against).
func (w *wasmtimeInstance) startMemory(c *wasmtime.Caller) []byte {
	if w.memName == "" {
		return nil
	}
	ext := c.GetExport(w.memName)
	if ext == nil || ext.Memory() == nil {
		return nil
	}
	return ext.Memory().UnsafeData(c)
}

// hostCall runs host function fi: wasmtime values in, the engine-neutral
// stack to the Invoker, the i32 result out.
func (w *wasmtimeInstance) hostCall(mem []byte, fi int, args []wasmtime.Val) int32 {
	stack, ctx := w.callStack(args)
	w.inv.Invoke(ctx, fi, mem, stack)
	return int32(uint32(stack[0]))
}

// callStack puts a host call's arguments on the instance's stack (i32
// zero-extended) and returns it with the context the call runs under.
func (w *wasmtimeInstance) callStack(args []wasmtime.Val) ([]uint64, context.Context) {
	stack := w.stack[:max(len(args), 1)]
	for k, a := range args {
		if a.Kind() == wasmtime.KindI64 {
			stack[k] = uint64(a.I64())
		} else {
			stack[k] = uint64(uint32(a.I32()))
		}
	}
	ctx := w.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	return stack, ctx
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
// no closure: the watcher and its channel are the instance's, made once
// (the channel again after it fired).
func (w *wasmtimeInstance) arm(ctx context.Context) error {
	w.ctx = ctx
	if w.e.fuel > 0 {
		if err := w.store.SetFuel(w.e.fuel); err != nil {
			w.ctx = nil
			return err
		}
	}
	w.store.SetEpochDeadline(1)
	if w.fired == nil {
		w.fired = make(chan struct{})
	}
	if w.watch == nil {
		w.watch = func() {
			w.e.eng.IncrementEpoch()
			close(w.fired)
		}
	}
	if af, ok := ctx.(interface{ AfterFunc(func()) func() bool }); ok {
		w.stop = af.AfterFunc(w.watch) // the host's call context: no goroutine
	} else {
		w.stop = context.AfterFunc(ctx, w.watch)
	}
	return nil
}

func (w *wasmtimeInstance) disarm() {
	if !w.stop() {
		<-w.fired // the engine outlives no watcher
		w.fired = nil
	}
	w.stop, w.ctx = nil, nil
}

// export is an exported function, looked up once.
type export struct {
	f       *wasmtime.Func
	params  []wasmtime.ValKind
	results int
	vals    []any
}

func (w *wasmtimeInstance) export(name string) *export {
	if x, ok := w.funcs[name]; ok {
		return x
	}
	f := w.inst.GetFunc(w.store, name)
	if f == nil {
		return nil // not cached: a typo must not grow the map
	}
	ty := f.Type(w.store)
	x := &export{f: f, results: len(ty.Results())}
	for _, p := range ty.Params() {
		x.params = append(x.params, p.Kind())
	}
	x.vals = make([]any, len(x.params))
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
		case wasmtime.KindI32:
			x.vals[k] = int32(uint32(args[k]))
		case wasmtime.KindI64:
			x.vals[k] = int64(args[k])
		case wasmtime.KindF32:
			x.vals[k] = math.Float32frombits(uint32(args[k]))
		case wasmtime.KindF64:
			x.vals[k] = math.Float64frombits(args[k])
		default:
			return nil, &engine.Trap{Call: name, Reason: fmt.Sprintf("parameter %d has a type that cannot be passed from the host", k)}
		}
	}
	var res any
	err := w.arm(ctx)
	if err == nil {
		res, err = x.f.Call(w.store, x.vals...)
		w.disarm()
	}
	clear(x.vals)
	if err := w.runError(ctx, name, err); err != nil {
		return nil, err
	}
	if x.results == 0 {
		return nil, nil
	}
	out := make([]uint64, x.results) // the caller's to keep
	switch r := res.(type) {
	case nil:
	case []wasmtime.Val:
		for k, v := range r {
			out[k] = wasmtimeBits(v.Get())
		}
	default:
		out[0] = wasmtimeBits(r)
	}
	return out, nil
}

// wasmtimeBits is a result as Instance.Call returns it: i32 zero-extended,
// floats as their bits.
func wasmtimeBits(v any) uint64 {
	switch v := v.(type) {
	case int32:
		return uint64(uint32(v))
	case int64:
		return uint64(v)
	case float32:
		return uint64(math.Float32bits(v))
	case float64:
		return math.Float64bits(v)
	}
	return 0 // references
}

// runError classifies how a guest call ended, as the wazero adapter does:
// a WASI exit gives an *engine.ExitError (code 0 too), a done context an
// *engine.Done (whether the epoch stopped guest code or a blocking host
// call returned early because of it), anything else an *engine.Trap.
func (w *wasmtimeInstance) runError(ctx context.Context, name string, err error) error {
	var we *wasmtime.Error
	if errors.As(err, &we) {
		if code, ok := we.ExitStatus(); ok {
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
	var trap *wasmtime.Trap
	if errors.As(err, &trap) && trap.Code() != nil && *trap.Code() == wasmtime.OutOfFuel ||
		strings.Contains(te.Reason, "all fuel consumed") { // the C API returns most traps as errors
		te.Reason = fmt.Sprintf("out of fuel (%d units per call)", w.e.fuel)
	}
	return te
}

// Close deletes the store: the instance, its memory and its WASI state. The
// session has been released before (the host's Instance.finish), so no
// stream worker still uses the memory.
func (w *wasmtimeInstance) Close(context.Context) error {
	if w.store == nil {
		return nil
	}
	w.e.setLive(w.data, nil)
	storeClosing() // before the store's data can name another store
	w.store.Close()
	engine.LiveMemories.Add(-1)
	w.store, w.inst, w.mem, w.base = nil, nil, nil, nil
	w.handle.Delete()
	return nil
}
