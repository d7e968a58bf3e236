package acl

import (
	"encoding/binary"
	"math"
)

// CheckMemsetD32Args applies the ACL layer's checks of aclrtMemsetD32 and
// aclrtMemsetD32Async (memory.cpp:778-803, async 832-857), in their order:
// count 0 succeeds before any other check (the call does nothing: the
// returned byte count is 0); then ptr NULL, ptr not 4-byte aligned, and
// count 32-bit words that do not fit in memSize (their byte count
// overflowing included) give 100000. It returns the byte count.
func CheckMemsetD32Args(ptr, memSize, count uint64) (uint64, error) {
	switch {
	case count == 0:
		return 0, nil
	case ptr == 0:
		return 0, Errorf(ErrInvalidParam, "ptr is NULL")
	case ptr%4 != 0:
		return 0, Errorf(ErrInvalidParam, "ptr %#x is not 4-byte aligned", ptr)
	case count > math.MaxUint64/4:
		return 0, Errorf(ErrInvalidParam, "count %d words of 4 bytes overflow a byte count (memSize %d)", count, memSize)
	case count*4 > memSize:
		return 0, Errorf(ErrInvalidParam, "count %d words are %d bytes, more than memSize %d", count, count*4, memSize)
	}
	return count * 4, nil
}

// Fill sets every byte of b to v, doubling the filled prefix with copy:
// what a memset does to host memory in every backend and in the host.
func Fill(b []byte, v byte) {
	if len(b) == 0 {
		return
	}
	b[0] = v
	for i := 1; i < len(b); i *= 2 {
		copy(b[i:], b[:i])
	}
}

// Fill32 writes v little-endian into every 4-byte word of b (whose length
// is a multiple of 4), as aclrtMemsetD32 does.
func Fill32(b []byte, v uint32) {
	if len(b) < 4 {
		return
	}
	binary.LittleEndian.PutUint32(b, v)
	for i := 4; i < len(b); i *= 2 {
		copy(b[i:], b[:i])
	}
}
