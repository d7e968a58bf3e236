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
	Elided    int // outer frames counted but left out past MaxFrames
}

// MaxFrames is the most frames a Trap keeps, the innermost; MaxNameBytes
// the most bytes of a function name or source line it keeps. A trap at the
// bottom of a deep recursion must not cost the host a frame per call, nor
// a name's bytes per frame.
const (
	MaxFrames    = 64
	MaxNameBytes = 256
)

// addFrame appends a frame named name, or counts it as elided past
// MaxFrames.
func (t *Trap) addFrame(name string) {
	if len(t.Frames) >= MaxFrames {
		t.Elided++
		t.Truncated = true
		return
	}
	t.Frames = append(t.Frames, Frame{Func: clip(name)})
}

// addSource appends a source line to the last frame kept.
func (t *Trap) addSource(src string) {
	if n := len(t.Frames); n > 0 && t.Elided == 0 && len(t.Frames[n-1].Source) < MaxFrames {
		t.Frames[n-1].Source = append(t.Frames[n-1].Source, clip(src))
	}
}

// clip cuts s to MaxNameBytes bytes (the host escapes what it keeps).
func clip(s string) string {
	if len(s) > MaxNameBytes {
		return strings.Clone(s[:MaxNameBytes]) // not a view of the whole message
	}
	return strings.Clone(s)
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
	e := &Trap{Call: call, Reason: clip(strings.TrimPrefix(firstLine(head), "wasm error: "))}
	for stack != "" {
		var line string
		line, stack, _ = strings.Cut(stack, "\n")
		switch {
		case line == "": // the end of the wasm stack (a Go stack trace may follow)
			return e
		case strings.HasPrefix(line, "\t\t"):
			e.addSource(wazeroSource.FindStringSubmatch(line[2:])[1])
		case strings.HasPrefix(line, "\t... maybe followed by omitted frames"), strings.HasPrefix(line, "... maybe followed by omitted frames"):
			e.Truncated = true
		case len(e.Frames) >= MaxFrames:
			e.addFrame("") // counted only
		default:
			name := wazeroSig.ReplaceAllString(strings.TrimPrefix(line, "\t"), "")
			e.addFrame(strings.TrimPrefix(name, ".")) // the module has no name: ".f"
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
	e := &Trap{Call: call, Reason: clip(firstLine(msg))}
	trace, cause, ok := strings.Cut(msg, "\nCaused by:\n")
	if !ok {
		return e
	}
	var reasons []string
	for l := range strings.SplitSeq(cause, "\n") {
		if l = strings.TrimSpace(l); l != "" && len(reasons) < MaxFrames {
			reasons = append(reasons, strings.TrimPrefix(l, "wasm trap: "))
		}
	}
	if len(reasons) > 0 {
		e.Reason = clip(strings.Join(reasons, ": "))
	}
	_, trace, _ = strings.Cut(trace, "\n") // "error while executing at wasm backtrace:"
	for trace != "" {
		var line string
		line, trace, _ = strings.Cut(trace, "\n")
		if len(e.Frames) >= MaxFrames {
			// Past the frames kept, only count: no regexp over what may
			// be megabytes of names.
			if isWasmtimeFrame(line) {
				e.addFrame("")
				continue
			}
			if e.Elided > 0 {
				continue
			}
		} else if m := wasmtimeFrame.FindStringSubmatch(line); m != nil {
			name := strings.TrimPrefix(m[1], "<unknown>!")
			if ix := wasmtimeIndex.FindStringSubmatch(name); ix != nil {
				name = "$" + ix[1]
			}
			e.addFrame(name)
			continue
		}
		if src, ok := strings.CutPrefix(strings.TrimSpace(line), "at "); ok {
			e.addSource(src)
		}
	}
	return e
}

// isWasmtimeFrame reports whether line starts as a frame line of a
// wasmtime backtrace does: spaces, a frame number, a colon.
func isWasmtimeFrame(line string) bool {
	line = strings.TrimLeft(line, " ")
	digits := 0
	for digits < len(line) && line[digits] >= '0' && line[digits] <= '9' {
		digits++
	}
	return digits > 0 && digits < len(line) && line[digits] == ':'
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(l)
}
