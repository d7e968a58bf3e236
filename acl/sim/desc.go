package sim

import (
	"encoding/binary"
	"math/bits"

	"github.com/aclwasm/aclwasm/acl"
)

// A descriptor is nothing but bytes in device memory, little-endian:
//
//	0  src   u64  source address
//	8  dst   u64  destination address
//	16 count u64  bytes to copy
//	24 magic u64  descMagic, the format's mark
//
// and zeros up to the chip's descriptor size. Copying those bytes elsewhere
// makes a working descriptor there; the simulator keeps no shadow of what
// SetMemcpyDesc wrote, and validates what it reads when the copy executes.
const (
	descLen   = 32
	descMagic = 0x31435345444c4341 // "ACLDESC1"
)

var le = binary.LittleEndian

// MemcpyDescSize implements [acl.Backend]: the chip's descriptor size for
// INNER_DEVICE_TO_DEVICE; other kinds fail as [acl.CheckDescKind] says.
func (b *Backend) MemcpyDescSize(kind acl.MemcpyKind) (uint64, error) {
	if err := acl.CheckDescKind(kind); err != nil {
		return 0, err
	}
	return b.prof.descSize, nil
}

// SetMemcpyDesc implements [acl.Backend]. It writes the descriptor now, like
// the native internal host-to-device copy, without waiting for any stream.
// The descriptor must lie in device memory (107000); src and dst are only
// checked when a copy uses the descriptor.
func (b *Backend) SetMemcpyDesc(desc acl.DevPtr, kind acl.MemcpyKind, src, dst acl.DevPtr, n uint64) error {
	if err := acl.CheckDescKind(kind); err != nil {
		return err
	}
	switch {
	case src == 0:
		return acl.Errorf(acl.ErrInvalidParam, "srcAddr is NULL")
	case dst == 0:
		return acl.Errorf(acl.ErrInvalidParam, "dstAddr is NULL")
	case n == 0:
		return acl.Errorf(acl.ErrInvalidParam, "count is 0")
	}
	if err := acl.CheckDescCount(n); err != nil {
		return err
	}
	if err := acl.CheckDescAlign(uint64(desc)); err != nil {
		return err
	}
	d, err := b.one(acl.Device(desc), b.prof.descSize, true, "desc")
	if err != nil {
		return err
	}
	var x [descLen]byte
	le.PutUint64(x[0:], uint64(src))
	le.PutUint64(x[8:], uint64(dst))
	le.PutUint64(x[16:], n)
	le.PutUint64(x[24:], descMagic)
	lock2(d.a, nil)
	p := d.bytes(b.prof.descSize)
	clear(p[copy(p, x[:]):])
	unlock2(d.a, nil)
	d.release()
	return nil
}

// MemcpyAsyncWithDesc implements [acl.Backend]. The descriptor must lie in
// device memory when the call is made (107000), and stays allocated until
// the copy has run. When it runs, the copy reads the descriptor and fails
// with 107000, copying nothing, if the format mark is wrong, count is 0, or
// src and dst are not live device ranges of the stream's device.
func (b *Backend) MemcpyAsyncWithDesc(desc acl.DevPtr, kind acl.MemcpyKind, sh acl.Stream) error {
	if err := acl.CheckDescKind(kind); err != nil {
		return err
	}
	st, err := b.stream(sh)
	if err != nil {
		return err
	}
	d, err := b.one(acl.Device(desc), b.prof.descSize, false, "desc")
	if err != nil {
		return err
	}
	if err := acl.CheckDescAlign(uint64(desc)); err != nil {
		d.release()
		return err
	}
	o := op{
		work: opFunc(func(s *stream) error {
			var x [descLen]byte
			lock2(nil, d.a)
			copy(x[:], d.bytes(descLen))
			unlock2(nil, d.a)
			if m := le.Uint64(x[24:]); m != descMagic {
				return acl.Errorf(acl.ErrRTParamInvalid, "descriptor at %#x is not valid: format mark %#x, want %#x", desc, m, uint64(descMagic))
			}
			src, dst, n := acl.DevPtr(le.Uint64(x[0:])), acl.DevPtr(le.Uint64(x[8:])), le.Uint64(x[16:])
			return b.inner(s, dst, src, n, "descriptor")
		}),
		held: [2]span{d},
	}
	if c := b.clk; c != nil {
		o.v = c.cost(flow{key: linkKey{kind: linkHBM, a: st.dev.id}, left: float64(peekCount(d))})
	}
	return st.pushNow(o)
}

