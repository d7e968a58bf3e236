package host

import "github.com/aclwasm/aclwasm/acl"

// prepareMemset checks (devPtr, maxCount, value, count): the native checks,
// then the range, which must be device memory or registered guest memory.
func (c *call) prepareMemset() (span, uint64, bool, error) {
	ptr, maxCount, n := c.u64(0), c.u64(1), c.u64(3)
	done, err := acl.CheckMemset(ptr, maxCount, n)
	if done || err != nil {
		return span{}, 0, done, err
	}
	if err := c.needDevice(); err != nil {
		return span{}, 0, false, err
	}
	d, err := c.resolve("devPtr", ptr, n, true)
	if err != nil {
		return span{}, 0, false, err
	}
	if !d.buf.Pinned() {
		return span{}, 0, false, acl.Errorf(acl.ErrRTParamInvalid, "devPtr [%#x, +%d) is unregistered guest memory: memset takes device memory or a registered range", ptr, n)
	}
	return d, n, false, nil
}

// memsetSync is aclrtMemset: only the low byte of value is used.
func memsetSync(c *call) error {
	d, n, done, err := c.prepareMemset()
	if done || err != nil {
		return err
	}
	if err := c.budget(n); err != nil {
		return err
	}
	return be(c.s.b.Memset(c.ctx, d.buf, byte(c.u32(2)), n))
}

// memsetAsync is aclrtMemsetAsync.
func memsetAsync(c *call) error {
	d, n, done, err := c.prepareMemset()
	if done || err != nil {
		return err
	}
	st, err := c.stream(c.u32(4))
	if err != nil {
		return err
	}
	if err := c.budget(n); err != nil {
		return err
	}
	if err := c.enqueue(st); err != nil {
		return err
	}
	return be(c.s.b.MemsetAsync(c.ctx, d.buf, byte(c.u32(2)), n, st.h))
}
