//go:build wasip1

package callback

import "github.com/aclwasm/aclwasm/guest-sdk/go/acl"

// dispatch is the export through which the host runs stream callbacks:
// it hands back the fn and userData of a launch, which acl.DispatchCallback
// resolves to the queued closure.
//
//lint:ignore U1000 the host calls it: //go:wasmexport
//go:wasmexport aclwasm_dispatch_callback
func dispatch(fn, userData uint32) { acl.DispatchCallback(fn, userData) }
