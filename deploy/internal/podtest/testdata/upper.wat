;; upper: the plugin the deploy contract tests call. A reactor of the
;; bytes-in, bytes-out convention (module aclwasm): its export "handle"
;; copies the input to device memory and back (aclrtMalloc, aclrtMemcpy
;; host to device and device to host), so that a call goes through the
;; backend the server opened, and answers it in upper case. Status 2 when
;; a host call fails, 3 for an input over 64 KiB.
(module
  (import "aclwasm" "input_len" (func $len (result i32)))
  (import "aclwasm" "input_read" (func $read (param i32 i32) (result i32)))
  (import "aclwasm" "output_write" (func $write (param i32 i32) (result i32)))
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (import "acl" "aclrtMalloc" (func $malloc (param i32 i64 i32) (result i32)))
  (import "acl" "aclrtMemcpy" (func $memcpy (param i64 i64 i64 i64 i32) (result i32)))
  (import "acl" "aclrtFree" (func $free (param i64) (result i32)))
  (memory (export "memory") 4)
  ;; 0x10: the device pointer; 0x100: the input; 0x20000: the copy back.
  (func (export "handle") (result i32) (local $n i32) (local $i i32) (local $c i32) (local $d i64)
    (local.set $n (call $len))
    (if (i32.gt_u (local.get $n) (i32.const 0x10000)) (then (return (i32.const 3))))
    (if (call $read (i32.const 0x100) (local.get $n)) (then (return (i32.const 2))))
    (if (call $set (i32.const 0)) (then (return (i32.const 2))))
    (if (call $malloc (i32.const 0x10) (i64.const 0x10000) (i32.const 0)) (then (return (i32.const 2))))
    (local.set $d (i64.load (i32.const 0x10)))
    (if (call $memcpy (local.get $d) (i64.const 0x10000) (i64.const 0x100) (i64.extend_i32_u (local.get $n)) (i32.const 1)) (then (return (i32.const 2))))
    (if (call $memcpy (i64.const 0x20000) (i64.const 0x10000) (local.get $d) (i64.extend_i32_u (local.get $n)) (i32.const 2)) (then (return (i32.const 2))))
    (if (call $free (local.get $d)) (then (return (i32.const 2))))
    (block $done
      (loop $up
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $c (i32.load8_u (i32.add (i32.const 0x20000) (local.get $i))))
        (if (i32.and (i32.ge_u (local.get $c) (i32.const 97)) (i32.le_u (local.get $c) (i32.const 122)))
          (then (i32.store8 (i32.add (i32.const 0x20000) (local.get $i)) (i32.sub (local.get $c) (i32.const 32)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $up)))
    (if (call $write (i32.const 0x20000) (local.get $n)) (then (return (i32.const 2))))
    (i32.const 0)))
