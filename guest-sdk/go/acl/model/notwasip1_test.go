//go:build !wasip1

package model

import (
	"errors"
	"testing"

	"github.com/aclwasm/aclwasm/guest-sdk/go/acl"
	"github.com/aclwasm/aclwasm/guest-sdk/go/acl/raw"
)

// TestOutsideWasip1: built for another GOOS, loading a model and making
// a dataset fail with the SDK's codes and message.
func TestOutsideWasip1(t *testing.T) {
	_, err := Load("mlp")
	var e *acl.Error
	if !errors.As(err, &e) || e.Func != "aclmdlLoadFromFile" || e.Code != acl.ErrAPINotSupport || e.Message != raw.NotWasip1 {
		t.Errorf("Load: %v", err)
	}
	_, err = NewDataset()
	if !errors.As(err, &e) || e.Func != "aclmdlCreateDataset" || e.Code != acl.ErrFailure || e.Message != raw.NotWasip1 {
		t.Errorf("NewDataset: %v", err)
	}
}
