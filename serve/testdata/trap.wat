;; trap: allocates device memory, then traps (unreachable).
(module
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (import "acl" "aclrtMalloc" (func $malloc (param i32 i64 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start")
    (drop (call $set (i32.const 0)))
    (drop (call $malloc (i32.const 0x10) (i64.const 4096) (i32.const 0)))
    unreachable))
