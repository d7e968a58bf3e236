package host

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/host/internal/module"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

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
	if err == nil {
		err = p.checkMountsOn(r.engineName)
	}
	if err == nil {
		p.HostFuncs = slices.Concat(p.HostFuncs, lc.hostFuncs)
		err = r.checkGrants(p.HostFuncs)
	}
	var kernels map[string]*kernel
	if err == nil {
		kernels, err = r.grantedKernels(p.Kernels)
	}
	if err != nil {
		return nil, fmt.Errorf("host: %w", err)
	}
	mi, scanErr := module.Scan(wasm)
	kl := r.bindLaunchers(wasm, moduleProfile(mi), kernels)
	mod, em, err := r.compileChecked(ctx, kl.apply(wasm), mi, &p)
	var le *LoadError
	switch {
	case errors.As(err, &le):
		r.metrics.refused(lc.name)
		return nil, err
	case err != nil:
		return nil, err
	}
	imps := mod.Imports()
	probs := append(r.checkModule(imps, mi, scanErr, &p, &kl), checkDispatcher(imps, wasm)...) // stream callbacks: callback_load.go
	if len(probs) > 0 {
		mod.Close(ctx)
		r.metrics.refused(lc.name)
		return nil, &LoadError{Problems: probs}
	}
	nk, err := r.loadNativeKernels(kernels) // kernelnative.go
	if err != nil {
		mod.Close(ctx)
		return nil, fmt.Errorf("host: %w", err)
	}
	pl := &Plugin{rt: r, mod: mod, start: em.Start, policy: p, kernels: sandboxKernels(kernels), native: nk, profile: profileOf(imps), name: lc.name, exports: module.FuncExports(wasm), m: r.metrics.plugin(lc.name), live: map[*Instance]struct{}{}}
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
		defer r.compiles.Done()
		defer r.liveCompiles.Add(-1) // first: Close's Wait then sees 0
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
	mod, err := r.compile(ctx, engine.Module{Wasm: module.SanitizeNames(wasm)}, timeout) // a name section whose lengths wazero would allocate dropped
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

// ImportStatus is one import of a module and how Load judges it.
type ImportStatus struct {
	// Module and Name are the guest's names as Load's messages show
	// them: escaped, and shortened past module.MaxNameBytes.
	Module, Name string
	Kind         string // "function", "table", "memory", "global" or "tag"
	Signature    string // a function's, as abi.Func.Signature writes it; "" for other kinds
	// Status says in a few words what the host makes of the import: "ok"
	// (a function of the ABI the policy allows), "WASI preview1" or
	// "host function" when Load accepts it; else why it refuses it:
	// "denied by the policy", "not a function of ABI v1", "signature
	// mismatch: expects ...", "not a function of WASI preview1", "not a
	// function of host module", "not granted to the plugin", "unknown
	// module" or "not a function".
	Status string
	// Problem is Load's message refusing the import; "" when it accepts it.
	Problem string
}

// Imports returns each import of wasm as Load judges it under p and opts
// (see ImportStatus), from the same check: the functions first, in the
// module's order, then the other kinds. A module refused before its
// imports are checked (compile limits, a compilation that fails) gives a
// *LoadError; problems that are no import's (memory size, two profiles,
// the stream-callback dispatcher) are Check's.
func (r *Runtime) Imports(ctx context.Context, wasm []byte, p Policy, opts ...LoadOption) ([]ImportStatus, error) {
	if err := r.enterLoad(); err != nil {
		return nil, err
	}
	defer r.loads.Done()
	p, err := p.withDefaults(r.backend.DeviceCount())
	if err == nil {
		p.HostFuncs = slices.Concat(p.HostFuncs, loadOptions(opts).hostFuncs)
		err = r.checkGrants(p.HostFuncs)
	}
	var kernels map[string]*kernel
	if err == nil {
		kernels, err = r.grantedKernels(p.Kernels)
	}
	if err != nil {
		return nil, fmt.Errorf("host: %w", err)
	}
	mi, scanErr := module.Scan(wasm)
	kl := r.bindLaunchers(wasm, moduleProfile(mi), kernels)
	mod, _, err := r.compileChecked(ctx, kl.apply(wasm), mi, &p)
	if err != nil {
		return nil, err
	}
	defer mod.Close(ctx)
	return r.importStatuses(mod.Imports(), mi, scanErr, &p, &kl), nil
}

