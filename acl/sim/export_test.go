package sim

import "github.com/aclwasm/aclwasm/acl"

// Bytes returns the n bytes of device memory at p, so that benchmarks can
// time copy() on the very memory the simulator copies.
func Bytes(b *Backend, p acl.DevPtr, n uint64) []byte {
	b.mu.RLock()
	defer b.mu.RUnlock()
	a, off, err := b.allocLocked(p, n, "p")
	if err != nil {
		panic(err)
	}
	return a.mem[off : off+n]
}
