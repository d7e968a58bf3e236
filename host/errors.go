package host

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ianlancetaylor/demangle"

	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/host/internal/module"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
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

// Errors a run can end with, besides the guest's own exit code. Test them
// with errors.Is.
var (
	// ErrLoad: the module was refused before any guest code ran.
	ErrLoad = errors.New("load refused")
	// ErrTrap: the guest trapped (unreachable, out-of-bounds access, ...).
	ErrTrap = errors.New("guest trapped")
	// ErrTimeout: the policy's timeout stopped the guest. The error wraps
	// context.DeadlineExceeded too.
	ErrTimeout = errors.New("guest timed out")
	// ErrCanceled: the caller's context stopped the guest: its
	// cancellation or its own deadline, which the error wraps as well
	// (context.Canceled or context.DeadlineExceeded); or Close did.
	ErrCanceled = errors.New("guest canceled")
	// ErrBusy: a call of an Instance overlapped another one. It is refused
	// before any guest code runs, and the instance lives on.
	ErrBusy = errors.New("instance is busy: calls must not overlap")
	// ErrClosed: the Instance or Plugin is closed, or was closed during
	// the call (with ErrCanceled then).
	ErrClosed = errors.New("closed")
)

// ExitError reports a guest that exited (proc_exit). Run turns an exit
// into Result.ExitCode; from Instantiate or Instance.Call it is an error,
// with code 0 too, since the guest has ended and the instance with it.
type ExitError struct{ Code uint32 }

// Error implements error.
func (e *ExitError) Error() string { return fmt.Sprintf("guest exited with code %d", e.Code) }

// errRuntimeClosed is ErrClosed as the runtime's operations report it.
var errRuntimeClosed = fmt.Errorf("host: runtime is %w", ErrClosed)

// LoadError lists why a module was refused. It wraps ErrLoad.
type LoadError struct{ Problems []string }

// Error implements error: every problem, semicolon-separated.
func (e *LoadError) Error() string {
	return "load refused: " + strings.Join(e.Problems, "; ")
}

// Unwrap makes errors.Is(err, ErrLoad) true.
func (e *LoadError) Unwrap() error { return ErrLoad }

// errCloseFromGuest refuses a Plugin or Runtime Close made from a host
// function of a guest it would have to stop and wait for.
func errCloseFromGuest(what string) error {
	return fmt.Errorf("host: %s called from a host function of one of its guests, which cannot be waited for from inside: close after the call returns (Instance.Close may be called there), %w", what, ErrBusy)
}

// errInstanceClosed is ErrClosed as an instance's operations report it.
var errInstanceClosed = fmt.Errorf("instance is %w", ErrClosed)

// ctxErr returns err, or, when the call ended normally or by an exit but
// its context is done, the timeout or cancellation: the engines stop a guest
// whose blocking host call was interrupted, but one may slip out first.
func ctxErr(ctx context.Context, name string, err error) error {
	if ctx.Err() == nil || (err != nil && !isExit(err)) {
		return err
	}
	return doneErr(ctx, name)
}

// doneErr classifies a call whose context is done: the policy's timeout
// is ErrTimeout, anything else (the caller's deadline or cancellation,
// Close) ErrCanceled; both wrap the context's error, so that
// errors.Is(err, context.DeadlineExceeded) or context.Canceled holds too.
func doneErr(ctx context.Context, name string) error {
	cause := context.Cause(ctx)
	if c, ok := ctx.(*sandbox.CallCtx); ok {
		cause = c.Cause()
	}
	var tc sandbox.TimeoutCause
	if errors.As(cause, &tc) {
		return fmt.Errorf("%s: %w after %v (the policy's timeout): %w", name, ErrTimeout, time.Duration(tc), ctx.Err())
	}
	if errors.Is(cause, sandbox.ErrPolicyTimeout) {
		return fmt.Errorf("%s: %w: %w", name, ErrTimeout, ctx.Err())
	}
	return fmt.Errorf("%s: %w: %w", name, ErrCanceled, ctx.Err())
}

// errNoExport and errArgs report a call the instance refused before any
// guest code ran: the instance stays usable.
var (
	errNoExport = engine.ErrNoExport
	errArgs     = engine.ErrArgs
)

// engineErr is an engine's error as the host reports it: its exit, trap
// and timeout types.
func engineErr(ctx context.Context, err error) error {
	if err == nil {
		return nil // before any error variable: they escape (errors.As)
	}
	return convertErr(ctx, err)
}

func convertErr(ctx context.Context, err error) error {
	var ee *engine.ExitError
	var te *engine.Trap
	var de *engine.Done
	switch {
	case errors.As(err, &ee):
		return &ExitError{Code: ee.Code}
	case errors.As(err, &te):
		return trapError(te)
	case errors.As(err, &de):
		return doneErr(ctx, de.Call)
	}
	return err
}

// isExit reports whether err is or wraps an *ExitError.
func isExit(err error) bool {
	var ee *ExitError
	return errors.As(err, &ee)
}
