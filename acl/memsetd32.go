package acl

import "math"

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
