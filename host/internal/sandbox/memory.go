package sandbox

import (
	"context"

	"github.com/aclwasm/aclwasm/acl"
)

// malloc is aclrtMalloc(devPtr, size, policy).
func malloc(c *Call) error {
	out, err := c.outWord(0)
	if err != nil {
		return err
	}
	size, policy := c.u64(1), acl.MemMallocPolicy(c.u32(2))
	if err := acl.CheckMalloc(size); err != nil { // size, overflow
		return err
	}
	if err := c.needDevice(); err != nil { // context
		return err
	}
	s := c.s
	if n := len(s.as.allocs) - s.lent; n >= s.policy.MaxAllocations {
		return acl.Errorf(acl.ErrRTOverLimit, "the session already holds %d allocations, the policy's limit", n)
	}
	charged := acl.AllocatedSize(size, policy)
	if held := s.held[s.dev]; charged > s.policy.DeviceMemory-held {
		return acl.Errorf(acl.ErrRTMemoryAllocation, "size %d (%d with native rounding) exceeds the free device memory quota: %d of %d bytes in use on device %d", size, charged, held, s.policy.DeviceMemory, s.dev)
	}
	base, ok := s.as.reserve(size)
	switch {
	case !ok && s.as.window:
		return acl.Errorf(acl.ErrRTMemoryAllocation, "size %d does not fit in %s", size, s.as.windowName())
	case !ok:
		return acl.Errorf(acl.ErrRTOverLimit, "size %d: the session has used up its 256 TiB of device addresses (they are never reused)", size)
	}
	ptr, err := s.b.Malloc(s.phys(s.dev), size, policy)
	if err != nil {
		return be(err)
	}
	// Natively, new device memory holds whatever was there: what another
	// session freed must not be readable by this one.
	if !s.sh.zeroed {
		if err := s.b.Memset(c.ctx, acl.Device(ptr), 0, size); err != nil {
			_ = s.b.Free(context.WithoutCancel(c.ctx), ptr)
			return be(err)
		}
	}
	s.mu.Lock()
	a := s.as.record()
	*a = alloc{base: base, size: size, dev: s.dev, ptr: ptr, charged: charged, policy: policy}
	s.as.insert(a)
	s.mu.Unlock()
	s.held[s.dev] += charged
	putWord(out, base)
	return nil
}

// free is aclrtFree(devPtr): only the base of a live allocation of this
// session; it waits for the queued work that uses the allocation.
func free(c *Call) error {
	p := c.u64(0)
	if p == 0 {
		return acl.Errorf(acl.ErrInvalidParam, "devPtr is NULL")
	}
	s := c.s
	a := s.as.find(p)
	switch {
	case a == nil:
		return acl.Errorf(acl.ErrRTParamInvalid, "devPtr %#x is not a live device allocation of this session", p)
	case a.base != p:
		return acl.Errorf(acl.ErrRTParamInvalid, "devPtr %#x is inside the allocation at %#x, not its base", p, a.base)
	case a.lease != nil:
		return acl.Errorf(acl.ErrRTParamInvalid, "devPtr %#x is device memory the host lent: only the host can revoke it", p)
	}
	// Descriptor and offset copies queued with it as their descriptor or
	// slot first; then out of the table, so that those that name it inside
	// a descriptor and execute from now on fail instead of touching it.
	if err := a.queued.wait(c.ctx); err != nil {
		return err
	}
	s.mu.Lock()
	s.as.remove(a)
	s.mu.Unlock()
	s.held[a.dev] -= a.charged
	if err := s.b.Free(c.ctx, a.ptr); err != nil {
		s.zombies = append(s.zombies, a.ptr) // released with the session
		return be(err)
	}
	return nil
}

