//go:build !wasip1

package acl

import (
	"testing"
	"unsafe"
)

// TestCallbackRegistry: a launch registers its closure under the address
// it passes as userData, with the SDK's tag as fn; DispatchCallback runs
// it once and removes it; a dispatch with another fn, an unknown userData
// or a repeated one runs nothing.
func TestCallbackRegistry(t *testing.T) {
	n := 0
	fn, user, key := cbRegister(func() { n++ })
	if uintptr(fn) != uintptr(unsafe.Pointer(&cbTag)) || uint32(uintptr(user)) != key || key == 0 {
		t.Fatalf("cbRegister: fn %p user %p key %#x, want the tag's address and the entry's", fn, user, key)
	}
	tag := uint32(uintptr(fn))
	DispatchCallback(tag+1, key) // not the tag
	DispatchCallback(tag, key+8) // no such entry
	if n != 0 || PendingCallbacks() != 1 {
		t.Fatalf("a forged dispatch ran the closure (n %d) or dropped it (%d pending)", n, PendingCallbacks())
	}
	DispatchCallback(tag, key)
	DispatchCallback(tag, key) // repeated: already removed
	if n != 1 || PendingCallbacks() != 0 {
		t.Fatalf("after dispatching: n %d, %d pending; want 1, 0", n, PendingCallbacks())
	}
	if fn, user, key := cbRegister(nil); fn != nil || user != nil || key != 0 {
		t.Fatalf("cbRegister(nil): %p %p %#x, want the NULL fn", fn, user, key)
	}
}

// TestCallbackLaunchFails: a launch the host refuses (here: outside wasip1,
// 200001) leaves nothing in the registry.
func TestCallbackLaunchFails(t *testing.T) {
	for name, err := range map[string]error{
		"aclrtLaunchHostFunc": Stream(0).LaunchHostFunc(func() {}),
		"aclrtLaunchCallback": Stream(1).LaunchCallback(func() {}, CallbackBlock),
	} {
		if CodeOf(err) != ErrAPINotSupport {
			t.Errorf("%s: %v, want ACL_ERROR_API_NOT_SUPPORT", name, err)
		}
	}
	if n := PendingCallbacks(); n != 0 {
		t.Fatalf("%d closures pending after failed launches", n)
	}
	for name, err := range map[string]error{
		"aclrtSubscribeReport":   Stream(1).SubscribeReport(0),
		"aclrtUnSubscribeReport": Stream(1).UnSubscribeReport(0),
		"aclrtProcessReport":     ProcessReport(-1),
	} {
		if CodeOf(err) != ErrAPINotSupport {
			t.Errorf("%s: %v, want ACL_ERROR_API_NOT_SUPPORT", name, err)
		}
	}
}
