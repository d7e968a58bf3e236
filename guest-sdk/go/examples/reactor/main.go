//go:build wasip1

// Command reactor is an aclwasm guest built as a WASI reactor: the host runs
// _initialize once, then calls the exports. RoundTrip copies n bytes to the
// device and back and returns the native aclError code (0 on success, -1 if
// the data changed).
//
// Build (from the repository root):
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o build/wasm/go-reactor.wasm github.com/aclwasm/aclwasm/guest-sdk/go/examples/reactor
//
// Run: aclwasm run --invoke roundtrip build/wasm/go-reactor.wasm 4096
package main

import (
	"bytes"

	"github.com/aclwasm/aclwasm/guest-sdk/go/acl"
)

//go:wasmexport roundtrip
func roundTrip(n int32) int32 {
	if err := acl.SetDevice(0); err != nil {
		return int32(acl.CodeOf(err))
	}
	dev, err := acl.NewDeviceBuffer(uint64(n))
	if err != nil {
		return int32(acl.CodeOf(err))
	}
	defer dev.Free()
	in := bytes.Repeat([]byte{0xa5}, int(n))
	out := make([]byte, n)
	if err := dev.Write(0, in); err != nil {
		return int32(acl.CodeOf(err))
	}
	if err := dev.Read(0, out); err != nil {
		return int32(acl.CodeOf(err))
	}
	if !bytes.Equal(in, out) {
		return -1
	}
	return 0
}

// main is required by the Go toolchain; a reactor never runs it.
func main() {}
