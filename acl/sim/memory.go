package sim

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/aclwasm/aclwasm/acl"
)

// refs counts the operations that use a piece of memory, so that Free and
// HostUnregister can wait for them. Operations take a reference when they
// resolve an address (under Backend.mu, so a reference is never taken on
// memory being released) and drop it when they complete.
type refs struct {
	n       atomic.Int64
	waiters atomic.Int32 // goroutines in wait: only then does release take mu
	mu      sync.Mutex
	idle    chan struct{} // made by a waiter, closed when n drops to 0
}

func (r *refs) acquire() { r.n.Add(1) }

func (r *refs) release() {
	// A waiter counts itself in waiters before it reads n, so a release
	// that takes n to 0 after that read sees the waiter (the atomics are
	// sequentially consistent) and wakes it.
	if r.n.Add(-1) != 0 || r.waiters.Load() == 0 {
		return
	}
	r.mu.Lock()
	if r.idle != nil && r.n.Load() == 0 {
		close(r.idle)
		r.idle = nil
	}
	r.mu.Unlock()
}

// wait blocks until nothing holds a reference or ctx is done.
func (r *refs) wait(ctx context.Context) error {
	r.waiters.Add(1)
	defer r.waiters.Add(-1)
	r.mu.Lock()
	if r.n.Load() == 0 {
		r.mu.Unlock()
		return nil
	}
	if r.idle == nil {
		r.idle = make(chan struct{})
	}
	idle := r.idle
	r.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-done(ctx):
		return ctx.Err()
	}
}

// alloc is one device allocation.
type alloc struct {
	id   uint64
	base acl.DevPtr
	dev  *device
	acct uint64 // bytes counted against the device: rounded and padded
	size uint64 // len(mem) until Free: what addresses may name
	refs refs
	// dying is set (under Backend.mu) while Free waits for the references:
	// addresses in the allocation then resolve to nothing, so the count
	// only goes down and Free cannot be starved by new operations.
	dying atomic.Bool
	// mu orders every access to mem's bytes, reads and writes alike,
	// taking two allocations' locks in id order. It is never held while
	// waiting for anything else, so a caller racing its own queued work
	// gets some order of the two, not a data race. Synchronous copies hold
	// no reference: Free takes mu to drop mem, so it waits for the copy
	// that holds it. A plain mutex, not a RWMutex: a write lock of a
	// RWMutex costs four atomic operations instead of two, on every small
	// copy, to let reads of one allocation overlap, which a memmove-bound
	// copy hardly gains from.
	mu  sync.Mutex
	mem []byte // the bytes asked for; nil once freed
}

// pin is one registered host range.
type pin struct {
	h        acl.HostPin
	b        []byte
	readonly bool
	refs     refs
	// dying is set while HostUnregister waits for the references: the pin
	// then resolves to nothing, so the count only goes down and the
	// unregister cannot be starved by new operations. It is set under
	// Backend.mu shared, so a reference is taken with take.
	dying atomic.Bool
}

// take takes a reference on p, unless an unregister has begun, as
// alloc.take does for a Free.
func (p *pin) take() bool {
	p.refs.acquire()
	if p.dying.Load() {
		p.refs.release()
		return false
	}
	return true
}

// contains reports whether x lies inside the registered range.
func (p *pin) contains(x []byte) bool {
	if len(x) == 0 {
		return true
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(p.b)))
	at := uintptr(unsafe.Pointer(unsafe.SliceData(x)))
	return at >= lo && at-lo <= uintptr(len(p.b)) && uintptr(len(x)) <= uintptr(len(p.b))-(at-lo)
}

// overlaps reports whether x and the registered range share a byte.
func (p *pin) overlaps(x []byte) bool {
	lo, at := addr(p.b), addr(x)
	return at < lo+uintptr(len(p.b)) && lo < at+uintptr(len(x))
}

