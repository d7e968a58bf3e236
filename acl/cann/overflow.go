//go:build darwin || freebsd || linux || netbsd

package cann

import "github.com/aclwasm/aclwasm/acl"

// Backend passes a stream's overflow switch to its native stream. The
// saturation mode and the overflow status are the process's natively,
// shared by every session: the sandbox keeps them per session and never
// calls the node's functions for them.
var _ acl.OverflowSwitcher = (*Backend)(nil)

// SetStreamOverflowSwitch implements [acl.OverflowSwitcher] with
// aclrtSetStreamOverflowSwitch; a library without it gives 207000.
func (b *Backend) SetStreamOverflowSwitch(h acl.Stream, on bool) error {
	f := b.api.aclrtSetStreamOverflowSwitch
	if f == nil {
		return b.missing("aclrtSetStreamOverflowSwitch")
	}
	flag := uint32(0)
	if on {
		flag = 1
	}
	return b.onStream(h, "aclrtSetStreamOverflowSwitch", func(native uintptr) int32 { return f(native, flag) })
}

// StreamOverflowSwitch reads the native stream's overflow switch with
// aclrtGetStreamOverflowSwitch (207000 where the library lacks it): the
// sandbox answers from its own record, and tests read the node's.
func (b *Backend) StreamOverflowSwitch(h acl.Stream) (bool, error) {
	f := b.api.aclrtGetStreamOverflowSwitch
	if f == nil {
		return false, b.missing("aclrtGetStreamOverflowSwitch")
	}
	var v uint32
	err := b.onStream(h, "aclrtGetStreamOverflowSwitch", func(native uintptr) int32 { return f(native, &v) })
	return v != 0, err
}
