package main

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBadWASIImports: a WASI import the engines do not provide, or one with
// the wrong signature, is refused at load time (check exits 1, run 125)
// instead of failing at instantiation as a trap (134).
func TestBadWASIImports(t *testing.T) {
	for _, tc := range []struct{ name, wat, want string }{
		{"unknown", `(module (import "wasi_snapshot_preview1" "nonexistent_fn" (func)) (memory (export "memory") 1) (func (export "_start")))`,
			"import wasi_snapshot_preview1.nonexistent_fn is not a function of WASI preview1"},
		{"signature", `(module (import "wasi_snapshot_preview1" "fd_write" (func (param i32) (result i32))) (memory (export "memory") 1) (func (export "_start")))`,
			"import wasi_snapshot_preview1.fd_write has signature (i32) -> i32, WASI preview1 expects (i32, i32, i32, i32) -> i32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := wat(t, tc.name, tc.wat)
			r := cli(t, "check", g)
			require.Equal(t, 1, r.code, r.stderr)
			require.Contains(t, r.stdout+r.stderr, tc.want)
			r = cli(t, "run", g)
			require.Equal(t, 125, r.code, r.stderr)
			require.Contains(t, r.stderr, tc.want)
		})
	}
}

// TestStartFunctionEnds: exits and timeouts in a start function give the
// same exit codes as from _start (an exit 0 used to crash the host on
// wazero, a timeout to exit 255).
func TestStartFunctionEnds(t *testing.T) {
	const start = `(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (func $init %s)
  (start $init)
  (func (export "_start") (call $exit (i32.const 99))))`
	for _, tc := range []struct {
		name, body string
		args       []string
		code       int
	}{
		{"exit 0", "(call $exit (i32.const 0))", nil, 0},
		{"exit 7", "(call $exit (i32.const 7))", nil, 7},
		{"timeout", "(loop $l (br $l))", []string{"--timeout", "200ms"}, 124},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := wat(t, "start", fmt.Sprintf(start, tc.body))
			r := cli(t, append(append([]string{"run"}, tc.args...), g)...)
			require.Equal(t, tc.code, r.code, r.stderr)
		})
	}
}
