package sandbox

import (
	"context"
	"errors"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// What this package's external tests (package sandbox_test, which reach a
// session through Peek) may look at or set up inside a session or the
// state sessions share, beyond what the embedding API shows.

// LimitRegions cuts the runtime's device address regions to n.
func (sh *Shared) LimitRegions(n uint64) { sh.regions.n = n }

// MaxQueued is the session's limit of operations queued on one stream:
// the policy's, after its defaults.
func (s *Session) MaxQueued() int { return s.policy.MaxQueued }

// Profile returns the import profile of the session's module.
func (s *Session) Profile() abi.Profile { return s.prof }

// QueuedOn returns how many queued descriptor and offset copies hold the
// allocation at device address addr (-1: none there).
func (s *Session) QueuedOn(addr uint64) int {
	a := s.as.find(addr)
	if a == nil {
		return -1
	}
	a.queued.mu.Lock()
	defer a.queued.mu.Unlock()
	return a.queued.n
}

// Allocated reports whether device address addr is inside one of the
// session's allocations, as stream workers see the table (under s.mu):
// a test watches a Free take an allocation out while the Free waits.
func (s *Session) Allocated(addr uint64) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.as.find(addr) != nil
}

// ZeroDescKey makes the key of the session's descriptor MACs all zeros,
// so that descriptors are the same bytes in every session.
func (s *Session) ZeroDescKey() { s.descKey.p.Store(new([32]byte)) }

// DescKeyDrawn reports whether the session has drawn its descriptor key.
func (s *Session) DescKeyDrawn() bool { return s.descKey.p.Load() != nil }

// Settle lets the session's queued work finish: events and notifies are
// destroyed first (which releases waits for records that will never
// come), then every stream is synchronized.
func (s *Session) Settle(ctx context.Context) {
	_ = errors.Join(s.destroyEvents(-1)...)
	_ = errors.Join(s.destroyNotifies(-1)...)
	_ = s.syncStreams(ctx, -1, -1)
}

// DeviceBytes returns the bytes of every allocation of the session, in
// address order.
func (s *Session) DeviceBytes(ctx context.Context) ([]byte, error) {
	var out []byte
	for _, a := range s.as.allocs {
		buf := make([]byte, a.size)
		if err := s.b.Memcpy(ctx, acl.Host(buf, 0), acl.Device(a.ptr), a.size); err != nil {
			return nil, err
		}
		out = append(out, buf...)
	}
	return out, nil
}

// SlotSize returns the bytes of an address slot of the session's profile.
func (s *Session) SlotSize() uint64 { return s.slotSize() }

// Counting reports whether the session has made its call counters (at
// its first call of an acl function).
func (s *Session) Counting() bool { return s.stats.fn != [statChunks]*[statChunk]*fnStat{} }

// Counters returns how many acl functions the session holds counters of:
// those it called.
func (s *Session) Counters() int {
	n := 0
	for range s.stats.all() {
		n++
	}
	return n
}

// CounterChunks returns how many chunks of counters the session made.
func (s *Session) CounterChunks() int {
	n := 0
	for _, c := range s.stats.fn {
		if c != nil {
			n++
		}
	}
	return n
}

// Profiling reports whether the session made its profiling state.
func (s *Session) Profiling() bool { return s.pf != nil }

// Maps returns how many of the session's handle and context maps (and
// its list of contexts) exist.
func (s *Session) Maps() int {
	n := 0
	for _, made := range []bool{s.streams != nil, s.events != nil, s.ctxs != nil, s.peers != nil, s.deadCtxs != nil} {
		if made {
			n++
		}
	}
	return n
}

// Stream returns the backend stream of the guest's stream handle h (0:
// the current context's default stream, made on first use) and its
// physical device.
func (s *Session) Stream(h uint32) (acl.Stream, int32, error) {
	st, err := s.stream(h)
	if err != nil {
		return 0, 0, err
	}
	return st.h, s.phys(st.dev), nil
}

func (s *Session) stream(h uint32) (*streamRec, error) {
	if h == 0 {
		return s.defaultStream()
	}
	st, ok := s.streams[h]
	if !ok {
		return nil, errors.New("sandbox: no such stream")
	}
	return st, nil
}

// Holdings returns how many allocations (leases included) and streams
// the session holds.
func (s *Session) Holdings() (allocs, streams int) { return len(s.as.allocs), len(s.streams) }

// KernelObjects returns how many objects of the kernel API (binaries,
// functions, argument lists and parameters) the session holds.
func (s *Session) KernelObjects() int { return len(s.kobjs) }

// SetNextHandle makes n the last handle handed out.
func (s *Session) SetNextHandle(n uint32) { s.nextHandle = n }

// LeaveDevice makes the session have no current device, as a context of
// another thread would natively.
func (s *Session) LeaveDevice() { s.dev = -1 }

// Recount makes the session's count of what is queued on its stream h
// (0: the default stream) the backend's (acl.Backend.Pending), after a
// test queued work there behind the session's back.
func (s *Session) Recount(h uint32) error {
	st, err := s.stream(h)
	if err != nil {
		return err
	}
	n, err := s.b.Pending(st.h)
	st.queued = n
	return err
}
