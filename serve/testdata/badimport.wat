;; badimport: imports a function that is not in the ABI (the aclop operator
;; API is out of scope): refused at load time.
(module
  (import "acl" "aclopExecuteV2" (func (param i32 i32 i32 i32 i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start")))
