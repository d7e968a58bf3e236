//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"context"
	"runtime"
	"sort"
	"unsafe"

	"github.com/aclwasm/aclwasm/acl"
)

// pageSize is the alignment aclrtHostRegister requires of its address.
const pageSize = 4096

// alloc is a live device allocation. refs counts operations that are using
// it right now (between resolving an address in it and their native call's
// return); dying is set by Free, after which no new operation may use it.
// Both are guarded by Backend.mu.
type alloc struct {
	base, size uint64 // size is what the caller asked for
	dev        int32
	refs       int
	dying      bool
}

// pin is a registered host range. It is backed by a native registration,
// a region, or by none (native false): then asynchronous operations on it
// fall back to synchronous copies. refs and dying work as for alloc.
type pin struct {
	base, size uintptr // the exact range the caller registered
	region     *region
	native     bool
	typ        acl.HostRegisterType
	mem        []byte         // keeps Go memory alive while registered
	pinner     runtime.Pinner // keeps Go memory in place while registered; a no-op for other memory
	refs       int
	dying      bool
}

// region is one native registration. aclrtHostRegister wants a
// page-aligned address, so a region covers the whole pages of the range
// that created it, [lo, hi); later ranges of the same type whose pages lie
// inside it share it instead of registering again (the runtime refuses
// overlapping registrations). A range whose pages partly overlap a region
// cannot be registered natively at all. Backend.regions changes with both
// Backend.regMu and Backend.mu held, so either is enough to read it.
type region struct {
	lo, hi uintptr
	typ    acl.HostRegisterType
	dev    int32 // the device whose context registered it, and unregisters it
	users  int
}

// side is one resolved side of an operation: a native address and what
// backs it.
type side struct {
	addr   uintptr
	isDev  bool
	dev    int32  // the device of device memory
	host   []byte // exactly the bytes the operation touches, for host memory
	a      *alloc
	p      *pin
	pinned bool // device memory or natively registered host memory: asynchronous calls may use it
	// inRegion reports host memory inside a native registration, which the
	// runtime sees as registered whatever the Buf says (registrations cover
	// whole pages).
	inRegion bool
}

// loc returns the aclrtMemLocation of s, as a batch attribute declares it.
func (s side) loc() acl.MemLocation {
	switch {
	case s.isDev:
		return acl.MemLocation{ID: uint32(s.dev), Type: acl.MemLocationDevice}
	case s.pinned || s.inRegion:
		return acl.MemLocation{Type: acl.MemLocationHost}
	}
	return acl.MemLocation{Type: acl.MemLocationUnregistered}
}

// req asks to resolve buf for an operation touching n bytes of it.
type req struct {
	buf   acl.Buf
	n     uint64
	write bool
}

// findAlloc returns the live allocation containing addr, or nil. Called
// with b.mu held.
func (b *Backend) findAlloc(addr uint64) *alloc {
	i := sort.Search(len(b.allocs), func(i int) bool { return b.allocs[i].base > addr }) - 1
	if i >= 0 && addr-b.allocs[i].base < b.allocs[i].size {
		return b.allocs[i]
	}
	return nil
}

