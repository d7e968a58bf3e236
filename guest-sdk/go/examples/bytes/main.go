//go:build wasip1

// Command bytes is a reactor plugin of the host's bytes-in, bytes-out
// convention (docs/EMBEDDING.md): the host calls its exports with
// host.Instance.CallBytes (or a host.Pool), and each returns 0 or a nonzero
// status the host sees as a *host.StatusError. The Rust and AssemblyScript
// SDKs have the same example (guest-sdk/rust/examples/bytes.rs,
// guest-sdk/assemblyscript/examples/bytes.ts).
//
//   - upper: the input with ASCII letters upper-cased.
//   - roundtrip: the input, copied to device memory and back.
//   - config: the value of the configuration key named by the input; status
//     1 if the key is not set.
//   - repeat: the input as many times as the configuration value "times"
//     says; status 2 if it is not set or not a number. Past the host's
//     output limit, the output_write error code (207012) with the copies
//     written so far.
//
// Build (from the repository root):
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o build/wasm/go-bytes.wasm github.com/aclwasm/aclwasm/guest-sdk/go/examples/bytes
package main

import (
	"strconv"

	"github.com/aclwasm/aclwasm/guest-sdk/go/acl"
)

// status is an export's result: 0, or the failed call's aclError code.
func status(err error) int32 {
	if err != nil {
		return int32(acl.CodeOf(err))
	}
	return 0
}

//go:wasmexport upper
func upper() int32 {
	in, err := acl.Input()
	if err != nil {
		return status(err)
	}
	for i, c := range in {
		if 'a' <= c && c <= 'z' {
			in[i] = c - 'a' + 'A'
		}
	}
	return status(acl.Output(in))
}

//go:wasmexport roundtrip
func roundtrip() int32 {
	in, err := acl.Input()
	if err != nil || len(in) == 0 {
		return status(err)
	}
	if err := acl.SetDevice(0); err != nil {
		return status(err)
	}
	dev, err := acl.NewDeviceBuffer(uint64(len(in)))
	if err != nil {
		return status(err)
	}
	defer dev.Free()
	back := make([]byte, len(in))
	if err := dev.Write(0, in); err != nil {
		return status(err)
	}
	if err := dev.Read(0, back); err != nil {
		return status(err)
	}
	return status(acl.Output(back))
}

//go:wasmexport config
func config() int32 {
	key, err := acl.Input()
	if err != nil {
		return status(err)
	}
	v, ok, err := acl.Config(string(key))
	if err != nil {
		return status(err)
	}
	if !ok {
		return 1
	}
	return status(acl.Output([]byte(v)))
}

//go:wasmexport repeat
func repeat() int32 {
	t, ok, err := acl.Config("times")
	if err != nil {
		return status(err)
	}
	times, perr := strconv.ParseUint(t, 10, 31)
	if !ok || perr != nil {
		return 2
	}
	in, err := acl.Input()
	if err != nil {
		return status(err)
	}
	for range times {
		if err := acl.Output(in); err != nil {
			return status(err)
		}
	}
	return 0
}

// main is required by the Go toolchain; a reactor never runs it.
func main() {}
