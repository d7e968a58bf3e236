;; showcfg: writes what a run was given, as the guest sees it: its argv
;; (each argument NUL-terminated), "|", its environment (each KEY=VALUE
;; NUL-terminated), "|", and the value of config key "scale"
;; (aclwasm.config_read), if set.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $asz (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_get" (func $aget (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_sizes_get" (func $esz (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_get" (func $eget (param i32 i32) (result i32)))
  (import "aclwasm" "config_read" (func $cfg (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0x100) "scale")
  (data (i32.const 0x108) "|")
  (func $out (param $p i32) (param $n i32)
    (i32.store (i32.const 0x10) (local.get $p))
    (i32.store (i32.const 0x14) (local.get $n))
    (drop (call $write (i32.const 1) (i32.const 0x10) (i32.const 1) (i32.const 0x18))))
  (func (export "_start") (local $n i32)
    (drop (call $asz (i32.const 0) (i32.const 4)))
    (drop (call $aget (i32.const 0x1000) (i32.const 0x2000)))
    (call $out (i32.const 0x2000) (i32.load (i32.const 4)))
    (call $out (i32.const 0x108) (i32.const 1))
    (drop (call $esz (i32.const 0) (i32.const 4)))
    (drop (call $eget (i32.const 0x1000) (i32.const 0x3000)))
    (call $out (i32.const 0x3000) (i32.load (i32.const 4)))
    (call $out (i32.const 0x108) (i32.const 1))
    (local.set $n (call $cfg (i32.const 0x100) (i32.const 5) (i32.const 0x4000) (i32.const 256)))
    (if (i32.gt_s (local.get $n) (i32.const 0)) (then (call $out (i32.const 0x4000) (local.get $n))))))