// compileChecked compiles wasm prepared for any engine (prepare) once it
// is within the policy's compile limits and declares no length longer
// than its bytes (which wazero would allocate before reading: a decode
// bomb); a refusal is a *LoadError.
func (r *Runtime) compileChecked(ctx context.Context, wasm []byte, mi module.Info, p *Policy) (engine.Compiled, engine.Module, error) {
	if probs := module.Lengths(module.SanitizeNames(wasm)); len(probs) > 0 { // a name section the engines ignore dropped first
		return nil, engine.Module{}, &LoadError{Problems: probs}
	}
	if probs := module.CompileLimits(len(wasm), mi.Code, p.compileLimits()); len(probs) > 0 {
		return nil, engine.Module{}, &LoadError{Problems: probs}
	}
	em, probs := prepare(wasm, p)
	if len(probs) > 0 {
		return nil, em, &LoadError{Problems: r.compileProblems(ctx, wasm, probs, p.CompileTimeout)}
	}
	mod, err := r.compile(ctx, em, p.CompileTimeout)
	return mod, em, err
}

// importStatuses judges each import: imps, the functions with their
// signatures (the engine's), then the other kinds of mi's when the scan
// succeeded. checkModule builds Load's problems from it.
func (r *Runtime) importStatuses(imps []engine.Import, mi module.Info, scanErr error, p *Policy, kl *launchers) []ImportStatus {
	out := make([]ImportStatus, 0, len(mi.Imports))
	for _, im := range imps {
		// The guest's names, as messages show them: escaped and short.
		mn, nn := module.ShortName(im.Module), module.ShortName(im.Name)
		st := ImportStatus{Module: mn, Name: nn, Kind: "function", Signature: im.Signature}
		bad := func(status, format string, args ...any) {
			st.Status, st.Problem = status, fmt.Sprintf("import %s.%s ", mn, nn)+fmt.Sprintf(format, args...)
		}
		switch im.Module {
		case abi.Module, abi.Module32:
			prof, _ := abi.ProfileOf(im.Module)
			f := abi.Lookup(im.Name)
			switch {
			case f == nil:
				bad(fmt.Sprintf("not a function of ABI v%d", abi.Version), "is not a function of ABI v%d", abi.Version)
			case im.Signature != f.SignatureIn(prof):
				bad("signature mismatch: expects "+f.SignatureIn(prof), "has signature %s, ABI v%d expects %s", im.Signature, abi.Version, f.SignatureIn(prof))
			case !p.allows(im.Name):
				bad("denied by the policy", "is denied by the policy")
			default:
				st.Status = "ok"
			}
		case sandbox.KernelModule:
			if orig, ok := kl.orig[im.Name]; ok {
				st.Module, st.Name, st.Status = launcherModule, orig, "kernel launcher"
				break
			}
			bad("reserved module", "is refused: module %q is the host's own", im.Module)
		case wasiModule:
			sig, ok := wasiFuncs[im.Name]
			switch {
			case !ok:
				bad("not a function of WASI preview1", "is not a function of WASI preview1")
			case im.Signature != sig:
				bad("signature mismatch: expects "+sig, "has signature %s, WASI preview1 expects %s", im.Signature, sig)
			default:
				st.Status = "WASI preview1"
			}
		default:
			h := r.lookupHost(im.Module, im.Name)
			if msg, ok := kl.failed[[2]string{im.Module, im.Name}]; ok {
				st.Status, st.Problem = "no matching kernel", msg
				break
			}
			switch {
			case h != nil && im.Signature != h.Signature():
				bad("signature mismatch: expects "+h.Signature(), "has signature %s, the host function has %s", im.Signature, h.Signature())
			case h != nil && !r.granted(p.HostFuncs, h):
				bad("not granted to the plugin", "is denied: not granted to the plugin (Policy.HostFuncs, LoadHostFuncs)")
			case h == nil && slices.Contains(r.hostModules(), im.Module):
				bad("not a function of host module", "is not a function of host module %q", im.Module)
			case h == nil:
				st.Status = "unknown module"
				st.Problem = fmt.Sprintf("import %s.%s: module %q is not provided (only %q, %q, wasi_snapshot_preview1 and %s)", mn, nn, im.Module, abi.Module, abi.Module32, strings.Join(r.hostModules(), ", "))
			default:
				st.Status = "host function"
			}
		}
		out = append(out, st)
	}
	if scanErr != nil {
		return out
	}
	for _, im := range mi.Imports {
		if im.Kind != 0 {
			mn, nn := module.ShortName(im.Module), module.ShortName(im.Name)
			out = append(out, ImportStatus{Module: mn, Name: nn, Kind: im.KindName(), Status: "not a function",
				Problem: fmt.Sprintf("import %s.%s is a %s: the host provides only functions", mn, nn, im.KindName())})
		}
	}
	return out
}

