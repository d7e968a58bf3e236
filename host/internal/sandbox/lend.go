package sandbox

import (
	"context"
	"fmt"

	"github.com/aclwasm/aclwasm/acl"
)

// Lease is device memory an embedder lent to the session (host.Lease).
type Lease struct {
	s       *Session
	a       *alloc
	revoked bool
}

// Lend puts the size device bytes at ptr, memory of the embedder's, in the
// session's address space: read-only refuses every guest write into it,
// charge counts it against the session's quotas. Call it between the
// session's host calls.
func (s *Session) Lend(ptr acl.DevPtr, size uint64, readOnly, charge bool) (*Lease, error) {
	if size == 0 {
		return nil, fmt.Errorf("host: lend: size is 0")
	}
	// The whole range must lie inside one live allocation: the host's
	// range checks keep the guest inside the lease, so the lease itself
	// must not reach past the embedder's memory into another allocation.
	abase, asize, phys, err := s.b.Allocation(ptr)
	if err != nil {
		return nil, fmt.Errorf("host: lend: %#x is not device memory of the backend: %w", ptr, err)
	}
	if off := uint64(ptr - abase); size > asize-off {
		return nil, fmt.Errorf("host: lend: [%#x, +%d) crosses the end of the %d-byte allocation at %#x (%d bytes from %#x to its end)", ptr, size, asize, abase, asize-off, ptr)
	}
	dev := int32(-1)
	for g, p := range s.policy.Devices {
		if p == phys {
			dev = int32(g)
		}
	}
	if dev < 0 {
		return nil, fmt.Errorf("host: lend: %#x is on physical device %d, which the session's policy does not map (Devices %v)", ptr, phys, s.policy.Devices)
	}
	var charged uint64
	if charge {
		if n := len(s.as.allocs) - s.lent; n >= s.policy.MaxAllocations {
			return nil, fmt.Errorf("host: lend: the session holds %d allocations, the policy's limit", n)
		}
		charged = acl.AllocatedSize(size, acl.MemMallocHugeFirst)
		if held := s.held[dev]; charged > s.policy.DeviceMemory-held {
			return nil, fmt.Errorf("host: lend: %d bytes exceed the session's free quota on device %d (%d of %d in use)", size, dev, held, s.policy.DeviceMemory)
		}
	}
	base, ok := s.as.reserve(size)
	switch {
	case !ok && s.as.window:
		return nil, fmt.Errorf("host: lend: %d bytes do not fit in %s", size, s.as.windowName())
	case !ok:
		return nil, fmt.Errorf("host: lend: the session has used up its device addresses")
	}
	l := &Lease{s: s}
	l.a = &alloc{base: base, size: size, dev: dev, ptr: ptr, charged: charged, lease: l, readOnly: readOnly}
	s.mu.Lock()
	s.as.insert(l.a)
	s.mu.Unlock()
	s.held[dev] += charged
	if !charge {
		s.lent++
	}
	return l, nil
}

// Addr returns the device address the guest uses for the lent memory.
func (l *Lease) Addr() uint64 { return l.a.base }

// Revoke takes the memory back: the guest's calls that name it fail from
// now on as for freed memory; then it waits for the session's queued work,
// which may use it, until ctx is done. Call it between the session's host
// calls.
func (l *Lease) Revoke(ctx context.Context) error {
	s := l.s
	if !l.revoked {
		l.revoked = true
		s.mu.Lock()
		if s.as.find(l.a.base) == l.a {
			s.as.remove(l.a)
			l.drop()
		}
		s.mu.Unlock()
	}
	if s.freed {
		return nil // the session is released: nothing of it runs
	}
	// Descriptor and offset copies that hold it, then every stream of the
	// session: a plain asynchronous copy resolved it when queued.
	if err := l.a.queued.wait(ctx); err != nil {
		return fmt.Errorf("host: revoke: queued work still holds the lease: %w", err)
	}
	for _, st := range s.sessionStreams(-1) {
		if err := s.b.SynchronizeStream(ctx, st.h, -1); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("host: revoke: the session's queued work has not finished: %w", ctx.Err())
			}
			// The stream's work failed or was cancelled: it has ended.
		}
	}
	return nil
}

// drop undoes the lease's accounting; the caller removed it from the
// table under s.mu.
func (l *Lease) drop() {
	l.revoked = true
	l.s.held[l.a.dev] -= l.a.charged
	if l.a.charged == 0 {
		l.s.lent--
	}
}

// writable fails when the resolved range is read-only lent memory: a
// guest write may not touch it.
func (sp span) writable(name string, addr, n uint64) error {
	if sp.a != nil && sp.a.readOnly {
		return acl.Errorf(acl.ErrRTParamInvalid, "%s [%#x, +%d) is device memory the host lent read-only", name, addr, n)
	}
	return nil
}
