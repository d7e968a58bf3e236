package serve

import "golang.org/x/sys/unix"

// floorReserve maps n bytes off the Go heap, committed as touched.
func floorReserve(n uint64) []byte {
	b, err := unix.Mmap(-1, 0, int(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON|unix.MAP_NORESERVE)
	if err != nil {
		panic(err)
	}
	return b
}

func floorUnreserve(b []byte) { _ = unix.Munmap(b) }

// floorClear gives b's pages back to the kernel: Linux maps zeroes on the
// next touch.
func floorClear(b []byte) {
	if len(b) > 0 && unix.Madvise(b, unix.MADV_DONTNEED) != nil {
		clear(b)
	}
}
