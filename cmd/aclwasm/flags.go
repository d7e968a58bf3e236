package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
)

// sandboxFlags are the flags of run (engine, backend, policy); check takes
// the few that bear on its verdict (registerCheck).
type sandboxFlags struct {
	fs                            *pflag.FlagSet
	simTiming, simPacing          bool
	checkAsync                    bool
	engine, backend, aclLib, chip string
	cacheDir                      string
	devices                       int
	simMemory                     string
	deviceMap                     string
	deviceMemory, pinnedMemory    string
	maxAllocs, maxRegs            int
	maxStreams, maxEvents         int
	maxQueued                     int
	maxBatchEntries               int
	maxCallbacks, maxCbDepth      int
	maxCallBytes                  string
	memoryPages                   uint32
	timeout                       time.Duration
	compileTimeout                time.Duration
	allow, deny                   []string
	kernels                       []string           // kernel sets or kernels granted (kernels.go)
	kernelFiles                   []string           // kernels files, each a set (kernels.go)
	fileSets                      []*host.KernelFile // kernelFiles read, once
	allowInitConfig               bool               // deprecated: the default since ABI v1.2
	refuseInitConfig              bool
	maxTableEntries               uint64
	maxStackBytes                 string
	plainHTTP                     bool // for plugins pulled from registries (oci://)
	models                        []string
	allowGuestModels              bool
	mounts                        []string
	maxFileRead, maxFileWrite     string
	maxOpenFiles                  int
	maxMountBytes                 string
}

// Values of the enum flags, for their checks, help and shell completion.
var (
	engineNames  = []string{"wazero", "wasmtime"}
	backendNames = []string{"sim", "cann"}
	chipNames    = []string{"a2", "a3", "950"}
	chips        = map[string]sim.Chip{"a2": sim.AtlasA2, "a3": sim.AtlasA3, "950": sim.Ascend950}
)

// completeValues completes a flag with fixed values, never file names.
func completeValues(c *cobra.Command, flag string, values []string) {
	_ = c.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}

// registerEngine registers the flags run and check share.
func (f *sandboxFlags) registerEngine(c *cobra.Command) {
	f.fs = c.Flags()
	fl := c.Flags()
	fl.StringVar(&f.engine, "engine", "wazero", "wasm engine: wazero, or wasmtime (needs a build with -tags wasmtime)")
	fl.StringVar(&f.cacheDir, "cache-dir", "", "keep compiled modules in this directory, so later runs skip compilation (wazero; run, call and serve default to the user's cache directory's aclwasm, '' turns it off)")
	fl.StringSliceVar(&f.allow, "allow", nil, "functions the plugin may import (default all)")
	fl.StringSliceVar(&f.deny, "deny", nil, "functions the plugin may not import")
	fl.StringSliceVar(&f.kernels, "kernels", nil, "kernel sets (or single kernels of them) the plugin may launch: "+strings.Join(kernelSetNames(), ", ")+", or the set of a --kernel-file")
	fl.StringArrayVar(&f.kernelFiles, "kernel-file", nil, "register the kernels a kernels file declares (YAML: a set name, and each kernel's name, native binary, entry and parameters; docs/EMBEDDING.md) as its set, which --kernels or a manifest's policy.kernels grants: they run on --backend cann, and the simulator fails their launches with 207000 (repeatable)")
	fl.Uint32Var(&f.memoryPages, "memory-pages", host.DefaultMemoryPages, "guest linear memory limit in 64 KiB pages")
	fl.DurationVar(&f.compileTimeout, "compile-timeout", host.DefaultCompileTimeout, "compiling the module may take this long, else it is refused")
	completeValues(c, "engine", engineNames)
	completeValues(c, "kernels", kernelSetNames())
	_ = c.MarkFlagFilename("kernel-file", "yaml", "yml")
	_ = c.MarkFlagDirname("cache-dir")
	abiNames := make([]string, len(abi.Funcs))
	for i, fn := range abi.Funcs {
		abiNames[i] = fn.Name
	}
	completeValues(c, "allow", abiNames)
	completeValues(c, "deny", abiNames)
	c.ValidArgsFunction = func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return []string{"wasm"}, cobra.ShellCompDirectiveFilterFileExt
		}
		return nil, cobra.ShellCompDirectiveDefault // the guest's arguments
	}
}