// Malloc implements [acl.Backend]. The device is charged
// acl.AllocatedSize(size, policy) bytes; the allocation's extent, what
// addresses may name, is size bytes, zeroed. Addresses are never reused.
func (b *Backend) Malloc(dev int32, size uint64, policy acl.MemMallocPolicy) (acl.DevPtr, error) {
	d, err := b.device(dev)
	if err != nil {
		return 0, err
	}
	if err := acl.CheckMalloc(size); err != nil {
		return 0, err
	}
	acct := acl.AllocatedSize(size, policy)
	if acct > d.total || size > math.MaxInt {
		return 0, acl.Errorf(acl.ErrRTMemoryAllocation, "device %d: out of memory: %d bytes (%d with rounding) exceed the device's %d bytes", dev, size, acct, d.total)
	}

	// Reserve the bytes and the address first, so that a request that does
	// not fit allocates nothing. mu is taken shared: allocations of other
	// sessions go on meanwhile (see Backend.allocs).
	b.mu.RLock()
	if b.closed {
		b.mu.RUnlock()
		return 0, errClosed()
	}
	if free, ok := d.reserve(acct); !ok {
		b.mu.RUnlock()
		return 0, acl.Errorf(acl.ErrRTMemoryAllocation, "device %d: out of memory: %d bytes (%d with rounding) requested, %d of %d free", dev, size, acct, free, d.total)
	}
	id := b.nextID.Add(1)
	if id > b.lastID {
		d.used.Add(-acct)
		b.mu.RUnlock()
		return 0, acl.Errorf(acl.ErrRTMemoryAllocation, "device %d: the simulator has handed out all %d allocation addresses", dev, b.lastID)
	}
	var a *alloc
	var mem []byte
	if size <= smallAllocMax { // the record and its bytes in one allocation
		sa := &smallAlloc{alloc: alloc{id: id, base: acl.DevPtr(id << b.shift), dev: d, acct: acct, size: size}}
		a, mem = &sa.alloc, unsafe.Slice((*byte)(unsafe.Pointer(&sa.w)), size)
	} else {
		a = &alloc{id: id, base: acl.DevPtr(id << b.shift), dev: d, acct: acct, size: size}
	}
	b.mu.RUnlock()

	if mem == nil {
		// Allocate outside the lock: zeroed memory of a fresh span costs
		// the kernel's page faults later, not a memset now.
		mem = alignedBytes(size)
	}

	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		// Close reset the accounting (or will, once it takes the lock
		// again): there is no reservation left to roll back.
		return 0, errClosed()
	}
	a.mem = mem
	b.allocs.put(a.id, a)
	return a.base, nil
}

// smallAlloc is an allocation of at most smallAllocMax bytes together
// with its bytes, aligned as alignedBytes aligns them: one heap object, not
// two, for the small buffers of a command run per request. The bytes live
// as long as the record, which Free drops from the table.
type smallAlloc struct {
	alloc
	w [smallAllocMax / 8]uint64
}

// smallAllocMax is the largest allocation made with its record
// (smallAlloc): with it, a 240-byte heap object.
const smallAllocMax = 128

// alignedBytes returns n zeroed bytes at an address aligned to 8, as
// natively device memory is aligned (to far more): compute views a buffer
// whose device address is aligned to its elements as a slice of them
// (host.KernelBlock.Float32s), which needs the Go memory aligned alike.
// Go aligns a []byte of a few bytes to as little as 1.
func alignedBytes(n uint64) []byte {
	w := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), n)
}

// Free implements [acl.Backend]. p must be the base of a live allocation
// (anything else, an interior address included, is 107000). Free waits for
// every operation that holds the allocation, queued or running. From the
// start of the call the allocation takes no new operations: a call that
// names it, Free included, fails with 107000 as if it were freed, so that
// steady use cannot hold Free off. If ctx is done first Free returns ctx's
// error and the allocation is live again.
func (b *Backend) Free(ctx context.Context, p acl.DevPtr) error {
	b.mu.RLock()
	if b.closed {
		b.mu.RUnlock()
		return errClosed()
	}
	a, _, err := b.allocLocked(p, 0, "devPtr")
	switch {
	case err != nil:
		b.mu.RUnlock()
		return err
	case p != a.base:
		b.mu.RUnlock()
		return acl.Errorf(acl.ErrRTParamInvalid, "devPtr %#x is inside the allocation at %#x, not its start", p, a.base)
	case !a.dying.CompareAndSwap(false, true):
		b.mu.RUnlock()
		return acl.Errorf(acl.ErrRTParamInvalid, "devPtr %#x is in the allocation at %#x, which is being freed", p, a.base)
	}
	b.mu.RUnlock()

	// From here no reference is taken for long: an operation that found
	// the allocation before it was dying takes its reference, then looks
	// at dying again and drops it (take), so the count only goes down.
	if err := a.refs.wait(ctx); err != nil {
		a.dying.Store(false)
		return err
	}
	// A synchronous copy that found the allocation before it was dying
	// holds no reference but its data lock: wait for it, and drop the
	// memory (a copy that takes the lock later finds it freed).
	a.mu.Lock()
	a.mem = nil
	a.mu.Unlock()
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed { // Close released everything meanwhile
		return errClosed()
	}
	b.allocs.del(a.id)
	a.dev.used.Add(-a.acct)
	return nil
}

