package acl

import "math"

// CheckMemsetD32Args applies the ACL layer's checks of aclrtMemsetD32 and
// aclrtMemsetD32Async (memory.cpp, aclrtMemsetD32Impl), in order: ptr NULL,
// count 0 and ptr not 4-byte aligned give 100000; then count 32-bit words
// that do not fit in memSize (their byte count overflowing included) give
// 107000, the code ABI v1.1 section 10 fixes (the native ACL layer says
// 100000 there). It returns the byte count.
func CheckMemsetD32Args(ptr, memSize, count uint64) (uint64, error) {
	switch {
	case ptr == 0:
		return 0, Errorf(ErrInvalidParam, "ptr is NULL")
	case count == 0:
		return 0, Errorf(ErrInvalidParam, "count is 0: it must be positive")
	case ptr%4 != 0:
		return 0, Errorf(ErrInvalidParam, "ptr %#x is not 4-byte aligned", ptr)
	case count > math.MaxUint64/4:
		return 0, Errorf(ErrRTParamInvalid, "count %d words of 4 bytes overflow a byte count (memSize %d)", count, memSize)
	case count*4 > memSize:
		return 0, Errorf(ErrRTParamInvalid, "count %d words are %d bytes, more than memSize %d", count, count*4, memSize)
	}
	return count * 4, nil
}
