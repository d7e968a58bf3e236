// Package acl is the Go guest SDK of aclwasm: the CANN ACL runtime's
// memory-copy API (aclrtMemcpy and family, streams, events, device memory)
// for Go programs compiled to WebAssembly (GOOS=wasip1 GOARCH=wasm), as
// imports from the module "acl" (guest ABI v1).
//
// It works in command modules (go build) and reactor modules
// (go build -buildmode=c-shared with //go:wasmexport functions; call them only
// after the host has run _initialize).
//
// # Layers
//
// Package raw (guest-sdk/go/acl/raw) holds the imports with their exact wire
// types, generated from the host's ABI table. This package wraps them:
// every call returns an error that is nil or an *Error carrying the native
// code (a Code, comparable with errors.Is), its native name, the function
// and the host's message from aclGetRecentErrMsg. The error codes, enums and
// structs (codes.go, types.go) are generated from the host's acl package.
//
// # Addresses
//
// Device memory has 64-bit addresses, so every address is a Ptr: guest memory
// is its own pointer zero-extended (Addr(b) for a []byte), device memory is
// what Malloc returned. Go's garbage collector does not move heap objects,
// so Addr(b) stays valid while b is reachable; Addr makes b escape to the
// heap, because goroutine stacks do move. Keep b reachable (runtime.KeepAlive)
// until the call that uses the address returns, and for pinned memory until
// the operation completed. The methods that take a []byte (DeviceBuffer.Write,
// Read, CopyToDevice, CopyFromDevice, PinnedBuffer) do this themselves.
//
// # Building
//
// The imports from the host exist only for GOOS=wasip1 GOARCH=wasm. On
// any other platform the whole API is declared all the same, so that code
// using it builds, vets and documents itself (go doc) anywhere, and every
// call fails with ErrAPINotSupport and a message saying that the SDK works
// only inside a wasip1 guest.
package acl
