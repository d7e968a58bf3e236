//go:build wasmtime && cgo

package wasmtime

// #include <stdint.h>
import "C"

// aclwasmEpochDeadline is called by the store with data d that reached
// its epoch deadline (see wasmtimeInstance.enter): nonzero stops the guest
// because its call's context is done; zero lets it run on to the next
// epoch.
//
//export aclwasmEpochDeadline
func aclwasmEpochDeadline(d C.uintptr_t) C.int {
	w := liveInstance(uintptr(d))
	if w != nil && w.ctx != nil && w.ctx.Err() != nil {
		return 1
	}
	return 0
}
