//go:build !linux

package wazero

// scrub zeroes b and returns how many of its bytes it left resident.
// Elsewhere than on Linux, MADV_DONTNEED does not promise zeroed pages,
// so the bytes are cleared, all of them resident then.
func scrub(b []byte) uint64 {
	clear(b)
	return uint64(len(b))
}
