package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// watAsyncMistake queues a copy from device memory into registered guest
// memory and never synchronizes: in _start (a command) and in the bytes
// export "bad" (a reactor's, which returns status 0).
const watAsyncMistake = `(module
  (import "acl" "aclrtSetDevice" (func $setDevice (param i32) (result i32)))
  (import "acl" "aclrtMalloc" (func $malloc (param i32 i64 i32) (result i32)))
  (import "acl" "aclrtHostRegister" (func $register (param i64 i64 i32 i32) (result i32)))
  (import "acl" "aclrtCreateStream" (func $createStream (param i32) (result i32)))
  (import "acl" "aclrtMemcpyAsync" (func $memcpyAsync (param i64 i64 i64 i64 i32 i32) (result i32)))
  (import "acl" "aclrtSynchronizeStream" (func $sync (param i32) (result i32)))
  (memory (export "memory") 1)
  (func $ok (param i32) (if (local.get 0) (then unreachable)))
  (func $copy (param $wait i32) (result i32)
    (call $ok (call $setDevice (i32.const 0)))
    (call $ok (call $malloc (i32.const 0x100) (i64.const 64) (i32.const 0)))
    (call $ok (call $register (i64.const 0x1000) (i64.const 4096) (i32.const 0) (i32.const 0x108)))
    (call $ok (call $createStream (i32.const 0x110)))
    (call $ok (call $memcpyAsync (i64.const 0x1000) (i64.const 64) (i64.load (i32.const 0x100)) (i64.const 64) (i32.const 2) (i32.load (i32.const 0x110))))
    (if (local.get $wait) (then (call $ok (call $sync (i32.load (i32.const 0x110))))))
    (i32.const 0))
  (func (export "_start") (drop (call $copy (i32.const 0))))
  (func (export "bad") (result i32) (call $copy (i32.const 0)))
  (func (export "good") (result i32) (call $copy (i32.const 1))))
`

// TestCheckAsync checks --check-async on run and call: the mistake exits
// 123 naming the copy on stderr; without the flag, or done right, the
// exit code is the guest's.
func TestCheckAsync(t *testing.T) {
	g := wat(t, "mistake", watAsyncMistake)
	r := cli(t, "run", "--check-async", g)
	require.Equal(t, 123, r.code, r.stderr)
	require.Contains(t, r.stderr, "check-async found 1 asynchronous mistake")
	require.Contains(t, r.stderr, "never waited for: aclrtMemcpyAsync(dst=0x1000, destMax=64, src=0x")
	require.True(t, strings.Contains(r.stderr, "kind=ACL_MEMCPY_DEVICE_TO_HOST, stream="), r.stderr)

	r = cli(t, "run", g)
	require.Equal(t, 0, r.code, r.stderr)

	r = cli(t, "call", "--check-async", g, "bad")
	require.Equal(t, 123, r.code, r.stderr)
	require.Contains(t, r.stderr, "bad: check-async found 1 asynchronous mistake")
	require.Contains(t, r.stderr, "aclrtMemcpyAsync(dst=0x1000")

	r = cli(t, "call", "--check-async", g, "good")
	require.Equal(t, 0, r.code, r.stderr)
}
