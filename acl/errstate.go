package acl

import (
	"errors"
	"strconv"
)

// The error state and resource queries of ABI v1.2 section 12: the enums
// and the one struct they use, with their native values and layouts.

// LastErrLevel is aclrtLastErrLevel: whose last error aclrtGetLastError
// and aclrtPeekAtLastError read. The ACL layer accepts ACL_RT_THREAD_LEVEL
// only (the runtime below it also knows a context level, which acl_rt.h
// does not offer).
type LastErrLevel int32

// ThreadLevel is ACL_RT_THREAD_LEVEL: the calling thread's last error,
// which in the sandbox is the session's (a guest has one thread).
const ThreadLevel LastErrLevel = 0

// String returns the native name.
func (l LastErrLevel) String() string {
	if l == ThreadLevel {
		return "ACL_RT_THREAD_LEVEL"
	}
	return "aclrtLastErrLevel(" + strconv.FormatInt(int64(l), 10) + ")"
}

// SetsLastError reports whether a failure with code e becomes the thread's
// last error natively: the runtime records the codes it returns (the
// ACL_ERROR_RT_* family, x07xxx: 107xxx, 207xxx, 507xxx), while the ACL
// layer's own codes (100xxx, 200xxx, 500xxx) come from checks that return
// before the runtime is reached, and record nothing.
func SetsLastError(e Error) bool { return e >= 100000 && e/1000%100 == 7 }

// unrecorded is a failure the native call path returns without recording
// it as the thread's last error.
type unrecorded struct{ error }

func (u unrecorded) Unwrap() error { return u.error }

// Unrecorded marks err as a failure that natively leaves the last error
// unchanged although its code is of the runtime family: a check of the
// ACL layer that returns a runtime code itself (a timeout below -1), an
// entry point that passes a code on without recording it (rtGetDevice's
// 107002, api_c_device.cc:93), or one that returns 207000 from below it
// with COND_RETURN_WITH_NOLOG. [UnrecordedSteps] lists where, by step.
func Unrecorded(err error) error {
	if err == nil {
		return nil
	}
	return unrecorded{err}
}

// RecordsLastError reports whether the failure err becomes the thread's
// last error natively: a code for which [SetsLastError] holds, not marked
// by [Unrecorded].
func RecordsLastError(err error) bool {
	var u unrecorded
	if err == nil || errors.As(err, &u) {
		return false
	}
	return SetsLastError(CodeOf(err))
}

// DevResLimitType is aclrtDevResLimitType: the kind of core a device
// resource limit counts.
type DevResLimitType int32

// The native aclrtDevResLimitType values.
const (
	DevResCubeCore   DevResLimitType = 0 // ACL_RT_DEV_RES_CUBE_CORE
	DevResVectorCore DevResLimitType = 1 // ACL_RT_DEV_RES_VECTOR_CORE
	// DevResTypes is how many there are: the runtime refuses a type at or
	// above it with 107000.
	DevResTypes = 2
)

// String returns the native name.
func (t DevResLimitType) String() string {
	switch t {
	case DevResCubeCore:
		return "ACL_RT_DEV_RES_CUBE_CORE"
	case DevResVectorCore:
		return "ACL_RT_DEV_RES_VECTOR_CORE"
	}
	return "aclrtDevResLimitType(" + strconv.FormatInt(int64(t), 10) + ")"
}

// ErrorType is aclrtErrorType: the kind of device fault
// aclrtGetErrorVerbose reports.
type ErrorType uint32

// The native aclrtErrorType values.
const (
	ErrorTypeNone   ErrorType = 0      // ACL_RT_NO_ERROR
	ErrorTypeMemory ErrorType = 1      // ACL_RT_ERROR_MEMORY
	ErrorTypeL2     ErrorType = 2      // ACL_RT_ERROR_L2
	ErrorTypeAicore ErrorType = 3      // ACL_RT_ERROR_AICORE
	ErrorTypeLink   ErrorType = 4      // ACL_RT_ERROR_LINK
	ErrorTypeL3Port ErrorType = 5      // ACL_RT_ERROR_L3_PORT
	ErrorTypeOthers ErrorType = 0xFFFF // ACL_RT_ERROR_OTHERS
)

// Sizes of aclrtErrorInfo {uint8 tryRepair; uint8 hasDetail; uint8
// reserved[2]; aclrtErrorType errorType; union {aclrtMemUceInfoArray;
// aclrtAicoreErrorType} detail}. The union's larger member is {size_t
// arraySize; aclrtMemUceInfo[20]}, each aclrtMemUceInfo {void *addr; size_t
// len; size_t reserved[14]}: 8+8+112 bytes with 8-byte pointers and sizes,
// 4+4+56 with 4-byte ones. The union starts at offset 8 in both layouts.
const (
	ErrorInfoSize   = 8 + 8 + 20*(8+8+14*8) // the wide profile and LP64: 2576
	ErrorInfoSize32 = 8 + 4 + 20*(4+4+14*4) // acl32 (ILP32): 1292
)

// ErrorInfo is the part of aclrtErrorInfo that describes a fault without
// a memory (UCE) detail: the fields the native ACL layer writes in that
// case.
type ErrorInfo struct {
	TryRepair     uint8
	HasDetail     uint8
	Type          ErrorType
	AicoreErrType uint32 // detail.aicoreErrType: aclrtAicoreErrorType
}

// Encode writes e as the native ACL layer does when the fault has no
// memory detail: tryRepair, hasDetail, errorType and detail.aicoreErrType
// (bytes 0, 1, 4-7 and 8-11); the reserved bytes and the rest of the union
// are left as they were. b must hold at least 12 bytes.
func (e ErrorInfo) Encode(b []byte) {
	_ = b[11]
	b[0], b[1] = e.TryRepair, e.HasDetail
	le.PutUint32(b[4:], uint32(e.Type))
	le.PutUint32(b[8:], e.AicoreErrType)
}
