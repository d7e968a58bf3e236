;; preprocess.wasm: the plugin of examples/embed. Rebuild with
;; wat2wasm preprocess.wat -o preprocess.wasm
;;
;; preprocess (bytes convention, docs/EMBEDDING.md): the input is a device
;; address (u64) and a length (u32) of a buffer the host lent; the plugin
;; copies it into its memory with aclrtMemcpy, inverts every byte
;; (255 - x), logs a line on stdout and returns the result as its output.
(module
  (import "aclwasm" "input_len" (func $len (result i32)))
  (import "aclwasm" "input_read" (func $read (param i32 i32) (result i32)))
  (import "aclwasm" "output_write" (func $write (param i32 i32) (result i32)))
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (import "acl" "aclrtMemcpy" (func $cpy (param i64 i64 i64 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fdw (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 2)
  (data (i32.const 0x40) "preprocessed a lent buffer\n")
  (func (export "preprocess") (result i32)
    (local $n i32) (local $i i32) (local $r i32)
    (if (i32.ne (call $len) (i32.const 12)) (then (return (i32.const 1))))
    (local.set $r (call $read (i32.const 0x10) (i32.const 12)))
    (if (local.get $r) (then (return (local.get $r))))
    (local.set $n (i32.load (i32.const 0x18)))
    (if (i32.gt_u (local.get $n) (i32.const 0x10000)) (then (return (i32.const 2))))
    (local.set $r (call $set (i32.const 0)))
    (if (local.get $r) (then (return (local.get $r))))
    (local.set $r (call $cpy (i64.const 0x10000) (i64.extend_i32_u (local.get $n))
                             (i64.load (i32.const 0x10)) (i64.extend_i32_u (local.get $n)) (i32.const 2)))
    (if (local.get $r) (then (return (local.get $r))))
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (i32.store8 (i32.add (i32.const 0x10000) (local.get $i))
        (i32.sub (i32.const 255) (i32.load8_u (i32.add (i32.const 0x10000) (local.get $i)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (i32.store (i32.const 0x30) (i32.const 0x40))
    (i32.store (i32.const 0x34) (i32.const 27))
    (drop (call $fdw (i32.const 1) (i32.const 0x30) (i32.const 1) (i32.const 0x38)))
    (call $write (i32.const 0x10000) (local.get $n)))
)