// registerCheck registers check's flags: those that change its verdict.
func (f *sandboxFlags) registerCheck(c *cobra.Command) { f.registerEngine(c) }

// register registers run's flags.
func (f *sandboxFlags) register(c *cobra.Command) {
	f.registerEngine(c)
	fl := c.Flags()
	fl.StringVar(&f.backend, "backend", "sim", "runtime backend: sim (embedded simulated device) or cann (libascendcl.so)")
	fl.StringVar(&f.aclLib, "acl-lib", "", "path of libascendcl.so for --backend cann (default: $ACLWASM_ACL_LIB, the loader path, $ASCEND_HOME_PATH/lib64)")
	fl.StringVar(&f.chip, "chip", "a2", "simulated chip rules: a2, a3 or 950 (--backend sim)")
	fl.IntVar(&f.devices, "devices", 2, "simulated devices (--backend sim)")
	fl.StringVar(&f.simMemory, "sim-memory", "32GiB", "memory of each simulated device (--backend sim)")
	fl.BoolVar(&f.checkAsync, "check-async", false, "check the plugin's asynchronous copies into and from registered memory: their destination reads 0xCD bytes until a synchronize covers them, their source must not change until then, and each must be waited for before the call returns; a run with mistakes exits 123 and lists them")
	fl.BoolVar(&f.simTiming, "sim-timing", false, "model the chip's link bandwidths and launch latency on a virtual clock: events and waits show the chip's times, the same on any machine (--backend sim)")
	fl.BoolVar(&f.simPacing, "sim-pacing", false, "--sim-timing, and the wall clock waits for the modeled times too (--backend sim)")
	completeValues(c, "backend", backendNames)
	completeValues(c, "chip", chipNames)
	_ = c.MarkFlagFilename("acl-lib", "so", "dylib")
	fl.StringVar(&f.deviceMap, "device-map", "", "physical devices the guest sees as 0, 1, ... (comma-separated; default all)")
	fl.StringVar(&f.deviceMemory, "device-memory", "1GiB", "device memory quota per device")
	fl.StringVar(&f.pinnedMemory, "pinned-memory", "256MiB", "registered (pinned) guest memory quota")
	fl.IntVar(&f.maxAllocs, "max-allocations", host.DefaultMaxAllocations, "device allocations held at once")
	fl.IntVar(&f.maxRegs, "max-registrations", host.DefaultMaxRegistrations, "registered ranges held at once")
	fl.IntVar(&f.maxStreams, "max-streams", host.DefaultMaxStreams, "streams held at once")
	fl.IntVar(&f.maxEvents, "max-events", host.DefaultMaxEvents, "events held at once")
	fl.IntVar(&f.maxQueued, "max-queued", host.DefaultMaxQueued, "operations queued on one stream")
	fl.IntVar(&f.maxBatchEntries, "max-batch-entries", host.DefaultMaxBatchEntries, "entries of queued asynchronous batch copies, over all streams")
	fl.IntVar(&f.maxCallbacks, "max-callbacks", host.DefaultMaxCallbacks, "stream callbacks launched and not yet run")
	fl.IntVar(&f.maxCbDepth, "max-callback-depth", host.DefaultMaxCallbackDepth, "how deeply stream callbacks nest (aclrtProcessReport inside a callback)")
	fl.StringVar(&f.maxCallBytes, "max-call-bytes", "1GiB", "bytes one host call may move or set (a batch's entries summed)")
	fl.DurationVar(&f.timeout, "timeout", host.DefaultTimeout, "run timeout, blocking host calls included")
	fl.Uint64Var(&f.maxTableEntries, "max-table-entries", host.DefaultMaxTableEntries, "entries of the guest's tables together (table.grow past it returns -1)")
	fl.StringVar(&f.maxStackBytes, "max-stack-bytes", "8MiB", "guest call stack limit, in estimated frame bytes (a call past it traps)")
	fl.BoolVar(&f.plainHTTP, "plain-http", false, "pull oci:// plugins in plain HTTP even from a registry not on this machine (loopback ones always are)")
	fl.BoolVar(&f.allowInitConfig, "allow-init-config", false, "deprecated: aclInit with a configuration file's path succeeds by default (no file is opened)")
	_ = fl.MarkDeprecated("allow-init-config", "aclInit with a configuration file's path succeeds by default; --refuse-init-config refuses it")
	fl.BoolVar(&f.refuseInitConfig, "refuse-init-config", false, "make aclInit with a configuration file's path give 100003, as before ABI v1.2 (by default it succeeds and no file is opened)")
	fl.StringArrayVar(&f.models, "model", nil, "NAME=FILE: approve the model in FILE as NAME, which the guest loads with aclmdlLoadFromFile(NAME) (ONNX on --backend sim, .om on cann; repeatable)")
	fl.BoolVar(&f.allowGuestModels, "allow-guest-models", false, "let the guest load models it supplies itself (aclmdlLoadFromMem; --backend sim only)")
	fl.StringArrayVar(&f.mounts, "mount", nil, "let the guest see host directory HOSTDIR at GUESTDIR, read-only unless :rw (HOSTDIR:GUESTDIR[:rw], repeatable); without it the guest has no filesystem")
	fl.StringVar(&f.maxFileRead, "max-file-read-bytes", "1GiB", "bytes a run may read from mounted files (a read past it fails with EFBIG)")
	fl.StringVar(&f.maxFileWrite, "max-file-write-bytes", "256MiB", "bytes a run may write to mounted files (a write past it fails with EFBIG and writes nothing)")
	fl.IntVar(&f.maxOpenFiles, "max-open-files", host.DefaultMaxOpenFiles, "files and directories of the mounts open at once (EMFILE above)")
	fl.StringVar(&f.maxMountBytes, "max-mount-bytes", "0", "size of the files each writable mount may hold, what it held before included (ENOSPC above; 0: no bound; wazero only)")
	_ = c.MarkFlagDirname("mount")
}

