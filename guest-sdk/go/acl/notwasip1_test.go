//go:build !wasip1

package acl

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/aclwasm/aclwasm/guest-sdk/go/acl/raw"
)

// TestOutsideWasip1: built for another GOOS, the API exists and every call
// fails with ACL_ERROR_API_NOT_SUPPORT and a message saying why.
func TestOutsideWasip1(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"aclrtSetDevice", SetDevice(0)},
		{"aclrtMalloc", func() error { _, err := Malloc(64, MemMallocHugeFirst); return err }()},
		{"aclrtCreateStream", func() error { _, err := CreateStream(); return err }()},
		{"input_read", func() error { _, err := Input(); return err }()},
		{"output_write", Output([]byte("x"))},
		{"config_read", func() error { _, _, err := Config("k"); return err }()},
		{"aclrtCreateContext", func() error { _, err := CreateContext(0); return err }()},
		{"aclrtGetRunMode", func() error { _, err := GetRunMode(); return err }()},
		{"aclrtMemsetD32", MemsetD32(1<<32, 64, 7, 16)},
		{"aclrtSetStreamFailureMode", Stream(1).SetFailureMode(StopOnFailure)},
		{"aclrtResetEvent", Event(1).Reset(DefaultStream)},
		{"aclAppLog", AppLog(LogInfo, "x = %d", 1)},
	} {
		var e *Error
		if !errors.As(tc.err, &e) {
			t.Fatalf("%s: %v, want an *Error", tc.name, tc.err)
		}
		if e.Func != tc.name || e.Code != ErrAPINotSupport || e.Message != raw.NotWasip1 {
			t.Errorf("%s: got %+v", tc.name, e)
		}
		if !errors.Is(tc.err, ErrAPINotSupport) {
			t.Errorf("%s: not errors.Is ErrAPINotSupport", tc.name)
		}
	}
	if got := RecentErrMsg(); got != raw.NotWasip1 {
		t.Errorf("RecentErrMsg() = %q", got)
	}
}

// TestGoDoc: go doc shows the whole API without GOOS=wasip1.
func TestGoDoc(t *testing.T) {
	out, err := exec.Command("go", "doc", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go doc: %v\n%s", err, out)
	}
	for _, want := range []string{"func Malloc(", "func Memcpy(", "func CreateStream(", "func NewDeviceBuffer(", "func Input("} {
		if !strings.Contains(string(out), want) {
			t.Errorf("go doc lacks %q", want)
		}
	}
}
