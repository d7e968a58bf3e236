//go:build wasip1

// Command roundtrip is the aclwasm demo: it sends a buffer from the guest to
// device memory (H2D), copies it to a second device buffer (D2D), clears the
// first one, brings the copy back (D2H) and checks that every byte survived.
// It prints a short report and exits 0 (OK), 1 (the data changed) or 2 (an
// ACL call failed).
//
// Build and run (from the repository root):
//
//	GOOS=wasip1 GOARCH=wasm go build -o build/wasm/roundtrip.wasm ./samples/roundtrip
//	go run ./cmd/aclwasm run --stats build/wasm/roundtrip.wasm [-size N] [-seed S] [-device D]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/aclwasm/aclwasm/guest-sdk/go/acl"
)

func main() {
	size := flag.Uint64("size", 1<<20, "bytes to send through the device")
	seed := flag.Uint("seed", 0x5eed, "seed of the test pattern")
	device := flag.Int("device", 0, "device to use")
	flag.Parse()

	ok, err := run(*size, uint32(*seed), int32(*device))
	switch {
	case err != nil:
		fmt.Printf("\nroundtrip: FAIL: %v\n", err)
		os.Exit(2)
	case !ok:
		fmt.Println("\nroundtrip: FAIL")
		os.Exit(1)
	}
	fmt.Println("\nroundtrip: OK")
}

func run(size uint64, seed uint32, device int32) (bool, error) {
	if size == 0 {
		return false, fmt.Errorf("-size must be at least 1")
	}
	if err := acl.SetDevice(device); err != nil {
		return false, err
	}
	defer acl.ResetDevice(device)
	major, minor, patch, err := acl.Version()
	if err != nil {
		return false, err
	}
	count, err := acl.DeviceCount()
	if err != nil {
		return false, err
	}
	fmt.Printf("roundtrip: %s through device memory (ACL %d.%d.%d, %d device(s), using device %d)\n\n",
		human(size), major, minor, patch, count, device)

	input := make([]byte, size)
	fill(input, seed)
	output := make([]byte, size)

	a, err := acl.NewDeviceBuffer(size)
	if err != nil {
		return false, err
	}
	defer a.Free()
	b, err := acl.NewDeviceBuffer(size)
	if err != nil {
		return false, err
	}
	defer b.Free()

	fmt.Printf("  %-5s %-38s %12s\n", "step", "what", "bytes")
	step := func(name, what string, n uint64, do func() error) error {
		if err := do(); err != nil {
			return err
		}
		fmt.Printf("  %-5s %-38s %12d\n", name, what, n)
		return nil
	}
	if err := step("H2D", "guest input      -> device buffer A", size, func() error {
		return a.Write(0, input)
	}); err != nil {
		return false, err
	}
	if err := step("D2D", "device buffer A  -> device buffer B", size, func() error {
		return b.CopyFrom(a)
	}); err != nil {
		return false, err
	}
	// With A cleared, the bytes that come back can only have come from B.
	if err := step("set", "device buffer A  := 0 (aclrtMemset)", size, func() error {
		return a.Fill(0)
	}); err != nil {
		return false, err
	}
	if err := step("D2H", "device buffer B  -> guest output", size, func() error {
		return b.Read(0, output)
	}); err != nil {
		return false, err
	}

	same := 0
	for i := range input {
		if input[i] == output[i] {
			same++
		}
	}
	sent, received := fnv1a64(input), fnv1a64(output)
	fmt.Println()
	fmt.Printf("  pattern   seed %#x, %s\n", seed, human(size))
	fmt.Printf("  sent      fnv1a64 %#016x\n", sent)
	fmt.Printf("  received  fnv1a64 %#016x\n", received)
	fmt.Printf("  matching  %d of %d bytes\n", same, size)
	return uint64(same) == size && sent == received, nil
}

// fill writes the test pattern: byte i is the top byte of
// (i XOR seed) * 2654435761 (mod 2^32).
func fill(b []byte, seed uint32) {
	for i := range b {
		b[i] = byte(((uint32(i) ^ seed) * 2654435761) >> 24)
	}
}

// fnv1a64 is the 64-bit FNV-1a hash.
func fnv1a64(b []byte) uint64 {
	h := uint64(0xcbf29ce484222325)
	for _, c := range b {
		h ^= uint64(c)
		h *= 0x100000001b3
	}
	return h
}

func human(n uint64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
