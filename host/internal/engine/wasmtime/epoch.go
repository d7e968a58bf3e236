//go:build wasmtime && cgo

package wasmtime

// #include <stdint.h>
import "C"

import "runtime/cgo"

// aclwasmEpochDeadline is called by a store that reached its epoch
// deadline (see wasmtimeInstance.enter): nonzero stops the guest because
// its call's context is done; zero lets it run on to the next epoch.
//
//export aclwasmEpochDeadline
func aclwasmEpochDeadline(h C.uintptr_t) C.int {
	w := cgo.Handle(h).Value().(*wasmtimeInstance)
	if w.ctx != nil && w.ctx.Err() != nil {
		return 1
	}
	return 0
}
