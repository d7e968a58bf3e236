//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"context"
	"errors"

	"github.com/aclwasm/aclwasm/acl"
)

// SynchronizeDevice implements [acl.Backend] with
// aclrtSynchronizeDeviceWithTimeout, then returns the first error held for
// one of the device's streams (LaunchHostFunc errors and errors met by the
// backend's own waits) and clears them.
func (b *Backend) SynchronizeDevice(ctx context.Context, dev int32, timeoutMs int32) error {
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	if err := errors.Join(b.checkDevice(dev), acl.CheckTimeout(timeoutMs)); err != nil {
		return err
	}
	b.mu.Lock()
	var on []*stream
	for _, s := range b.streams {
		if s.dev == dev {
			on = append(on, s)
		}
	}
	b.mu.Unlock()
	seqs := make([]uint64, len(on))
	for i, s := range on {
		seqs[i] = s.seqNow()
	}
	rc, err := b.wait(ctx, timeoutMs, acl.ErrRTStreamSyncTimeout, nil, func(ms int32) (int32, error) {
		var rc int32
		err := b.onDevice(dev, func() { rc = b.api.aclrtSynchronizeDeviceWithTimeout(ms) })
		return rc, err
	})
	if err != nil {
		return err
	}
	if acl.Error(rc) == acl.ErrRTStreamSyncTimeout {
		return nativeErr(rc, "aclrtSynchronizeDeviceWithTimeout")
	}
	var first error
	for i, s := range on {
		s.idleSince(seqs[i])
		if e := s.takeErr(); e != nil && first == nil {
			first = e
		}
	}
	if rc != 0 {
		return nativeErr(rc, "aclrtSynchronizeDeviceWithTimeout")
	}
	return first
}

// CanAccessPeer implements [acl.Backend] with aclrtDeviceCanAccessPeer, which
// names both devices and needs no current context.
func (b *Backend) CanAccessPeer(dev, peer int32) (bool, error) {
	if err := b.enter(); err != nil {
		return false, err
	}
	defer b.exit()
	if err := errors.Join(b.checkDevice(dev), b.checkDevice(peer)); err != nil {
		return false, err
	}
	var can int32
	if err := nativeErr(b.api.aclrtDeviceCanAccessPeer(&can, dev, peer), "aclrtDeviceCanAccessPeer"); err != nil {
		return false, err
	}
	return can != 0, nil
}

// EnablePeerAccess implements [acl.Backend] with aclrtDeviceEnablePeerAccess
// in dev's context.
func (b *Backend) EnablePeerAccess(dev, peer int32) error {
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	if err := b.checkDevice(peer); err != nil {
		return err
	}
	return b.call(dev, "aclrtDeviceEnablePeerAccess", func() int32 { return b.api.aclrtDeviceEnablePeerAccess(peer, 0) })
}

// DisablePeerAccess implements [acl.Backend] with aclrtDeviceDisablePeerAccess
// in dev's context.
func (b *Backend) DisablePeerAccess(dev, peer int32) error {
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	if err := b.checkDevice(peer); err != nil {
		return err
	}
	return b.call(dev, "aclrtDeviceDisablePeerAccess", func() int32 { return b.api.aclrtDeviceDisablePeerAccess(peer) })
}

// MemInfo implements [acl.Backend] with aclrtGetMemInfo in dev's context. It
// reports the whole device as the runtime sees it; per-session quotas are
// the sandbox's.
func (b *Backend) MemInfo(dev int32, attr acl.MemAttr) (free, total uint64, err error) {
	if err := b.enter(); err != nil {
		return 0, 0, err
	}
	defer b.exit()
	if !attr.Valid() {
		return 0, 0, acl.Errorf(acl.ErrInvalidParam, "memory attribute %d is not defined", attr)
	}
	err = b.call(dev, "aclrtGetMemInfo", func() int32 { return b.api.aclrtGetMemInfo(int32(attr), &free, &total) })
	return free, total, err
}
