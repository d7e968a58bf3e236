package host

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"

	"github.com/aclwasm/aclwasm/abi"
)

func init() { engines["wazero"] = newWazero }

// wazeroEngine is the default engine: pure Go, one wazero.Runtime with the
// "acl" host module and WASI, and an in-memory compilation cache.
type wazeroEngine struct {
	rt    wazero.Runtime
	cache wazero.CompilationCache
}

func newWazero(ctx context.Context, o engineOptions) (engine, error) {
	if o.fuel != 0 {
		return nil, errors.New("fuel metering (WithFuel) needs the wasmtime engine")
	}
	cache := wazero.NewCompilationCache()
	if o.cacheDir != "" {
		var err error
		if cache, err = wazero.NewCompilationCacheWithDir(o.cacheDir); err != nil {
			return nil, fmt.Errorf("compilation cache %s: %w", o.cacheDir, err)
		}
	}
	cfg := wazero.NewRuntimeConfig().
		WithCloseOnContextDone(true). // a timeout stops a spinning guest
		WithCompilationCache(cache)
	r := wazero.NewRuntimeWithConfig(ctx, cfg)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, r); err != nil {
		return nil, errors.Join(err, r.Close(ctx))
	}
	b := r.NewHostModuleBuilder(abi.Module)
	for i := range abi.Funcs {
		f := &abi.Funcs[i]
		names := make([]string, len(f.Params))
		for k, p := range f.Params {
			names[k] = p.Name
		}
		fi := i
		b.NewFunctionBuilder().
			WithGoModuleFunction(wazeroImport(func(ctx context.Context, s *Session, mem []byte, stack []uint64) {
				s.invoke(ctx, fi, mem, stack)
			}), wazeroParams(f.Params), []api.ValueType{api.ValueTypeI32}).
			WithParameterNames(names...).
			WithResultNames("result").
			Export(f.Name)
	}
	if _, err := b.Instantiate(ctx); err != nil {
		return nil, errors.Join(err, r.Close(ctx))
	}
	if err := wazeroHostFuncs(ctx, r, o.funcs); err != nil {
		return nil, errors.Join(err, r.Close(ctx))
	}
	return &wazeroEngine{rt: r, cache: cache}, nil
}

// wazeroImport makes an import of run, called with the session of the
// call's context and the guest's memory: the one shape of every host
// function on wazero.
func wazeroImport(run func(ctx context.Context, s *Session, mem []byte, stack []uint64)) api.GoModuleFunc {
	return func(ctx context.Context, mod api.Module, stack []uint64) {
		s := sessionFrom(ctx)
		if s == nil { // only reachable by calling a guest outside Plugin's API
			stack[0] = uint64(uint32(int32(500000)))
			return
		}
		run(ctx, s, guestMemory(mod), stack)
		if err := ctx.Err(); err != nil {
			// The call's context ended while the import blocked: the
			// guest must not resume. This is how proc_exit stops it.
			code := sys.ExitCodeContextCanceled
			if errors.Is(err, context.DeadlineExceeded) {
				code = sys.ExitCodeDeadlineExceeded
			}
			panic(sys.NewExitError(code))
		}
	}
}

// wazeroParams maps ABI parameters onto wasm value types.
func wazeroParams(ps []abi.Param) []api.ValueType {
	out := make([]api.ValueType, len(ps))
	for k, p := range ps {
		out[k] = api.ValueTypeI32
		if p.Type.Is64() {
			out[k] = api.ValueTypeI64
		}
	}
	return out
}

// wazeroHostFuncs instantiates one host module per module of funcs, each
// function routed to Session.invokeHost as the "acl" ones are to invoke.
func wazeroHostFuncs(ctx context.Context, r wazero.Runtime, funcs []*hostFunc) error {
	builders := map[string]wazero.HostModuleBuilder{}
	var order []string
	for _, h := range funcs {
		b, ok := builders[h.module]
		if !ok {
			b = r.NewHostModuleBuilder(h.module)
			builders[h.module] = b
			order = append(order, h.module)
		}
		b.NewFunctionBuilder().
			WithGoModuleFunction(wazeroImport(func(ctx context.Context, s *Session, mem []byte, stack []uint64) {
				s.invokeHost(ctx, h, mem, stack)
			}), wazeroParams(h.f.Params), []api.ValueType{api.ValueTypeI32}).
			Export(h.name)
	}
	for _, m := range order {
		if _, err := builders[m].Instantiate(ctx); err != nil {
			return fmt.Errorf("host module %s: %w", m, err)
		}
	}
	return nil
}

func guestMemory(mod api.Module) []byte {
	if mod.Name() == abi.Module {
		// A guest that re-exports an import, called from the host: wazero
		// passes the host module, whose Memory is a nil *MemoryInstance in
		// a non-nil interface. There is no guest memory to give.
		return nil
	}
	m := mod.Memory()
	if m == nil {
		return nil
	}
	b, _ := m.Read(0, m.Size())
	return b
}

