;; reactor: no _start, an export taking a number: serve refuses it.
(module
  (memory (export "memory") 1)
  (func (export "_initialize"))
  (func (export "double") (param i32) (result i32) (i32.mul (local.get 0) (i32.const 2))))
