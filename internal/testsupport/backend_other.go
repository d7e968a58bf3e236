//go:build !(darwin || freebsd || linux || netbsd)

package testsupport

import (
	"testing"

	"github.com/aclwasm/aclwasm/acl"
)

// Native returns nil: acl/cann loads libascendcl.so on Unix systems only,
// so a test that names a library fails rather than running on the
// simulator unnoticed.
func Native(t testing.TB) acl.Backend {
	t.Helper()
	if lib := NativeLib(); lib != "" {
		t.Fatalf("ACLWASM_TEST_ACL_LIB=%s: the native backend runs on Unix systems only", lib)
	}
	return nil
}
