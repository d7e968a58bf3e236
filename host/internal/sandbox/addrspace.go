package sandbox

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/aclwasm/aclwasm/acl"
)

// Guest addresses below guestLimit name the guest's linear memory; device
// allocations get addresses in a per-session region far above it.
const (
	guestLimit = 1 << 32
	// regionBits sizes each session's device address region (256 TiB of
	// addresses that are never handed out twice). Isolation comes from
	// each session's own table; distinct regions (no two live sessions
	// share one, see regionPool) make another session's address fail the
	// same way every time, and keep every address below 2^63.
	regionBits = 48
	regions    = 1 << 14
	// AllocGuard is the unused gap after every allocation, so that an
	// address just past one allocation is never inside the next.
	AllocGuard = 4 << 10
	allocAlign = 64
)

// alloc is one live device allocation of a session.
type alloc struct {
	base, size uint64 // the guest's view: [base, base+size)
	dev        int32  // guest device id
	ptr        acl.DevPtr
	charged    uint64 // bytes counted against the quota (native rounding)
	policy     acl.MemMallocPolicy
	queued     queued
	lease      *Lease // lent by the embedder (lend.go): never freed by the host
	readOnly   bool   // lent read-only: no guest write may touch it
	rg         any    // the backend's handle on it (acl.SmallCopier), once a small copy asked
}

func (a *alloc) end() uint64 { return a.base + a.size }

// queued counts the descriptor and offset copies queued with this
// allocation as their descriptor or base-address slot: they read it when
// they execute, so aclrtFree waits for them, as for any queued work.
type queued struct {
	mu   sync.Mutex
	n    int
	zero chan struct{} // closed when n drops to 0; nil when n is 0
}

func (q *queued) add() {
	q.mu.Lock()
	if q.n == 0 {
		q.zero = make(chan struct{})
	}
	q.n++
	q.mu.Unlock()
}

func (q *queued) done() {
	q.mu.Lock()
	if q.n--; q.n == 0 {
		close(q.zero)
		q.zero = nil
	}
	q.mu.Unlock()
}

