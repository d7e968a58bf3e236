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
