package host

import (
	"crypto/hmac"
	"crypto/sha256"

	"github.com/aclwasm/aclwasm/acl"
)

// A descriptor, as the sandbox writes it into device memory:
//
//	magic "ACLWDSC1" | src u64 | dst u64 | count u64 | HMAC-SHA256[:32]
//
// src and dst are sandbox addresses. The MAC, keyed per session, makes a
// tampered or forged descriptor fail when it executes; nothing binds it to
// where it lies, so copying its bytes elsewhere makes a working descriptor
// there (ABI section 7). It is re-validated when the copy executes, in
// stream order, against the allocations live at that moment.
const (
	descSize  = 64
	descMagic = "ACLWDSC1"
)

func (s *Session) descMAC(body []byte) []byte {
	m := hmac.New(sha256.New, s.descKey[:])
	m.Write(body)
	return m.Sum(nil)
}

// getMemcpyDescSize is aclrtGetMemcpyDescSize(kind, descSize).
func getMemcpyDescSize(c *call) error {
	out, err := c.out(1, 8)
	if err != nil {
		return err
	}
	if err := acl.CheckDescKind(c.kind(0)); err != nil {
		return err
	}
	le.PutUint64(out, descSize)
	return nil
}

// setMemcpyDesc is aclrtSetMemcpyDesc(desc, kind, srcAddr, dstAddr, count, config).
func setMemcpyDesc(c *call) error {
	desc, src, dst, n := c.u64(0), c.u64(2), c.u64(3), c.u64(4)
	if err := acl.CheckSetMemcpyDesc(desc, c.kind(1), src, dst, n, uint64(c.u32(5))); err != nil {
		return err
	}
	if err := c.needDevice(); err != nil {
		return err
	}
	ds, err := c.s.resolveDevice("desc", desc, descSize)
	if err != nil {
		return err
	}
	if _, _, err := c.s.innerCopy(src, dst, n); err != nil {
		return err
	}
	if err := c.budget(n); err != nil { // checked here: the copy reads n from the descriptor
		return err
	}
	b := make([]byte, descSize)
	copy(b, descMagic)
	le.PutUint64(b[8:], src)
	le.PutUint64(b[16:], dst)
	le.PutUint64(b[24:], n)
	copy(b[32:], c.s.descMAC(b[:32]))
	return be(c.s.b.Memcpy(c.ctx, ds.buf, acl.Host(b, 0), descSize))
}

// memcpyAsyncWithDesc is aclrtMemcpyAsyncWithDesc(desc, kind, stream).
func memcpyAsyncWithDesc(c *call) error {
	desc, h := c.u64(0), c.u32(2)
	if err := acl.CheckMemcpyAsyncWithDesc(desc, c.kind(1), uint64(h)); err != nil {
		return err
	}
	if err := c.needDevice(); err != nil {
		return err
	}
	ds, err := c.s.resolveDevice("desc", desc, descSize)
	if err != nil {
		return err
	}
	st, err := c.stream(h)
	if err != nil {
		return err
	}
	return c.launch(st, func(s *Session, fi int) error { return s.runDesc(fi, desc) }, ds.a)
}

// launch queues run on st as a host function, holding the allocations it
// reads its addresses from until it has run, so that aclrtFree waits.
func (c *call) launch(st *streamRec, run func(s *Session, fi int) error, holds ...*alloc) error {
	if err := c.enqueue(st); err != nil {
		return err
	}
	s, fi := c.s, c.fi
	for _, a := range holds {
		a.queued.add()
	}
	err := s.b.LaunchHostFunc(st.h, func() error {
		defer func() {
			for _, a := range holds {
				a.queued.done()
			}
		}()
		if err := run(s, fi); err != nil {
			return &fault{err}
		}
		return nil
	})
	if err != nil {
		for _, a := range holds {
			a.queued.done()
		}
	}
	return be(err)
}