func (f *sandboxFlags) policy() (host.Policy, error) {
	p := host.Policy{
		MaxAllocations: f.maxAllocs, MaxRegistrations: f.maxRegs, MaxStreams: f.maxStreams,
		MaxEvents: f.maxEvents, MaxQueued: f.maxQueued, MaxBatchEntries: f.maxBatchEntries, MemoryPages: f.memoryPages,
		MaxCallbacks: f.maxCallbacks, MaxCallbackDepth: f.maxCbDepth,
		Timeout: f.timeout, CompileTimeout: f.compileTimeout, Allow: f.allow, Deny: f.deny, RefuseInitConfig: f.refuseInitConfig,
		Kernels: f.kernels,
	}
	if err := f.checkKernelGrants(f.kernels); err != nil {
		return p, err
	}
	if f.allowInitConfig && f.refuseInitConfig {
		return p, fmt.Errorf("--allow-init-config (deprecated: the default) and --refuse-init-config contradict each other")
	}
	var err error
	if p.DeviceMemory, err = parseBytes(f.deviceMemory); err != nil {
		return p, fmt.Errorf("--device-memory: %w", err)
	}
	if p.PinnedMemory, err = parseBytes(f.pinnedMemory); err != nil {
		return p, fmt.Errorf("--pinned-memory: %w", err)
	}
	if p.MaxCallBytes, err = parseBytes(f.maxCallBytes); err != nil {
		return p, fmt.Errorf("--max-call-bytes: %w", err)
	}
	if p.MaxCallBytes == 0 {
		return p, fmt.Errorf("--max-call-bytes %q: want more than 0", f.maxCallBytes)
	}
	if p.MaxStackBytes, err = parseBytes(f.maxStackBytes); err != nil {
		return p, fmt.Errorf("--max-stack-bytes: %w", err)
	}
	if p.MaxStackBytes == 0 {
		return p, fmt.Errorf("--max-stack-bytes %q: want more than 0", f.maxStackBytes)
	}
	if p.MaxTableEntries = f.maxTableEntries; p.MaxTableEntries == 0 {
		return p, fmt.Errorf("--max-table-entries 0: want at least 1")
	}
	// In a Policy, 0 means the default: a limit of 0 given here would
	// silently become the default limit, so it is refused.
	if p.DeviceMemory == 0 {
		return p, fmt.Errorf("--device-memory %q: want more than 0 (to give a plugin no device memory, --deny aclrtMalloc)", f.deviceMemory)
	}
	if p.PinnedMemory == 0 {
		return p, fmt.Errorf("--pinned-memory %q: want more than 0 (to refuse pinning, --deny aclrtHostRegister)", f.pinnedMemory)
	}
	for _, l := range []struct {
		flag string
		v    int
	}{{"max-allocations", f.maxAllocs}, {"max-registrations", f.maxRegs}, {"max-streams", f.maxStreams}, {"max-events", f.maxEvents}, {"max-queued", f.maxQueued}, {"max-batch-entries", f.maxBatchEntries}, {"max-callbacks", f.maxCallbacks}, {"max-callback-depth", f.maxCbDepth}} {
		if l.v < 1 {
			return p, fmt.Errorf("--%s %d: want at least 1", l.flag, l.v)
		}
	}
	if f.memoryPages < 1 {
		return p, fmt.Errorf("--memory-pages %d: want at least 1", f.memoryPages)
	}
	if f.timeout <= 0 {
		return p, fmt.Errorf("--timeout %v: want a positive duration", f.timeout)
	}
	if err := f.checkCompileTimeout(); err != nil {
		return p, err
	}
	p.AllowGuestModels = f.allowGuestModels
	for _, m := range f.models {
		name, file, ok := strings.Cut(m, "=")
		if !ok || name == "" || file == "" {
			return p, fmt.Errorf("--model %q: want NAME=FILE", m)
		}
		if _, dup := p.Models[name]; dup {
			return p, fmt.Errorf("--model %q: model %q is approved twice", m, name)
		}
		if p.Models == nil {
			p.Models = map[string]string{}
		}
		p.Models[name] = file
	}
	if err := f.mountPolicy(&p); err != nil {
		return p, err
	}
	if f.deviceMap != "" {
		for _, s := range strings.Split(f.deviceMap, ",") {
			d, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
			if err != nil {
				return p, fmt.Errorf("--device-map %q: %q is not a device number", f.deviceMap, strings.TrimSpace(s))
			}
			p.Devices = append(p.Devices, int32(d))
		}
	}
	return p, nil
}

