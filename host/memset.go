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
		fill(d.buf.Host, byte(c.u32(2)))
		return nil
	}
	return be(c.s.b.Memset(c.ctx, d.buf, byte(c.u32(2)), n))
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
		fill(d.buf.Host, byte(c.u32(2)))
		return nil
	}
	if err := c.streamCtx(st); err != nil { // streamctx
		return err
	}
	if err := c.enqueue(st); err != nil { // queue
		return err
	}
	return be(c.s.b.MemsetAsync(c.ctx, d.buf, byte(c.u32(2)), n, st.h))
}

// fill sets every byte of b to v.
func fill(b []byte, v byte) {
	if len(b) == 0 {
		return
	}
	b[0] = v
	for i := 1; i < len(b); i *= 2 {
		copy(b[i:], b[:i])
	}
}