// hostRegister is aclrtHostRegister(ptr, size, type, devPtr): pins guest
// memory. The check order is ABI section 6's, acl.Order's.
func hostRegister(c *Call) error {
	ptr, size, typ := c.u64(0), c.u64(1), acl.HostRegisterType(c.u32(2))
	switch {
	case ptr == 0:
		return acl.Errorf(acl.ErrInvalidParam, "ptr is NULL")
	case size == 0:
		return acl.Errorf(acl.ErrInvalidParam, "size is 0")
	}
	out, err := c.outWord(3)
	if err != nil {
		return err
	}
	if err := acl.CheckHostRegisterType(typ); err != nil { // type
		return err
	}
	if err := c.needDevice(); err != nil { // context
		return err
	}
	end := ptr + size // range
	if ptr >= c.s.as.guestEnd || end < ptr || end > uint64(len(c.mem)) {
		return acl.Errorf(acl.ErrRTParamInvalid, "[%#x, +%d) is not inside guest memory (%d bytes)", ptr, size, len(c.mem))
	}
	s := c.s
	if p := s.as.pinOverlapping(ptr, end); p != nil {
		return acl.Errorf(acl.ErrHostMemoryAlreadyRegistered, "[%#x, %#x) overlaps the registered range [%#x, %#x)", ptr, end, p.start, p.end)
	}
	if len(s.as.pins) >= s.policy.MaxRegistrations {
		return acl.Errorf(acl.ErrRTOverLimit, "the session already holds %d registrations, the policy's limit", len(s.as.pins))
	}
	if size > s.policy.PinnedMemory-s.pinned {
		return acl.Errorf(acl.ErrRTMemoryAllocation, "size %d exceeds the free pinned memory quota: %d of %d bytes registered", size, s.pinned, s.policy.PinnedMemory)
	}
	var h acl.HostPin
	if dr := s.b.Traits().DeviceRegisterer; dr != nil {
		// Natively the registration is for the current context's device.
		h, err = dr.HostRegisterOn(s.phys(s.dev), c.mem[ptr:end:end], typ)
	} else {
		h, err = s.b.HostRegister(c.mem[ptr:end:end], typ)
	}
	if err != nil {
		return be(err)
	}
	s.mu.Lock()
	s.as.insertPin(&pin{start: ptr, end: end, typ: typ, h: h})
	s.mu.Unlock()
	s.pinned += size
	putWord(out, ptr)
	return nil
}

// hostUnregister is aclrtHostUnregister(ptr): waits for queued work that
// uses the range, then unpins it.
func hostUnregister(c *Call) error {
	ptr := c.u64(0)
	if ptr == 0 { // null
		return acl.Errorf(acl.ErrInvalidParam, "ptr is NULL")
	}
	if err := c.needDevice(); err != nil { // context
		return err
	}
	s := c.s
	p := s.as.pinAt(ptr, ptr+1)
	if p == nil || p.start != ptr { // registered
		return acl.Errorf(acl.ErrHostMemoryNotRegistered, "ptr %#x does not start a registered range", ptr)
	}
	if err := s.b.HostUnregister(c.ctx, p.h); err != nil {
		return be(err)
	}
	s.mu.Lock()
	s.as.removePin(p)
	s.mu.Unlock()
	s.pinned -= p.end - p.start
	return nil
}

// pointerGetAttributes is aclrtPointerGetAttributes(ptr, attributes).
func pointerGetAttributes(c *Call) error {
	out, err := c.out(1, acl.PtrAttributesSize)
	if err != nil {
		return err
	}
	ptr := c.u64(0)
	if ptr == 0 {
		return acl.Errorf(acl.ErrInvalidParam, "ptr is NULL")
	}
	attr := acl.PtrAttributes{PageSize: 4096}
	if ptr < c.s.as.guestEnd {
		if ptr >= uint64(len(c.mem)) {
			return acl.Errorf(acl.ErrRTParamInvalid, "ptr %#x is outside guest memory (%d bytes)", ptr, len(c.mem))
		}
		attr.Location.Type = acl.MemLocationUnregistered
		if c.s.as.pinAt(ptr, ptr+1) != nil {
			attr.Location.Type = acl.MemLocationHost
		}
	} else {
		a := c.s.as.find(ptr)
		if a == nil {
			return acl.Errorf(acl.ErrRTParamInvalid, "ptr %#x is not in guest memory or a live device allocation of this session", ptr)
		}
		attr.Location = acl.MemLocation{ID: uint32(a.dev), Type: acl.MemLocationDevice}
		if huge := a.policy & 0xff; a.size > 1<<20 && huge != acl.MemMallocNormalOnly && huge != acl.MemMallocNormalOnlyP2P {
			attr.PageSize = 2 << 20
		}
	}
	attr.Encode(out)
	return nil
}

// getMemInfo is aclrtGetMemInfo(attr, free, total): the session's own view,
// total = its quota on the current device, free = quota minus what it holds.
func getMemInfo(c *Call) error {
	fo, err := c.outWord(1)
	if err != nil {
		return err
	}
	to, err := c.outWord(2)
	if err != nil {
		return err
	}
	if err := acl.CheckMemAttr(acl.MemAttr(c.i32(0))); err != nil { // attr
		return err
	}
	if err := c.needDevice(); err != nil { // context
		return err
	}
	q := c.s.policy.DeviceMemory
	putWord(fo, q-c.s.held[c.s.dev])
	putWord(to, q)
	return nil
}