// mountPolicy sets p's mounts and file limits from the flags.
func (f *sandboxFlags) mountPolicy(p *host.Policy) error {
	for _, s := range f.mounts {
		m, err := host.ParseMount(s)
		if err != nil {
			return fmt.Errorf("--mount: %w", err)
		}
		p.Mounts = append(p.Mounts, m)
	}
	var err error
	if p.MaxFileReadBytes, err = parseBytes(f.maxFileRead); err != nil {
		return fmt.Errorf("--max-file-read-bytes: %w", err)
	}
	if p.MaxFileWriteBytes, err = parseBytes(f.maxFileWrite); err != nil {
		return fmt.Errorf("--max-file-write-bytes: %w", err)
	}
	if p.MaxMountBytes, err = parseBytes(f.maxMountBytes); err != nil {
		return fmt.Errorf("--max-mount-bytes: %w", err)
	}
	// 0 would silently mean the default in a Policy.
	if p.MaxFileReadBytes == 0 {
		return fmt.Errorf("--max-file-read-bytes %q: want more than 0 (to read no file, mount none)", f.maxFileRead)
	}
	if p.MaxFileWriteBytes == 0 {
		return fmt.Errorf("--max-file-write-bytes %q: want more than 0 (to write no file, mount read-only)", f.maxFileWrite)
	}
	if f.maxOpenFiles < 1 {
		return fmt.Errorf("--max-open-files %d: want at least 1", f.maxOpenFiles)
	}
	p.MaxOpenFiles = f.maxOpenFiles
	return nil
}

