package host

import (
	"github.com/ianlancetaylor/demangle"

	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/host/internal/module"
)

// TrapError is the error a call ends with when the guest trapped. It wraps
// ErrTrap and keeps apart what the engines write as one block of text: the
// reason, and the guest's backtrace with source lines when the module
// carries DWARF debug information (and, on wasmtime, when the
// WASMTIME_BACKTRACE_DETAILS=1 environment variable asks for them).
// Frames read the same on both engines.
//
// Every string of it is safe to print: the guest's names and source
// paths come escaped (strconv.Quote's escapes, without the quotes) when
// they hold control characters or invalid UTF-8, and cut to 256 bytes; a
// backtrace keeps the innermost 64 frames (engine.MaxFrames).
type TrapError struct {
	// Call is the export that was called ("_start"), or "instantiate".
	Call string
	// Reason is the engine's one-line reason: "unreachable", "integer
	// divide by zero", "out of fuel (...)".
	Reason string
	// Frames is the guest backtrace, innermost call first; empty when the
	// engine gave none.
	Frames []Frame
	// Truncated reports that the outermost frames were left out, by the
	// engine (wazero keeps 30) or past the 64 kept.
	Truncated bool
	// Elided counts the frames left out past the 64 kept, when the engine
	// reported them (wasmtime); 0 when it did not say how many.
	Elided int
}

// Frame is one guest function of a backtrace.
type Frame struct {
	// Func is the function's name from the module's name section,
	// demangled when it is a C++ or Rust symbol (_ZN4core9panicking5panic
	// reads core::panicking::panic), escaped and cut as TrapError says; or
	// $N (its index) when the module names none. A host function of the
	// sandbox reads acl.NAME.
	Func string
	// Source is where in the source the frame is, "file.c:12:3", innermost
	// inlined call first; empty without debug information.
	Source []string
}

// Error implements error: one line, without the backtrace.
func (e *TrapError) Error() string { return e.Call + ": " + ErrTrap.Error() + ": " + e.Reason }

// Unwrap returns ErrTrap.
func (e *TrapError) Unwrap() error { return ErrTrap }

// trapError is the engine's trap as the host reports it.
func trapError(t *engine.Trap) *TrapError {
	e := &TrapError{Call: module.ShortName(t.Call), Reason: module.ShortName(t.Reason), Truncated: t.Truncated, Elided: t.Elided}
	for _, f := range t.Frames {
		fr := Frame{Func: module.ShortName(demangled(f.Func))}
		for _, src := range f.Source {
			fr.Source = append(fr.Source, module.ShortName(src))
		}
		e.Frames = append(e.Frames, fr)
	}
	return e
}

// demangled returns a C++ (Itanium) or Rust symbol as source code names
// it, anything else as it is. wasmtime demangles its own backtraces;
// wazero does not, so this makes both read alike. The output is bounded
// (2^12 bytes) whatever the symbol, as a guest chooses its names.
func demangled(name string) string {
	name = demangle.Filter(name, demangle.MaxLength(12))
	// wasmtime's demangler keeps a legacy Rust symbol's hash
	// (core::panicking::panic::h0123456789abcdef), this one drops it.
	if i := len(name) - len("::h0123456789abcdef"); i > 0 && name[i:i+3] == "::h" && isHex(name[i+3:]) {
		name = name[:i]
	}
	return name
}

func isHex(s string) bool {
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
