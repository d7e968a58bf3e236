//go:build unix

package wazero

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// reserve maps n bytes of anonymous memory outside the Go heap. Pages are
// committed lazily by the kernel as the guest touches them.
func reserve(n uint64) ([]byte, error) {
	if n == 0 {
		n = 1 << 16
	}
	b, err := unix.Mmap(-1, 0, int(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON|unix.MAP_NORESERVE)
	if err != nil {
		return nil, fmt.Errorf("reserve %d bytes of guest memory: %w", n, err)
	}
	return b, nil
}

func unreserve(b []byte) { _ = unix.Munmap(b) }
