package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// mountWAT reads in.txt of the first mount (fd 3) to stdout, then copies
// it to copy.txt there; the status is the errno of the first step that
// fails, 0 if none. %s is how the status leaves: a command's _start or a
// reactor's export.
const mountWAT = `(module
  (import "wasi_snapshot_preview1" "path_open" (func $open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "in.txt")
  (data (i32.const 16) "copy.txt")
  ;; iovec at 64: the buffer at 1024, 100 bytes, then its length read
  (data (i32.const 64) "\00\04\00\00\64\00\00\00")
  (func $copy (result i32) (local $r i32)
    (local.set $r (call $open (i32.const 3) (i32.const 1) (i32.const 0) (i32.const 6) (i32.const 0) (i64.const 0x200006) (i64.const 0x200006) (i32.const 0) (i32.const 128)))
    (if (local.get $r) (then (return (local.get $r))))
    (local.set $r (call $read (i32.load (i32.const 128)) (i32.const 64) (i32.const 1) (i32.const 132)))
    (if (local.get $r) (then (return (local.get $r))))
    (i32.store (i32.const 68) (i32.load (i32.const 132)))
    (local.set $r (call $write (i32.const 1) (i32.const 64) (i32.const 1) (i32.const 136)))
    (if (local.get $r) (then (return (local.get $r))))
    (local.set $r (call $open (i32.const 3) (i32.const 1) (i32.const 16) (i32.const 8) (i32.const 9) (i64.const 0x600046) (i64.const 0x600046) (i32.const 0) (i32.const 128)))
    (if (local.get $r) (then (return (local.get $r))))
    (call $write (i32.load (i32.const 128)) (i32.const 64) (i32.const 1) (i32.const 136)))
  %s)`

// TestRunMount: --mount gives the guest a directory, read-only unless
// :rw, within the file limit flags; bad mounts are refused before the
// guest runs.
func TestRunMount(t *testing.T) {
	guest := wat(t, "mount", fmt.Sprintf(mountWAT, `(func (export "_start") (call $exit (call $copy)))`))
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "in.txt"), []byte("mounted"), 0o644))

	r := cli(t, "run", "--mount", dir+":/data", guest)
	require.Equal(t, 69, r.code, "EROFS: read-only by default: %s", r.stderr)
	require.Equal(t, "mounted", r.stdout)
	require.NoFileExists(t, filepath.Join(dir, "copy.txt"))

	r = cli(t, "run", "--mount", dir+":/data:rw", guest)
	require.Equal(t, 0, r.code, r.stderr)
	b, err := os.ReadFile(filepath.Join(dir, "copy.txt"))
	require.NoError(t, err)
	require.Equal(t, "mounted", string(b))
	require.NoError(t, os.Remove(filepath.Join(dir, "copy.txt")))

	r = cli(t, "run", "--mount", dir+":/data:rw", "--max-file-write-bytes", "6", guest)
	require.Equal(t, 22, r.code, "EFBIG: %s", r.stderr)
	b, err = os.ReadFile(filepath.Join(dir, "copy.txt"))
	require.NoError(t, err)
	require.Empty(t, b, "the write over the limit wrote nothing")
	require.NoError(t, os.Remove(filepath.Join(dir, "copy.txt")))
	r = cli(t, "run", "--mount", dir+":/data:rw", "--max-file-read-bytes", "3", guest)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "mou", r.stdout, "a read past the limit is short")
	require.Equal(t, 33, cli(t, "run", "--mount", dir+":/data:rw", "--max-open-files", "1", guest).code, "EMFILE")
	require.Equal(t, 8, cli(t, "run", guest).code, "EBADF: no mount, no filesystem")

	for _, c := range []struct{ args []string }{
		{[]string{"--mount", dir}},
		{[]string{"--mount", dir + ":data"}},
		{[]string{"--mount", dir + ":/data/"}},
		{[]string{"--mount", filepath.Join(dir, "missing") + ":/data"}},
		{[]string{"--mount", dir + ":/data", "--mount", dir + ":/data"}},
		{[]string{"--max-open-files", "0"}},
		{[]string{"--max-file-read-bytes", "0"}},
		{[]string{"--max-file-write-bytes", "1XB"}},
		{[]string{"--max-mount-bytes", "many"}},
	} {
		r := cli(t, append(append([]string{"run"}, c.args...), guest)...)
		require.Equal(t, 126, r.code, "%v: %s", c.args, r.stderr)
		require.Contains(t, r.stderr, strings.TrimPrefix(c.args[0], "--"), "%v", c.args)
	}

	man := filepath.Join(t.TempDir(), "p.yaml")
	require.NoError(t, os.WriteFile(man, []byte("name: p\nmodule: {path: "+guest+"}\npolicy:\n  mounts: ["+dir+":/data]\n"), 0o644))
	r = cli(t, "run", "--manifest", man)
	require.Equal(t, 69, r.code, "the manifest's mount: %s", r.stderr)
	require.Equal(t, "mounted", r.stdout)
	r = cli(t, "run", "--manifest", man, "--mount", dir+":/x")
	require.Equal(t, 126, r.code)
	require.Contains(t, r.stderr, "--mount: with --manifest the policy comes from the manifest")
}

// TestCallMount: call takes the same mounts.
func TestCallMount(t *testing.T) {
	guest := wat(t, "mount", fmt.Sprintf(mountWAT, `(func (export "copy") (result i32) (call $copy))`))
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "in.txt"), []byte("called"), 0o644))
	r := cli(t, "call", "--mount", dir+":/data:rw", guest, "copy")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "called", r.stderr, "the guest's stdout goes to stderr")
	b, err := os.ReadFile(filepath.Join(dir, "copy.txt"))
	require.NoError(t, err)
	require.Equal(t, "called", string(b))
}
