package host

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/host/internal/module"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// namedTrapModule builds a module whose export "deep" (function 0, named
// deepName) calls itself n times, its parameter being n, then calls
// function 1 (named trapName), which traps (unreachable).
func namedTrapModule(deepName, trapName string) []byte {
	sec := func(id byte, body []byte) []byte {
		return append(binary.AppendUvarint([]byte{id}, uint64(len(body))), body...)
	}
	vec := func(items ...[]byte) []byte {
		b := binary.AppendUvarint(nil, uint64(len(items)))
		for _, it := range items {
			b = append(b, it...)
		}
		return b
	}
	str := func(s string) []byte { return append(binary.AppendUvarint(nil, uint64(len(s))), s...) }
	body := func(code ...byte) []byte {
		return append(binary.AppendUvarint(nil, uint64(len(code)+1)), append([]byte{0}, code...)...)
	}

	m := []byte("\x00asm\x01\x00\x00\x00")
	m = append(m, sec(1, vec([]byte{0x60, 1, 0x7f, 1, 0x7f}))...) // (i32) -> i32
	m = append(m, sec(3, vec([]byte{0}, []byte{0}))...)
	m = append(m, sec(7, vec(append(str("deep"), 0, 0)))...)
	m = append(m, sec(10, vec(
		// if n == 0: return trap(n); else return deep(n-1)
		body(0x20, 0, 0x45, 0x04, 0x40, 0x20, 0, 0x10, 1, 0x0f, 0x0b, 0x20, 0, 0x41, 1, 0x6b, 0x10, 0, 0x0b),
		body(0x00, 0x0b),
	))...)
	names := vec(append(binary.AppendUvarint(nil, 0), str(deepName)...), append(binary.AppendUvarint(nil, 1), str(trapName)...))
	return append(m, sec(0, append(str("name"), sec(1, names)...))...)
}

// evilName is a guest function name that, printed raw, clears the screen
// and starts a forged line.
const evilName = "\x1b[2J\r\nFAKE"

// requirePrintable fails if s holds a control character.
func requirePrintable(t *testing.T, s, what string) {
	t.Helper()
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			t.Fatalf("%s holds control byte 0x%02x: %q", what, s[i], s)
		}
	}
}

// TestTrapBacktraceBounded: a trap at the bottom of a deep recursion
// through a function with a long name costs the host a bounded backtrace:
// at most engine.MaxFrames frames, names of at most 256 bytes, the rest
// counted; memory bounded. Before, one such trap on wasmtime built a
// backtrace of every frame with the whole name in each (+352 MiB, 4 s).
func TestTrapBacktraceBounded(t *testing.T) {
	rt := newRuntime(t)
	pl := load(t, rt, namedTrapModule(strings.Repeat("d", 8<<10), "trap"), Policy{MemoryPages: 1, Timeout: 30 * time.Second})
	before := measureHost(t)
	inst, err := pl.Instantiate(context.Background(), Config{})
	require.NoError(t, err)
	_, err = inst.Call(context.Background(), "deep", 20000)
	requireBoundedSince(t, before, 64<<20, "a deep trap's backtrace")
	require.ErrorIs(t, err, ErrTrap)
	var te *TrapError
	require.ErrorAs(t, err, &te)
	require.NotEmpty(t, te.Frames)
	require.LessOrEqual(t, len(te.Frames), engine.MaxFrames)
	require.True(t, te.Truncated, "the outer frames are left out")
	for _, f := range te.Frames {
		require.LessOrEqual(t, len(f.Func), module.MaxNameBytes)
	}
	require.Equal(t, strings.Repeat("d", module.MaxNameBytes-3)+"...", te.Frames[len(te.Frames)-1].Func, "the name cut short")
	if testEngine == "wasmtime" { // wazero keeps 30 frames and does not say how many it left out
		require.Len(t, te.Frames, engine.MaxFrames)
		require.Greater(t, te.Elided, 1000, "the frames left out are counted")
	}
}

