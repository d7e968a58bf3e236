;; lend.wasm, used by embed_example_test.go: pull copies n bytes from a
;; device address to guest memory at 0x100, push the other way.
;; Rebuild with: wat2wasm lend.wat -o lend.wasm
(module
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (import "acl" "aclrtMemcpy" (func $cpy (param i64 i64 i64 i64 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "pull") (param $dev i64) (param $n i64) (result i32)
    (drop (call $set (i32.const 0)))
    (call $cpy (i64.const 0x100) (local.get $n) (local.get $dev) (local.get $n) (i32.const 2)))
  (func (export "push") (param $dev i64) (param $n i64) (result i32)
    (drop (call $set (i32.const 0)))
    (call $cpy (local.get $dev) (local.get $n) (i64.const 0x100) (local.get $n) (i32.const 1)))
)