// resolveLocked checks one request and takes a reference on what backs it.
// Device ranges must lie inside one live allocation; host slices must hold
// the bytes touched; a pinned host slice must lie inside its registered
// range, which must not be read-only when written. Called with b.mu held.
func (b *Backend) resolveLocked(r req) (side, error) {
	buf := r.buf
	if buf.Dev != 0 {
		if buf.Host != nil {
			return side{}, acl.Errorf(acl.ErrRTParamInvalid, "a buffer names both device and host memory")
		}
		a := b.findAlloc(uint64(buf.Dev))
		if a == nil || a.dying {
			return side{}, acl.Errorf(acl.ErrRTParamInvalid, "device address is not inside a live allocation of this backend")
		}
		if off := uint64(buf.Dev) - a.base; r.n > a.size-off {
			return side{}, acl.Errorf(acl.ErrRTParamInvalid, "%d bytes at offset %d exceed the allocation of %d bytes", r.n, off, a.size)
		}
		a.refs++
		return side{addr: uintptr(buf.Dev), isDev: true, dev: a.dev, a: a, pinned: true}, nil
	}
	if uint64(len(buf.Host)) < r.n || r.n == 0 {
		return side{}, acl.Errorf(acl.ErrRTParamInvalid, "the host buffer of %d bytes does not hold the %d bytes the operation touches", len(buf.Host), r.n)
	}
	h := buf.Host[:r.n]
	s := side{addr: uintptr(unsafe.Pointer(&h[0])), host: h}
	for _, rg := range b.regions {
		s.inRegion = s.inRegion || (rg.lo <= s.addr && s.addr < rg.hi)
	}
	if buf.Pin == 0 {
		return s, nil
	}
	p := b.pins[buf.Pin]
	if p == nil || p.dying {
		return side{}, acl.Errorf(acl.ErrHostMemoryNotRegistered, "host pin %d is not registered", buf.Pin)
	}
	if off := s.addr - p.base; s.addr < p.base || off > p.size || uintptr(r.n) > p.size-off {
		return side{}, acl.Errorf(acl.ErrRTParamInvalid, "the host range is not inside registered range %d", buf.Pin)
	}
	if r.write && p.typ == acl.HostRegisterReadOnly {
		return side{}, acl.Errorf(acl.ErrRTParamInvalid, "registered range %d is read-only", buf.Pin)
	}
	p.refs++
	s.p, s.pinned = p, p.native
	return s, nil
}

// releaseLocked drops the references sides hold. Called with b.mu held.
func (b *Backend) releaseLocked(sides []side) {
	wake := false
	for _, s := range sides {
		if s.a != nil {
			s.a.refs--
			wake = wake || s.a.dying
		}
		if s.p != nil {
			s.p.refs--
			wake = wake || s.p.dying
		}
	}
	if wake {
		b.cond.Broadcast()
	}
}

// resolve resolves the requests of a synchronous operation, taking
// references on what backs them; done(nil, sides) drops them.
func (b *Backend) resolve(reqs ...req) ([]side, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.resolveAllLocked(reqs)
}

// acquire resolves the stream of an asynchronous operation, which must be
// live (0 never is), and the requests, taking references on all of them;
// done drops them.
func (b *Backend) acquire(sh acl.Stream, reqs ...req) (*stream, []side, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s, err := b.streamLocked(sh)
	if err != nil {
		return nil, nil, err
	}
	sides, err := b.resolveAllLocked(reqs)
	if err != nil {
		b.unrefStreamLocked(s)
		return nil, nil, err
	}
	return s, sides, nil
}

// resolveAllLocked resolves every request, or none. Called with b.mu held.
func (b *Backend) resolveAllLocked(reqs []req) ([]side, error) {
	sides := make([]side, 0, len(reqs))
	for _, r := range reqs {
		sd, err := b.resolveLocked(r)
		if err != nil {
			b.releaseLocked(sides)
			return nil, err
		}
		sides = append(sides, sd)
	}
	return sides, nil
}

func (b *Backend) done(s *stream, sides []side) {
	b.mu.Lock()
	b.releaseLocked(sides)
	if s != nil {
		b.unrefStreamLocked(s)
	}
	b.mu.Unlock()
}

// pinHosts pins the Go memory of the host sides for the duration of a
// native call: the runtime gets their addresses as integers, possibly
// inside arrays, so they must not move. It does nothing for memory outside
// the Go heap.
func pinHosts(pn *runtime.Pinner, sides []side) {
	for _, s := range sides {
		if len(s.host) > 0 {
			pn.Pin(&s.host[0])
		}
	}
}

