//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"errors"
	"math"
	"time"

	"github.com/aclwasm/aclwasm/acl"
)

// notify is a native notify (ABI v1.2 section 12).
type notify struct{ held }

// notifyLocked looks up a live notify and takes a reference. Called with
// b.mu held.
func (b *Backend) notifyLocked(h acl.Notify) (*notify, error) {
	return holdLocked(b.notifies, h, "notify")
}

func (b *Backend) unrefNotify(n *notify) { b.unhold(&n.held) }

// CreateNotify implements [acl.Backend] with aclrtCreateNotify in dev's
// context.
func (b *Backend) CreateNotify(dev int32, flag uint64) (acl.Notify, error) {
	if b.api.aclrtCreateNotify == nil {
		return 0, b.missing("aclrtCreateNotify")
	}
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.exit()
	var native uintptr
	fn := "aclrtCreateNotify"
	if flag == acl.NotifyDeviceUseOnly {
		fn = acl.DeviceOnlyNotify // a driver may lack these alone
	}
	if err := b.call(dev, fn, func() int32 { return b.api.aclrtCreateNotify(&native, flag) }); err != nil {
		return 0, err
	}
	h := acl.Notify(b.nextH.Add(1))
	b.mu.Lock()
	if b.notifies == nil {
		b.notifies = map[acl.Notify]*notify{}
	}
	b.notifies[h] = &notify{held{dev: dev, native: native}}
	b.mu.Unlock()
	return h, nil
}

// DestroyNotify implements [acl.Backend] with aclrtDestroyNotify, once the
// calls using the notify have returned.
func (b *Backend) DestroyNotify(h acl.Notify) error {
	if b.api.aclrtDestroyNotify == nil {
		return b.missing("aclrtDestroyNotify")
	}
	return destroyHeld(b, b.notifies, h, "notify", "aclrtDestroyNotify", func(native uintptr) int32 { return b.api.aclrtDestroyNotify(native) })
}

// onNotifyAndStream runs f with the notify nh and the stream sh, both held
// (and the backend entered) for the duration.
func (b *Backend) onNotifyAndStream(nh acl.Notify, sh acl.Stream, f func(n *notify, s *stream) error) error {
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	b.mu.Lock()
	n, err := b.notifyLocked(nh)
	b.mu.Unlock()
	if err != nil {
		return err
	}
	defer b.unrefNotify(n)
	s, _, err := b.acquire(sh)
	if err != nil {
		return err
	}
	defer b.done(s, nil)
	return f(n, s)
}

// RecordNotify implements [acl.Backend] with aclrtRecordNotify.
func (b *Backend) RecordNotify(nh acl.Notify, sh acl.Stream) error {
	if b.api.aclrtRecordNotify == nil {
		return b.missing("aclrtRecordNotify")
	}
	return b.onNotifyAndStream(nh, sh, func(n *notify, s *stream) error {
		return b.submit(s, nil, false, "aclrtRecordNotify", func(st uintptr) int32 { return b.api.aclrtRecordNotify(n.native, st) })
	})
}

// WaitAndResetNotify implements [acl.Backend] with aclrtWaitAndResetNotify,
// whose limit is in milliseconds: a timeout is rounded up to whole ones and
// cut below UINT32_MAX, which natively means the runtime's default wait.
func (b *Backend) WaitAndResetNotify(nh acl.Notify, sh acl.Stream, timeout time.Duration) error {
	if timeout < 0 {
		return acl.Errorf(acl.ErrRTParamInvalid, "wait timeout %v is negative", timeout)
	}
	if b.api.aclrtWaitAndResetNotify == nil {
		return b.missing("aclrtWaitAndResetNotify")
	}
	ms := uint32(min((timeout+time.Millisecond-1)/time.Millisecond, math.MaxUint32-1))
	return b.onNotifyAndStream(nh, sh, func(n *notify, s *stream) error {
		return b.submit(s, nil, false, "aclrtWaitAndResetNotify", func(st uintptr) int32 {
			return b.api.aclrtWaitAndResetNotify(n.native, st, ms)
		})
	})
}

// destroyNotifies destroys the notifies Close took from the backend.
func (b *Backend) destroyNotifies(ns map[acl.Notify]*notify) error {
	if b.api.aclrtDestroyNotify == nil { // a library that creates notifies but cannot destroy them
		return nil
	}
	var errs []error
	for _, n := range ns {
		if err := b.call(n.dev, "aclrtDestroyNotify", func() int32 { return b.api.aclrtDestroyNotify(n.native) }); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ResetNotify implements [acl.Backend] with aclrtNotifyBatchReset of the
// one notify, in its device's context (natively the call queues the reset
// on that context's default stream and waits for it).
func (b *Backend) ResetNotify(h acl.Notify) error {
	f := b.api.aclrtNotifyBatchReset
	if f == nil {
		return b.missing("aclrtNotifyBatchReset")
	}
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	b.mu.Lock()
	n, err := b.notifyLocked(h)
	b.mu.Unlock()
	if err != nil {
		return err
	}
	defer b.unrefNotify(n)
	one := [1]uintptr{n.native}
	return b.call(n.dev, "aclrtNotifyBatchReset", func() int32 { return f(&one[0], 1) })
}
