package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRunLimitFlags: --max-stack-bytes and --max-table-entries reach the
// policy: a runaway recursion traps at the stack limit given, and a value
// of 0 (which a Policy reads as the default) is refused.
func TestRunLimitFlags(t *testing.T) {
	rec := wat(t, "rec", `(module
  (func $f (param i32) (result i32) (call $f (i32.add (local.get 0) (i32.const 1))))
  (func (export "_start") (drop (call $f (i32.const 0)))))`)
	r := cli(t, "run", "--max-stack-bytes", "64KiB", rec)
	require.Equal(t, 134, r.code, r.stderr)
	require.Contains(t, r.stderr, "stack limit")
	for _, args := range [][]string{
		{"--max-stack-bytes", "0"}, {"--max-stack-bytes", "1XB"}, {"--max-table-entries", "0"},
	} {
		r := cli(t, append(append([]string{"run"}, args...), rec)...)
		require.Equal(t, 126, r.code, "%v: %s", args, r.stderr)
		require.Contains(t, r.stderr, args[0])
	}
	grow := wat(t, "grow", `(module (table $t 1 funcref)
  (func (export "_start") (if (i32.ne (table.grow $t (ref.null func) (i32.const 10)) (i32.const -1)) (then unreachable))))`)
	require.Equal(t, 0, cli(t, "run", "--max-table-entries", "10", grow).code, "table.grow past the flag's limit fails")
	require.Equal(t, 134, cli(t, "run", "--max-table-entries", "11", grow).code, "and within it succeeds")
}

// TestRunTrapNamesEscaped: a guest function name with terminal escapes
// and a line break reaches the CLI's backtrace escaped, on one line.
func TestRunTrapNamesEscaped(t *testing.T) {
	sec := func(id byte, body ...byte) []byte { return append([]byte{id, byte(len(body))}, body...) }
	evil := "\x1b[2J\r\nFAKE"
	names := append([]byte{1, 1, byte(len(evil))}, evil...) // function 1's name
	m := []byte("\x00asm\x01\x00\x00\x00")
	m = append(m, sec(1, 1, 0x60, 0, 0)...)                             // () -> ()
	m = append(m, sec(3, 2, 0, 0)...)                                   // two functions
	m = append(m, sec(7, 1, 6, '_', 's', 't', 'a', 'r', 't', 0, 0)...)  // export _start
	m = append(m, sec(10, 2, 4, 0, 0x10, 1, 0x0b, 3, 0, 0x00, 0x0b)...) // _start calls 1; 1 traps
	m = append(m, sec(0, append([]byte{4, 'n', 'a', 'm', 'e', 1, byte(len(names))}, names...)...)...)
	path := filepath.Join(t.TempDir(), "evil.wasm")
	require.NoError(t, os.WriteFile(path, m, 0o644))
	r := cli(t, "run", path)
	require.Equal(t, 134, r.code, r.stderr)
	require.Contains(t, r.stderr, `at \x1b[2J\r\nFAKE`)
	require.NotContains(t, r.stderr, "\x1b")
	require.NotContains(t, r.stderr, "\r")
	for _, line := range strings.Split(r.stderr, "\n") {
		require.False(t, strings.HasPrefix(line, "FAKE"), "a forged line: %q", r.stderr)
	}
}

// TestRunCallbackFlags: --max-callback-depth and --max-callbacks reach
// the policy, and 0 is refused. The guest's report callback relaunches
// itself and processes reports, exiting with its depth once
// aclrtProcessReport gives 207012; or _start launches three callbacks and
// exits with 1 if the third gives 207012.
func TestRunCallbackFlags(t *testing.T) {
	const src = `(module
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (import "acl" "aclrtSubscribeReport" (func $sub (param i64 i32) (result i32)))
  (import "acl" "aclrtLaunchCallback" (func $launch (param i32 i32 i32 i32) (result i32)))
  (import "acl" "aclrtProcessReport" (func $process (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory 1)
  (type $cb (func (param i32)))
  (table 2 funcref)
  (elem (i32.const 1) $relaunch)
  (global $depth (mut i32) (i32.const 0))
  (func $relaunch (param i32)
    (global.set $depth (i32.add (global.get $depth) (i32.const 1)))
    (drop (call $launch (i32.const 1) (i32.const 0) (i32.const 0) (i32.const 0)))
    (if (i32.eq (call $process (i32.const -1)) (i32.const 207012)) (then (call $exit (global.get $depth)))))
  (func (export "aclwasm_dispatch_callback") (param i32 i32) (call_indirect (type $cb) (local.get 1) (local.get 0)))
  (func (export "_start")
    (drop (call $set (i32.const 0)))
    (drop (call $sub (i64.const 1) (i32.const 0)))
    (drop (call $launch (i32.const 1) (i32.const 0) (i32.const 0) (i32.const 0)))
    (if (i32.eq (global.get $count) (i32.const 0)) (then (drop (call $process (i32.const -1))) (call $exit (i32.const 99))))
    (drop (call $launch (i32.const 1) (i32.const 0) (i32.const 0) (i32.const 0)))
    (call $exit (i32.eq (call $launch (i32.const 1) (i32.const 0) (i32.const 0) (i32.const 0)) (i32.const 207012))))
  (global $count (mut i32) (i32.const %d)))`
	depth := wat(t, "depth", fmt.Sprintf(src, 0))
	r := cli(t, "run", "--max-callback-depth", "3", depth)
	require.Equal(t, 3, r.code, r.stderr)
	require.Equal(t, 8, cli(t, "run", depth).code, "the default depth")
	count := wat(t, "count", fmt.Sprintf(src, 1))
	require.Equal(t, 1, cli(t, "run", "--max-callbacks", "2", count).code)
	require.Equal(t, 0, cli(t, "run", count).code, "the default count")
	for _, flag := range []string{"--max-callbacks", "--max-callback-depth"} {
		r := cli(t, "run", flag, "0", count)
		require.Equal(t, 126, r.code, "%s: %s", flag, r.stderr)
		require.Contains(t, r.stderr, flag)
	}
}
