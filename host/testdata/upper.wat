;; upper.wasm, used by embed_example_test.go: a bytes export (module
;; "aclwasm") that upper-cases ASCII letters, and sum, which calls the
;; embedder's host function env.sum. Rebuild with:
;; wat2wasm upper.wat -o upper.wasm
(module
  (import "aclwasm" "input_len" (func $len (result i32)))
  (import "aclwasm" "input_read" (func $read (param i32 i32) (result i32)))
  (import "aclwasm" "output_write" (func $write (param i32 i32) (result i32)))
  (import "env" "sum" (func $sum (param i32 i32 i32) (result i32)))
  (memory (export "memory") 2)
  (func (export "upper") (result i32)
    (local $n i32) (local $i i32) (local $c i32) (local $r i32)
    (local.set $n (call $len))
    (if (i32.gt_u (local.get $n) (i32.const 0x10000)) (then (return (i32.const 1))))
    (local.set $r (call $read (i32.const 0x1000) (local.get $n)))
    (if (local.get $r) (then (return (local.get $r))))
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $c (i32.load8_u (i32.add (i32.const 0x1000) (local.get $i))))
      (if (i32.and (i32.ge_u (local.get $c) (i32.const 97)) (i32.le_u (local.get $c) (i32.const 122)))
        (then (i32.store8 (i32.add (i32.const 0x1000) (local.get $i)) (i32.sub (local.get $c) (i32.const 32)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (call $write (i32.const 0x1000) (local.get $n)))
  (func (export "sum") (param i32 i32 i32) (result i32)
    (call $sum (local.get 0) (local.get 1) (local.get 2)))
)