func (e *wazeroEngine) close(ctx context.Context) error {
	return errors.Join(e.rt.Close(ctx), e.cache.Close(ctx))
}

func (e *wazeroEngine) compile(ctx context.Context, wasm []byte) (compiled, error) {
	bin, start := hoistStart(wasm)
	cm, err := e.rt.CompileModule(ctx, bin)
	if err != nil {
		return nil, err
	}
	if f := cm.ExportedFunctions()[start]; start != "" && (f == nil || len(f.ParamTypes()) > 0 || len(f.ResultTypes()) > 0) {
		return nil, errors.Join(errStartType, cm.Close(ctx))
	}
	return &wazeroModule{e: e, cm: cm, start: start}, nil
}

type wazeroModule struct {
	e     *wazeroEngine
	cm    wazero.CompiledModule
	start string // the export the start function was moved to (hoistStart)
}

func (m *wazeroModule) startExport() string { return m.start }

func (m *wazeroModule) imports() []importDesc {
	var out []importDesc
	for _, f := range m.cm.ImportedFunctions() {
		mod, name, _ := f.Import()
		out = append(out, importDesc{module: mod, name: name, signature: signature(f.ParamTypes(), f.ResultTypes())})
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

func (m *wazeroModule) close(ctx context.Context) error { return m.cm.Close(ctx) }

func (m *wazeroModule) instantiate(ctx context.Context, s *Session, cfg Config) (instance, error) {
	limit := memoryBytes(s.policy.MemoryPages)
	ctx = experimental.WithMemoryAllocator(ctx, experimental.MemoryAllocatorFunc(func(_, max uint64) experimental.LinearMemory {
		s.mem = newLinearMemory(min(max, limit))
		return s.mem
	}))
	mc := wazero.NewModuleConfig().
		WithName(""). // many instances of one module coexist
		WithStartFunctions().
		WithArgs(cfg.Args...)
	var mod api.Module // the instance, once there is one
	var err error
	if !cfg.DeterministicClocks {
		// The host's clocks, as on wasmtime. A sleep ends early when the
		// call's context ends (wazero then closes the module); a start
		// function is such a call too (hoistStart).
		stopped := func() bool { return mod == nil && ctx.Err() != nil || mod != nil && mod.IsClosed() }
		mc = mc.WithSysWalltime().WithSysNanotime().WithNanosleep(func(ns int64) { sleep(ns, stopped) })
	}
	for _, kv := range cfg.Env {
		k, v, _ := strings.Cut(kv, "=")
		mc = mc.WithEnv(k, v)
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
	mod, err = m.e.rt.InstantiateModule(ctx, m.cm, mc)
	if err != nil {
		// No guest code has run (hoistStart), but wazero may have made the
		// memory before failing (a data segment out of bounds), and drops
		// such a module without freeing it.
		if mod != nil {
			_ = mod.Close(ctx)
		}
		if s.mem != nil {
			s.mem.Free()
		}
		return nil, runError("instantiate", err)
	}
	return &wazeroInstance{mod: mod}, nil
}

type wazeroInstance struct{ mod api.Module }

func (i *wazeroInstance) has(name string) bool { return i.mod.ExportedFunction(name) != nil }

func (i *wazeroInstance) memory() []byte { return guestMemory(i.mod) }

func (i *wazeroInstance) call(ctx context.Context, name string, args ...uint64) ([]uint64, error) {
	fn := i.mod.ExportedFunction(name)
	if fn == nil {
		return nil, fmt.Errorf("host: %w: %q", errNoExport, name)
	}
	if want := len(fn.Definition().ParamTypes()); len(args) != want {
		return nil, fmt.Errorf("host: %s: %w: it takes %d, got %d", name, errArgs, want, len(args))
	}
	res, err := fn.Call(ctx, args...)
	if err != nil {
		return nil, runError(name, err)
	}
	// wazero leaves the upper half of an i32 result undefined.
	for k, t := range fn.Definition().ResultTypes() {
		if t == api.ValueTypeI32 || t == api.ValueTypeF32 {
			res[k] = uint64(uint32(res[k]))
		}
	}
	return res, nil
}

func (i *wazeroInstance) close(ctx context.Context) error { return i.mod.Close(ctx) }

// runError classifies how a guest call ended.
func runError(name string, err error) error {
	// wazero reports a done context as reserved exit codes, which a guest
	// can also pass to proc_exit: they stay exit codes here, and the caller
	// (ctxErr) turns them into ErrTimeout or ErrCanceled only when the
	// call's context really is done. An exit with code 0 is an exit too:
	// the module is closed, whatever the code (Plugin.Run makes it a
	// Result).
	var ee *sys.ExitError
	if errors.As(err, &ee) {
		return &ExitError{Code: ee.ExitCode()}
	}
	return wazeroTrap(name, err.Error())
}
