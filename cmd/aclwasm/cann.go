//go:build darwin || freebsd || linux || netbsd

package main

import (
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/cann"
)

// openCANN loads libascendcl.so (path "" searches the usual places).
func openCANN(path string) (acl.Backend, error) { return cann.Open(path) }
