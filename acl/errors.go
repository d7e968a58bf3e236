package acl

import (
	"context"
	"errors"
	"fmt"
	"strconv"
)

// Error is a native aclError code. It implements error, prints as
// "ACL_ERROR_RT_PARAM_INVALID (107000)", and is comparable with errors.Is:
//
//	errors.Is(err, acl.ErrRTParamInvalid)
type Error int32

// The codes this project returns. Their values are the native ones.
const (
	Success                        Error = 0
	ErrInvalidParam                Error = 100000 // ACL_ERROR_INVALID_PARAM: NULL pointer, zero size, bad enum (ACL layer)
	ErrRepeatInitialize            Error = 100002 // ACL_ERROR_REPEAT_INITIALIZE
	ErrInvalidFile                 Error = 100003 // ACL_ERROR_INVALID_FILE
	ErrRepeatFinalize              Error = 100037 // ACL_ERROR_REPEAT_FINALIZE
	ErrFeatureUnsupported          Error = 200006 // ACL_ERROR_FEATURE_UNSUPPORTED
	ErrInternal                    Error = 500000 // ACL_ERROR_INTERNAL_ERROR
	ErrRTParamInvalid              Error = 107000 // ACL_ERROR_RT_PARAM_INVALID: range, size, direction (runtime layer)
	ErrRTInvalidDeviceID           Error = 107001 // ACL_ERROR_RT_INVALID_DEVICEID
	ErrRTContextNull               Error = 107002 // ACL_ERROR_RT_CONTEXT_NULL: no aclrtSetDevice yet
	ErrRTStreamContext             Error = 107003 // ACL_ERROR_RT_STREAM_CONTEXT
	ErrRTModelContext              Error = 107004 // ACL_ERROR_RT_MODEL_CONTEXT: a model loaded in another context
	ErrRTEventTimestampInvalid     Error = 107006 // ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID
	ErrRTInvalidMemoryType         Error = 107016 // ACL_ERROR_RT_INVALID_MEMORY_TYPE
	ErrRTInvalidHandle             Error = 107017 // ACL_ERROR_RT_INVALID_HANDLE
	ErrRTWaitTimeout               Error = 107019 // ACL_ERROR_RT_WAIT_TIMEOUT: a stream's event wait outlived aclrtSetOpWaitTimeout
	ErrRTStreamAbort               Error = 107023 // ACL_ERROR_RT_STREAM_ABORT: queued work was cancelled
	ErrRTFeatureNotSupport         Error = 207000 // ACL_ERROR_RT_FEATURE_NOT_SUPPORT
	ErrRTMemoryAllocation          Error = 207001 // ACL_ERROR_RT_MEMORY_ALLOCATION: out of memory or over a byte quota
	ErrRTOverLimit                 Error = 207012 // ACL_ERROR_RT_OVER_LIMIT: over a count limit
	ErrRTInternal                  Error = 507000 // ACL_ERROR_RT_INTERNAL_ERROR
	ErrRTStreamNotComplete         Error = 507004 // ACL_ERROR_RT_STREAM_NOT_COMPLETE
	ErrRTEventNotComplete          Error = 507006 // ACL_ERROR_RT_EVENT_NOT_COMPLETE
	ErrRTStreamSyncTimeout         Error = 507046 // ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
	ErrRTEventSyncTimeout          Error = 507047 // ACL_ERROR_RT_EVENT_SYNC_TIMEOUT
	ErrHostMemoryAlreadyRegistered Error = 507910 // ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED
	ErrHostMemoryNotRegistered     Error = 507911 // ACL_ERROR_HOST_MEMORY_NOT_REGISTERED
	// ABI v1.2 section 12, resource queries.
	ErrRTDevSetup Error = 507033 // ACL_ERROR_RT_DEV_SETUP_ERROR: a device the caller never set
	// ABI v1.3 section 13, compute: a launch that faults on the device, and
	// the operator library's own codes (op_errno.h).
	ErrRTAicoreException Error = 507015 // ACL_ERROR_RT_AICORE_EXCEPTION: a launch failed when it ran
	ErrRTAicoreTimeout   Error = 507014 // ACL_ERROR_RT_AICORE_TIMEOUT: a kernel stopped at its time limit
	ErrNNParamNullptr    Error = 161001 // ACLNN_ERR_PARAM_NULLPTR
	ErrNNParamInvalid    Error = 161002 // ACLNN_ERR_PARAM_INVALID: shape, dtype, format
	ErrNNRuntime         Error = 361001 // ACLNN_ERR_RUNTIME_ERROR
	ErrNNInner           Error = 561000 // ACLNN_ERR_INNER
	// The operator library's code for a NULL executor
	// (aclSetAclOpExecutorRepeatable, aclDestroyAclOpExecutor).
	ErrNNInnerNullptr Error = 561103 // ACLNN_ERR_INNER_NULLPTR
	// ABI v1.3 section 13.4, models: the graph engine's codes
	// (ge_error_codes.h) and the runtime's for a failed execution.
	ErrGEParamInvalid         Error = 145000 // ACL_ERROR_GE_PARAM_INVALID
	ErrGEModelPathInvalid     Error = 145002 // ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID: no model of that name
	ErrGEModelIDInvalid       Error = 145003 // ACL_ERROR_GE_EXEC_MODEL_ID_INVALID: no model of that id
	ErrGEModelDataSizeInvalid Error = 145006 // ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID
	ErrRTModelExecute         Error = 507011 // ACL_ERROR_RT_MODEL_EXECUTE: a model failed when it ran
)

