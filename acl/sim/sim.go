package sim

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aclwasm/aclwasm/acl"
)

// Defaults of New.
const (
	DefaultDevices    = 2
	DefaultMemory     = 32 << 30 // accounted bytes per device
	DefaultQueueDepth = 4096     // operations per stream before a queuing call with a context blocks
	MaxMemory         = 1 << 46  // the largest per-device memory WithMemory accepts
)

// Option configures New.
type Option func(*config)

type config struct {
	devices int
	memory  uint64
	chip    Chip
	peer    func(dev, peer int32) bool
	depth   int
	timing  bool
	paced   bool
}

// WithDevices sets how many devices there are (default 2). Values below 1
// mean 1.
func WithDevices(n int) Option {
	return func(c *config) { c.devices = max(n, 1) }
}

// WithMemory sets the accounted memory of each device in bytes (default 32
// GiB, at most [MaxMemory]). Go memory is only allocated by Malloc, for the
// bytes asked for, so a large value costs nothing until it is used; but an
// allocation larger than the host can map ends the process, as any Go
// allocation does. 0 means the default.
func WithMemory(bytes uint64) Option {
	return func(c *config) {
		if bytes != 0 {
			c.memory = min(bytes, MaxMemory)
		}
	}
}

// WithChip selects the chip family whose rules apply (default [AtlasA2]).
func WithChip(chip Chip) Option {
	return func(c *config) { c.chip = chip }
}

// WithPeers sets which device pairs CanAccessPeer reports as able to reach
// each other (default: every pair of distinct devices). EnablePeerAccess
// fails for the others.
func WithPeers(can func(dev, peer int32) bool) Option {
	return func(c *config) { c.peer = can }
}

// WithQueueDepth bounds how many operations a stream holds before the
// calls that take a context (MemcpyAsync, Memcpy2DAsync, MemcpyBatchAsync
// and MemsetAsync) block until the stream catches up (default 4096), as a
// full native task queue does. The calls that take none (RecordEvent,
// StreamWaitEvent, LaunchHostFunc, MemcpyAsyncWithDesc and
// MemcpyAsyncWithOffset) cannot wait: they always queue, past the bound if
// need be, and only their caller bounds them (the sandbox's host checks its
// policy's MaxQueued with Pending before every asynchronous call). Their
// operations count toward the bound all the same; OnComplete's do not, as
// Pending does not report them. 0 means no bound.
func WithQueueDepth(n int) Option {
	return func(c *config) { c.depth = max(n, 0) }
}

// WithTiming turns on the timing model: a virtual clock on which every
// copy and memset lasts the chip's launch latency plus its bytes over the
// bandwidth of its link, shared with the transfers on the same link at the
// same modeled time. Event timestamps, EventElapsedTime and when work
// counts as complete (synchronizes, queries) follow that clock, whatever
// the speed of this machine; the wall clock does not wait for it (see
// [WithPacing]). Off by default: the simulator then runs as fast as the
// host's memory allows, and the copy path pays nothing for the model. The
// package doc describes the model and its parameters.
func WithTiming() Option {
	return func(c *config) { c.timing = true }
}

// WithPacing turns on the timing model ([WithTiming]) and ties its clock to
// the wall clock: the host's own time counts as modeled time, and a wait
// lasts until the wall clock reaches the modeled time it waits for, so
// programs that read the wall clock see the modeled durations too. Modeled
// times then depend on the host's speed; WithTiming alone keeps them exact.
func WithPacing() Option {
	return func(c *config) { c.timing, c.paced = true, true }
}

// Backend is the simulated device. It implements [acl.Backend]; all its
// methods are safe for concurrent use.
type Backend struct {
	prof  profile
	chip  Chip
	peer  func(dev, peer int32) bool
	depth int
	clk   *clock // the timing model; nil when off

	// Device addresses are an allocation id above shift bits of offset:
	// the lookup from any interior address is a shift and a map access.
	shift  uint
	mask   uint64
	lastID uint64

	devs []*device

	mu     sync.RWMutex // guards the tables below; never held while waiting or copying
	closed bool
	// shut is closed for readers that take no lock (Memcpy's direct path).
	shut atomic.Bool
	// allocs maps allocation ids to live allocations. It is read without
	// mu (the synchronous copy path takes no lock that every caller
	// shares) and written under mu shared: Malloc and Free take mu only
	// shared, with the table's own writer lock and the device's atomic
	// accounting, so that sessions allocating at once do not queue behind
	// one another or behind a writer of the other tables (only Close
	// excludes them).
	allocs table[alloc]
	// pins maps pin handles to registered ranges. Read without mu, as
	// allocs (a small asynchronous copy looks its pin up and takes a
	// reference, holding no lock every caller shares); written under mu
	// shared and pmu, which orders registrations: ranges holds the same
	// pins by address, so that the overlap check is two comparisons and
	// pmu is held for as little as a Malloc holds the tables' locks (with
	// 256 sessions registering at once, a walk of every pin under pmu
	// queued them for seconds behind the one a busy core had preempted).
	pins    table[pin]
	pmu     sync.Mutex
	ranges  []*pin      // by address (pmu)
	nextPin acl.HostPin // pmu
	// streams and events are written under mu shared too, as allocs; smu
	// guards live and the devices' stream sets, which those writers change.
	streams table[stream] // by handle, read without mu as allocs
	events  table[event]  // by handle, read without mu as allocs
	smu     sync.Mutex
	live    map[*stream]struct{} // streams whose worker runs, destroyed ones included until it stops (smu)
	nextID  atomic.Uint64        // allocation ids, never reused
	nextH   atomic.Uint64        // stream and event handles, never reused
	// Notifies (notify.go): by handle, numbered from nextH with streams
	// and events, written under mu shared as events are.
	notifies table[notify]
}

