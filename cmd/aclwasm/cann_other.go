//go:build !(darwin || freebsd || linux || netbsd)

package main

import (
	"fmt"
	"runtime"

	"github.com/aclwasm/aclwasm/acl"
)

// openCANN fails: the native backend loads libascendcl.so with dlopen,
// which a build for this platform does not have (acl/cann is empty here).
func openCANN(string) (acl.Backend, error) {
	return nil, fmt.Errorf("--backend cann: the native backend is not available on %s (it loads libascendcl.so with dlopen: linux, darwin, freebsd, netbsd); use --backend sim", runtime.GOOS)
}
