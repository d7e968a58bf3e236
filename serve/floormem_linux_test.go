package serve

import (
	"bytes"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// floorReserve maps n bytes off the Go heap, committed as touched.
func floorReserve(n uint64) []byte {
	b, err := unix.Mmap(-1, 0, int(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON|unix.MAP_NORESERVE)
	if err != nil {
		panic(err)
	}
	return b
}

func floorUnreserve(b []byte) { _ = unix.Munmap(b) }

// floorClear zeroes b, the start of a reservation, as the host's scrub
// does where it can (host/internal/engine/wazero/scrub_linux.go): it
// clears the resident pages that are not zero (mincore(2)), so that the
// next instance finds them resident, without a fault per page. Where
// mincore fails, the pages go back to the kernel (MADV_DONTNEED), which
// maps zeroes at the next touch. (The host also checks for swap, which a
// benchmark machine has not, and returns ranges with many resident pages
// to the kernel; echo's few pages never are.)
func floorClear(b []byte) {
	if len(b) == 0 {
		return
	}
	ps := os.Getpagesize()
	vec := make([]byte, (len(b)+ps-1)/ps)
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		if unix.Madvise(b, unix.MADV_DONTNEED) != nil {
			clear(b)
		}
		return
	}
	zero := make([]byte, ps)
	for i, v := range vec {
		if v&1 == 0 {
			continue
		}
		p := b[i*ps : min((i+1)*ps, len(b))]
		if !bytes.Equal(p, zero[:len(p)]) {
			clear(p)
		}
	}
}
