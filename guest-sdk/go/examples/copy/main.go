//go:build wasip1

// Command copy is a complete aclwasm guest in Go: device memory, a pinned
// buffer, a stream, events and the copies between them. It exits 0 on
// success and 1 on failure. With the argument --skip-sync it makes the
// classic mistake of reading the pinned buffer before synchronizing the
// stream: `aclwasm run --check-async` reports the copy it did not wait for.
//
// Build (from the repository root):
//
//	GOOS=wasip1 GOARCH=wasm go build -o build/wasm/go-copy.wasm github.com/aclwasm/aclwasm/guest-sdk/go/examples/copy
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/aclwasm/aclwasm/guest-sdk/go/acl"
)

func run(skipSync bool) error {
	if err := acl.SetDevice(0); err != nil {
		return err
	}
	major, minor, patch, err := acl.Version()
	if err != nil {
		return err
	}
	n, err := acl.DeviceCount()
	if err != nil {
		return err
	}
	fmt.Printf("ACL %d.%d.%d with %d device(s)\n", major, minor, patch, n)

	// Synchronous round trip through device memory.
	input := make([]byte, 4096)
	for i := range input {
		input[i] = byte(i * 7)
	}
	dev, err := acl.NewDeviceBuffer(uint64(len(input)))
	if err != nil {
		return err
	}
	defer dev.Free()
	if err := dev.Write(0, input); err != nil {
		return err
	}
	back := make([]byte, len(input))
	if err := dev.Read(0, back); err != nil {
		return err
	}
	if !bytes.Equal(back, input) {
		return errors.New("round trip through device memory changed the data")
	}

	// An asynchronous memset copied back into pinned memory, timed with events.
	stream, err := acl.CreateStream()
	if err != nil {
		return err
	}
	defer stream.Destroy()
	start, err := acl.CreateEvent()
	if err != nil {
		return err
	}
	defer start.Destroy()
	end, err := acl.CreateEvent()
	if err != nil {
		return err
	}
	defer end.Destroy()
	pinned, err := acl.NewPinnedBuffer(len(input))
	if err != nil {
		return err
	}
	defer pinned.Free()
	if err := start.Record(stream); err != nil {
		return err
	}
	if err := dev.FillAsync(0x5a, stream); err != nil {
		return err
	}
	if err := pinned.CopyFromDeviceAsync(dev.Ptr(), stream); err != nil {
		return err
	}
	if err := end.Record(stream); err != nil {
		return err
	}
	if !skipSync {
		if err := stream.Synchronize(); err != nil {
			return err
		}
	}
	if !bytes.Equal(pinned.Bytes(), bytes.Repeat([]byte{0x5a}, len(input))) {
		return errors.New("memset result did not arrive in pinned memory")
	}
	ms, err := acl.ElapsedTime(start, end)
	if err != nil {
		return err
	}
	fmt.Printf("async memset and copy took %.3f ms\n", ms)

	// A failing call: the error carries the code, its name and the host's message.
	err = acl.Memcpy(dev.Ptr(), 16, acl.Addr(input), 32, acl.MemcpyHostToDevice)
	var e *acl.Error
	if !errors.As(err, &e) || !errors.Is(err, acl.ErrRTParamInvalid) || e.Message == "" {
		return fmt.Errorf("want ACL_ERROR_RT_PARAM_INVALID with a message, got %v", err)
	}
	fmt.Println("expected failure:", err)
	return nil
}

func main() {
	if err := run(len(os.Args) > 1 && os.Args[1] == "--skip-sync"); err != nil {
		fmt.Fprintln(os.Stderr, "copy:", err)
		os.Exit(1)
	}
	fmt.Println("copy: ok")
}
