;; hello.wasm, used by embed_example_test.go: _start writes a line to stdout
;; and logs a warning with aclAppLog; spin loops forever (for timeouts).
;; Rebuild with: wat2wasm hello.wat -o hello.wasm
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (import "acl" "aclAppLog" (func $log (param i32 i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 64) "hello from the plugin\n")
  (data (i32.const 96) "tile cache is full\00")
  (data (i32.const 128) "resize\00")
  (data (i32.const 144) "resize.c\00")
  (func (export "_start")
    (i32.store (i32.const 0) (i32.const 64))
    (i32.store (i32.const 4) (i32.const 22))
    (drop (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
    (drop (call $log (i32.const 2) (i32.const 128) (i32.const 144) (i32.const 42) (i32.const 96))))
  (func (export "spin") (loop $l (br $l))))
