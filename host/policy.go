package host

import (
	"fmt"
	"maps"
	"os"
	"strings"
	"time"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/host/internal/module"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

// Policy is what one plugin may use. The zero value of each field means
// its default (DefaultPolicy), so callers set only what they restrict.
type Policy struct {
	// Devices maps the guest's device ids onto physical ones: guest device i
	// is physical Devices[i]. Empty means every physical device, in order.
	Devices []int32
	// DeviceMemory is the byte quota per device, counting native rounding
	// and padding. aclrtGetMemInfo reports it as the total.
	DeviceMemory uint64
	// PinnedMemory is the byte quota of registered guest memory.
	PinnedMemory uint64
	// MaxAllocations, MaxRegistrations, MaxStreams and MaxEvents limit how
	// many of each the session may hold at once (207012 above them).
	MaxAllocations   int
	MaxRegistrations int
	MaxStreams       int
	MaxEvents        int
	// MaxQueued limits the operations queued and not complete on one stream.
	MaxQueued int
	// MaxBatchEntries limits the entries of asynchronous batch copies queued
	// and not yet run, over all streams: the host memory they hold.
	MaxBatchEntries int
	// MaxCallbacks limits the stream callbacks launched and not yet run
	// (aclrtLaunchHostFunc, aclrtLaunchCallback: 207012 above it), and
	// MaxCallbackDepth how deeply they nest (a callback whose blocking
	// call or aclrtProcessReport runs others): at that depth
	// aclrtProcessReport fails with 207012 and other calls run none.
	MaxCallbacks     int
	MaxCallbackDepth int
	// MaxCallBytes limits the bytes one host call may move or set (a
	// batch's entries summed, a 2D copy's width times height, the count of
	// a descriptor when it is set): beyond it the call fails with 207012
	// before any effect. With the timeout it bounds what one call costs.
	MaxCallBytes uint64
	// Allow lists the functions of module "acl" the plugin may import.
	// Empty means all. A module importing any other is refused at load time.
	Allow []string
	// Deny lists functions the plugin may not import; it wins over Allow.
	Deny []string
	// HostFuncs grants the plugin the embedder's host functions named
	// ("module.name", or "module.*" for a module's), with LoadHostFuncs'.
	// Granted none, it may import those of WithHostFuncs, not those of
	// WithGrantedHostFuncs; granted any, only those.
	HostFuncs []string
	// Kernels grants the plugin the runtime's kernels named (WithKernels),
	// or every kernel of a set named (WithKernelSet): it may launch those
	// (ABI section 13.3), and Load refuses a module whose launcher imports
	// name any other. Granted none, it launches none.
	Kernels []string
	// MemoryPages limits the guest's linear memory, in 64 KiB pages.
	MemoryPages uint32
	// Timeout bounds a run or a call, host calls that block included.
	// NoTimeout disables it.
	Timeout time.Duration
	// CompileTimeout bounds the compilation of the module in Load (and
	// Check): neither engine can stop a compilation in progress, so a
	// module that compiles for longer is refused (a LoadError naming the
	// timeout) while the compilation finishes in the background and its
	// result is dropped. NoTimeout disables it; Load's context bounds it
	// too.
	CompileTimeout time.Duration
	// MaxModuleBytes, MaxFunctions, MaxFunctionBodyBytes (one body's
	// size), MaxLocals (declared by one function), MaxBlockDepth (the
	// nesting of blocks, loops, ifs and trys in one function) and
	// MaxBrTableTargets (of one br_table, its default included) are the
	// compile limits: Load refuses a module over any of them before
	// compiling it, since its compilation could take minutes (a LoadError
	// names the limit and the module's value).
	MaxModuleBytes       uint64
	MaxFunctions         int
	MaxFunctionBodyBytes uint64
	MaxLocals            int
	MaxBlockDepth        int
	MaxBrTableTargets    int
	// RefuseInitConfig makes aclInit with a configuration file's path
	// (aclInit("./acl.json"), as native programs call it) give 100003
	// ACL_ERROR_INVALID_FILE, as ABI v1.1 did. By default such a call
	// succeeds and the host opens no file: none of the native options
	// (dump, profiling, operator settings) has a meaning in the sandbox;
	// the trace and the plugin's log say that the file was ignored.
	RefuseInitConfig bool
	// AllowInitConfig is what let aclInit succeed with a path before ABI
	// v1.2, which made that the default. It has no effect; it stays so that
	// policies and manifests (allow_init_config) that set it keep working.
	// Setting it with RefuseInitConfig is a contradiction Validate refuses.
	//
	// Deprecated: the default now; use RefuseInitConfig for the old one.
	AllowInitConfig bool
	// MaxTableEntries limits the entries of the guest's tables together
	// (function tables: an entry is 8 to 16 bytes of host memory): a
	// module whose tables need more at start is refused at load time, and
	// table.grow past it returns -1.
	MaxTableEntries uint64
	// MaxStackBytes limits the guest's call stack, in estimated bytes: each
	// call in progress counts its function's frame as 64 bytes, plus 16
	// per parameter and local, plus 8 per byte of its code (more than
	// either engine's frame takes), and room is kept for one frame of a
	// function that calls none of the module's. A call that would pass it
	// traps (ErrTrap, reason "stack limit: ..."); wasmtime's own limit
	// (512 KiB of real stack) may come first. It bounds the host memory
	// of a runaway recursion, which wazero let grow to 400 MB per call.
	MaxStackBytes uint64
	// Models approves models by name (ABI section 13.4): a guest's
	// aclmdlLoadFromFile(name) loads the file Models[name] and opens
	// nothing else; a name not here does not exist for the guest. The
	// file is an ONNX model on the simulator, an offline model (.om) on
	// the native backend. Each must be a regular file when the plugin
	// loads. In a manifest, a relative file is relative to the manifest's
	// directory.
	Models map[string]string
	// AllowGuestModels lets aclmdlLoadFromMem and aclmdlLoadFromMemWithMem
	// load a model the guest supplies, on the simulator only: a native
	// model carries device code, so the native backend refuses them
	// (207000) whatever this says. By default they give 207000 too.
	AllowGuestModels bool
	// Mounts are the host directories the guest sees (ABI section 14);
	// none: the guest has no filesystem. See Mount.
	Mounts []Mount
	// MaxFileReadBytes and MaxFileWriteBytes bound the bytes an instance
	// (a Run, or an Instance over all its calls) reads from and writes to
	// mounted files; MaxOpenFiles the files and directories it holds open
	// at once (the mounts themselves aside). Over a limit the WASI call
	// fails with EFBIG (bytes; a read gets what remains first, as a short
	// read) or EMFILE, and has no effect.
	MaxFileReadBytes  uint64
	MaxFileWriteBytes uint64
	MaxOpenFiles      int
	// MaxMountBytes bounds the size of the regular files of each writable
	// mount, what it held before the run included (summed over their
	// paths: a hard link counts again); a write, truncation or link that
	// would pass it fails with ENOSPC and has no effect. 0: no bound (the
	// write limit still bounds what a run adds). The wazero engine only:
	// wasmtime's WASI does not tell the host how a file's size changes,
	// so Load refuses a writable mount with MaxMountBytes there.
	MaxMountBytes uint64
	// CheckAsync turns on the checking mode for plugin authors, which
	// makes asynchronous mistakes visible where the simulator, running
	// queued work at once, hides them. An asynchronous copy into
	// registered guest memory (aclrtHostRegister) is written to a host-side
	// shadow, and its destination reads 0xCD bytes until a synchronize
	// (stream, device or event), a query reporting completion or a stream
	// callback covers the copy (aclrtStreamWaitEvent carries coverage from
	// stream to stream); the registered source of an asynchronous copy
	// must not change until then; and every such copy must be waited for
	// before the export call returns. A call or run that breaks these
	// rules returns an *AsyncError listing each finding with the call that
	// queued the copy. Only aclrtMemcpyAsync and
	// aclrtMemcpyAsyncWithCondition are followed. It costs a copy of each
	// queued copy's registered side, counted against PinnedMemory; off,
	// it costs nothing.
	CheckAsync bool
}

// Defaults of Policy's fields.
const (
	DefaultDeviceMemory     = 1 << 30
	DefaultPinnedMemory     = 256 << 20
	DefaultMaxAllocations   = 4096
	DefaultMaxRegistrations = 256
	DefaultMaxStreams       = 64
	DefaultMaxEvents        = 1024
	DefaultMaxQueued        = 4096
	DefaultMaxBatchEntries  = 1 << 18
	DefaultMaxCallbacks     = 4096
	DefaultMaxCallbackDepth = 8
	DefaultMaxCallBytes     = 1 << 30
	DefaultMemoryPages      = 4096 // 256 MiB
	DefaultTimeout          = time.Minute
	DefaultCompileTimeout   = 2 * time.Minute // a 2.8 MB Go plugin compiles in about 1 s; the compile limits bound the rest
	DefaultMaxTableEntries  = 1 << 16         // 10 times the largest table of build/wasm (a Go guest's, 5998)
	DefaultMaxStackBytes    = 8 << 20
	maxMemoryPages          = 65536
	maxTableEntries         = 1 << 26 // about 1 GiB of host memory on either engine
	maxStackBytes           = 1 << 30 // the counter is an i32
)

// withDefaults returns p with every zero field set to its default and the
// device map filled in for n physical devices, or an error naming the field
// that is out of range.
func (p Policy) withDefaults(n int) (Policy, error) {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&p.MaxAllocations, DefaultMaxAllocations)
	def(&p.MaxRegistrations, DefaultMaxRegistrations)
	def(&p.MaxStreams, DefaultMaxStreams)
	def(&p.MaxEvents, DefaultMaxEvents)
	def(&p.MaxQueued, DefaultMaxQueued)
	def(&p.MaxBatchEntries, DefaultMaxBatchEntries)
	def(&p.MaxCallbacks, DefaultMaxCallbacks)
	def(&p.MaxCallbackDepth, DefaultMaxCallbackDepth)
	if p.DeviceMemory == 0 {
		p.DeviceMemory = DefaultDeviceMemory
	}
	if p.PinnedMemory == 0 {
		p.PinnedMemory = DefaultPinnedMemory
	}
	if p.MaxCallBytes == 0 {
		p.MaxCallBytes = DefaultMaxCallBytes
	}
	if p.MemoryPages == 0 {
		p.MemoryPages = DefaultMemoryPages
	}
	if p.Timeout == 0 {
		p.Timeout = DefaultTimeout
	}
	if p.MaxTableEntries == 0 {
		p.MaxTableEntries = DefaultMaxTableEntries
	}
	if p.MaxStackBytes == 0 {
		p.MaxStackBytes = DefaultMaxStackBytes
	}
	if p.MaxTableEntries > maxTableEntries {
		return p, fmt.Errorf("policy: MaxTableEntries %d exceeds %d", p.MaxTableEntries, maxTableEntries)
	}
	if p.MaxStackBytes > maxStackBytes {
		return p, fmt.Errorf("policy: MaxStackBytes %d exceeds %d", p.MaxStackBytes, maxStackBytes)
	}
	if p.Timeout < 0 && p.Timeout != NoTimeout {
		return p, fmt.Errorf("policy: Timeout %v: want a positive duration, 0 for the default or NoTimeout", p.Timeout)
	}
	if p.MaxModuleBytes == 0 {
		p.MaxModuleBytes = DefaultMaxModuleBytes
	}
	if p.MaxFunctionBodyBytes == 0 {
		p.MaxFunctionBodyBytes = DefaultMaxFunctionBodyBytes
	}
	def(&p.MaxFunctions, DefaultMaxFunctions)
	def(&p.MaxLocals, DefaultMaxLocals)
	def(&p.MaxBlockDepth, DefaultMaxBlockDepth)
	def(&p.MaxBrTableTargets, DefaultMaxBrTableTargets)
	if p.MaxFunctions < 0 || p.MaxLocals < 0 || p.MaxBlockDepth < 0 || p.MaxBrTableTargets < 0 {
		return p, fmt.Errorf("policy: compile limits must not be negative")
	}
	if p.CompileTimeout == 0 {
		p.CompileTimeout = DefaultCompileTimeout
	}
	if p.CompileTimeout < 0 && p.CompileTimeout != NoTimeout {
		return p, fmt.Errorf("policy: CompileTimeout %v: want a positive duration, 0 for the default or NoTimeout", p.CompileTimeout)
	}
	if p.MemoryPages > maxMemoryPages {
		return p, fmt.Errorf("policy: MemoryPages %d exceeds the wasm32 limit %d", p.MemoryPages, maxMemoryPages)
	}
	if p.AllowInitConfig && p.RefuseInitConfig {
		return p, fmt.Errorf("policy: AllowInitConfig (deprecated, the default) and RefuseInitConfig contradict each other: set RefuseInitConfig alone")
	}
	if p.MaxAllocations < 0 || p.MaxRegistrations < 0 || p.MaxStreams < 0 || p.MaxEvents < 0 || p.MaxQueued < 0 || p.MaxBatchEntries < 0 || p.MaxCallbacks < 0 || p.MaxCallbackDepth < 0 {
		return p, fmt.Errorf("policy: count limits must not be negative")
	}
	if err := p.mountsWithDefaults(); err != nil {
		return p, err
	}
	if len(p.Devices) == 0 {
		p.Devices = make([]int32, n)
		for i := range p.Devices {
			p.Devices[i] = int32(i)
		}
	}
	seen := map[int32]bool{}
	for i, d := range p.Devices {
		if d < 0 || int(d) >= n {
			return p, fmt.Errorf("policy: Devices[%d] = %d, but the backend has %d devices", i, d, n)
		}
		if seen[d] {
			return p, fmt.Errorf("policy: physical device %d is mapped twice", d)
		}
		seen[d] = true
	}
	if err := checkModels(p.Models); err != nil {
		return p, fmt.Errorf("policy: Models: %w", err)
	}
	p.Models = maps.Clone(p.Models) // the caller's map may change after Load
	for name, file := range p.Models {
		if st, err := os.Stat(file); err != nil {
			return p, fmt.Errorf("policy: Models[%q]: %w", name, err)
		} else if !st.Mode().IsRegular() {
			return p, fmt.Errorf("policy: Models[%q]: %s is not a regular file", name, file)
		}
	}
	for _, list := range [][]string{p.Allow, p.Deny} {
		for _, name := range list {
			if abi.Lookup(name) == nil && name != OperatorFamily {
				return p, fmt.Errorf("policy: %q is not a function of ABI v%d", name, abi.Version)
			}
		}
	}
	return p, nil
}