// DeviceOf implements [acl.Backend].
func (b *Backend) DeviceOf(p acl.DevPtr) (int32, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return 0, errClosed()
	}
	a, _, err := b.allocLocked(p, 0, "address")
	if err != nil {
		return 0, err
	}
	return a.dev.id, nil
}

// Allocation implements [acl.Backend].
func (b *Backend) Allocation(p acl.DevPtr) (acl.DevPtr, uint64, int32, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return 0, 0, 0, errClosed()
	}
	a, _, err := b.allocLocked(p, 0, "address")
	if err != nil {
		return 0, 0, 0, err
	}
	return a.base, a.size, a.dev.id, nil
}

// allocLocked finds the live allocation holding [p, p+n) (for n == 0, the
// byte at p). An allocation being freed is not live. what names the
// argument in errors. It needs no lock (Memcpy's direct path calls it
// without one); under Backend.mu what it finds stays live until mu is
// released.
func (b *Backend) allocLocked(p acl.DevPtr, n uint64, what string) (*alloc, uint64, error) {
	a := b.allocs.get(uint64(p) >> b.shift)
	switch {
	case a == nil:
		return nil, 0, acl.Errorf(acl.ErrRTParamInvalid, "%s %#x is not in a live device allocation", what, p)
	case a.dying.Load():
		return nil, 0, acl.Errorf(acl.ErrRTParamInvalid, "%s %#x is in the allocation at %#x, which is being freed", what, p, a.base)
	}
	off, size := uint64(p)&b.mask, a.size
	if off >= size || n > size-off {
		return nil, 0, acl.Errorf(acl.ErrRTParamInvalid, "%s range [%#x, +%d) crosses the end of the %d-byte allocation at %#x", what, p, max(n, 1), size, a.base)
	}
	return a, off, nil
}

// HostRegister implements [acl.Backend]. The range may not overlap a
// registered one (507910). The returned pin keeps x reachable until
// HostUnregister. Registrations are ordered by their own short lock (pmu)
// under Backend.mu shared, so that other sessions' calls go on meanwhile.
func (b *Backend) HostRegister(x []byte, typ acl.HostRegisterType) (acl.HostPin, error) {
	switch {
	case len(x) == 0:
		return 0, acl.Errorf(acl.ErrInvalidParam, "size is 0")
	}
	if err := acl.CheckHostRegisterType(typ); err != nil {
		return 0, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return 0, errClosed()
	}
	at := addr(x)
	b.pmu.Lock()
	defer b.pmu.Unlock()
	// The ranges do not overlap one another: only the two around x can
	// overlap it.
	i, _ := slices.BinarySearchFunc(b.ranges, at, byAddr)
	for _, k := range [2]int{i - 1, i} {
		if k >= 0 && k < len(b.ranges) && b.ranges[k].overlaps(x) {
			q := b.ranges[k]
			return 0, acl.Errorf(acl.ErrHostMemoryAlreadyRegistered, "the %d-byte range overlaps the %d-byte range registered as pin %d", len(x), len(q.b), q.h)
		}
	}
	b.nextPin++
	p := &pin{h: b.nextPin, b: x, readonly: typ == acl.HostRegisterReadOnly}
	b.ranges = slices.Insert(b.ranges, i, p)
	b.pins.put(uint64(p.h), p)
	return p.h, nil
}

// addr returns the address of x's first byte.
func addr(x []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(x))) }

// byAddr orders Backend.ranges.
func byAddr(p *pin, at uintptr) int { return cmp.Compare(addr(p.b), at) }

