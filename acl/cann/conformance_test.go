//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"testing"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/acltest"
)

// notForNative lists the conformance subtests that assume what only a
// backend that executes descriptors itself can promise, with the reason.
var notForNative = map[string]string{
	// The subtest writes descriptors naming addresses outside any live
	// allocation (a count past the end, a destination in host address
	// space) and expects SetMemcpyDesc to accept them and the copy to fail
	// safely when it runs. The native runtime executes whatever a descriptor
	// says, so this backend refuses such addresses in SetMemcpyDesc (107000)
	// instead: it never hands the runtime a device address it did not
	// allocate. The sandbox does not route guest descriptors here.
	"TamperedDescriptors": "the native runtime cannot check a descriptor when the copy runs; SetMemcpyDesc rejects addresses outside live allocations instead",
	// The subtest writes forged base addresses into offset slots (garbage,
	// zero, a freed allocation's address) and expects the copy to fail when
	// it runs. The native runtime reads the slots and copies; only the
	// stand-in checks them, and it cannot tell "freed" from "freed and
	// handed out again", which the native allocator does (the subtest's
	// "freed src" case passes or fails with the allocator's reuse).
	"TamperedOffsetSlots": "the native runtime copies between whatever addresses the slots hold; it cannot refuse forged or stale ones",
}

// TestConformance runs the backend conformance suite against the stand-in
// with every symbol.
func TestConformance(t *testing.T) {
	acltest.Run(t, func(t *testing.T) acl.Backend {
		for name, why := range notForNative {
			if t.Name() == "TestConformance/"+name {
				t.Skip("not applicable to the native backend: " + why)
			}
		}
		b, _ := open(t, full)
		return b
	})
}

// TestConformanceOldDriver runs the suite against the stand-in on a node
// whose driver lacks some features: the backend passes their 207000 on, as
// natively, and Supports reports them, which the suite accepts.
func TestConformanceOldDriver(t *testing.T) {
	acltest.Run(t, func(t *testing.T) acl.Backend {
		for name, why := range notForNative {
			if t.Name() == "TestConformanceOldDriver/"+name {
				t.Skip("not applicable to the native backend: " + why)
			}
		}
		b, _ := open(t, oldDriver)
		return b
	})
}
