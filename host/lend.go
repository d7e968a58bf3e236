package host

import (
	"context"
	"errors"
	"fmt"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

// LendOptions says how a session may use device memory the embedder lends.
type LendOptions struct {
	// ReadOnly refuses every guest write into the range: copies and
	// memsets into it, descriptors stored in it, descriptor and offset
	// copies into it (107000, naming the range).
	ReadOnly bool
	// Charge counts the range against the session's quotas (DeviceMemory
	// of its device, MaxAllocations), as if the guest had allocated it; a
	// lend over them fails. Otherwise the quotas are unaffected.
	Charge bool
}

// Lease is device memory lent to one session: the guest sees it at Addr
// as a device address and copies to and from it with the ordinary
// imports, with the checks of its own allocations (ranges, devices, peer
// access). The guest cannot free it. It ends with Revoke or when the
// instance ends; the memory stays the embedder's and is never freed by
// the host.
type Lease struct {
	i *Instance
	l *sandbox.Lease
}

// ErrRevoked: the lease was revoked, or its instance has ended.
var ErrRevoked = errors.New("lease revoked")

// Lend lends the size device bytes at ptr (memory the embedder allocated
// through the runtime's backend, for example rt.Backend().Malloc) to the
// instance's session, until Revoke or the end of the instance. ptr's
// device must be one the session's policy maps. Call it between the
// instance's calls (during one it fails with ErrBusy), and pass Addr to
// the guest.
func (i *Instance) Lend(ptr acl.DevPtr, size uint64, o LendOptions) (*Lease, error) {
	if err := i.tryLock(); err != nil {
		return nil, fmt.Errorf("host: lend: %w", err)
	}
	defer i.callMu.Unlock()
	if i.done {
		return nil, fmt.Errorf("host: lend: %w", errInstanceClosed)
	}
	l, err := i.s.s.Lend(ptr, size, o.ReadOnly, o.Charge)
	if err != nil {
		return nil, err
	}
	return &Lease{i: i, l: l}, nil
}

// Addr returns the device address the guest uses for the lent memory: for
// a guest of the acl32 profile, a 32-bit address in its window (ABI
// section 9).
func (l *Lease) Addr() uint64 { return l.l.Addr() }

// Revoke takes the memory back. From its start the guest's calls that
// name it fail as for freed memory; then it waits for the session's
// queued work, which may use it (until ctx is done). It returns nil once
// no work of the session can touch the memory any more; an error wrapping
// ctx's otherwise: the memory may still be in use until a later Revoke
// returns nil or the instance is closed. Call it between the instance's
// calls: during one it fails with ErrBusy. Revoking an ended lease returns
// nil.
func (l *Lease) Revoke(ctx context.Context) error {
	switch err := l.i.tryLock(); {
	case errors.Is(err, ErrClosed):
		// The lease ends with the instance: once a Close in progress has
		// released the session, nothing of it touches the memory.
		l.i.callMu.Lock()
		l.i.callMu.Unlock()
		return nil
	case err != nil:
		return fmt.Errorf("host: revoke: %w", err)
	}
	defer l.i.callMu.Unlock()
	return l.l.Revoke(ctx)
}
