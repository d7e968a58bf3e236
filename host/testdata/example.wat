;; example.wasm, used by example_test.go: copies 4096 bytes of its memory to
;; the device and back. Rebuild with: wat2wasm example.wat -o example.wasm
(module
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (import "acl" "aclrtMalloc" (func $malloc (param i32 i64 i32) (result i32)))
  (import "acl" "aclrtMemcpy" (func $memcpy (param i64 i64 i64 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (func $check (param i32) (if (local.get 0) (then (call $exit (i32.const 1)))))
  (func (export "_start") (local $d i64)
    (call $check (call $set (i32.const 0)))
    (call $check (call $malloc (i32.const 8) (i64.const 4096) (i32.const 0)))
    (local.set $d (i64.load (i32.const 8)))
    (call $check (call $memcpy (local.get $d) (i64.const 4096) (i64.const 0x1000) (i64.const 4096) (i32.const 1)))
    (call $check (call $memcpy (i64.const 0x2000) (i64.const 4096) (local.get $d) (i64.const 4096) (i32.const 2)))))
