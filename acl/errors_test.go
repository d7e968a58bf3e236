package acl

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"io"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// defined lists every code constant of errors.go.
var defined = []Error{
	Success, ErrInvalidParam, ErrRepeatInitialize, ErrInvalidFile, ErrRepeatFinalize, ErrFeatureUnsupported,
	ErrInternal, ErrRTParamInvalid, ErrRTInvalidDeviceID, ErrRTContextNull, ErrRTStreamContext, ErrRTModelContext,
	ErrRTEventTimestampInvalid, ErrRTInvalidMemoryType, ErrRTInvalidHandle, ErrRTWaitTimeout, ErrRTStreamAbort, ErrRTFeatureNotSupport,
	ErrRTMemoryAllocation, ErrRTOverLimit, ErrRTInternal, ErrRTStreamNotComplete,
	ErrRTEventNotComplete, ErrRTStreamSyncTimeout, ErrRTEventSyncTimeout,
	ErrHostMemoryAlreadyRegistered, ErrHostMemoryNotRegistered,
	ErrRTDevSetup,                                                                                            // ABI v1.2 section 12
	ErrRTAicoreException, ErrRTAicoreTimeout, ErrNNParamNullptr, ErrNNParamInvalid, ErrNNRuntime, ErrNNInner, // compute
	ErrNNInnerNullptr,                                                                                           // the operator library's objects
	ErrGEParamInvalid, ErrGEModelPathInvalid, ErrGEModelIDInvalid, ErrGEModelDataSizeInvalid, ErrRTModelExecute, // models
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

// constantsOf returns the Error constants that errors.go declares, by
// name, read from the source so that a constant added there without its
// entry in goNames or defined fails TestGoNames.
func constantsOf(t *testing.T) map[string]Error {
	f, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, 0)
	require.NoError(t, err)
	out := map[string]Error{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Error" {
				continue
			}
			for i, n := range vs.Names {
				lit, ok := vs.Values[i].(*ast.BasicLit)
				require.True(t, ok, "%s: a literal value", n.Name)
				v, ok := constant.Int64Val(constant.MakeFromLiteral(lit.Value, lit.Kind, 0))
				require.True(t, ok, "%s: an integer", n.Name)
				out[n.Name] = Error(v)
			}
		}
	}
	require.NotEmpty(t, out)
	return out
}

func TestGoNames(t *testing.T) {
	consts := constantsOf(t)
	require.Len(t, goNames, len(consts), "goNames has one entry per constant")
	require.Len(t, defined, len(consts), "defined lists every constant")
	for name, code := range consts {
		require.Equal(t, name, goNames[code], "goNames[%d]", int32(code))
		require.Contains(t, defined, code, "defined lacks %s", name)
	}
}

func TestGoString(t *testing.T) {
	for _, tc := range []struct {
		code Error
		want string
	}{
		{ErrInvalidParam, "acl.ErrInvalidParam(100000)"},
		{Success, "acl.Success(0)"},
		{ErrRTParamInvalid, "acl.ErrRTParamInvalid(107000)"},
		{100001, "acl.Error(100001 /* ACL_ERROR_UNINITIALIZE */)"},
		{123, "acl.Error(123)"},
		{-1, "acl.Error(-1)"},
	} {
		require.Equal(t, tc.want, fmt.Sprintf("%#v", tc.code))
	}
	// Inside a value, and in a *CallError's fields.
	require.Equal(t, "[]acl.Error{acl.Success(0), acl.ErrRTOverLimit(207012)}", fmt.Sprintf("%#v", []Error{Success, ErrRTOverLimit}))
	require.Contains(t, fmt.Sprintf("%#v", Errorf(ErrRTInvalidHandle, "stream 7")), "Code:acl.ErrRTInvalidHandle(107017)")

	// A failed testify comparison names both codes.
	var rec failures
	assert.Equal(&rec, ErrInvalidParam, ErrRTParamInvalid)
	require.Len(t, rec, 1)
	require.Contains(t, rec[0], "acl.ErrInvalidParam(100000)")
	require.Contains(t, rec[0], "acl.ErrRTParamInvalid(107000)")
}

// failures is an assert.TestingT that keeps the failure messages.
type failures []string

func (f *failures) Errorf(format string, args ...any) {
	*f = append(*f, fmt.Sprintf(format, args...))
}