// checkModels refuses approved models a guest could not name or the
// host could not open: an empty name, a name with NUL (a C string ends
// there), an empty file.
func checkModels(models map[string]string) error {
	for name, file := range models {
		switch {
		case name == "":
			return fmt.Errorf("an empty model name")
		case strings.ContainsRune(name, 0):
			return fmt.Errorf("model name %q: a name must not contain NUL", name)
		case file == "":
			return fmt.Errorf("model %q: no file", name)
		}
	}
	return nil
}

// OperatorFamily names every function of the operator library (ABI
// section 13.2) in Policy.Allow and Policy.Deny.
const OperatorFamily = "aclnn*"

// allows reports whether the policy lets a plugin import fn. An operator's
// launch name (aclnnMatmul) names its aclnnMatmulGetWorkspaceSize too,
// and OperatorFamily every operator's functions.
func (p *Policy) allows(fn string) bool {
	names := func(n string) bool {
		if n == fn {
			return true
		}
		f := abi.Lookup(fn)
		if f == nil || f.Group != abi.Operator {
			return false
		}
		return n == OperatorFamily || n == "aclnn"+f.Op
	}
	for _, d := range p.Deny {
		if names(d) {
			return false
		}
	}
	if len(p.Allow) == 0 {
		return true
	}
	for _, a := range p.Allow {
		if names(a) {
			return true
		}
	}
	return false
}

