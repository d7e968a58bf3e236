package sandbox

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"sync/atomic"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// A descriptor, as the sandbox writes it into device memory, fills the
// native size of Atlas A2 (32 bytes):
//
//	src u48 | dst u48 | count-1 u32 | HMAC-SHA256[:16]
//
// src and dst are offsets of sandbox addresses in the session's device
// address region (below 2^48, see addrSpace); count is 1..4 GiB. The MAC,
// keyed per session, makes a tampered or forged descriptor fail when it
// executes (a forgery succeeds with probability 2^-128); nothing binds it
// to where it lies, so copying its bytes elsewhere makes a working
// descriptor there (ABI section 7). It is re-validated when the copy
// executes, in stream order, against the allocations live at that moment.
const (
	DescSize = acl.DescSizeA2
	descBody = 16 // bytes the MAC covers
)

// descKey is a session's key of its descriptor MACs: 256 random bits,
// drawn at the session's first descriptor (made or checked), not when the
// session is made. Few sessions use descriptors, and serve makes a
// session per request; the key is the same fresh, secret, per-session
// key either way, so a forgery still succeeds with probability 2^-128
// and a descriptor of one session fails in another. A pointer, not the
// key in place: the session stays within its allocation's size class.
type descKey struct{ p atomic.Pointer[[32]byte] }

// key returns the key, drawing it first if needed: a descriptor is
// checked where its copy executes, on the stream's goroutine, so two
// goroutines may draw one at once, and the first stored wins.
func (d *descKey) key() []byte {
	if k := d.p.Load(); k != nil {
		return k[:]
	}
	k := new([32]byte)
	_, _ = rand.Read(k[:])
	if !d.p.CompareAndSwap(nil, k) {
		k = d.p.Load()
	}
	return k[:]
}

func (s *Session) descMAC(body []byte) []byte {
	m := hmac.New(sha256.New, s.descKey.key())
	m.Write(body)
	return m.Sum(nil)[:DescSize-descBody]
}

// encodeDesc writes the descriptor of a copy of n bytes (1..4 GiB) from
// src to dst, both device addresses of this session.
func (s *Session) encodeDesc(src, dst, n uint64) []byte {
	b := make([]byte, DescSize)
	base := s.as.regionBase()
	put48(b[0:], src-base)
	put48(b[6:], dst-base)
	le.PutUint32(b[12:], uint32(n-1))
	copy(b[descBody:], s.descMAC(b[:descBody]))
	return b
}

// decodeDesc checks a descriptor's MAC and returns what it describes.
func (s *Session) decodeDesc(b []byte) (src, dst, n uint64, ok bool) {
	if !hmac.Equal(b[descBody:DescSize], s.descMAC(b[:descBody])) {
		return 0, 0, 0, false
	}
	base := s.as.regionBase()
	return base + get48(b[0:]), base + get48(b[6:]), uint64(le.Uint32(b[12:])) + 1, true
}

func put48(b []byte, v uint64) {
	le.PutUint32(b, uint32(v))
	le.PutUint16(b[4:], uint16(v>>32))
}

func get48(b []byte) uint64 { return uint64(le.Uint32(b)) | uint64(le.Uint16(b[4:]))<<32 }

// DescSize reports the chip's descriptor size, as the backend knows it
// (Atlas A2 and A3: 32 bytes, Ascend 950: 64); the sandbox's encoding fills
// the first 32. A backend that does not know (or a native library without
// descriptors: the sandbox implements them itself) gives Atlas A2's.
func (c *Call) DescSize() uint64 {
	if n, err := c.s.b.MemcpyDescSize(acl.MemcpyInnerDeviceToDevice); err == nil && n > DescSize {
		return n
	}
	return DescSize
}

// getMemcpyDescSize is aclrtGetMemcpyDescSize(kind, DescSize).
func getMemcpyDescSize(c *Call) error {
	out, err := c.outWord(1) // null
	if err != nil {
		return err
	}
	if err := acl.CheckDescKindRange(c.kind(0)); err != nil { // kind
		return err
	}
	if err := acl.CheckDescKindFeature(c.kind(0)); err != nil { // feature
		return err
	}
	putWord(out, c.DescSize()) // size
	return nil
}