// checkModule returns the reasons to refuse a module: its imports'
// (importStatuses) and its own.
func (r *Runtime) checkModule(imps []engine.Import, mi module.Info, scanErr error, p *Policy, kl *launchers) []string {
	sts := r.importStatuses(imps, mi, scanErr, p, kl)
	var probs []string
	for _, st := range sts[:len(imps)] {
		if st.Problem != "" {
			probs = append(probs, st.Problem)
		}
	}
	var first [2]string // the first import from each profile, "module.name"
	for _, im := range imps {
		if prof, ok := abi.ProfileOf(im.Module); ok && first[prof] == "" {
			first[prof] = module.ShortName(im.Module) + "." + module.ShortName(im.Name)
		}
	}
	if first[abi.Wide] != "" && first[abi.Native32] != "" {
		probs = append(probs, fmt.Sprintf("the module imports from both %q (%s) and %q (%s): a module uses one profile, the wide one or the native 32-bit layout, never both (ABI section 9)", abi.Module, first[abi.Wide], abi.Module32, first[abi.Native32]))
	}
	if scanErr != nil {
		return append(probs, scanErr.Error())
	}
	for _, st := range sts[len(imps):] {
		probs = append(probs, st.Problem)
	}
	if mi.HasMemory && mi.MinPages > uint64(p.MemoryPages) {
		probs = append(probs, fmt.Sprintf("memory needs %d pages at start, the policy allows %d", mi.MinPages, p.MemoryPages))
	}
	return probs
}

// LoadOption configures one Load.
type LoadOption func(*loadConfig)

type loadConfig struct {
	name      string
	hostFuncs []string // LoadHostFuncs
}

// LoadName names the plugin in metrics (the "plugin" label). Keep names
// few: each is a set of series.
func LoadName(name string) LoadOption { return func(c *loadConfig) { c.name = name } }

func loadOptions(opts []LoadOption) loadConfig {
	var c loadConfig
	for _, o := range opts {
		o(&c)
	}
	return c
}

// wasiModule is the WASI module the host provides besides "acl".
const wasiModule = "wasi_snapshot_preview1"

// wasiFuncs are the functions of WASI preview1 with their signatures, as
// abi.Func.Signature writes them: what both engines provide (wazero's
// wasi_snapshot_preview1 package, wasmtime's WASI with the adapter's own
// stdio and poll_oneoff), and so what Load lets a module import from
// wasiModule. A module importing anything else from it, or one of these
// with another signature, is refused at load time instead of failing to
// link when it is instantiated. TestWASITable holds both engines to it.
var wasiFuncs = map[string]string{
	"args_get":                "(i32, i32) -> i32",
	"args_sizes_get":          "(i32, i32) -> i32",
	"clock_res_get":           "(i32, i32) -> i32",
	"clock_time_get":          "(i32, i64, i32) -> i32",
	"environ_get":             "(i32, i32) -> i32",
	"environ_sizes_get":       "(i32, i32) -> i32",
	"fd_advise":               "(i32, i64, i64, i32) -> i32",
	"fd_allocate":             "(i32, i64, i64) -> i32",
	"fd_close":                "(i32) -> i32",
	"fd_datasync":             "(i32) -> i32",
	"fd_fdstat_get":           "(i32, i32) -> i32",
	"fd_fdstat_set_flags":     "(i32, i32) -> i32",
	"fd_fdstat_set_rights":    "(i32, i64, i64) -> i32",
	"fd_filestat_get":         "(i32, i32) -> i32",
	"fd_filestat_set_size":    "(i32, i64) -> i32",
	"fd_filestat_set_times":   "(i32, i64, i64, i32) -> i32",
	"fd_pread":                "(i32, i32, i32, i64, i32) -> i32",
	"fd_prestat_dir_name":     "(i32, i32, i32) -> i32",
	"fd_prestat_get":          "(i32, i32) -> i32",
	"fd_pwrite":               "(i32, i32, i32, i64, i32) -> i32",
	"fd_read":                 "(i32, i32, i32, i32) -> i32",
	"fd_readdir":              "(i32, i32, i32, i64, i32) -> i32",
	"fd_renumber":             "(i32, i32) -> i32",
	"fd_seek":                 "(i32, i64, i32, i32) -> i32",
	"fd_sync":                 "(i32) -> i32",
	"fd_tell":                 "(i32, i32) -> i32",
	"fd_write":                "(i32, i32, i32, i32) -> i32",
	"path_create_directory":   "(i32, i32, i32) -> i32",
	"path_filestat_get":       "(i32, i32, i32, i32, i32) -> i32",
	"path_filestat_set_times": "(i32, i32, i32, i32, i64, i64, i32) -> i32",
	"path_link":               "(i32, i32, i32, i32, i32, i32, i32) -> i32",
	"path_open":               "(i32, i32, i32, i32, i32, i64, i64, i32, i32) -> i32",
	"path_readlink":           "(i32, i32, i32, i32, i32, i32) -> i32",
	"path_remove_directory":   "(i32, i32, i32) -> i32",
	"path_rename":             "(i32, i32, i32, i32, i32, i32) -> i32",
	"path_symlink":            "(i32, i32, i32, i32, i32) -> i32",
	"path_unlink_file":        "(i32, i32, i32) -> i32",
	"poll_oneoff":             "(i32, i32, i32, i32) -> i32",
	"proc_exit":               "(i32) -> ",
	"proc_raise":              "(i32) -> i32",
	"random_get":              "(i32, i32) -> i32",
	"sched_yield":             "() -> i32",
	"sock_accept":             "(i32, i32, i32) -> i32",
	"sock_recv":               "(i32, i32, i32, i32, i32, i32) -> i32",
	"sock_send":               "(i32, i32, i32, i32, i32) -> i32",
	"sock_shutdown":           "(i32, i32) -> i32",
}

