package sandbox

import (
	"fmt"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// The configured streams and stream getters of ABI v1.3 section 15. The
// sandbox answers the getters from what it keeps of each stream: natively
// a stream id numbers the device's streams, every process's and session's.

// createStreamV2 is aclrtCreateStreamV2(stream, handle): the handle's
// priority and flag as aclrtCreateStreamWithConfig takes them; NULL is
// priority 0 and no flag. The work area is for model execution, which the
// sandbox does not have: the trace says it is unused.
func createStreamV2(c *Call) error {
	if _, err := c.out(0, 4); err != nil { // null
		return err
	}
	var cfg acl.StreamConfig
	if p := c.u32(1); p != 0 {
		ptr := int(c.s.prof.Width(abi.Addr))
		b, err := c.guest("handle", p, uint64(acl.StreamConfigSize(ptr))) // handle
		if err != nil {
			return err
		}
		cfg = acl.StreamConfigOf(b, ptr)
	}
	flags := acl.StreamFlag(uint32(cfg.Flag)).Known()
	if err := acl.CheckStreamFlags(flags); err != nil { // flags
		return err
	}
	if cfg.WorkPtr != 0 || cfg.WorkSize != 0 {
		c.note = fmt.Sprintf("work area %#x (%d bytes) unused: no model runs in the sandbox", cfg.WorkPtr, cfg.WorkSize)
	}
	return c.createConfigured(cfg.Priority, flags) // context, count
}

// getStream resolves the stream parameter of the getters: the handle,
// then, where ctx (aclrtStreamGetPriority, aclrtStreamGetFlags), a current
// context for any stream, else for NULL only (aclrtStreamGetId).
func (c *Call) getStream(ctx bool) (*streamRec, error) {
	st, err := c.streamHandle(c.u32(0)) // stream
	if err != nil {
		return nil, err
	}
	if ctx || st == nil {
		if err := c.needDevice(); err != nil { // context
			return nil, err
		}
	}
	if st == nil { // the current context's default stream, which has no flag and priority 0
		return &streamRec{ctx: c.s.cur}, nil
	}
	return st, nil
}

// streamGetPriority is aclrtStreamGetPriority(stream, priority).
func streamGetPriority(c *Call) error {
	out, err := c.out(1, 4) // null
	if err != nil {
		return err
	}
	st, err := c.getStream(true) // stream, context
	if err != nil {
		return err
	}
	le.PutUint32(out, st.prio)
	return nil
}

// streamGetFlags is aclrtStreamGetFlags(stream, flags).
func streamGetFlags(c *Call) error {
	out, err := c.out(1, 4) // null
	if err != nil {
		return err
	}
	st, err := c.getStream(true) // stream, context
	if err != nil {
		return err
	}
	le.PutUint32(out, uint32(st.flags))
	return nil
}

// streamGetID is aclrtStreamGetId(stream, streamId): the handle number; a
// default stream's is its context's, from the same numbering.
func streamGetID(c *Call) error {
	out, err := c.out(1, 4) // null
	if err != nil {
		return err
	}
	h := c.u32(0)
	st, err := c.getStream(false) // stream, context
	if err != nil {
		return err
	}
	if h == 0 {
		h = st.ctx.h
	}
	le.PutUint32(out, h)
	return nil
}