// goNames are the Go names of the constants above, for GoString.
// TestGoNames checks it against the constant block.
var goNames = map[Error]string{
	Success:                        "Success",
	ErrInvalidParam:                "ErrInvalidParam",
	ErrRepeatInitialize:            "ErrRepeatInitialize",
	ErrInvalidFile:                 "ErrInvalidFile",
	ErrRepeatFinalize:              "ErrRepeatFinalize",
	ErrFeatureUnsupported:          "ErrFeatureUnsupported",
	ErrInternal:                    "ErrInternal",
	ErrRTParamInvalid:              "ErrRTParamInvalid",
	ErrRTInvalidDeviceID:           "ErrRTInvalidDeviceID",
	ErrRTContextNull:               "ErrRTContextNull",
	ErrRTStreamContext:             "ErrRTStreamContext",
	ErrRTModelContext:              "ErrRTModelContext",
	ErrRTEventTimestampInvalid:     "ErrRTEventTimestampInvalid",
	ErrRTInvalidMemoryType:         "ErrRTInvalidMemoryType",
	ErrRTInvalidHandle:             "ErrRTInvalidHandle",
	ErrRTWaitTimeout:               "ErrRTWaitTimeout",
	ErrRTStreamAbort:               "ErrRTStreamAbort",
	ErrRTFeatureNotSupport:         "ErrRTFeatureNotSupport",
	ErrRTMemoryAllocation:          "ErrRTMemoryAllocation",
	ErrRTOverLimit:                 "ErrRTOverLimit",
	ErrRTInternal:                  "ErrRTInternal",
	ErrRTStreamNotComplete:         "ErrRTStreamNotComplete",
	ErrRTEventNotComplete:          "ErrRTEventNotComplete",
	ErrRTStreamSyncTimeout:         "ErrRTStreamSyncTimeout",
	ErrRTEventSyncTimeout:          "ErrRTEventSyncTimeout",
	ErrHostMemoryAlreadyRegistered: "ErrHostMemoryAlreadyRegistered",
	ErrHostMemoryNotRegistered:     "ErrHostMemoryNotRegistered",
	ErrRTDevSetup:                  "ErrRTDevSetup",
	ErrRTAicoreException:           "ErrRTAicoreException",
	ErrRTAicoreTimeout:             "ErrRTAicoreTimeout",
	ErrNNParamNullptr:              "ErrNNParamNullptr",
	ErrNNParamInvalid:              "ErrNNParamInvalid",
	ErrNNRuntime:                   "ErrNNRuntime",
	ErrNNInner:                     "ErrNNInner",
	ErrNNInnerNullptr:              "ErrNNInnerNullptr",
	ErrGEParamInvalid:              "ErrGEParamInvalid",
	ErrGEModelPathInvalid:          "ErrGEModelPathInvalid",
	ErrGEModelIDInvalid:            "ErrGEModelIDInvalid",
	ErrGEModelDataSizeInvalid:      "ErrGEModelDataSizeInvalid",
	ErrRTModelExecute:              "ErrRTModelExecute",
}

// Name returns the native name of the code, such as "ACL_ERROR_RT_PARAM_INVALID",
// or "ACL_ERROR_UNKNOWN" for a value the native headers do not define.
func (e Error) Name() string {
	if n, ok := names[e]; ok {
		return n
	}
	return "ACL_ERROR_UNKNOWN"
}

// Error implements error.
func (e Error) Error() string {
	return e.Name() + " (" + strconv.Itoa(int(e)) + ")"
}

// GoString implements [fmt.GoStringer], so that %#v, and test failures
// that print values with it (testify's), name the code instead of showing
// a bare number: "acl.ErrInvalidParam(100000)" for a code with a Go
// constant, "acl.Error(100001 /* ACL_ERROR_UNINITIALIZE */)" for another
// native code, and "acl.Error(123)" for a value the headers do not define.
func (e Error) GoString() string {
	v := strconv.Itoa(int(e))
	if n, ok := goNames[e]; ok {
		return "acl." + n + "(" + v + ")"
	}
	if n, ok := names[e]; ok {
		return "acl.Error(" + v + " /* " + n + " */)"
	}
	return "acl.Error(" + v + ")"
}

// CallError is an Error together with the message that explains it: which
// argument was wrong and why. The message is what aclGetRecentErrMsg reports.
type CallError struct {
	Code Error
	Msg  string
}

// Error implements error.
func (e *CallError) Error() string { return e.Msg + ": " + e.Code.Error() }

// Unwrap makes errors.Is(err, code) work.
func (e *CallError) Unwrap() error { return e.Code }

// Errorf returns a *[CallError] with the code and a formatted message.
func Errorf(code Error, format string, args ...any) error {
	return &CallError{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// CodeOf returns the native code carried by err: Success for nil, the Error
// found by errors.As, [ErrRTStreamSyncTimeout] for a context deadline, and
// [ErrInternal] for anything else.
func CodeOf(err error) Error {
	if err == nil {
		return Success
	}
	var e Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return ErrRTStreamSyncTimeout
	}
	return ErrInternal
}

// MessageOf returns the message of err without its code suffix when err is a
// *[CallError], and err.Error() otherwise.
func MessageOf(err error) string {
	if err == nil {
		return ""
	}
	var ce *CallError
	if errors.As(err, &ce) {
		return ce.Msg
	}
	return err.Error()
}