// HostUnregister implements [acl.Backend]. It waits for the operations that
// hold the pin, holding no lock meanwhile; if ctx is done first it returns
// ctx's error and the range stays registered.
func (b *Backend) HostUnregister(ctx context.Context, h acl.HostPin) error {
	b.mu.RLock()
	if b.closed {
		b.mu.RUnlock()
		return errClosed()
	}
	p := b.pins.get(uint64(h))
	if p == nil || !p.dying.CompareAndSwap(false, true) {
		b.mu.RUnlock()
		return acl.Errorf(acl.ErrHostMemoryNotRegistered, "pin %d is not a registered host range", h)
	}
	b.mu.RUnlock()

	// No reference is kept from now on (take): the count only goes down.
	if err := p.refs.wait(ctx); err != nil {
		p.dying.Store(false)
		return err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed { // Close released everything meanwhile
		return errClosed()
	}
	b.pmu.Lock()
	defer b.pmu.Unlock()
	b.pins.del(uint64(h))
	if i, ok := slices.BinarySearchFunc(b.ranges, addr(p.b), byAddr); ok {
		b.ranges = slices.Delete(b.ranges, i, i+1)
	}
	return nil
}

// span is one side of an operation, resolved and referenced: bytes of a
// live allocation, or host bytes, registered (pin != nil) or pageable.
type span struct {
	a    *alloc
	off  uint64
	host []byte
	pin  *pin
}

func (s span) dev() bool { return s.a != nil }

// freed reports whether the span's allocation was freed after it was
// resolved; only a span that holds no reference (Memcpy's direct path) can
// see it. The caller holds the allocation's data lock.
func (s span) freed() bool { return s.a != nil && s.a.mem == nil }

func errFreed(what string, a *alloc) error {
	return acl.Errorf(acl.ErrRTParamInvalid, "%s is in the allocation at %#x, which was freed", what, a.base)
}

// pageable reports whether s is unregistered host memory: an asynchronous
// operation touching it runs before its call returns ([acl.Queues]).
func (s span) pageable() bool { return s.a == nil && s.pin == nil }

// bytes returns the n bytes at the span. For device memory the caller holds
// the allocation's lock.
func (s span) bytes(n uint64) []byte {
	if s.a != nil {
		return s.a.mem[s.off : s.off+n]
	}
	return s.host[:n]
}

func (s span) release() {
	switch {
	case s.a != nil:
		s.a.refs.release()
	case s.pin != nil:
		s.pin.refs.release()
	}
}

// spanLocked resolves x for an operation that touches n bytes of it,
// writing them if write is set, and takes a reference on the memory.
func (b *Backend) spanLocked(x acl.Buf, n uint64, write bool, what string) (span, error) {
	s, err := b.resolveLocked(x, n, write, what)
	if err != nil {
		return s, err
	}
	switch {
	case s.a != nil:
		if !s.a.take() {
			return span{}, errFreeing(what, x.Dev, s.a)
		}
	case s.pin != nil:
		if !s.pin.take() {
			return span{}, errUnregistering(what, x.Pin)
		}
	}
	return s, nil
}

// errUnregistering is the error for a pin being unregistered.
func errUnregistering(what string, h acl.HostPin) error {
	return acl.Errorf(acl.ErrRTInvalidHandle, "%s: pin %d is being unregistered", what, h)
}

// take takes a reference on a, unless a Free has begun: Free runs under
// Backend.mu shared, so it may set dying between an operation's lookup
// and its reference. Taking first and looking again closes that gap: a
// Free that saw no reference set dying before this look.
func (a *alloc) take() bool {
	a.refs.acquire()
	if a.dying.Load() {
		a.refs.release()
		return false
	}
	return true
}

// errFreeing is the error for an address in an allocation being freed.
func errFreeing(what string, p acl.DevPtr, a *alloc) error {
	return acl.Errorf(acl.ErrRTParamInvalid, "%s %#x is in the allocation at %#x, which is being freed", what, p, a.base)
}

// checkBuf rejects a Buf that names both device and host memory.
func checkBuf(x acl.Buf, what string) error {
	if x.Dev != 0 && x.Host != nil {
		return acl.Errorf(acl.ErrRTParamInvalid, "%s names both device address %#x and host memory", what, x.Dev)
	}
	return nil
}

func checkBufs(dst, src acl.Buf) error {
	if err := checkBuf(dst, "dst"); err != nil {
		return err
	}
	return checkBuf(src, "src")
}

// resolveLocked is spanLocked without the reference.
func (b *Backend) resolveLocked(x acl.Buf, n uint64, write bool, what string) (span, error) {
	// The common cases first: a range inside one live allocation, and
	// pageable host bytes. Anything else, errors included, takes
	// resolveAny.
	if x.Host == nil {
		if a := b.allocs.get(uint64(x.Dev) >> b.shift); a != nil {
			// id 0 is never handed out, so a is nil for a NULL x.Dev.
			if off := uint64(x.Dev) & b.mask; !a.dying.Load() && off < a.size && n <= a.size-off {
				return span{a: a, off: off}, nil
			}
		}
	} else if x.Dev == 0 && x.Pin == 0 && uint64(len(x.Host)) >= n {
		return span{host: x.Host}, nil
	}
	return b.resolveAny(x, n, write, what)
}

// resolveAny is resolveLocked for every Buf, with the errors.
func (b *Backend) resolveAny(x acl.Buf, n uint64, write bool, what string) (span, error) {
	if err := checkBuf(x, what); err != nil {
		return span{}, err
	}
	switch {
	case x.Dev != 0:
		a, off, err := b.allocLocked(x.Dev, n, what)
		if err != nil {
			return span{}, err
		}
		return span{a: a, off: off}, nil
	case x.Host == nil:
		return span{}, acl.Errorf(acl.ErrInvalidParam, "%s is NULL", what)
	case uint64(len(x.Host)) < n:
		return span{}, acl.Errorf(acl.ErrRTParamInvalid, "%s: the host buffer has %d bytes, the operation touches %d", what, len(x.Host), n)
	case x.Pin == 0:
		return span{host: x.Host}, nil
	}
	p := b.pins.get(uint64(x.Pin))
	switch {
	case p == nil:
		return span{}, acl.Errorf(acl.ErrRTInvalidHandle, "%s: pin %d is not a registered host range", what, x.Pin)
	case p.dying.Load():
		return span{}, errUnregistering(what, x.Pin)
	case !p.contains(x.Host[:n]):
		return span{}, acl.Errorf(acl.ErrRTParamInvalid, "%s: the %d host bytes are not inside the range registered as pin %d", what, n, x.Pin)
	case write && p.readonly:
		return span{}, acl.Errorf(acl.ErrRTParamInvalid, "%s: pin %d is registered read-only and cannot be written", what, x.Pin)
	}
	return span{host: x.Host, pin: p}, nil
}

// pair resolves the two sides of a copy that touches dn bytes of dst and
// sn of src. A copy between two devices needs peer access (see
// EnablePeerAccess).
func (b *Backend) pair(dst, src acl.Buf, dn, sn uint64) (d, s span, err error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return d, s, errClosed()
	}
	if d, err = b.spanLocked(dst, dn, true, "dst"); err != nil {
		return d, s, err
	}
	if s, err = b.spanLocked(src, sn, false, "src"); err != nil {
		d.release()
		return span{}, s, err
	}
	if err := b.peerLocked(d, s); err != nil {
		d.release()
		s.release()
		return span{}, span{}, err
	}
	return d, s, nil
}

// peerLocked checks that a copy from s to d may cross devices.
func (b *Backend) peerLocked(d, s span) error {
	if d.dev() && s.dev() && !b.peerOKLocked(d.a.dev, s.a.dev) {
		return acl.Errorf(acl.ErrRTParamInvalid, "a copy from device %d to device %d needs peer access between them on %s: call EnablePeerAccess first", s.a.dev.id, d.a.dev.id, b.chip)
	}
	return nil
}

// lock2 takes the data locks of a copy's destination (w) and source (r)
// allocations, either of which may be nil, in id order.
func lock2(w, r *alloc) {
	switch {
	case w == nil && r == nil:
	case w == nil:
		r.mu.Lock()
	case r == nil || r == w:
		w.mu.Lock()
	case w.id < r.id:
		w.mu.Lock()
		r.mu.Lock()
	default:
		r.mu.Lock()
		w.mu.Lock()
	}
}

func unlock2(w, r *alloc) {
	switch {
	case w == nil && r == nil:
	case w == nil:
		r.mu.Unlock()
	case r == nil || r == w:
		w.mu.Unlock()
	default:
		w.mu.Unlock()
		r.mu.Unlock()
	}
}
