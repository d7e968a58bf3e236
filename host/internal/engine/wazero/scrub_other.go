//go:build !linux

package wazero

// scrub zeroes b. Elsewhere than on Linux, MADV_DONTNEED does not
// promise zeroed pages, so the bytes are cleared.
func scrub(b []byte) { clear(b) }
