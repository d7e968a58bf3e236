package testsupport

import "strings"

// HostOrderCases reports whether the check-order cases of acl function
// fn (one per step of acl.Order) are among package host's tests rather
// than package sandbox's: those of the families whose tests still run
// there (models and the kernel API). Each package's TestCheckOrder
// requires cases for every step of its share and no others, so that
// together they cover acl.Order.
func HostOrderCases(fn string) bool {
	switch {
	case strings.HasPrefix(fn, "aclmdl"),
		strings.HasPrefix(fn, "aclrtBinary"),
		strings.HasPrefix(fn, "aclrtKernelArgs"),
		strings.HasPrefix(fn, "aclrtLaunchKernel"):
		return true
	}
	return false
}
