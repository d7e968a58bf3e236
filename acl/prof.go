package acl

// ErrProfFailed is PROFILING_FAILED (-1), what the profiler's marker
// functions of acl/acl_prof.h return for most failures (hicann/runtime
// src/dfx/msprof/collector/dvvp/common/errno/error_code.h:21). The native
// headers give it no ACL_ERROR_* name, so it is not among [Codes].
const ErrProfFailed Error = -1

// StampPoolSize is how many profiling stamps a process can hold at once
// natively (CURRENT_STAMP_SIZE, prof_stamp_pool.h:25): aclprofCreateStamp
// returns NULL past it, and a range id is a stamp's place in the pool.
const StampPoolSize = 100

// StampMessageMax is the bytes a stamp's message holds with its NUL
// (MAX_MSG_LEN, msprof_tx_manager.cpp:191): aclprofSetStampTraceMessage
// refuses a msgLen of StampMessageMax or more, and aclprofMarkEx one
// above StampMessageMax-1.
const StampMessageMax = 128

// StrIDNone is what aclprofStr2Id gives the empty string: the profiler's
// UINT64_MAX for a string it cannot hash (prof_impl_inner_api.cpp:80-85).
const StrIDNone = ^uint64(0)

// StrID is the id aclprofStr2Id gives message, as a process whose profiler
// is loaded computes it: the profiler's double hash
// (src/dfx/msprof/collector/dvvp/transport/hash_data.cpp:72-84, reached
// through msprofiler_adaptor.cpp:222-225 and hash_data.cpp:115-128), two
// 32-bit polynomial hashes with steps 29 and 131, the first in the upper
// half. Each byte is added as a C char of an x86_64 host, sign-extended
// (an aarch64 host's unsigned char gives other ids for bytes of 0x80 and
// above). The empty string gives StrIDNone.
func StrID(message string) uint64 {
	if message == "" {
		return StrIDNone
	}
	var h0, h1 uint32
	for i := 0; i < len(message); i++ {
		d := uint32(int32(int8(message[i])))
		h0 = h0*29 + d
		h1 = h1*131 + d
	}
	return uint64(h0)<<32 | uint64(h1)
}