// peekCount is the count the descriptor at d holds now, or 0 if it is not
// one: what the timing model charges a descriptor copy, whose descriptor
// is only read when the copy runs.
func peekCount(d span) uint64 {
	var x [descLen]byte
	lock2(nil, d.a)
	copy(x[:], d.bytes(descLen))
	unlock2(nil, d.a)
	if le.Uint64(x[24:]) != descMagic {
		return 0
	}
	return le.Uint64(x[16:])
}

// MemcpyAsyncWithOffset implements [acl.Backend]. It applies
// [acl.CheckMemcpyOffset] as the native runtime does. The two 8-byte slots
// must lie in device memory when the call is made (107000) and stay
// allocated until the copy has run. When it runs, the copy reads the base
// addresses from the slots, adds the offsets, and fails with 107000, copying
// nothing, unless both ranges are live device memory of the stream's device.
func (b *Backend) MemcpyAsyncWithOffset(dstSlot acl.DevPtr, destMax, dstOff uint64, srcSlot acl.DevPtr, n, srcOff uint64, kind acl.MemcpyKind, sh acl.Stream) error {
	if done, err := acl.CheckMemcpyOffset(uint64(dstSlot), destMax, dstOff, uint64(srcSlot), n, srcOff, kind); done || err != nil {
		return err
	}
	st, err := b.stream(sh)
	if err != nil {
		return err
	}
	ds, err := b.one(acl.Device(dstSlot), 8, false, "dst slot")
	if err != nil {
		return err
	}
	ss, err := b.one(acl.Device(srcSlot), 8, false, "src slot")
	if err != nil {
		ds.release()
		return err
	}
	o := op{
		work: opFunc(func(s *stream) error {
			dst, err := b.slot(ds, dstOff, "dst")
			if err != nil {
				return err
			}
			src, err := b.slot(ss, srcOff, "src")
			if err != nil {
				return err
			}
			return b.inner(s, dst, src, n, "offset copy")
		}),
		held: [2]span{ds, ss},
	}
	if c := b.clk; c != nil {
		o.v = c.cost(flow{key: linkKey{kind: linkHBM, a: st.dev.id}, left: float64(n)})
	}
	return st.pushNow(o)
}

// slot reads the base address in the slot at s and adds off.
func (b *Backend) slot(s span, off uint64, what string) (acl.DevPtr, error) {
	lock2(nil, s.a)
	base := le.Uint64(s.bytes(8))
	unlock2(nil, s.a)
	p, carry := bits.Add64(base, off, 0)
	if carry != 0 {
		return 0, acl.Errorf(acl.ErrRTParamInvalid, "offset copy: %s base %#x + offset %#x overflows", what, base, off)
	}
	return acl.DevPtr(p), nil
}

// inner runs, on stream s, a copy within s's device whose addresses were
// read from device memory: they are validated now.
func (b *Backend) inner(s *stream, dst, src acl.DevPtr, n uint64, what string) error {
	switch {
	case n == 0:
		return acl.Errorf(acl.ErrRTParamInvalid, "%s: count is 0", what)
	case dst == 0 || src == 0:
		return acl.Errorf(acl.ErrRTParamInvalid, "%s: dst %#x or src %#x is NULL", what, dst, src)
	}
	d, sp, err := b.pair(acl.Device(dst), acl.Device(src), n, n)
	if err != nil {
		return acl.Errorf(acl.CodeOf(err), "%s: %s", what, acl.MessageOf(err))
	}
	defer d.release()
	defer sp.release()
	if d.a.dev != s.dev || sp.a.dev != s.dev {
		return acl.Errorf(acl.ErrRTParamInvalid, "%s: an inner-device copy on a stream of device %d has dst on device %d and src on device %d", what, s.dev.id, d.a.dev.id, sp.a.dev.id)
	}
	return b.xfer(halt{done: s.abort}, &d, &sp, n)
}