// prepare makes a module ready for any engine: its tables bounded
// (module.BoundTables), the callback dispatcher exported without wasm-ld's
// command wrapper (module.UnwrapCommandExport), its names made safe to print
// (module.SanitizeNames), its stack bounded (module.BoundStack), its
// start function moved to an export (module.HoistStart) and its memory
// exported (module.MemoryExport). Problems are reasons to refuse the
// module.
func prepare(wasm []byte, p *Policy) (engine.Module, []string) {
	bin, probs := module.BoundTables(wasm, p.MaxTableEntries)
	bin = module.UnwrapCommandExport(bin, sandbox.DispatchExport) // stream callbacks: before BoundStack rewrites bodies
	bin = module.SanitizeNames(bin)
	bin, stack, err := module.BoundStack(bin, p.MaxStackBytes)
	if err != nil {
		return engine.Module{}, append(probs, err.Error())
	}
	bin, mem := module.MemoryExport(bin)
	bin, start := module.HoistStart(bin)
	return engine.Module{Wasm: bin, Start: start, Memory: mem, Stack: stack}, probs
}

// callbackLaunchers are the imports that queue a guest function on a
// stream (ABI section 12): a module importing one must export the SDK's
// dispatcher, through which the host runs the function on the guest's own
// thread.
var callbackLaunchers = []string{"aclrtLaunchHostFunc", "aclrtLaunchCallback"}

// checkDispatcher refuses a module that imports a callback launcher
// without exporting sandbox.DispatchExport, naming the SDK option that
// adds it, or with a dispatcher of another type than sandbox.DispatchType,
// naming both: otherwise its first callback could only fail or never run
// (one of (f64, f64) got the host's integers reinterpreted, silently).
func checkDispatcher(imps []engine.Import, wasm []byte) []string {
	var launcher string
	for _, im := range imps {
		if (im.Module == abi.Module || im.Module == abi.Module32) && slices.Contains(callbackLaunchers, im.Name) {
			launcher = module.ShortName(im.Module) + "." + im.Name
			break
		}
	}
	if launcher == "" {
		return nil
	}
	if !slices.Contains(module.FuncExports(wasm), sandbox.DispatchExport) {
		return []string{fmt.Sprintf("import %s needs the export %s %s, through which the host runs stream callbacks on the guest's thread: build the module with the SDK option %s", launcher, sandbox.DispatchExport, sandbox.DispatchSignature, sandbox.DispatchOption)}
	}
	if typ, ok := module.FuncExportType(wasm, sandbox.DispatchExport); ok && typ != sandbox.DispatchType {
		return []string{fmt.Sprintf("export %s has type %s: the host calls it as %s to run the callbacks of %s: build the module with the SDK option %s", sandbox.DispatchExport, typ, sandbox.DispatchSignature, launcher, sandbox.DispatchOption)}
	}
	return nil
}