// wait waits until nothing is queued, or ctx is done.
func (q *queued) wait(ctx context.Context) error {
	q.mu.Lock()
	zero := q.zero
	q.mu.Unlock()
	if zero == nil {
		return nil
	}
	select {
	case <-zero:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pin is one registered range of guest memory.
type pin struct {
	start, end uint64
	typ        acl.HostRegisterType
	h          acl.HostPin
}

// addrSpace is a session's view of memory: its linear memory, its device
// allocations (sorted by base), and its registered ranges (sorted,
// disjoint). In the wide profile bases only grow and are never reused; in
// acl32 (window set) they are window addresses, reused under the rule of
// ABI section 9 (see reserve).
type addrSpace struct {
	next   uint64 // next never-used device address
	limit  uint64 // end of the session's region, or of its window
	allocs []*alloc
	pins   []*pin
	// guestEnd: addresses below it name guest memory (or nothing); device
	// addresses are at or above it. 2^32 in the wide profile, W in acl32.
	guestEnd uint64
	window   bool   // acl32: device addresses are 32-bit window values
	holes    []hole // acl32: freed ranges, the longest freed first
	spare    *alloc // a record made with the first, for the next allocation (record)
}

// record returns a zero record for a new allocation of the session. The
// first is made with the next one's and room for four in allocs, in one
// object: a command run per request allocates two or three buffers, each
// a record and a growth of allocs otherwise. The caller holds the
// session's mu, as for insert.
func (as *addrSpace) record() *alloc {
	if a := as.spare; a != nil {
		as.spare = nil
		return a
	}
	if as.allocs == nil {
		first := new(struct {
			recs [2]alloc
			room [4]*alloc
		})
		as.allocs, as.spare = first.room[:0], &first.recs[1]
		return &first.recs[0]
	}
	return new(alloc)
}

// hole is a freed range of the acl32 window, [start, end).
type hole struct{ start, end uint64 }

func newAddrSpace(region uint64) addrSpace {
	base := (region + 1) << regionBits
	return addrSpace{next: base, limit: base + 1<<regionBits, guestEnd: guestLimit}
}

// Window bounds of acl32 (ABI section 9): device addresses lie in
// [W, WindowEnd), W being the guest's largest memory rounded up to 64 KiB.
const (
	WindowEnd   = 1<<32 - 1<<16
	windowAlign = 1 << 16
)

// newWindowSpace returns the address space of an acl32 session whose
// guest memory may grow to maxMem bytes: guest memory is [0, maxMem),
// device addresses lie in the window [W, 2^32 - 2^16). The window is empty
// when guest memory may fill the 32-bit space.
func newWindowSpace(maxMem uint64) addrSpace {
	w := (maxMem + windowAlign - 1) &^ (windowAlign - 1)
	if w > WindowEnd {
		w = WindowEnd
	}
	return addrSpace{next: w, limit: WindowEnd, guestEnd: w, window: true}
}

// windowName describes the acl32 window for messages.
func (as *addrSpace) windowName() string {
	return fmt.Sprintf("the device address window [%#x, %#x) of this acl32 session (its guest memory may grow to %#x)", as.guestEnd, uint64(WindowEnd), as.guestEnd)
}

// regionPool hands out the device address regions of a runtime's live
// sessions: each region at most once at a time, regions never used first,
// then those of released sessions, the longest released first, so that an
// address of an ended session is reused as late as possible. The zero
// value holds the regions' full count.
type regionPool struct {
	mu   sync.Mutex
	n    uint64   // regions in the pool; 0 means regions (tests set fewer)
	next uint64   // regions below next have been handed out
	free []uint64 // released regions, oldest first
}

// get returns a region no live session holds, or false when every region
// is held: 2^14 live sessions.
func (p *regionPool) get() (uint64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := p.n
	if n == 0 {
		n = regions
	}
	if p.next < n {
		p.next++
		return p.next - 1, true
	}
	if len(p.free) == 0 {
		return 0, false
	}
	r := p.free[0]
	p.free = p.free[1:]
	return r, true
}

// put returns the region of a released session.
func (p *regionPool) put(r uint64) {
	p.mu.Lock()
	p.free = append(p.free, r)
	p.mu.Unlock()
}

// regionBase returns the first address of the session's device region:
// every device address of the session is regionBase plus less than
// 2^regionBits. An acl32 window's addresses are below 2^32: its base is 0.
func (as *addrSpace) regionBase() uint64 {
	if as.window {
		return 0
	}
	return as.limit - 1<<regionBits
}

// extent returns the end of the addresses an allocation of size bytes at
// base takes: the allocation, its guard gap, aligned.
func extent(base, size uint64) uint64 {
	return (base + size + AllocGuard + allocAlign - 1) &^ (allocAlign - 1)
}

// reserve hands out the base address for an allocation of size bytes, or
// false when the session's region (or acl32 window) has no room for it.
// In the window, a freed range is handed out again only when the
// never-used room cannot hold the request, the range freed longest ago
// first, so that a stale pointer is caught for as long as there is room.
func (as *addrSpace) reserve(size uint64) (uint64, bool) {
	if size > 1<<regionBits {
		return 0, false
	}
	base := as.next
	if end := extent(base, size); end <= as.limit {
		as.next = end
		return base, true
	}
	if !as.window {
		return 0, false
	}
	if i := as.fit(size); i >= 0 {
		return as.take(i, size), true
	}
	as.coalesce()
	if i := as.fit(size); i >= 0 {
		return as.take(i, size), true
	}
	return 0, false
}

// fit returns the oldest hole that holds size bytes, or -1.
func (as *addrSpace) fit(size uint64) int {
	for i, h := range as.holes {
		if extent(h.start, size) <= h.end {
			return i
		}
	}
	return -1
}

// take carves an allocation of size bytes from the start of hole i; the
// rest stays a hole of the same age.
func (as *addrSpace) take(i int, size uint64) uint64 {
	h := &as.holes[i]
	base := h.start
	if h.start = extent(base, size); h.start >= h.end {
		as.holes = append(as.holes[:i], as.holes[i+1:]...)
	}
	return base
}

// coalesce merges adjacent holes, when no single one fits a request: the
// merged hole takes the place of its most recently freed part, so that no
// range is reused earlier than the rule allows.
func (as *addrSpace) coalesce() {
	if len(as.holes) < 2 {
		return
	}
	type aged struct {
		hole
		age int
	}
	hs := make([]aged, len(as.holes))
	for i, h := range as.holes {
		hs[i] = aged{h, i}
	}
	sort.Slice(hs, func(i, j int) bool { return hs[i].start < hs[j].start })
	merged := hs[:1]
	for _, h := range hs[1:] {
		if last := &merged[len(merged)-1]; last.end == h.start {
			last.end, last.age = h.end, max(last.age, h.age)
		} else {
			merged = append(merged, h)
		}
	}
	sort.Slice(merged, func(i, j int) bool { return merged[i].age < merged[j].age })
	as.holes = as.holes[:0]
	for _, h := range merged {
		as.holes = append(as.holes, h.hole)
	}
}

// find returns the allocation containing addr, or nil.
func (as *addrSpace) find(addr uint64) *alloc {
	// sort.Search by hand: this is on every device address of every call.
	lo, hi := 0, len(as.allocs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if as.allocs[m].base > addr {
			hi = m
		} else {
			lo = m + 1
		}
	}
	i := lo - 1
	if i < 0 || addr >= as.allocs[i].end() {
		return nil
	}
	return as.allocs[i]
}

// insert adds a in base order: at the end, unless an acl32 window reused
// a freed range.
func (as *addrSpace) insert(a *alloc) {
	i := len(as.allocs)
	if as.window {
		i = sort.Search(len(as.allocs), func(i int) bool { return as.allocs[i].base > a.base })
	}
	if as.allocs == nil {
		// Room for a few at once: a command run per request allocates
		// two or three buffers, each a growth of the slice otherwise.
		as.allocs = make([]*alloc, 0, 4)
	}
	as.allocs = append(as.allocs, nil)
	copy(as.allocs[i+1:], as.allocs[i:])
	as.allocs[i] = a
}

// remove drops a; in an acl32 window its addresses become the newest hole.
func (as *addrSpace) remove(a *alloc) {
	i := sort.Search(len(as.allocs), func(i int) bool { return as.allocs[i].base >= a.base })
	as.allocs = append(as.allocs[:i], as.allocs[i+1:]...)
	if as.window {
		as.holes = append(as.holes, hole{a.base, extent(a.base, a.size)})
	}
}

// pinAt returns the registered range that contains [addr, end), or nil.
func (as *addrSpace) pinAt(addr, end uint64) *pin {
	i := sort.Search(len(as.pins), func(i int) bool { return as.pins[i].start > addr }) - 1
	if i < 0 || end > as.pins[i].end {
		return nil
	}
	return as.pins[i]
}

// pinOverlapping returns a registered range overlapping [addr, end), or nil.
func (as *addrSpace) pinOverlapping(addr, end uint64) *pin {
	i := sort.Search(len(as.pins), func(i int) bool { return as.pins[i].end > addr })
	if i < len(as.pins) && as.pins[i].start < end {
		return as.pins[i]
	}
	return nil
}

// readOnlyIn returns a read-only registered range overlapping [addr, end),
// or nil: a write may not touch any of them, whichever range it starts in.
func (as *addrSpace) readOnlyIn(addr, end uint64) *pin {
	for i := sort.Search(len(as.pins), func(i int) bool { return as.pins[i].end > addr }); i < len(as.pins) && as.pins[i].start < end; i++ {
		if as.pins[i].typ == acl.HostRegisterReadOnly {
			return as.pins[i]
		}
	}
	return nil
}

func (as *addrSpace) insertPin(p *pin) {
	i := sort.Search(len(as.pins), func(i int) bool { return as.pins[i].start > p.start })
	as.pins = append(as.pins, nil)
	copy(as.pins[i+1:], as.pins[i:])
	as.pins[i] = p
}

func (as *addrSpace) removePin(p *pin) {
	for i, q := range as.pins {
		if q == p {
			as.pins = append(as.pins[:i], as.pins[i+1:]...)
			return
		}
	}
}
