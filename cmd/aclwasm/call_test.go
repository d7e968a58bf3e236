package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// watBytes is a reactor of the bytes convention (module aclwasm): each
// export reads its input to 1024 and answers in its own way.
const watBytes = `(module
  (import "aclwasm" "input_len" (func $len (result i32)))
  (import "aclwasm" "input_read" (func $read (param i32 i32) (result i32)))
  (import "aclwasm" "output_write" (func $write (param i32 i32) (result i32)))
  (import "aclwasm" "config_read" (func $cfg (param i32 i32 i32 i32) (result i32)))
  (import "acl" "aclrtSetDevice" (func $setdev (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "partial")
  (data (i32.const 32) "guest says hi\n")
  (data (i32.const 64) "greeting")
  (func $in (result i32) (drop (call $read (i32.const 1024) (call $len))) (call $len))
  ;; the input back, prefixed by "echo:"
  (func (export "echo") (result i32)
    (local $n i32) (local.set $n (call $in))
    (i32.store (i32.const 1019) (i32.const 0x6f686365)) (i32.store8 (i32.const 1023) (i32.const 58))
    (call $write (i32.const 1019) (i32.add (local.get $n) (i32.const 5))))
  ;; "partial", then the status the input's first byte holds, minus 100
  ;; (so "g" gives 3, "\xea" 134)
  (func (export "status") (result i32)
    (drop (call $in))
    (drop (call $write (i32.const 16) (i32.const 7)))
    (i32.sub (i32.load8_u (i32.const 1024)) (i32.const 100)))
  (func (export "negative") (result i32) (i32.const -1))
  (func (export "toolong") (result i32)
    (drop (call $setdev (i32.const 9)))
    (i32.const 300))
  ;; no status: "ok"
  (func (export "void") (i32.store16 (i32.const 8) (i32.const 0x6b6f)) (drop (call $write (i32.const 8) (i32.const 2))))
  ;; 100 bytes of output
  (func (export "big") (result i32) (call $write (i32.const 2048) (i32.const 100)))
  ;; prints to its stdout, answers "out"
  (func (export "print") (result i32)
    (i32.store (i32.const 0) (i32.const 32)) (i32.store (i32.const 4) (i32.const 14))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
    (i32.store (i32.const 8) (i32.const 0x0074756f))
    (call $write (i32.const 8) (i32.const 3)))
  ;; the configuration value "greeting"
  (func (export "config") (result i32)
    (call $write (i32.const 1024) (call $cfg (i32.const 64) (i32.const 8) (i32.const 1024) (i32.const 64))))
  (func (export "quit") (call $exit (i32.const 5)))
  (func (export "boom") unreachable)
  (func (export "spin") (loop $l (br $l)))
  (func (export "_start")))`