// setMemcpyDesc is aclrtSetMemcpyDesc(desc, kind, srcAddr, dstAddr, count, config).
func setMemcpyDesc(c *Call) error {
	desc, kind, src, dst, n := c.u64(0), c.kind(1), c.u64(2), c.u64(3), c.u64(4)
	if err := acl.CheckSetMemcpyDesc(desc, kind, src, dst, n, uint64(c.u32(5))); err != nil { // null, kind
		return err
	}
	if err := acl.CheckDescKindFeature(kind); err != nil { // feature
		return acl.Unrecorded(err) // a 207000 from below the entry point
	}
	if err := acl.CheckDescCount(n); err != nil { // count
		return err
	}
	if err := acl.CheckDescAlign(desc); err != nil { // align
		return err
	}
	ds, err := c.s.resolveDevice("desc", desc, DescSize) // desc
	if err == nil {
		err = ds.writable("desc", desc, DescSize)
	}
	if err != nil {
		return err
	}
	if _, _, err := c.s.innerCopy(src, dst, n); err != nil { // addrs
		return err
	}
	if err := c.needDevice(); err != nil { // context
		return err
	}
	if err := c.budget(n); err != nil { // bytes: checked here, the copy reads n from the descriptor
		return err
	}
	return be(c.s.b.Memcpy(c.ctx, ds.buf, acl.Host(c.s.encodeDesc(src, dst, n), 0), DescSize))
}

// memcpyAsyncWithDesc is aclrtMemcpyAsyncWithDesc(desc, kind, stream).
func memcpyAsyncWithDesc(c *Call) error {
	desc, kind, h := c.u64(0), c.kind(1), c.u32(2)
	if err := acl.CheckMemcpyAsyncWithDesc(desc, kind, uint64(h)); err != nil { // null, kind, nullstream
		return err
	}
	st, err := c.streamHandle(h) // stream
	if err != nil {
		return err
	}
	if err := acl.CheckDescKindFeature(kind); err != nil { // feature
		return acl.Unrecorded(err) // a 207000 from below the entry point
	}
	ds, err := c.s.resolveDevice("desc", desc, DescSize) // desc
	if err != nil {
		return err
	}
	if err := acl.CheckDescAlign(desc); err != nil { // align
		return err
	}
	if st, err = c.bindStream(st); err != nil { // context
		return err
	}
	if err := c.streamCtx(st); err != nil { // streamctx
		return err
	}
	return c.launch(st, func(s *Session, fi int) error { return s.runDesc(fi, desc) }, ds.a) // queue, exec
}

// launch queues run on st as a host function, holding the allocations it
// reads its addresses from until it has run, so that aclrtFree waits.
func (c *Call) launch(st *streamRec, run func(s *Session, fi int) error, holds ...*alloc) error {
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
	ds, err := s.resolveDevice("desc", desc, DescSize)
	if err != nil {
		return err
	}
	var b [DescSize]byte
	if err := s.b.Memcpy(s.halt, acl.Host(b[:], 0), ds.buf, DescSize); err != nil {
		return be(err)
	}
	src, dst, n, ok := s.decodeDesc(b[:])
	if !ok {
		return acl.Errorf(acl.ErrRTParamInvalid, "descriptor at %#x is not valid: never set, or tampered with", desc)
	}
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
func memcpyAsyncWithOffset(c *Call) error {
	dst, destMax, dstOff, src, n, srcOff := c.u64(0), c.u64(1), c.u64(2), c.u64(3), c.u64(4), c.u64(5)
	if done, err := acl.CheckOffsetKind(n, c.kind(6)); done || err != nil { // count0, kind
		return err
	}
	st, err := c.streamHandle(c.u32(7)) // stream
	if err != nil {
		return err
	}
	if err := acl.CheckOffsetArgs(dst, destMax, dstOff, src, n, srcOff); err != nil { // null, limits
		return err
	}
	if st, err = c.bindStream(st); err != nil { // context
		return err
	}
	slot := c.s.slotSize()
	ds, err := c.s.resolveDevice("dst", dst, slot) // slots
	if err != nil {
		return err
	}
	ss, err := c.s.resolveDevice("src", src, slot)
	if err != nil {
		return err
	}
	if err := c.streamCtx(st); err != nil { // streamctx
		return err
	}
	if err := c.budget(n); err != nil { // bytes
		return err
	}
	return c.launch(st, func(s *Session, fi int) error { return s.runOffset(fi, dst, dstOff, src, srcOff, n) }, ds.a, ss.a) // queue
}

// slotSize is the width of a base-address slot of
// aclrtMemcpyAsyncWithOffset: a void* in device memory, 8 bytes in the wide
// profile, 4 in acl32.
func (s *Session) slotSize() uint64 { return s.prof.Width(abi.Addr) }

// runOffset executes an offset copy on a stream worker.
func (s *Session) runOffset(fi int, dstSlot, dstOff, srcSlot, srcOff, n uint64) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var slots [2]uint64
	w := s.slotSize()
	for i, slot := range [2]uint64{dstSlot, srcSlot} {
		sp, err := s.resolveDevice([2]string{"dst", "src"}[i], slot, w)
		if err != nil {
			return err
		}
		var b [8]byte
		if err := s.b.Memcpy(s.halt, acl.Host(b[:w], 0), sp.buf, w); err != nil {
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
	if err = d.writable("dstAddr", dst, n); err != nil {
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