// limits returns the parts of p its sessions enforce.
func (p *Policy) limits() sandbox.Limits {
	return sandbox.Limits{
		Devices: p.Devices, DeviceMemory: p.DeviceMemory, PinnedMemory: p.PinnedMemory,
		MaxAllocations: p.MaxAllocations, MaxRegistrations: p.MaxRegistrations,
		MaxStreams: p.MaxStreams, MaxEvents: p.MaxEvents, MaxQueued: p.MaxQueued,
		MaxBatchEntries: p.MaxBatchEntries, MaxCallBytes: p.MaxCallBytes,
		MemoryPages: p.MemoryPages, RefuseInitConfig: p.RefuseInitConfig,
		MaxCallbacks: p.MaxCallbacks, MaxCallbackDepth: p.MaxCallbackDepth,
		CheckAsync: p.CheckAsync,
		Models:     p.Models, AllowGuestModels: p.AllowGuestModels,
	}
}

// NoTimeout as Policy.Timeout disables the policy's timeout: runs and calls
// end only by the caller's context (or Close), and releasing a session
// waits for its queued work without a bound. The zero Timeout is the
// default (DefaultTimeout), never "none".
const NoTimeout time.Duration = -1

// Defaults of the compile limits, Policy's MaxModuleBytes to
// MaxBrTableTargets: Load checks them before compiling, because neither
// engine can stop a compilation in progress and some modules take minutes
// (a function of 100,000 nested blocks, a br_table of a million targets).
// They are generous for real plugins: the Go, Rust, C, C++ and
// AssemblyScript samples stay far below each (TestCompileLimitsSamples);
// the compile timeout (Policy.CompileTimeout) bounds what stays within
// them.
const (
	DefaultMaxModuleBytes       = 64 << 20
	DefaultMaxFunctions         = 1_000_000
	DefaultMaxFunctionBodyBytes = 8 << 20
	DefaultMaxLocals            = 50_000
	DefaultMaxBlockDepth        = 10_000
	DefaultMaxBrTableTargets    = 16_384
)

// compileLimits returns the compile limits of p, as module.CompileLimits
// checks them (package module cannot import the Policy).
func (p *Policy) compileLimits() module.Limits {
	return module.Limits{
		MaxModuleBytes:       p.MaxModuleBytes,
		MaxFunctions:         p.MaxFunctions,
		MaxFunctionBodyBytes: p.MaxFunctionBodyBytes,
		MaxLocals:            p.MaxLocals,
		MaxBlockDepth:        p.MaxBlockDepth,
		MaxBrTableTargets:    p.MaxBrTableTargets,
	}
}
