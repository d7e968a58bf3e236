;; counter: a reactor written to be kept between requests (manifest
;; serve.reuse_instances): its export "handle" adds one to a count in its
;; linear memory and answers the count (4 bytes, little-endian), so that a
;; kept instance counts 1, 2, 3 and a fresh one answers 1 every time. Its
;; first call allocates 4 KiB of device memory that it keeps (never
;; frees): a kept instance holds it between requests, and it goes with the
;; instance's session. An input that starts with
;;   "trap" traps (unreachable), after counting;
;;   "spin" loops until the policy's timeout stops it;
;;   "warn" writes "counter: warned" to stderr, logs "counter warned" with
;;          aclAppLog (ACL_WARNING) and returns status 1, answering nothing.
;; Status 2 if a host call fails.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (import "aclwasm" "input_len" (func $len (result i32)))
  (import "aclwasm" "input_read" (func $read (param i32 i32) (result i32)))
  (import "aclwasm" "output_write" (func $out (param i32 i32) (result i32)))
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (import "acl" "aclrtMalloc" (func $malloc (param i32 i64 i32) (result i32)))
  (import "acl" "aclAppLog" (func $log (param i32 i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  ;; 0x8 the device pointer, 0x10 an iovec, 0x18 nwritten, 0x20 the
  ;; input's first 4 bytes, 0x100 the count (output_write refuses a NULL
  ;; buffer)
  (data (i32.const 0x40) "counter: warned\n")
  (data (i32.const 0x60) "counter warned\00")
  (func (export "handle") (result i32)
    (i32.store (i32.const 0x100) (i32.add (i32.load (i32.const 0x100)) (i32.const 1)))
    (if (i32.eq (i32.load (i32.const 0x100)) (i32.const 1)) (then
      (if (call $set (i32.const 0)) (then (return (i32.const 2))))
      (if (call $malloc (i32.const 0x8) (i64.const 4096) (i32.const 0)) (then (return (i32.const 2))))))
    (if (i32.ge_u (call $len) (i32.const 4)) (then
      (if (call $read (i32.const 0x20) (i32.const 4)) (then (return (i32.const 2))))
      (if (i32.eq (i32.load (i32.const 0x20)) (i32.const 0x70617274)) (then unreachable)) ;; "trap"
      (if (i32.eq (i32.load (i32.const 0x20)) (i32.const 0x6e697073)) (then (loop $l (br $l)))) ;; "spin"
      (if (i32.eq (i32.load (i32.const 0x20)) (i32.const 0x6e726177)) (then ;; "warn"
        (i32.store (i32.const 0x10) (i32.const 0x40))
        (i32.store (i32.const 0x14) (i32.const 16))
        (drop (call $write (i32.const 2) (i32.const 0x10) (i32.const 1) (i32.const 0x18)))
        (drop (call $log (i32.const 2) (i32.const 0) (i32.const 0) (i32.const 7) (i32.const 0x60)))
        (return (i32.const 1))))))
    (if (call $out (i32.const 0x100) (i32.const 4)) (then (return (i32.const 2))))
    (i32.const 0)))
