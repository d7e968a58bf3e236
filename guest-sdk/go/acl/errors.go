package acl

import (
	"errors"
	"strconv"
)

// Code is a native aclError value. It implements error, so that
// errors.Is(err, acl.ErrRTParamInvalid) works on the *Error a call returns.
type Code int32

// Error implements error: "ACL_ERROR_RT_PARAM_INVALID (107000)".
func (c Code) Error() string { return c.Name() + " (" + strconv.Itoa(int(c)) + ")" }

// String is Error.
func (c Code) String() string { return c.Error() }

// Error is a failed call: the native code, the function that returned it,
// and the host's message (which argument was wrong and why), read with
// aclGetRecentErrMsg when the call failed.
type Error struct {
	Func    string // the ACL function, such as "aclrtMemcpy"
	Code    Code   // the native code
	Message string // the host's message; empty if it recorded none
	// FailIndex is, for a failed batch copy, the entry that failed a location
	// or address check; -1 when the failure is not tied to one entry or the
	// call was not a batch.
	FailIndex int64
}

// Name returns the native name of the code.
func (e *Error) Name() string { return e.Code.Name() }

// Error implements error: "aclrtMemcpy: ACL_ERROR_RT_PARAM_INVALID (107000): <message>".
func (e *Error) Error() string {
	s := e.Func + ": " + e.Code.Error()
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.FailIndex >= 0 {
		s += " [failIndex " + strconv.FormatInt(e.FailIndex, 10) + "]"
	}
	return s
}

// Unwrap returns the Code, for errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.Code }

// CodeOf returns the native code of err: Success for nil, the Code inside an
// *Error or Code, and ErrFailure for anything else.
func CodeOf(err error) Code {
	if err == nil {
		return Success
	}
	var c Code
	if errors.As(err, &c) {
		return c
	}
	return ErrFailure
}