// checkCompileTimeout refuses a --compile-timeout that is not positive: in
// a Policy, 0 would silently mean the default.
func (f *sandboxFlags) checkCompileTimeout() error {
	if f.compileTimeout <= 0 {
		return fmt.Errorf("--compile-timeout %v: want a positive duration", f.compileTimeout)
	}
	return nil
}

// sandbox reads the module at path (or pulls it: oci://...) and opens what run needs: the policy,
// the backend and a runtime over it, with opts added. Errors are host
// errors (exit 126); done releases the runtime and the backend. desc says
// which engine and backend these are, for --stats.
func (f *sandboxFlags) sandbox(ctx context.Context, path string, opts ...host.Option) (wasm []byte, p host.Policy, rt *host.Runtime, done func(), desc string, err error) {
	fail := func(err error) ([]byte, host.Policy, *host.Runtime, func(), string, error) {
		return nil, p, nil, nil, "", &exitError{exitHost, err}
	}
	if wasm, err = f.readModule(ctx, path); err != nil {
		return nil, p, nil, nil, "", err
	}
	if p, err = f.policy(); err != nil {
		return fail(err)
	}
	b, desc, err := f.openBackend()
	if err != nil {
		return fail(err)
	}
	desc = "engine " + f.engine + ", backend " + desc
	base := []host.Option{host.WithBackend(b), host.WithEngine(f.engine)}
	if f.checkAsync {
		base = append(base, host.WithCheckAsync())
	}
	rt, err = f.newRuntime(ctx, base, opts...)
	if err != nil {
		b.Close()
		return fail(err)
	}
	return wasm, p, rt, func() { rt.Close(ctx); b.Close() }, desc, nil
}

// loadPlugin opens the sandbox for the plugin at path, or for the one
// the manifest m describes (its path and policy), and loads it; with
// stats it first prints the engine and backend to w. done closes the
// plugin, the runtime and the backend. Load errors are classified.
func (f *sandboxFlags) loadPlugin(ctx context.Context, m *host.Manifest, path string, stats bool, w io.Writer, opts ...host.Option) (pl *host.Plugin, done func(), err error) {
	if m != nil {
		path = m.Path
	}
	if err := f.checkNames(); err != nil {
		return nil, nil, err
	}
	wasm, p, rt, closeRT, desc, err := f.sandbox(ctx, path, opts...)
	if err != nil {
		return nil, nil, err
	}
	if stats {
		fmt.Fprintln(w, desc)
	}
	if m != nil {
		pl, err = m.Load(ctx, rt)
	} else {
		pl, err = rt.Load(ctx, wasm, p)
	}
	if err != nil {
		closeRT()
		return nil, nil, classify(err)
	}
	return pl, func() { pl.Close(ctx); closeRT() }, nil
}

