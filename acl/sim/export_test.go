package sim

import (
	"context"

	"github.com/aclwasm/aclwasm/acl"
)

// Bytes returns the n bytes of device memory at p, so that benchmarks can
// time copy() on the very memory the simulator copies.
func Bytes(b *Backend, p acl.DevPtr, n uint64) []byte {
	b.mu.RLock()
	defer b.mu.RUnlock()
	a, off, err := b.allocLocked(p, n, "p")
	if err != nil {
		panic(err)
	}
	return a.mem[off : off+n]
}

// WaitReal waits until the most recent record of event h has run on its
// stream's worker, whatever the timing model says, so that tests of the
// model do not depend on how fast this machine copies.
func WaitReal(ctx context.Context, b *Backend, h acl.Event) {
	e, err := b.event(h)
	if err != nil {
		panic(err)
	}
	e.mu.Lock()
	r := e.last
	e.mu.Unlock()
	select {
	case <-r.done:
	case <-ctx.Done():
	}
}

// Wakes returns how often the worker of stream h woke up to look for work.
func Wakes(b *Backend, h acl.Stream) uint64 {
	s, err := b.stream(h)
	if err != nil {
		panic(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.wakes
}

// HoldShared holds the backend's table lock shared until the returned
// function is called, as a long reader (a batch resolving its entries)
// holds it.
func HoldShared(b *Backend) (release func()) {
	b.mu.RLock()
	return b.mu.RUnlock
}

// SmallAsync is the most bytes a quick launch runs in its call.
const SmallAsync = smallAsync
