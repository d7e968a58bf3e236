//go:build wasip1

package acl

import "unsafe"

// The bytes-in, bytes-out convention (docs/EMBEDDING.md): a host that calls
// an export with host.Instance.CallBytes lends it an input and collects
// its output through the imports of module "aclwasm". The export takes no
// parameters and returns an int32 status (0 for success).

//go:wasmimport aclwasm input_len
func inputLen() int32

//go:wasmimport aclwasm input_read
//go:noescape
func inputRead(buf unsafe.Pointer, n int32) int32

//go:wasmimport aclwasm output_write
//go:noescape
func outputWrite(buf unsafe.Pointer, n int32) int32

// Input returns a copy of the current bytes call's input (empty outside
// one).
func Input() ([]byte, error) {
	b := make([]byte, inputLen())
	if len(b) == 0 {
		return b, nil
	}
	return b, check("input_read", inputRead(unsafe.Pointer(&b[0]), int32(len(b))))
}

// Output appends b to the current bytes call's output. It fails outside a
// bytes call, and once the output would exceed the host's limit (the
// guest's memory limit).
func Output(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return check("output_write", outputWrite(unsafe.Pointer(&b[0]), int32(len(b))))
}
