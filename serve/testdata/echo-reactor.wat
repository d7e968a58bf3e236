;; echo-reactor: echo.wat as a reactor with the bytes-in, bytes-out
;; convention (module aclwasm), written to be kept between requests
;; (manifest serve.reuse_instances): its export "handle" reads the input
;; (up to 1 MiB) with input_read, moves it to the device, copies it there,
;; reads it back and writes "echo:" and the bytes with output_write: the
;; same three aclrtMemcpy (H2D, D2D, D2H) per request as echo.wat, and it
;; frees what it allocated, so that a kept instance holds no device memory
;; between requests. Status 3 for an input over 1 MiB, 2 if a host call
;; fails.
(module
  (import "aclwasm" "input_len" (func $len (result i32)))
  (import "aclwasm" "input_read" (func $read (param i32 i32) (result i32)))
  (import "aclwasm" "output_write" (func $write (param i32 i32) (result i32)))
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (import "acl" "aclrtMalloc" (func $malloc (param i32 i64 i32) (result i32)))
  (import "acl" "aclrtMemcpy" (func $memcpy (param i64 i64 i64 i64 i32) (result i32)))
  (import "acl" "aclrtFree" (func $free (param i64) (result i32)))
  (memory (export "memory") 64)
  ;; 0x10 and 0x18 device pointers, 0x10000 the input, 0x200000 the copy back
  (data (i32.const 0x100) "echo:")
  (func (export "handle") (result i32) (local $n i32) (local $len i64) (local $a i64) (local $b i64)
    (local.set $n (call $len))
    (if (i32.gt_u (local.get $n) (i32.const 0x100000)) (then (return (i32.const 3))))
    (if (call $write (i32.const 0x100) (i32.const 5)) (then (return (i32.const 2))))
    (if (i32.eqz (local.get $n)) (then (return (i32.const 0))))
    (if (call $read (i32.const 0x10000) (local.get $n)) (then (return (i32.const 2))))
    (local.set $len (i64.extend_i32_u (local.get $n)))
    (if (call $set (i32.const 0)) (then (return (i32.const 2))))
    (if (call $malloc (i32.const 0x10) (local.get $len) (i32.const 0)) (then (return (i32.const 2))))
    (if (call $malloc (i32.const 0x18) (local.get $len) (i32.const 0)) (then (return (i32.const 2))))
    (local.set $a (i64.load (i32.const 0x10)))
    (local.set $b (i64.load (i32.const 0x18)))
    (if (call $memcpy (local.get $a) (local.get $len) (i64.const 0x10000) (local.get $len) (i32.const 1)) (then (return (i32.const 2))))
    (if (call $memcpy (local.get $b) (local.get $len) (local.get $a) (local.get $len) (i32.const 3)) (then (return (i32.const 2))))
    (if (call $memcpy (i64.const 0x200000) (local.get $len) (local.get $b) (local.get $len) (i32.const 2)) (then (return (i32.const 2))))
    (if (call $free (local.get $a)) (then (return (i32.const 2))))
    (if (call $free (local.get $b)) (then (return (i32.const 2))))
    (if (call $write (i32.const 0x200000) (local.get $n)) (then (return (i32.const 2))))
    (i32.const 0)))
