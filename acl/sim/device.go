package sim

import (
	"context"
	"sync/atomic"

	"github.com/aclwasm/aclwasm/acl"
)

// device is one simulated device: its accounted memory, its streams and
// the peers it has enabled. The fields but id, total and def are guarded by
// Backend.mu.
type device struct {
	id      int32
	total   uint64
	used    atomic.Uint64 // bytes allocated; reserve changes it
	def     *stream
	streams map[*stream]struct{} // live streams, the default one included
	peers   map[int32]bool       // devices this one has enabled access to
}

// reserve counts n more bytes as used, or returns the free bytes when n
// does not fit.
func (d *device) reserve(n uint64) (free uint64, ok bool) {
	for {
		u := d.used.Load()
		if n > d.total-u {
			return d.total - u, false
		}
		if d.used.CompareAndSwap(u, u+n) {
			return 0, true
		}
	}
}

// SynchronizeDevice implements [acl.Backend]. It waits for the work queued on
// every stream of the device when it is called, then returns the first
// pending asynchronous error of those streams and clears all of them.
func (b *Backend) SynchronizeDevice(ctx context.Context, dev int32, timeoutMs int32) error {
	if err := acl.CheckTimeout(timeoutMs); err != nil {
		return err
	}
	d, err := b.device(dev)
	if err != nil {
		return err
	}
	b.mu.RLock()
	if b.closed {
		b.mu.RUnlock()
		return errClosed()
	}
	b.smu.Lock()
	ss := make([]*stream, 0, len(d.streams))
	for s := range d.streams {
		ss = append(ss, s)
	}
	b.smu.Unlock()
	b.mu.RUnlock()

	targets := make([]uint64, len(ss))
	for i, s := range ss {
		targets[i] = s.target()
	}
	tmo, stop := timeout(timeoutMs)
	defer stop()
	for i, s := range ss {
		switch err := s.wait(ctx, targets[i], tmo); err {
		case nil, errDead: // a stream destroyed meanwhile has nothing left to wait for
		case errTimeout:
			return acl.Errorf(acl.ErrRTStreamSyncTimeout, "device %d: queued work did not complete within %d ms", dev, timeoutMs)
		default:
			return err
		}
	}
	if c := b.clk; c != nil && c.wait(ctx, timeoutMs, func() bool {
		for i, s := range ss {
			if s.vs.done < targets[i] {
				return false
			}
		}
		return true
	}) == expired {
		return acl.Errorf(acl.ErrRTStreamSyncTimeout, "device %d: queued work did not complete within %d ms of modeled time", dev, timeoutMs)
	}
	var first error
	for _, s := range ss {
		if err := s.takeErr(); first == nil {
			first = err
		}
	}
	return first
}

// CanAccessPeer implements [acl.Backend]. Every pair of distinct devices can
// be peers unless [WithPeers] says otherwise; a device is not its own peer
// (100000, as natively).
func (b *Backend) CanAccessPeer(dev, peer int32) (bool, error) {
	if _, err := b.device(dev); err != nil {
		return false, err
	}
	if _, err := b.device(peer); err != nil {
		return false, err
	}
	if dev == peer {
		return false, acl.Errorf(acl.ErrInvalidParam, "peerDeviceId %d is deviceId itself", peer)
	}
	return b.peer == nil || b.peer(dev, peer), nil
}

// EnablePeerAccess implements [acl.Backend]. Enabling twice is not an error.
// A copy between two devices is allowed once either of them has enabled
// access to the other: the native docs describe enabling as opening data
// exchange between the two devices.
func (b *Backend) EnablePeerAccess(dev, peer int32) error {
	ok, err := b.CanAccessPeer(dev, peer)
	if err != nil {
		return err
	}
	if !ok {
		return acl.Errorf(acl.ErrRTParamInvalid, "device %d cannot access device %d (CanAccessPeer is false)", dev, peer)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return errClosed()
	}
	b.devs[dev].peers[peer] = true
	return nil
}

// DisablePeerAccess implements [acl.Backend]. Disabling access that is not
// enabled is not an error.
func (b *Backend) DisablePeerAccess(dev, peer int32) error {
	if _, err := b.CanAccessPeer(dev, peer); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return errClosed()
	}
	delete(b.devs[dev].peers, peer)
	return nil
}

// peerOKLocked reports whether a copy between devices x and y may run.
func (b *Backend) peerOKLocked(x, y *device) bool {
	return x == y || !b.prof.peerEnable || x.peers[y.id] || y.peers[x.id]
}

// MemInfo implements [acl.Backend]. Every memory class reports the device's
// one accounted pool: total is its size, free what Malloc has not reserved
// (rounding and padding included).
func (b *Backend) MemInfo(dev int32, attr acl.MemAttr) (free, total uint64, err error) {
	d, err := b.device(dev)
	if err != nil {
		return 0, 0, err
	}
	if !attr.Valid() {
		return 0, 0, acl.Errorf(acl.ErrInvalidParam, "attr %d is not an aclrtMemAttr (0..17)", attr)
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return 0, 0, errClosed()
	}
	return d.total - d.used.Load(), d.total, nil
}
