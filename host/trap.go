package host

import (
	"regexp"
	"strings"
)

// TrapError is the error a call ends with when the guest trapped. It wraps
// ErrTrap and keeps apart what the engines write as one block of text: the
// reason, and the guest's backtrace with source lines when the module
// carries DWARF debug information (and, on wasmtime, when the
// WASMTIME_BACKTRACE_DETAILS=1 environment variable asks for them).
// Frames read the same on both engines.
type TrapError struct {
	// Call is the export that was called ("_start"), or "instantiate".
	Call string
	// Reason is the engine's one-line reason: "unreachable", "integer
	// divide by zero", "out of fuel (...)".
	Reason string
	// Frames is the guest backtrace, innermost call first; empty when the
	// engine gave none.
	Frames []Frame
	// Truncated reports that the engine left out the outermost frames.
	Truncated bool
}

// Frame is one guest function of a backtrace.
type Frame struct {
	// Func is the function's name from the module's name section, or $N
	// (its index) when the module names none. A host function of the
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

var (
	// wazero: "\t.name(i32,i64) i32", "\t\t0x73: file.c:2:78",
	// "\t... maybe followed by omitted frames".
	wazeroSig    = regexp.MustCompile(`\((?:i32|i64|f32|f64|v128|externref|funcref|,)*\)(?: \w+| \([\w,]*\))?$`)
	wazeroSource = regexp.MustCompile(`^(?:0x[0-9a-f]+: )?(.*)$`)
	// wasmtime: "    0:     0x54 - <unknown>!inner", "      at file.c:2:78".
	wasmtimeFrame = regexp.MustCompile(`^\s*\d+:\s+0x[0-9a-f]+ - (.*)$`)
	wasmtimeIndex = regexp.MustCompile(`^<wasm function (\d+)>$`)
)

// wazeroTrap reads a wazero trap error:
//
//	wasm error: unreachable
//	wasm stack trace:
//		.inner(i32) i32
//			0x73: /src/trap.c:2:78
//		._start()
func wazeroTrap(call, msg string) *TrapError {
	head, stack, _ := strings.Cut(msg, "\nwasm stack trace:\n")
	e := &TrapError{Call: call, Reason: strings.TrimPrefix(firstLine(head), "wasm error: ")}
	for _, line := range strings.Split(stack, "\n") {
		switch {
		case line == "": // the end of the wasm stack (a Go stack trace may follow)
			return e
		case strings.HasPrefix(line, "\t\t"):
			if n := len(e.Frames); n > 0 {
				e.Frames[n-1].Source = append(e.Frames[n-1].Source, wazeroSource.FindStringSubmatch(line[2:])[1])
			}
		case strings.HasPrefix(line, "\t... maybe followed by omitted frames"), strings.HasPrefix(line, "... maybe followed by omitted frames"):
			e.Truncated = true
		default:
			name := wazeroSig.ReplaceAllString(strings.TrimPrefix(line, "\t"), "")
			e.Frames = append(e.Frames, Frame{Func: strings.TrimPrefix(name, ".")}) // the module has no name: ".f"
		}
	}
	return e
}

// wasmtimeTrap reads a wasmtime trap error:
//
//	error while executing at wasm backtrace:
//	    0:     0x54 - <unknown>!inner
//	                    at /src/trap.c:2:78
//	    1:     0x60 - <unknown>!<wasm function 3>
//
//	Caused by:
//	    wasm trap: integer divide by zero
//
// Anything else gives its first line as the reason and no frames.
func wasmtimeTrap(call, msg string) *TrapError {
	msg, _, _ = strings.Cut(msg, "\nStack backtrace:") // the host's, with RUST_BACKTRACE set
	e := &TrapError{Call: call, Reason: firstLine(msg)}
	trace, cause, ok := strings.Cut(msg, "\nCaused by:\n")
	if !ok {
		return e
	}
	var reasons []string
	for _, l := range strings.Split(cause, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			reasons = append(reasons, strings.TrimPrefix(l, "wasm trap: "))
		}
	}
	if len(reasons) > 0 {
		e.Reason = strings.Join(reasons, ": ")
	}
	for _, line := range strings.Split(trace, "\n")[1:] {
		if m := wasmtimeFrame.FindStringSubmatch(line); m != nil {
			name := strings.TrimPrefix(m[1], "<unknown>!")
			if ix := wasmtimeIndex.FindStringSubmatch(name); ix != nil {
				name = "$" + ix[1]
			}
			e.Frames = append(e.Frames, Frame{Func: name})
			continue
		}
		if src, ok := strings.CutPrefix(strings.TrimSpace(line), "at "); ok && len(e.Frames) > 0 {
			f := &e.Frames[len(e.Frames)-1]
			f.Source = append(f.Source, src)
		}
	}
	return e
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(l)
}