// TestCall: aclwasm call passes its input to the export, prints exactly
// its output on stdout and exits with its status, or as run does.
func TestCall(t *testing.T) {
	g := wat(t, "bytes", watBytes)
	cmdMod := wat(t, "command", `(module (memory (export "memory") 1) (func (export "_start")))`)
	dir := t.TempDir()
	inFile := filepath.Join(dir, "in.bin")
	require.NoError(t, os.WriteFile(inFile, []byte("from a file\x00\xff"), 0o644))
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr []string // substrings of its one line; nil: empty
	}{
		{"input", []string{g, "echo", "--input", "hello"}, 0, "echo:hello", nil},
		{"no input", []string{g, "echo"}, 0, "echo:", nil},
		{"input file", []string{"--input-file", inFile, g, "echo"}, 0, "echo:from a file\x00\xff", nil},
		{"no status", []string{g, "void"}, 0, "ok", nil},
		{"status", []string{g, "status", "--input", "g"}, 3, "partial", []string{"aclwasm: status returned 3"}},
		{"status of the host's", []string{g, "status", "--input", "\xea"}, 134, "partial", []string{"status returned 134: the export's own status, not the host's trap (134)"}},
		{"negative status", []string{g, "negative"}, 255, "", []string{"negative returned -1, which an exit status cannot hold: exiting 255"}},
		{"status above 255", []string{g, "toolong"}, 255, "", []string{"toolong returned 300 (last error: aclrtSetDevice: ", "exiting 255"}},
		{"max output", []string{"--max-output", "64", g, "big"}, 126, "", []string{"output limit exceeded: the guest wrote more than 64 bytes", "the 0 bytes written before are not printed"}},
		{"max output fits", []string{"--max-output", "100B", g, "big"}, 0, string(make([]byte, 100)), nil},
		{"bad max output", []string{"--max-output", "0", g, "big"}, 126, "", []string{`--max-output "0": want a byte count above 0`}},
		{"guest stdout to stderr", []string{g, "print"}, 0, "out", []string{"guest says hi"}},
		{"exit", []string{g, "quit"}, 5, "", nil},
		{"trap", []string{g, "boom"}, 134, "", []string{"boom: guest trapped: unreachable"}},
		{"timeout", []string{"--timeout", "200ms", g, "spin"}, 124, "", []string{"spin: guest timed out after 200ms (the policy's timeout)"}},
		{"no such export", []string{g, "nope"}, 126, "", []string{`exports no function "nope": it exports echo, status, negative, toolong, void, big, print, config, quit, boom, spin`}},
		{"command", []string{cmdMod, "echo"}, 126, "", []string{"is a WASI command: it exports only _start", "run it with aclwasm run", `build it as a reactor that exports "echo"`}},
		{"entry point", []string{g, "_start"}, 126, "", []string{"_start is the module's WASI entry point, which the host runs itself"}},
		{"both inputs", []string{"--input", "a", "--input-file", inFile, g, "echo"}, 126, "", []string{"[input input-file] were all set"}},
		{"missing file", []string{"--input-file", filepath.Join(dir, "none"), g, "echo"}, 126, "", []string{"--input-file: open "}},
		{"no export named", []string{g}, 126, "", []string{"usage: aclwasm call"}},
		{"denied import", []string{"--deny", "aclrtSetDevice", g, "echo"}, 125, "", []string{"aclrtSetDevice"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := cli(t, append([]string{"call"}, tc.args...)...)
			require.Equal(t, tc.code, r.code, r.stderr)
			require.Equal(t, tc.stdout, r.stdout)
			if tc.stderr == nil {
				require.Empty(t, r.stderr)
				return
			}
			stderr := r.stderr
			if tc.code == 134 && !strings.Contains(stderr, "export's own") {
				stderr, _, _ = strings.Cut(stderr, "\n  at ")
				stderr += "\n"
			}
			line := oneLine(t, stderr)
			for _, s := range tc.stderr {
				require.Contains(t, line, s)
			}
		})
	}
}

// TestCallStdin: --input-file - reads the input from stdin.
func TestCallStdin(t *testing.T) {
	g := wat(t, "bytes", watBytes)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "call", "--input-file", "-", g, "echo")
	cmd.Stdin = strings.NewReader("piped\n")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), errb.String())
	require.Equal(t, "echo:piped\n", out.String())
	require.Empty(t, errb.String())
}

// TestCallManifest: call --manifest takes the module, policy and config
// from the manifest, and refuses the policy flags.
func TestCallManifest(t *testing.T) {
	g := wat(t, "bytes", watBytes)
	man := filepath.Join(filepath.Dir(g), "m.yaml")
	require.NoError(t, os.WriteFile(man, []byte("name: bytes\nmodule: {path: bytes.wasm}\nconfig: {greeting: hello there}\npolicy: {timeout: 300ms}\n"), 0o644))
	r := cli(t, "call", "--manifest", man, "config")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "hello there", r.stdout)

	r = cli(t, "call", "--manifest", man, "spin")
	require.Equal(t, 124, r.code)
	require.Contains(t, r.stderr, "guest timed out after 300ms")

	r = cli(t, "call", "--manifest", man, "--deny", "aclrtMalloc", "config")
	require.Equal(t, 126, r.code)
	require.Contains(t, r.stderr, "--deny: with --manifest the policy comes from the manifest")

	r = cli(t, "call", "--manifest", man, g, "config")
	require.Equal(t, 126, r.code, "a module besides the manifest's")
	require.Contains(t, r.stderr, "usage: aclwasm call")
}

// TestCallStats: --stats and --trace work for call as for run, on stderr.
func TestCallStats(t *testing.T) {
	g := wat(t, "bytes", watBytes)
	r := cli(t, "call", "--stats", g, "toolong")
	require.Equal(t, 255, r.code)
	rows := statsTable(t, r.stderr)
	require.Equal(t, []string{"1", "1×107001", "0", "0", "0", "0", "0"}, rows["aclrtSetDevice"])
	r = cli(t, "call", "--trace", g, "toolong")
	require.Equal(t, 255, r.code)
	require.Contains(t, r.stderr, "trace: aclrtSetDevice(deviceId=9) = 107001 ACL_ERROR_RT_INVALID_DEVICEID: aclrtSetDevice: ")
}
