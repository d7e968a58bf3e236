//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"context"

	"github.com/aclwasm/aclwasm/acl"
)

// held is what events and notifies share: their device and native
// handle, and the references the calls using them hold, so that a
// destruction waits for those calls instead of pulling the handle from
// under them. refs and dying are guarded by Backend.mu.
type held struct {
	dev    int32
	native uintptr
	refs   int
	dying  bool
}

func (h *held) base() *held { return h }

// holder is an event or a notify.
type holder interface{ base() *held }

// holdLocked looks up the live object h of table (what names its kind in
// the error) and takes a reference. Called with b.mu held.
func holdLocked[K ~uint64, V holder](table map[K]V, h K, what string) (V, error) {
	v, ok := table[h]
	if !ok || v.base().dying {
		var none V
		return none, acl.Errorf(acl.ErrRTInvalidHandle, "%s %d is not a live %s of this backend", what, h, what)
	}
	v.base().refs++
	return v, nil
}

// unhold drops a reference holdLocked took.
func (b *Backend) unhold(h *held) {
	b.mu.Lock()
	h.refs--
	if h.refs == 0 && h.dying {
		b.cond.Broadcast()
	}
	b.mu.Unlock()
}

// destroyHeld destroys the object h of table with the native function fn
// (destroy), once the calls holding it have returned; a failure leaves it
// live.
func destroyHeld[K ~uint64, V holder](b *Backend, table map[K]V, h K, what, fn string, destroy func(native uintptr) int32) error {
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	b.mu.Lock()
	v, ok := table[h]
	if !ok || v.base().dying {
		b.mu.Unlock()
		return acl.Errorf(acl.ErrRTInvalidHandle, "%s %d is not a live %s of this backend", what, h, what)
	}
	o := v.base()
	o.dying = true
	_ = b.waitFor(context.Background(), func() bool { return o.refs == 0 })
	b.mu.Unlock()
	err := b.call(o.dev, fn, func() int32 { return destroy(o.native) })
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil {
		o.dying = false
		return err
	}
	delete(table, h)
	return nil
}
