package host

import "github.com/aclwasm/aclwasm/acl"

// memsetSync is aclrtMemset(devPtr, maxCount, value, count): only the low
// byte of value is used.
func memsetSync(c *call) error {
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
func memsetAsync(c *call) error {
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

// memsetD32Sync is aclrtMemsetD32(ptr, memSize, value, count): count
// 32-bit words, little-endian. Guest memory, registered or not, is set by
// the host; device memory by the backend (acl.MemsetD32er).
func memsetD32Sync(c *call) error {
	ptr := c.u64(0)
	n, err := acl.CheckMemsetD32Args(ptr, c.u64(1), c.u64(3)) // null, count0, align, memSize
	if err != nil {
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
	m, ok := c.s.b.(acl.MemsetD32er) // feature
	if !ok {
		return noD32(c)
	}
	if err := be(m.MemsetD32(c.ctx, d.buf, c.u32(2), n/4)); err != nil {
		return err
	}
	c.set(nil, n)
	return nil
}

// memsetD32Async is aclrtMemsetD32Async(ptr, memSize, value, count,
// stream), ordered as aclrtMemsetAsync.
func memsetD32Async(c *call) error {
	ptr := c.u64(0)
	n, err := acl.CheckMemsetD32Args(ptr, c.u64(1), c.u64(3)) // null, count0, align, memSize
	if err != nil {
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
	m, ok := c.s.b.(acl.MemsetD32er) // feature
	if !ok {
		return noD32(c)
	}
	if err := c.enqueue(st); err != nil { // queue
		return err
	}
	if err := be(m.MemsetD32Async(c.ctx, d.buf, c.u32(2), n/4, st.h)); err != nil {
		return err
	}
	c.set(st, n)
	return nil
}

func noD32(c *call) error {
	return acl.Errorf(acl.ErrRTFeatureNotSupport, "the %s backend cannot set 32-bit words in device memory", c.s.b.Name())
}