// TestTrapNamesEscaped: control characters in a guest's function names
// reach no printed backtrace raw: the frame reads the name escaped, whole
// (it does not split wazero's one-frame-a-line text into two frames), and
// the trap's message and frames hold no control byte, on both engines.
func TestTrapNamesEscaped(t *testing.T) {
	rt := newRuntime(t)
	pl := load(t, rt, namedTrapModule("deep\x07\xff", evilName), Policy{MemoryPages: 1})
	inst, err := pl.Instantiate(context.Background(), Config{})
	require.NoError(t, err)
	_, err = inst.Call(context.Background(), "deep", 3)
	require.ErrorIs(t, err, ErrTrap)
	var te *TrapError
	require.ErrorAs(t, err, &te)
	requirePrintable(t, err.Error(), "the trap's message")
	require.Len(t, te.Frames, 5, "the trapping function and four of deep: the name split none")
	require.Equal(t, `\x1b[2J\r\nFAKE`, te.Frames[0].Func)
	for _, f := range te.Frames[1:] {
		require.Equal(t, `deep\a\xff`, f.Func)
	}
	for _, f := range te.Frames {
		requirePrintable(t, f.Func, "a frame")
		for _, s := range f.Source {
			requirePrintable(t, s, "a source line")
		}
	}
}

// TestTrapParseBounded: reading an engine's trap text keeps MaxFrames
// frames and MaxNameBytes of each name, and counts the rest, whatever the
// text's size; control characters come out escaped.
func TestTrapParseBounded(t *testing.T) {
	long := strings.Repeat("n", 10000)
	var wt, wz strings.Builder
	wt.WriteString("error while executing at wasm backtrace:\n")
	wz.WriteString("wasm error: unreachable\nwasm stack trace:\n")
	for i := range 1000 {
		wt.WriteString("  " + strconv.Itoa(i) + ":     0x54 - <unknown>!" + long + "\n                    at a.c:1:2\n")
		wz.WriteString("\t." + long + "(i32) i32\n\t\t0x73: a.c:1:2\n")
	}
	wt.WriteString("\nCaused by:\n    wasm trap: \x1b]0;title\x07\n")
	te := trapError(engine.WasmtimeTrap("_start", wt.String()))
	require.Len(t, te.Frames, engine.MaxFrames)
	require.Equal(t, 1000-engine.MaxFrames, te.Elided)
	require.True(t, te.Truncated)
	require.Equal(t, `\x1b]0;title\a`, te.Reason)
	require.Len(t, te.Frames[0].Func, module.MaxNameBytes)
	require.Equal(t, []string{"a.c:1:2"}, te.Frames[engine.MaxFrames-1].Source)

	te = trapError(engine.WazeroTrap("_start", wz.String()))
	require.Len(t, te.Frames, engine.MaxFrames)
	require.Equal(t, 1000-engine.MaxFrames, te.Elided)
	require.Len(t, te.Frames[0].Func, module.MaxNameBytes)
}

// TestLoadProblemsEscaped: the names of a refused module's imports reach
// the LoadError escaped, as trap names do: a plugin cannot forge log lines
// or terminal output through its refusal either.
func TestLoadProblemsEscaped(t *testing.T) {
	rt := newRuntime(t)
	for _, mod := range []string{"acl", "wasi_snapshot_preview1", "evil\x1b[2J\r\nFAKE"} {
		wasm := testsupport.WAT(t, `(module (import "`+watEscape(mod)+`" "`+watEscape(evilName)+`" (func)))`)
		_, err := rt.Load(context.Background(), wasm, Policy{})
		var le *LoadError
		require.ErrorAs(t, err, &le, mod)
		requirePrintable(t, err.Error(), "the refusal of an import from "+mod)
		require.Contains(t, err.Error(), `\x1b[2J\r\nFAKE`)
	}
}

// watEscape writes s as the inside of a WAT string, every byte as \hh.
func watEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, `\%02x`, s[i])
	}
	return b.String()
}

// TestTrapNamesDemangled: C++ and Rust symbols in a backtrace read as
// source names on both engines; other names are left as they are.
func TestTrapNamesDemangled(t *testing.T) {
	rt := newRuntime(t)
	const cpp = "_ZN6plugin7process4stepEi"                     // plugin::process::step(int)
	const rust = "_ZN4core9panicking5panic17h0123456789abcdefE" // core::panicking::panic (legacy Rust)
	for _, tc := range []struct{ deep, trap, wantDeep, wantTrap string }{
		{cpp, rust, "plugin::process::step(int)", "core::panicking::panic"},
		{"deep", "trap", "deep", "trap"},
	} {
		pl := load(t, rt, namedTrapModule(tc.deep, tc.trap), Policy{MemoryPages: 1})
		inst, err := pl.Instantiate(context.Background(), Config{})
		require.NoError(t, err)
		_, err = inst.Call(context.Background(), "deep", 2)
		var te *TrapError
		require.ErrorAs(t, err, &te)
		require.NotEmpty(t, te.Frames)
		require.Equal(t, tc.wantTrap, te.Frames[0].Func)
		require.Equal(t, tc.wantDeep, te.Frames[1].Func)
	}
}
