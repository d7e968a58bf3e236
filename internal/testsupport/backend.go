//go:build darwin || freebsd || linux || netbsd

package testsupport

import (
	"testing"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/cann"
)

// Native returns the native backend over the library [NativeLib] names,
// with the operator library [OpLib] names, closed when the test ends (a
// failed close fails it); nil when ACLWASM_TEST_ACL_LIB names none, so
// that the test runs on its default, the simulator. A library that does
// not open fails the test.
func Native(t testing.TB) acl.Backend {
	t.Helper()
	lib := NativeLib()
	if lib == "" {
		return nil
	}
	b, err := cann.Open(lib, cann.WithOpLibrary(OpLib()))
	if err != nil {
		t.Fatalf("ACLWASM_TEST_ACL_LIB=%s ACLWASM_TEST_OPAPI_LIB=%s: %v", lib, OpLib(), err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("closing the native backend over %s: %v", lib, err)
		}
	})
	return b
}
