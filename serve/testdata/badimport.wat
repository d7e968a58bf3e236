;; badimport: imports a function that is not in the ABI (kernels are out of
;; scope): refused at load time.
(module
  (import "acl" "aclrtLaunchKernel" (func (param i64 i32 i64 i64 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start")))
