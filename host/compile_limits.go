package host

import "github.com/aclwasm/aclwasm/host/internal/module"

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
