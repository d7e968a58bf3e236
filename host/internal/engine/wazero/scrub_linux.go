package wazero

import "golang.org/x/sys/unix"

// scrubInPlace is the size up to which scrub clears bytes itself: the
// next guest then finds its pages resident, without a fault per page.
// Above it, the pages go back to the kernel.
const scrubInPlace = 1 << 20

// scrub zeroes b, the touched start of a private anonymous mapping: small
// ones by clearing, large ones by MADV_DONTNEED, after which Linux maps
// the zero page on the next touch (and the memory is no longer resident).
func scrub(b []byte) {
	if len(b) <= scrubInPlace || unix.Madvise(b, unix.MADV_DONTNEED) != nil {
		clear(b)
	}
}
