package engine

import (
	"regexp"
	"strings"
)

// Trap is a guest's trap as the engine reported it, read apart (the host
// makes it a *host.TrapError).
type Trap struct {
	Call      string
	Reason    string
	Frames    []Frame
	Truncated bool
}

// Frame is one guest function of a backtrace.
type Frame struct {
	Func   string
	Source []string
}

func (t *Trap) Error() string { return t.Call + ": guest trapped: " + t.Reason }

var (
	// wazero: "\t.name(i32,i64) i32", "\t\t0x73: file.c:2:78",
	// "\t... maybe followed by omitted frames".
	wazeroSig    = regexp.MustCompile(`\((?:i32|i64|f32|f64|v128|externref|funcref|,)*\)(?: \w+| \([\w,]*\))?$`)
	wazeroSource = regexp.MustCompile(`^(?:0x[0-9a-f]+: )?(.*)$`)
	// wasmtime: "    0:     0x54 - <unknown>!inner", "      at file.c:2:78".
	wasmtimeFrame = regexp.MustCompile(`^\s*\d+:\s+0x[0-9a-f]+ - (.*)$`)
	wasmtimeIndex = regexp.MustCompile(`^<wasm function (\d+)>$`)
)

// WazeroTrap reads a wazero trap error:
//
//	wasm error: unreachable
//	wasm stack trace:
//		.inner(i32) i32
//			0x73: /src/trap.c:2:78
//		._start()
func WazeroTrap(call, msg string) *Trap {
	head, stack, _ := strings.Cut(msg, "\nwasm stack trace:\n")
	e := &Trap{Call: call, Reason: strings.TrimPrefix(firstLine(head), "wasm error: ")}
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

// WasmtimeTrap reads a wasmtime trap error:
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
func WasmtimeTrap(call, msg string) *Trap {
	msg, _, _ = strings.Cut(msg, "\nStack backtrace:") // the host's, with RUST_BACKTRACE set
	e := &Trap{Call: call, Reason: firstLine(msg)}
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
