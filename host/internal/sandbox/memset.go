package sandbox

import "github.com/aclwasm/aclwasm/acl"

// memsetSync is aclrtMemset(devPtr, maxCount, value, count): only the low
// byte of value is used.
func memsetSync(c *Call) error {
	ptr, maxCount, n := c.u64(0), c.u64(1), c.u64(3)
	if done, err := acl.CheckMemsetArgs(ptr, n); done || err != nil { // count0, null
		return err
	}
	if err := c.needDevice(); err != nil { // context
		return err
	}
	if err := acl.CheckMaxCount(maxCount, n); err != nil { // maxCount
		return err
	}
	d, err := c.resolve("devPtr", ptr, n, true) // range
	if err != nil {
		return err
	}
	if err := c.budget(n); err != nil { // bytes
		return err
	}
	if !d.buf.IsDevice() { // host
		acl.Fill(d.buf.Host, byte(c.u32(2)))
		c.set(nil, n)
		return nil
	}
	if err := be(c.s.b.Memset(c.ctx, d.buf, byte(c.u32(2)), n)); err != nil {
		return err
	}
	c.set(nil, n)
	return nil
}

// memsetAsync is aclrtMemsetAsync(devPtr, maxCount, value, count, stream).
// Guest memory, registered or not, is set before it returns, as the native
// runtime sets host memory; device memory is set in stream order.
func memsetAsync(c *Call) error {
	ptr, maxCount, n := c.u64(0), c.u64(1), c.u64(3)
	if done, err := acl.CheckMemsetArgs(ptr, n); done || err != nil { // count0, null
		return err
	}
	st, err := c.streamHandle(c.u32(4)) // stream
	if err != nil {
		return err
	}
	if err := acl.CheckMaxCount(maxCount, n); err != nil { // maxCount
		return err
	}
	if st, err = c.bindStream(st); err != nil { // context
		return err
	}
	d, err := c.resolve("devPtr", ptr, n, true) // range
	if err != nil {
		return err
	}
	if err := c.budget(n); err != nil { // bytes
		return err
	}
	if !d.buf.IsDevice() { // host
		acl.Fill(d.buf.Host, byte(c.u32(2)))
		c.set(nil, n)
		return nil
	}
	if err := c.streamCtx(st); err != nil { // streamctx
		return err
	}
	if err := c.enqueue(st); err != nil { // queue
		return err
	}
	if err := be(c.s.b.MemsetAsync(c.ctx, d.buf, byte(c.u32(2)), n, st.h)); err != nil {
		return err
	}
	c.set(st, n)
	return nil
}

// d32Memory is the pointer-attribute query that the ACL layer of
// aclrtMemsetD32[Async] makes before calling the runtime (memory.cpp:805-814,
// async 859-868): only memory from aclrtMalloc or aclrtMallocHost (here:
// registered guest memory) is taken, unregistered guest memory gives
// 100000, and an address the query fails on its code (107000). The query
// needs no context, so it comes before the stream and the current device.
func (c *Call) d32Memory(ptr uint64) error {
	as := &c.s.as
	if ptr < as.guestEnd {
		if ptr >= uint64(len(c.mem)) {
			return acl.Errorf(acl.ErrRTParamInvalid, "ptr %#x is outside guest memory (%d bytes)", ptr, len(c.mem))
		}
		if as.pinAt(ptr, ptr+1) == nil {
			return acl.Errorf(acl.ErrInvalidParam, "ptr %#x is guest memory that is not registered: only memory from aclrtMalloc or aclrtMallocHost (aclrtHostRegister) can be set", ptr)
		}
		return nil
	}
	if as.find(ptr) == nil {
		return acl.Errorf(acl.ErrRTParamInvalid, "ptr %#x is not in guest memory or a live device allocation of this session", ptr)
	}
	return nil
}

// memsetD32Sync is aclrtMemsetD32(ptr, memSize, value, count): count
// 32-bit words, little-endian. Registered guest memory is set by the host;
// device memory by the backend (acl.Backend.MemsetD32).
func memsetD32Sync(c *Call) error {
	ptr := c.u64(0)
	n, err := acl.CheckMemsetD32Args(ptr, c.u64(1), c.u64(3)) // count0, null, align, memSize
	if err != nil || n == 0 {
		return err
	}
	if err := c.d32Memory(ptr); err != nil { // unregistered, attr
		return err
	}
	if err := c.needDevice(); err != nil { // context
		return err
	}
	d, err := c.resolve("ptr", ptr, n, true) // range
	if err != nil {
		return err
	}
	if err := c.budget(n); err != nil { // bytes
		return err
	}
	if !d.buf.IsDevice() { // host
		acl.Fill32(d.buf.Host, c.u32(2))
		c.set(nil, n)
		return nil
	}
	if !c.s.b.Supports("aclrtMemsetD32") { // feature
		return noD32(c)
	}
	if err := be(c.s.b.MemsetD32(c.ctx, d.buf, c.u32(2), n/4)); err != nil {
		return err
	}
	c.set(nil, n)
	return nil
}

// memsetD32Async is aclrtMemsetD32Async(ptr, memSize, value, count,
// stream), ordered as aclrtMemsetAsync.
func memsetD32Async(c *Call) error {
	ptr := c.u64(0)
	n, err := acl.CheckMemsetD32Args(ptr, c.u64(1), c.u64(3)) // count0, null, align, memSize
	if err != nil || n == 0 {
		return err
	}
	if err := c.d32Memory(ptr); err != nil { // unregistered, attr
		return err
	}
	st, err := c.streamHandle(c.u32(4)) // stream
	if err != nil {
		return err
	}
	if st, err = c.bindStream(st); err != nil { // context
		return err
	}
	d, err := c.resolve("ptr", ptr, n, true) // range
	if err != nil {
		return err
	}
	if err := c.budget(n); err != nil { // bytes
		return err
	}
	if !d.buf.IsDevice() { // host
		acl.Fill32(d.buf.Host, c.u32(2))
		c.set(nil, n)
		return nil
	}
	if err := c.streamCtx(st); err != nil { // streamctx
		return err
	}
	if !c.s.b.Supports("aclrtMemsetD32Async") { // feature
		return noD32(c)
	}
	if err := c.enqueue(st); err != nil { // queue
		return err
	}
	if err := be(c.s.b.MemsetD32Async(c.ctx, d.buf, c.u32(2), n/4, st.h)); err != nil {
		return err
	}
	c.set(st, n)
	return nil
}

func noD32(c *Call) error {
	return acl.Errorf(acl.ErrRTFeatureNotSupport, "the %s backend cannot set 32-bit words in device memory", c.s.b.Name())
}