// openBackend returns the backend the flags select, and a description of
// it; the caller closes it. A flag of the other backend is an error.
func (f *sandboxFlags) openBackend() (acl.Backend, string, error) {
	simFlags := []string{"chip", "devices", "sim-memory", "sim-timing", "sim-pacing"}
	switch f.backend {
	case "sim":
		if f.fs.Changed("acl-lib") {
			return nil, "", errors.New("--acl-lib applies only to --backend cann")
		}
		chip, ok := chips[strings.ToLower(f.chip)]
		if !ok {
			return nil, "", fmt.Errorf("--chip %q: want a2, a3 or 950", f.chip)
		}
		mem, err := parseBytes(f.simMemory)
		if err != nil {
			return nil, "", fmt.Errorf("--sim-memory: %w", err)
		}
		if mem == 0 {
			return nil, "", fmt.Errorf("--sim-memory %q: want more than 0", f.simMemory)
		}
		if f.devices < 1 {
			return nil, "", fmt.Errorf("--devices %d: want at least 1", f.devices)
		}
		opts := []sim.Option{sim.WithDevices(f.devices), sim.WithMemory(mem), sim.WithChip(chip)}
		desc := fmt.Sprintf("sim (chip %s, %d devices of %s", strings.ToLower(f.chip), f.devices, f.simMemory)
		switch {
		case f.simPacing:
			opts = append(opts, sim.WithPacing())
			desc += ", timing model paced"
		case f.simTiming:
			opts = append(opts, sim.WithTiming())
			desc += ", timing model"
		}
		return sim.New(opts...), desc + ")", nil
	case "cann":
		for _, n := range simFlags {
			if f.fs.Changed(n) {
				return nil, "", fmt.Errorf("--%s applies only to --backend sim", n)
			}
		}
		b, err := openCANN(f.aclLib)
		if err != nil {
			return nil, "", err
		}
		desc := "cann"
		if p, ok := b.(interface{ Path() string }); ok {
			desc += " (" + p.Path() + ")"
		}
		return b, desc, nil
	}
	return nil, "", fmt.Errorf("--backend %q: want sim or cann", f.backend)
}

// parseBytes reads a byte count such as 4096, 64KiB, 256MiB or 1GiB.
func parseBytes(s string) (uint64, error) {
	units := []struct {
		suffix string
		mult   uint64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}}
	num, mult := s, uint64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			num, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseUint(strings.TrimSpace(num), 10, 64)
	if errors.Is(err, strconv.ErrRange) || err == nil && n > ^uint64(0)/mult {
		return 0, fmt.Errorf("%q overflows 64 bits", s)
	}
	if err != nil {
		return 0, fmt.Errorf("%q is not a byte count (like 4096, 64KiB, 1GiB)", s)
	}
	return n * mult, nil
}

// cache returns the compilation cache directory of run, call and serve:
// --cache-dir when given ("" turns the cache off), else, on wazero, the
// user's cache directory's aclwasm (os.UserCacheDir), where later runs of
// the same plugin skip compilation. isDefault says it is the default,
// which newRuntime does without when it cannot be used.
func (f *sandboxFlags) cache() (dir string, isDefault bool) {
	if f.fs != nil && f.fs.Changed("cache-dir") {
		return f.cacheDir, false
	}
	if f.engine != "wazero" {
		return "", false // only wazero keeps compiled modules on disk
	}
	user, err := os.UserCacheDir()
	if err != nil {
		return "", false
	}
	return filepath.Join(user, "aclwasm"), true
}

// newRuntime makes the runtime of run, call and serve with base and opts,
// and the compilation cache of cache. A default cache that cannot be used
// (unsafe permissions, a read-only home) is left out with a warning on
// stderr instead of failing the command; a --cache-dir given is an error.
func (f *sandboxFlags) newRuntime(ctx context.Context, base []host.Option, opts ...host.Option) (*host.Runtime, error) {
	kopts, err := f.kernelOptions()
	if err != nil {
		return nil, err
	}
	all := append(append(base, kopts...), opts...)
	dir, isDefault := f.cache()
	if dir == "" {
		return host.NewRuntime(ctx, all...)
	}
	rt, err := host.NewRuntime(ctx, append(all, host.WithCacheDir(dir))...)
	if err != nil && isDefault {
		fmt.Fprintf(os.Stderr, "aclwasm: warning: the default compilation cache is not used: %v (--cache-dir '' turns it off)\n", err)
		return host.NewRuntime(ctx, all...)
	}
	return rt, err
}
