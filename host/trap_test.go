package host

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// Messages as the engines write them (wazero v1.12, wasmtime v39).
func TestTrapParse(t *testing.T) {
	cSource := []Frame{
		{Func: "inner", Source: []string{"/tmp/nc/trap.c:2:78"}},
		{Func: "__original_main", Source: []string{"/tmp/nc/trap.c:3:68"}},
		{Func: "_start", Source: []string{"build/libc-bottom-half/crt/crt1-command.c:12:13"}},
		{Func: "_start.command_export"},
	}
	wazeroTrap := func(call, msg string) *TrapError { return trapError(engine.WazeroTrap(call, msg)) }
	wasmtimeTrap := func(call, msg string) *TrapError { return trapError(engine.WasmtimeTrap(call, msg)) }
	for _, tc := range []struct {
		name  string
		parse func(call, msg string) *TrapError
		msg   string
		want  TrapError
	}{
		{"wazero names", wazeroTrap,
			"wasm error: integer divide by zero\nwasm stack trace:\n\t.inner(i32) i32\n\t.outer()\n\t.$3()",
			TrapError{Reason: "integer divide by zero", Frames: []Frame{{Func: "inner"}, {Func: "outer"}, {Func: "$3"}}}},
		{"wazero DWARF", wazeroTrap,
			"wasm error: unreachable\nwasm stack trace:\n\t.inner(i32) i32\n\t\t0x73: /tmp/nc/trap.c:2:78\n\t.__original_main() i32\n\t\t0x52: /tmp/nc/trap.c:3:68\n\t._start()\n\t\t0x7: build/libc-bottom-half/crt/crt1-command.c:12:13\n\t._start.command_export()",
			TrapError{Reason: "unreachable", Frames: cSource}},
		{"wazero multi-value and host frame", wazeroTrap,
			"wasm error: out of bounds memory access\nwasm stack trace:\n\tacl.aclrtSetDevice(i32) i32\n\t.f(i64,f32) (i32,i64)\n\t... maybe followed by omitted frames",
			TrapError{Reason: "out of bounds memory access", Frames: []Frame{{Func: "acl.aclrtSetDevice"}, {Func: "f"}}, Truncated: true}},
		{"wazero host panic", wazeroTrap,
			"boom (recovered by wazero)\nwasm stack trace:\n\t.f()\n\nGo runtime stack trace:\ngoroutine 1 [running]:\n\tmain.go:1",
			TrapError{Reason: "boom (recovered by wazero)", Frames: []Frame{{Func: "f"}}}},
		{"wazero no stack", wazeroTrap, "something", TrapError{Reason: "something"}},
		{"wasmtime names", wasmtimeTrap,
			"error while executing at wasm backtrace:\n    0:     0x54 - <unknown>!inner\n    1:     0x5a - <unknown>!outer\n    2:     0x60 - <unknown>!<wasm function 3>\n\nCaused by:\n    wasm trap: integer divide by zero\n",
			TrapError{Reason: "integer divide by zero", Frames: []Frame{{Func: "inner"}, {Func: "outer"}, {Func: "$3"}}}},
		{"wasmtime details", wasmtimeTrap,
			"error while executing at wasm backtrace:\n    0:    0x1c0 - inner\n                    at /tmp/nc/trap.c:2:78\n    1:    0x19f - __original_main\n                    at /tmp/nc/trap.c:3:68\n    2:    0x154 - _start\n                    at build/libc-bottom-half/crt/crt1-command.c:12:13\n    3:    0xf65 - <unknown>!_start.command_export\n\nCaused by:\n    wasm trap: wasm `unreachable` instruction executed\n",
			TrapError{Reason: "wasm `unreachable` instruction executed", Frames: cSource}},
		{"wasmtime note", wasmtimeTrap,
			"error while executing at wasm backtrace:\n    0:    0x1c0 - <unknown>!inner\nnote: using the `WASMTIME_BACKTRACE_DETAILS=1` environment variable may show more debugging information\n\nCaused by:\n    wasm trap: wasm `unreachable` instruction executed\nStack backtrace:\n   0: rust frames",
			TrapError{Reason: "wasm `unreachable` instruction executed", Frames: []Frame{{Func: "inner"}}}},
		{"wasmtime plain", wasmtimeTrap, "host function panicked: boom\nmore", TrapError{Reason: "host function panicked: boom"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.parse("_start", tc.msg)
			tc.want.Call = "_start"
			require.Equal(t, &tc.want, got)
			require.ErrorIs(t, got, ErrTrap)
			require.Equal(t, "_start: guest trapped: "+tc.want.Reason, got.Error())
		})
	}
}

// TestTrapBacktrace: a trap gives a *TrapError with the reason and the
// guest's frames, named from the name section, on every engine.
func TestTrapBacktrace(t *testing.T) {
	ctx := context.Background()
	rt, err := NewRuntime(ctx, append(testBackend(t), WithEngine(testEngine))...)
	require.NoError(t, err)
	defer rt.Close(ctx)
	// wat2wasm writes no name section: a custom one, hand-encoded, names
	// functions 0 and 1 (the import is function 0).
	wasm := testsupport.WAT(t, `(module
  (import "acl" "aclrtSetDevice" (func $setdev (param i32) (result i32)))
  (memory (export "memory") 1)
  (func $inner (param i32) (result i32) (i32.div_s (i32.const 1) (local.get 0)))
  (func $outer (drop (call $inner (i32.const 0))))
  (func (export "_start") (call $outer)))`)
	wasm = append(wasm, nameSection(map[int]string{1: "inner", 2: "outer"})...)
	pl, err := rt.Load(ctx, wasm, Policy{})
	require.NoError(t, err)
	defer pl.Close(ctx)
	_, err = pl.Run(ctx, Config{})
	var te *TrapError
	require.True(t, errors.As(err, &te), "%v", err)
	require.ErrorIs(t, err, ErrTrap)
	require.Equal(t, "_start", te.Call)
	require.Contains(t, te.Reason, "integer divide by zero")
	require.Equal(t, []Frame{{Func: "inner"}, {Func: "outer"}, {Func: "$3"}}, te.Frames)
	require.Equal(t, "_start: guest trapped: "+te.Reason, err.Error())
}

// nameSection encodes a "name" custom section with function names.
func nameSection(names map[int]string) []byte {
	uleb := func(b []byte, v int) []byte {
		for {
			c := byte(v & 0x7f)
			v >>= 7
			if v != 0 {
				c |= 0x80
			}
			b = append(b, c)
			if v == 0 {
				return b
			}
		}
	}
	str := func(b []byte, s string) []byte { return append(uleb(b, len(s)), s...) }
	var m []byte
	m = uleb(m, len(names))
	for i := range 16 { // in index order
		if n, ok := names[i]; ok {
			m = str(uleb(m, i), n)
		}
	}
	sub := uleb([]byte{1}, len(m)) // subsection 1: function names
	sub = append(sub, m...)
	body := str(nil, "name")
	body = append(body, sub...)
	return append(uleb([]byte{0}, len(body)), body...)
}
