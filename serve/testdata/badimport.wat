;; badimport: imports a function that is not in the ABI: refused at load time.
(module
  (import "acl" "aclrtMemsetD32" (func (param i64 i64 i32 i64) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start")))
