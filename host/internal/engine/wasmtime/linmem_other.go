//go:build wasmtime && cgo && !linux

package wasmtime

import "github.com/bytecodealliance/wasmtime-go/v39"

// ownMemories leaves the memories to wasmtime outside Linux (linmem.go
// clears released memories with Linux's madvise semantics).
func ownMemories(*wasmtime.Config) {}

// countReused has nothing to count outside Linux.
func countReused() {}
