package acl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// defined lists every code constant of errors.go.
var defined = []Error{
	Success, ErrInvalidParam, ErrRepeatInitialize, ErrRepeatFinalize, ErrFeatureUnsupported,
	ErrInternal, ErrRTParamInvalid, ErrRTInvalidDeviceID, ErrRTContextNull, ErrRTStreamContext,
	ErrRTEventTimestampInvalid, ErrRTInvalidHandle, ErrRTWaitTimeout, ErrRTStreamAbort, ErrRTFeatureNotSupport,
	ErrRTMemoryAllocation, ErrRTOverLimit, ErrRTInternal, ErrRTStreamNotComplete,
	ErrRTEventNotComplete, ErrRTStreamSyncTimeout, ErrRTEventSyncTimeout,
	ErrHostMemoryAlreadyRegistered, ErrHostMemoryNotRegistered,
}

func TestErrorString(t *testing.T) {
	for _, tc := range []struct {
		code Error
		want string
	}{
		{ErrRTParamInvalid, "ACL_ERROR_RT_PARAM_INVALID (107000)"},
		{ErrInvalidParam, "ACL_ERROR_INVALID_PARAM (100000)"},
		{Success, "ACL_SUCCESS (0)"},
		{ErrRTStreamSyncTimeout, "ACL_ERROR_RT_STREAM_SYNC_TIMEOUT (507046)"},
		{ErrHostMemoryNotRegistered, "ACL_ERROR_HOST_MEMORY_NOT_REGISTERED (507911)"},
		{Error(123), "ACL_ERROR_UNKNOWN (123)"},
		{Error(-1), "ACL_ERROR_UNKNOWN (-1)"},
	} {
		require.Equal(t, tc.want, tc.code.Error())
		require.Equal(t, tc.want, fmt.Sprint(tc.code))
	}
}

func TestEveryCodeHasItsName(t *testing.T) {
	for _, c := range defined {
		require.NotEqual(t, "ACL_ERROR_UNKNOWN", c.Name(), "code %d", int32(c))
	}
	codes := Codes()
	require.Equal(t, Success, codes[0])
	require.True(t, slices.IsSorted(codes))
	for _, c := range defined {
		require.Contains(t, codes, c)
	}
	for _, c := range codes {
		require.NotEqual(t, "ACL_ERROR_UNKNOWN", c.Name(), "code %d", int32(c))
	}
}

func TestCallError(t *testing.T) {
	err := Errorf(ErrRTParamInvalid, "count %d exceeds destMax %d", 8, 7)
	require.Equal(t, "count 8 exceeds destMax 7: ACL_ERROR_RT_PARAM_INVALID (107000)", err.Error())
	require.True(t, errors.Is(err, ErrRTParamInvalid))
	require.False(t, errors.Is(err, ErrInvalidParam))
	var ce *CallError
	require.True(t, errors.As(err, &ce))
	require.Equal(t, ErrRTParamInvalid, ce.Code)
	require.Equal(t, "count 8 exceeds destMax 7", ce.Msg)

	wrapped := fmt.Errorf("aclrtMemcpy: %w", err)
	require.True(t, errors.Is(wrapped, ErrRTParamInvalid))
	require.Equal(t, ErrRTParamInvalid, CodeOf(wrapped))
	require.Equal(t, "count 8 exceeds destMax 7", MessageOf(wrapped))
}

func TestCodeOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want Error
	}{
		{"nil", nil, Success},
		{"a bare code", ErrRTInvalidHandle, ErrRTInvalidHandle},
		{"a call error", Errorf(ErrRTOverLimit, "too many"), ErrRTOverLimit},
		{"a wrapped call error", fmt.Errorf("x: %w", Errorf(ErrRTMemoryAllocation, "oom")), ErrRTMemoryAllocation},
		{"a deadline", context.DeadlineExceeded, ErrRTStreamSyncTimeout},
		{"a wrapped deadline", fmt.Errorf("sync: %w", context.DeadlineExceeded), ErrRTStreamSyncTimeout},
		{"a cancellation", context.Canceled, ErrInternal},
		{"anything else", io.EOF, ErrInternal},
		{"a code beats a deadline", errors.Join(context.DeadlineExceeded, ErrRTInvalidHandle), ErrRTInvalidHandle},
	} {
		require.Equal(t, tc.want, CodeOf(tc.err), tc.name)
	}
}

func TestMessageOf(t *testing.T) {
	require.Equal(t, "", MessageOf(nil))
	require.Equal(t, "dst is NULL", MessageOf(Errorf(ErrInvalidParam, "dst is NULL")))
	require.Equal(t, "EOF", MessageOf(io.EOF))
	require.Equal(t, "ACL_ERROR_RT_INVALID_HANDLE (107017)", MessageOf(ErrRTInvalidHandle))
}
