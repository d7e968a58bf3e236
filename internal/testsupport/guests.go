package testsupport

import (
	"testing"
	"time"
)

// RoundtripWAT is a command guest: H2D, D2D, D2H of 4 KiB through two
// device buffers, then it compares and exits with 0 (equal) or 1. With
// queue=1 it also queues an async copy on pinned memory and exits at once
// with code 3, leaving the work queued. %d is where queue goes
// (fmt.Sprintf).
const RoundtripWAT = `(module
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (import "acl" "aclrtMalloc" (func $malloc (param i32 i64 i32) (result i32)))
  (import "acl" "aclrtMemcpy" (func $memcpy (param i64 i64 i64 i64 i32) (result i32)))
  (import "acl" "aclrtMemcpyAsync" (func $memcpyAsync (param i64 i64 i64 i64 i32 i32) (result i32)))
  (import "acl" "aclrtHostRegister" (func $register (param i64 i64 i32 i32) (result i32)))
  (import "acl" "aclrtCreateStream" (func $stream (param i32) (result i32)))
  (import "acl" "aclrtFree" (func $free (param i64) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 4)
  (global $queue (mut i32) (i32.const %d))
  (func $check (param i32) (if (local.get 0) (then (call $exit (i32.const 2)))))
  (func (export "_start") (local $i i32) (local $a i64) (local $b i64)
    ;; source pattern at 0x1000
    (loop $fill
      (i32.store8 (i32.add (i32.const 0x1000) (local.get $i)) (i32.mul (local.get $i) (i32.const 7)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $fill (i32.lt_u (local.get $i) (i32.const 4096))))
    (call $check (call $set (i32.const 0)))
    (call $check (call $malloc (i32.const 16) (i64.const 4096) (i32.const 0)))
    (call $check (call $malloc (i32.const 24) (i64.const 4096) (i32.const 0)))
    (local.set $a (i64.load (i32.const 16)))
    (local.set $b (i64.load (i32.const 24)))
    (call $check (call $memcpy (local.get $a) (i64.const 4096) (i64.const 0x1000) (i64.const 4096) (i32.const 1)))
    (call $check (call $memcpy (local.get $b) (i64.const 4096) (local.get $a) (i64.const 4096) (i32.const 3)))
    (if (global.get $queue) (then
      (call $check (call $register (i64.const 0x10000) (i64.const 0x10000) (i32.const 0) (i32.const 32)))
      (call $check (call $stream (i32.const 40)))
      (call $check (call $memcpyAsync (i64.const 0x10000) (i64.const 4096) (local.get $b) (i64.const 4096) (i32.const 2) (i32.load (i32.const 40))))
      (call $exit (i32.const 3))))
    (call $check (call $memcpy (i64.const 0x3000) (i64.const 4096) (local.get $b) (i64.const 4096) (i32.const 2)))
    (call $check (call $free (local.get $a)))
    (local.set $i (i32.const 0))
    (loop $cmp
      (if (i64.ne (i64.load (i32.add (i32.const 0x1000) (local.get $i))) (i64.load (i32.add (i32.const 0x3000) (local.get $i))))
        (then (call $exit (i32.const 1))))
      (local.set $i (i32.add (local.get $i) (i32.const 8)))
      (br_if $cmp (i32.lt_u (local.get $i) (i32.const 4096))))))
`

// DeviceEchoWAT is a command guest that does what serve's echo does:
// reads up to 64 bytes of stdin, sets a device, allocates two buffers,
// copies the input through them and back, frees them and writes it to
// stdout; it traps on any failure.
const DeviceEchoWAT = `(module
  (import "wasi_snapshot_preview1" "fd_read" (func $read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (import "acl" "aclrtMalloc" (func $malloc (param i32 i64 i32) (result i32)))
  (import "acl" "aclrtMemcpy" (func $memcpy (param i64 i64 i64 i64 i32) (result i32)))
  (import "acl" "aclrtFree" (func $free (param i64) (result i32)))
  (memory (export "memory") 1)
  (func $ok (param i32) (if (local.get 0) (then unreachable)))
  (func (export "_start") (local $n i64) (local $a i64) (local $b i64)
    (i32.store (i32.const 0) (i32.const 0x100))
    (i32.store (i32.const 4) (i32.const 64))
    (call $ok (call $read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 8)))
    (local.set $n (i64.load32_u (i32.const 8)))
    (call $ok (call $set (i32.const 0)))
    (call $ok (call $malloc (i32.const 0x10) (local.get $n) (i32.const 0)))
    (call $ok (call $malloc (i32.const 0x18) (local.get $n) (i32.const 0)))
    (local.set $a (i64.load (i32.const 0x10)))
    (local.set $b (i64.load (i32.const 0x18)))
    (call $ok (call $memcpy (local.get $a) (local.get $n) (i64.const 0x100) (local.get $n) (i32.const 1)))
    (call $ok (call $memcpy (local.get $b) (local.get $n) (local.get $a) (local.get $n) (i32.const 3)))
    (call $ok (call $memcpy (i64.const 0x200) (local.get $n) (local.get $b) (local.get $n) (i32.const 2)))
    (call $ok (call $free (local.get $a)))
    (call $ok (call $free (local.get $b)))
    (i32.store (i32.const 0) (i32.const 0x200))
    (i32.store (i32.const 4) (i32.wrap_i64 (local.get $n)))
    (call $ok (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))`

// SmallWAT is the small module of the performance goals 4 and 7: one
// page, one acl import, an empty export.
const SmallWAT = `(module
  (import "acl" "aclrtMemcpy" (func $aclrtMemcpy (param i64 i64 i64 i64 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "empty")))
`

// SpinWAT is a module without imports whose export "empty" returns at
// once and "spin" loops until the engine stops it.
const SpinWAT = `(module
  (memory (export "memory") 1)
  (func (export "empty"))
  (func (export "spin") (loop (br 0))))`

// MemcpyLoopWAT is a module field for ProxyWAT: an export memcpy_loop
// that calls aclrtMemcpy iters times from inside the guest, so that a
// benchmark measures the host call, not Go-to-wasm entry.
const MemcpyLoopWAT = `  (func (export "memcpy_loop") (param $dst i64) (param $src i64) (param $n i64) (param $kind i32) (param $iters i32) (result i32) (local $r i32)
    (block $done (loop $l
      (local.set $r (call $aclrtMemcpy (local.get $dst) (local.get $n) (local.get $src) (local.get $n) (local.get $kind)))
      (br_if $done (local.get $r))
      (local.set $iters (i32.sub (local.get $iters) (i32.const 1)))
      (br_if $l (local.get $iters))))
    (local.get $r))
`

// Stopped runs call, which a guest that never returns by itself makes
// (SpinWAT's spin), on another goroutine and returns its error: the
// engine must stop it. It fails t if the call has not returned in a
// minute: a watchdog on a hang, not a bound on how soon.
func Stopped(t testing.TB, call func() error) error {
	t.Helper()
	res := make(chan error, 1)
	go func() { res <- call() }()
	select {
	case err := <-res:
		return err
	case <-time.After(time.Minute):
		t.Fatal("a spinning guest was not stopped in a minute")
		return nil
	}
}