// runDesc executes a descriptor copy on a stream worker.
func (s *Session) runDesc(fi int, desc uint64) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	ds, err := s.resolveDevice("desc", desc, descSize)
	if err != nil {
		return err
	}
	b := make([]byte, descSize)
	if err := s.b.Memcpy(s.halt, acl.Host(b, 0), ds.buf, descSize); err != nil {
		return be(err)
	}
	if string(b[:8]) != descMagic || !hmac.Equal(b[32:], s.descMAC(b[:32])) {
		return acl.Errorf(acl.ErrRTParamInvalid, "descriptor at %#x is not valid: never set, or tampered with", desc)
	}
	src, dst, n := le.Uint64(b[8:]), le.Uint64(b[16:]), le.Uint64(b[24:])
	return s.runInner(fi, src, dst, n)
}

// runInner validates and runs a device-to-device copy on a stream worker,
// counting its bytes for the function that queued it.
func (s *Session) runInner(fi int, src, dst, n uint64) error {
	d, sp, err := s.innerCopy(src, dst, n)
	if err != nil {
		return err
	}
	if err := s.b.Memcpy(s.halt, d.buf, sp.buf, n); err != nil {
		return be(err)
	}
	s.countBytes(fi, acl.DeviceToDevice, n)
	return nil
}

// memcpyAsyncWithOffset is aclrtMemcpyAsyncWithOffset(dst, destMax,
// dstDataOffset, src, count, srcDataOffset, kind, stream): dst and src are
// device slots holding base addresses, read when the copy executes.
func memcpyAsyncWithOffset(c *call) error {
	dst, destMax, dstOff, src, n, srcOff := c.u64(0), c.u64(1), c.u64(2), c.u64(3), c.u64(4), c.u64(5)
	done, err := acl.CheckMemcpyOffset(dst, destMax, dstOff, src, n, srcOff, c.kind(6))
	if done || err != nil {
		return err
	}
	if err := c.needDevice(); err != nil {
		return err
	}
	ds, err := c.s.resolveDevice("dst", dst, 8)
	if err != nil {
		return err
	}
	ss, err := c.s.resolveDevice("src", src, 8)
	if err != nil {
		return err
	}
	st, err := c.stream(c.u32(7))
	if err != nil {
		return err
	}
	if err := c.budget(n); err != nil {
		return err
	}
	return c.launch(st, func(s *Session, fi int) error { return s.runOffset(fi, dst, dstOff, src, srcOff, n) }, ds.a, ss.a)
}

// runOffset executes an offset copy on a stream worker.
func (s *Session) runOffset(fi int, dstSlot, dstOff, srcSlot, srcOff, n uint64) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var slots [2]uint64
	for i, slot := range [2]uint64{dstSlot, srcSlot} {
		sp, err := s.resolveDevice([2]string{"dst", "src"}[i], slot, 8)
		if err != nil {
			return err
		}
		var b [8]byte
		if err := s.b.Memcpy(s.halt, acl.Host(b[:], 0), sp.buf, 8); err != nil {
			return be(err)
		}
		slots[i] = le.Uint64(b[:])
	}
	dst, src := slots[0]+dstOff, slots[1]+srcOff
	if dst < slots[0] || src < slots[1] {
		return acl.Errorf(acl.ErrRTParamInvalid, "base address plus offset overflows")
	}
	return s.runInner(fi, src, dst, n)
}

// innerCopy validates a device-to-device copy within one device of this
// session, as descriptor and offset copies require.
func (s *Session) innerCopy(src, dst, n uint64) (d, sp span, err error) {
	if d, err = s.resolveDevice("dstAddr", dst, n); err != nil {
		return
	}
	if sp, err = s.resolveDevice("srcAddr", src, n); err != nil {
		return
	}
	if d.a.dev != sp.a.dev {
		err = acl.Errorf(acl.ErrRTParamInvalid, "srcAddr is on device %d and dstAddr on device %d: this copy stays within one device", sp.a.dev, d.a.dev)
	}
	return
}