var _ acl.Backend = (*Backend)(nil)

// New returns a simulator with the options applied. Its default streams'
// workers run until Close.
func New(opts ...Option) *Backend {
	c := config{devices: DefaultDevices, memory: DefaultMemory, chip: AtlasA2, depth: DefaultQueueDepth}
	for _, o := range opts {
		o(&c)
	}
	// Offsets need as many bits as the largest allocation can have, and at
	// least 32 so that every address is at or above 2^32.
	shift := uint(max(32, bits.Len64(c.memory-1)))
	b := &Backend{
		prof:   c.chip.profile(),
		chip:   c.chip,
		peer:   c.peer,
		depth:  c.depth,
		shift:  shift,
		mask:   1<<shift - 1,
		lastID: 1<<(64-shift) - 1,
		live:   map[*stream]struct{}{},
	}
	if c.timing {
		b.clk = newClock(b.prof, c.depth, c.paced)
	}
	for i := range c.devices {
		d := &device{id: int32(i), total: c.memory, streams: map[*stream]struct{}{}, peers: map[int32]bool{}}
		b.devs = append(b.devs, d)
		d.def = b.newStreamLocked(d)
	}
	return b
}

// Name implements [acl.Backend].
func (b *Backend) Name() string { return "sim" }

// ModelTime returns the timing model's clock: the modeled time since New
// that the host has reached by waiting (see [WithTiming]). It is 0 when the
// model is off.
func (b *Backend) ModelTime() time.Duration {
	if b.clk == nil {
		return 0
	}
	return b.clk.elapsed()
}

// Chip returns the chip family the simulator follows.
func (b *Backend) Chip() Chip { return b.chip }

// Version implements [acl.Backend]: the ACL version whose behaviour the
// simulator follows.
func (b *Backend) Version() (major, minor, patch int32) {
	return acl.VersionMajor, acl.VersionMinor, acl.VersionPatch
}

// DeviceCount implements [acl.Backend].
func (b *Backend) DeviceCount() int { return len(b.devs) }

// Close implements [acl.Backend]. It cancels the work not yet started on every
// stream, waits for the operations running now, stops the workers and
// releases all memory, registrations, streams and events. Calls blocked in
// the simulator return. Afterwards every call that touches memory, streams
// or events fails with ACL_ERROR_RT_CONTEXT_NULL. Close is idempotent.
func (b *Backend) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	b.shut.Store(true)
	b.smu.Lock() // a DestroyStream past mu drops its stream from live under smu alone
	ss := make([]*stream, 0, len(b.live))
	for s := range b.live {
		ss = append(ss, s)
	}
	b.smu.Unlock()
	var es []*event
	b.events.each(func(e *event) { es = append(es, e) })
	b.streams.clear()
	b.events.clear()
	b.mu.Unlock()

	for _, s := range ss {
		s.close(true)
	}
	for _, e := range es {
		e.destroy()
	}

	b.mu.Lock()
	b.smu.Lock()
	clear(b.live)
	for _, d := range b.devs {
		clear(d.streams)
	}
	b.smu.Unlock()
	b.allocs.clear()
	b.pins.clear()
	b.pmu.Lock()
	b.ranges = nil
	b.pmu.Unlock()
	for _, d := range b.devs {
		d.used.Store(0)
	}
	b.mu.Unlock()
	return nil
}

func errClosed() error {
	return acl.Errorf(acl.ErrRTContextNull, "the simulator is closed")
}

// device returns device id, or 107001.
func (b *Backend) device(id int32) (*device, error) {
	if id < 0 || int(id) >= len(b.devs) {
		return nil, acl.Errorf(acl.ErrRTInvalidDeviceID, "device %d does not exist: there are %d devices (0..%d)", id, len(b.devs), len(b.devs)-1)
	}
	return b.devs[id], nil
}

// RunMode implements [acl.Backend]: the simulated device is attached to
// the host it runs in, ACL_HOST.
func (b *Backend) RunMode() (acl.RunMode, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return 0, errClosed()
	}
	return acl.RunModeHost, nil
}

// Supports implements [acl.Backend]: the simulator serves every function.
func (b *Backend) Supports(fn string) bool { return true }