// Malloc implements [acl.Backend] with aclrtMalloc in dev's context.
func (b *Backend) Malloc(dev int32, size uint64, policy acl.MemMallocPolicy) (acl.DevPtr, error) {
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.exit()
	if err := acl.CheckMalloc(size); err != nil {
		return 0, err
	}
	var p uintptr
	if err := b.call(dev, "aclrtMalloc", func() int32 { return b.api.aclrtMalloc(&p, size, uint32(policy)) }); err != nil {
		return 0, err
	}
	if p == 0 {
		return 0, acl.Errorf(acl.ErrRTInternal, "aclrtMalloc returned NULL")
	}
	a := &alloc{base: uint64(p), size: size, dev: dev}
	b.mu.Lock()
	i := sort.Search(len(b.allocs), func(i int) bool { return b.allocs[i].base > a.base })
	b.allocs = append(b.allocs, nil)
	copy(b.allocs[i+1:], b.allocs[i:])
	b.allocs[i] = a
	b.mu.Unlock()
	return acl.DevPtr(p), nil
}

// Free implements [acl.Backend]. It stops new operations on the allocation,
// waits for those in flight, then for every stream whose queued work may
// use it (one being destroyed, until it is), and frees it with aclrtFree.
// If ctx is done first, the allocation stays live and usable.
func (b *Backend) Free(ctx context.Context, p acl.DevPtr) error {
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	b.mu.Lock()
	a := b.findAlloc(uint64(p))
	if a == nil || a.dying || a.base != uint64(p) {
		b.mu.Unlock()
		return acl.Errorf(acl.ErrRTParamInvalid, "address is not the base of a live allocation of this backend")
	}
	a.dying = true
	err := b.waitFor(ctx, func() bool { return a.refs == 0 })
	if err == nil {
		err = b.settleLocked(ctx, func(s *stream) bool { _, ok := s.uses[a]; return ok || s.opaque })
	}
	b.mu.Unlock()
	if err == nil {
		err = b.call(a.dev, "aclrtFree", func() int32 { return b.api.aclrtFree(uintptr(a.base)) })
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil {
		a.dying = false
		return err
	}
	for i, x := range b.allocs {
		if x == a {
			b.allocs = append(b.allocs[:i], b.allocs[i+1:]...)
			break
		}
	}
	return nil
}

// DeviceOf implements [acl.Backend] from the backend's allocation table.
func (b *Backend) DeviceOf(p acl.DevPtr) (int32, error) {
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.exit()
	b.mu.Lock()
	defer b.mu.Unlock()
	if a := b.findAlloc(uint64(p)); a != nil && !a.dying {
		return a.dev, nil
	}
	return 0, acl.Errorf(acl.ErrRTParamInvalid, "address is not inside a live allocation of this backend")
}

// Allocation implements [acl.Backend] from the backend's own table of the
// allocations it made.
func (b *Backend) Allocation(p acl.DevPtr) (acl.DevPtr, uint64, int32, error) {
	if err := b.enter(); err != nil {
		return 0, 0, 0, err
	}
	defer b.exit()
	b.mu.Lock()
	defer b.mu.Unlock()
	if a := b.findAlloc(uint64(p)); a != nil && !a.dying {
		return acl.DevPtr(a.base), a.size, a.dev, nil
	}
	return 0, 0, 0, acl.Errorf(acl.ErrRTParamInvalid, "address is not inside a live allocation of this backend")
}

// HostRegister implements [acl.Backend]: HostRegisterOn for device 0.
func (b *Backend) HostRegister(mem []byte, typ acl.HostRegisterType) (acl.HostPin, error) {
	return b.HostRegisterOn(0, mem, typ)
}

// HostRegisterOn implements [acl.DeviceRegisterer] with aclrtHostRegister,
// in dev's context, as natively a registration is for the current
// context's device, on the pages that contain mem (the runtime wants a
// page-aligned address). HostUnregister undoes it in the same context. mem
// must stay valid until HostUnregister returns; the sandbox passes guest
// linear memory, which it maps outside the Go heap. Go memory works too:
// the backend keeps it alive and pinned until then.
//
// Ranges must not overlap (507910). Ranges of one type and device that
// fall inside the pages an earlier range registered share its
// registration. A range whose pages only partly overlap another
// registration, or overlap one of another device, cannot be registered
// natively; it is registered with the backend only, and asynchronous
// operations on it run synchronously, as for unregistered memory. A library
// without aclrtHostRegister gives 207000.
func (b *Backend) HostRegisterOn(dev int32, mem []byte, typ acl.HostRegisterType) (acl.HostPin, error) {
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.exit()
	if len(mem) == 0 {
		return 0, acl.Errorf(acl.ErrInvalidParam, "size is 0")
	}
	if err := acl.CheckHostRegisterType(typ); err != nil {
		return 0, err
	}
	if b.api.aclrtHostRegister == nil || b.api.aclrtHostUnregister == nil {
		return 0, b.missing("aclrtHostRegister")
	}
	b.regMu.Lock()
	defer b.regMu.Unlock()
	p := &pin{base: uintptr(unsafe.Pointer(&mem[0])), size: uintptr(len(mem)), typ: typ, mem: mem}
	lo := p.base &^ (pageSize - 1)
	hi := (p.base + p.size + pageSize - 1) &^ (pageSize - 1)
	b.mu.Lock()
	for h, q := range b.pins {
		if p.base < q.base+q.size && q.base < p.base+p.size {
			b.mu.Unlock()
			return 0, acl.Errorf(acl.ErrHostMemoryAlreadyRegistered, "the range overlaps registered range %d", h)
		}
	}
	b.mu.Unlock()
	var share *region
	overlap := false
	for _, r := range b.regions {
		if lo < r.hi && r.lo < hi {
			overlap = true
			if r.lo <= lo && hi <= r.hi && r.typ == typ && r.dev == dev {
				share = r
			}
		}
	}
	p.pinner.Pin(&mem[0])
	switch {
	case share != nil:
		share.users++
		p.region, p.native = share, true
	case !overlap:
		var devPtr uintptr
		err := b.call(dev, "aclrtHostRegister", func() int32 {
			return b.api.aclrtHostRegister(lo, uint64(hi-lo), uint32(typ), &devPtr)
		})
		if err != nil {
			p.pinner.Unpin()
			return 0, err
		}
		p.region = &region{lo: lo, hi: hi, typ: typ, dev: dev, users: 1}
		p.native = true
		b.mu.Lock()
		b.regions = append(b.regions, p.region)
		b.mu.Unlock()
	}
	h := acl.HostPin(b.nextH.Add(1))
	b.mu.Lock()
	b.pins[h] = p
	b.mu.Unlock()
	return h, nil
}

// HostUnregister implements [acl.Backend]. It stops new operations on the
// range, waits for those in flight and for every stream whose queued work
// uses it (one being destroyed, until it is), then calls
// aclrtHostUnregister. If ctx is done first, the range stays registered.
func (b *Backend) HostUnregister(ctx context.Context, h acl.HostPin) error {
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	b.mu.Lock()
	p := b.pins[h]
	if p == nil || p.dying {
		b.mu.Unlock()
		return acl.Errorf(acl.ErrHostMemoryNotRegistered, "host pin %d is not registered", h)
	}
	p.dying = true
	err := b.waitFor(ctx, func() bool { return p.refs == 0 })
	if err == nil {
		err = b.settleLocked(ctx, func(s *stream) bool { _, ok := s.pinUses[p]; return ok })
	}
	b.mu.Unlock()
	if err == nil {
		err = b.unregister(p)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil {
		p.dying = false // still registered, and pinned
		return err
	}
	p.unpin()
	delete(b.pins, h)
	return nil
}

// unregister drops p's share of its native registration, undoing the
// registration with its last user. p's memory stays pinned until unpin.
func (b *Backend) unregister(p *pin) error {
	b.regMu.Lock()
	defer b.regMu.Unlock()
	if r := p.region; r != nil {
		if r.users == 1 {
			if err := b.call(r.dev, "aclrtHostUnregister", func() int32 { return b.api.aclrtHostUnregister(r.lo) }); err != nil {
				return err
			}
			b.mu.Lock()
			for i, x := range b.regions {
				if x == r {
					b.regions = append(b.regions[:i], b.regions[i+1:]...)
					break
				}
			}
			b.mu.Unlock()
		}
		r.users--
		p.region = nil
	}
	return nil
}

// unpin lets go of p's memory. It must run before p is dropped, whatever
// unregister returned: a runtime.Pinner collected while it still pins
// crashes the process.
func (p *pin) unpin() {
	p.pinner.Unpin()
	p.mem = nil
}
