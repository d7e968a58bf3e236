//go:build !wasip1

package nn

import (
	"errors"
	"testing"

	"github.com/aclwasm/aclwasm/guest-sdk/go/acl"
	"github.com/aclwasm/aclwasm/guest-sdk/go/acl/raw"
)

// TestOutsideWasip1: built for another GOOS, a creation reports NULL as
// ACLNN_ERR_INNER_NULLPTR and an operator the failure of its first phase,
// each with the host's (here the SDK's) message; the SDK's own checks
// come first.
func TestOutsideWasip1(t *testing.T) {
	for _, tc := range []struct {
		name string
		code acl.Code
		msg  string
		err  error
	}{
		{"aclCreateTensor", acl.ErrAclnnErrInnerNullptr, raw.NotWasip1, func() error { _, err := NewTensor(&acl.DeviceBuffer{}, acl.DTFloat, 2, 3); return err }()},
		{"aclCreateTensor", acl.ErrAclnnErrParamInvalid, "more than 25 dims", func() error { _, err := NewTensor(&acl.DeviceBuffer{}, acl.DTFloat, make([]int64, 26)...); return err }()},
		{"aclCreateTensor", acl.ErrAclnnErrParamInvalid, "strides and dims differ in length", func() error {
			_, err := NewTensorAt(1<<32, acl.DTFloat, []int64{2}, nil, 0, FormatND, []int64{2})
			return err
		}()},
		{"aclCreateScalar", acl.ErrAclnnErrInnerNullptr, raw.NotWasip1, func() error { _, err := NewScalarFloat32(1); return err }()},
		{"aclCreateScalar", acl.ErrAclnnErrParamInvalid, "fewer value bytes than the data type's size", func() error { _, err := NewScalar([]byte{1}, acl.DTFloat); return err }()},
		{"aclCreateIntArray", acl.ErrAclnnErrInnerNullptr, raw.NotWasip1, func() error { _, err := NewIntArray(1, 2); return err }()},
		{"aclCreateTensorList", acl.ErrAclnnErrInnerNullptr, raw.NotWasip1, func() error { _, err := NewTensorList(nil); return err }()},
		{"aclnnAddGetWorkspaceSize", acl.ErrAPINotSupport, raw.NotWasip1, Add(nil, nil, nil, nil, acl.DefaultStream)},
		{"aclnnReduceSumGetWorkspaceSize", acl.ErrAPINotSupport, raw.NotWasip1, ReduceSum(nil, nil, true, acl.DTFloat, nil, acl.DefaultStream)},
	} {
		var e *acl.Error
		if !errors.As(tc.err, &e) {
			t.Fatalf("%s: %v, want an *acl.Error", tc.name, tc.err)
		}
		if e.Func != tc.name || e.Code != tc.code || e.Message != tc.msg {
			t.Errorf("%s: got %+v, want code %v and message %q", tc.name, e, tc.code, tc.msg)
		}
	}
}
