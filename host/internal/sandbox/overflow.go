package sandbox

import (
	"context"
	"encoding/binary"
	"sync/atomic"

	"github.com/aclwasm/aclwasm/acl"
)

// Saturation mode and overflow status (ABI v1.3 section 15). Natively
// both are process-wide on the chips the sandbox knows (the runtime's
// own mode, api_impl.cc:6925-6944; the status "at process level" on the
// Atlas A2, A3 and 950): the sandbox's process is the session, so each
// session has its own mode and status, on every backend. The node's own
// mode and status are shared by every session on it and are never
// changed or read for a guest.

// overflowState is a session's saturation mode and overflow status.
type overflowState struct {
	mode acl.FloatOverflowMode // aclrtSetDeviceSatMode's; valid when set
	set  bool
	// status is the sticky overflow status: set by a stream worker when
	// an operator's float result holds an Inf or a NaN, cleared by a
	// queued aclrtResetOverflowStatus.
	status atomic.Bool
}

// satModes returns what aclrtSetDeviceSatMode accepts on the session's
// chip and the mode it starts in (acl.SatModes of the backend's SoC).
func (s *Session) satModes() (sat, infNan bool, start acl.FloatOverflowMode) {
	var soc string
	if s.b.Supports("aclrtGetSocName") {
		soc, _ = s.b.SocName()
	}
	return acl.SatModes(soc)
}

// satMode returns the session's saturation mode: the chip's starting
// mode until the guest sets one.
func (s *Session) satMode() acl.FloatOverflowMode {
	if !s.ov.set {
		_, _, start := s.satModes()
		s.ov.mode, s.ov.set = start, true
	}
	return s.ov.mode
}

// noteOverflow scans a float result of type t that compute wrote (b), as
// the device's status register watches its float units: an Inf or a NaN
// sets the session's overflow status, and in saturation mode becomes the
// type's largest finite value of its sign (a NaN: 0). Stream workers call
// it.
func (s *Session) noteOverflow(t acl.DataType, b []byte, saturate bool) {
	if acl.ScanOverflow(t, b, saturate) {
		s.ov.status.Store(true)
	}
}

// setDeviceSatMode is aclrtSetDeviceSatMode(mode): the chip's support
// first (api_c.cc:3150-3159), then the range (api_error.cc:5994-5997).
// No current context is needed: natively the mode is the process's.
func setDeviceSatMode(c *Call) error {
	m := acl.FloatOverflowMode(c.i32(0))
	sat, infNan, _ := c.s.satModes()
	if m == acl.OverflowSaturation && !sat || m == acl.OverflowInfNan && !infNan { // feature
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "mode %v: the chip does not support it", m)
	}
	if m != acl.OverflowSaturation && m != acl.OverflowInfNan { // mode
		return acl.Errorf(acl.ErrRTParamInvalid, "mode %v is outside [%d, %d]", m, acl.OverflowSaturation, acl.OverflowInfNan)
	}
	c.s.ov.mode, c.s.ov.set = m, true
	return nil
}

// getDeviceSatMode is aclrtGetDeviceSatMode(mode).
func getDeviceSatMode(c *Call) error {
	out, err := c.out(0, 4) // null
	if err != nil {
		return err
	}
	le.PutUint32(out, uint32(c.s.satMode()))
	return nil
}

// setStreamOverflowSwitch is aclrtSetStreamOverflowSwitch(stream, flag).
// The switch turns on the runtime's per-task overflow reports of the
// stream, which the sandbox does not produce: it is the stream's
// property, passed to the node's stream where the backend has one
// (acl.OverflowSwitcher), and aclrtGetOverflowStatus does not depend on
// it, as natively.
func setStreamOverflowSwitch(c *Call) error {
	flag := c.u32(1)
	if flag > 1 { // flag
		return acl.Errorf(acl.ErrInvalidParam, "flag %d is neither 0 (off) nor 1 (on)", flag)
	}
	st, err := c.streamHandle(c.u32(0)) // stream
	if err != nil {
		return err
	}
	if st, err = c.bindStream(st); err != nil { // context
		return err
	}
	if err := c.streamCtx(st); err != nil { // streamctx
		return err
	}
	if sw := c.s.b.Traits().OverflowSwitcher; sw != nil {
		if !c.s.b.Supports("aclrtSetStreamOverflowSwitch") {
			return acl.Errorf(acl.ErrRTFeatureNotSupport, "the %s backend's library lacks aclrtSetStreamOverflowSwitch", c.s.b.Name())
		}
		if err := be(sw.SetStreamOverflowSwitch(st.h, flag == 1)); err != nil {
			return err
		}
	}
	st.ovSwitch = flag == 1
	return nil
}

// getStreamOverflowSwitch is aclrtGetStreamOverflowSwitch(stream, flag).
func getStreamOverflowSwitch(c *Call) error {
	out, err := c.out(1, 4) // null
	if err != nil {
		return err
	}
	st, err := c.streamHandle(c.u32(0)) // stream
	if err != nil {
		return err
	}
	if st, err = c.bindStream(st); err != nil { // context
		return err
	}
	if err := c.streamCtx(st); err != nil { // streamctx
		return err
	}
	v := uint32(0)
	if st.ovSwitch {
		v = 1
	}
	le.PutUint32(out, v)
	return nil
}

// getOverflowStatus is aclrtGetOverflowStatus(outputAddr, outputSize,
// stream): natively a device-to-device copy of the context's 64-byte
// status in stream order (api_impl.cc:7099-7130). The sandbox writes a
// uint32 1 at outputAddr if the session's compute overflowed since the
// last reset (else 0) and zeroes the other 60 bytes: the native layout
// of the status words is the chip's. A backend that computes in Go (the
// simulator) writes it as a launch; on one that runs none of the
// session's compute (the native backend, ABI section 13 not yet served
// there) nothing overflows, and the status written is zeros, a memset in
// stream order.
func getOverflowStatus(c *Call) error {
	addr, n := c.u64(0), c.u64(1)
	if addr == 0 { // null
		return acl.Errorf(acl.ErrInvalidParam, "outputAddr is NULL")
	}
	st, err := c.streamHandle(c.u32(2)) // stream
	if err != nil {
		return err
	}
	if n != acl.OverflowStatusSize { // size
		return acl.Errorf(acl.ErrRTParamInvalid, "outputSize %d: the status is %d bytes, the only size supported", n, acl.OverflowStatusSize)
	}
	if st, err = c.bindStream(st); err != nil { // context
		return err
	}
	if err := c.streamCtx(st); err != nil { // streamctx
		return err
	}
	d, err := c.s.resolveDevice("outputAddr", addr, n) // range
	if err == nil {
		err = d.writable("outputAddr", addr, n)
	}
	if err != nil {
		return err
	}
	if err := c.enqueue(st); err != nil { // queue
		return err
	}
	if comp := c.s.b.Traits().Computer; comp != nil {
		s := c.s
		err = comp.Compute(st.h, &acl.Launch{
			Name:    "aclrtGetOverflowStatus",
			Regions: []acl.Region{{Ptr: d.buf.Dev, N: n, Write: true}},
			Run: func(_ context.Context, mem [][]byte) error {
				clear(mem[0])
				if s.ov.status.Load() {
					binary.LittleEndian.PutUint32(mem[0], 1)
				}
				return nil
			},
		})
	} else {
		err = c.s.b.MemsetAsync(c.ctx, d.buf, 0, n, st.h)
	}
	if err := be(err); err != nil {
		return err
	}
	c.set(st, n)
	return nil
}

// resetOverflowStatus is aclrtResetOverflowStatus(stream): on the chips
// the sandbox knows the runtime clears the status on the stream
// (api_c.cc:3572-3573), which a NULL stream without a current context
// cannot name (107000). The clearing is queued on the stream, after the
// work before it there.
func resetOverflowStatus(c *Call) error {
	st, err := c.streamHandle(c.u32(0)) // stream
	if err != nil {
		return err
	}
	if st == nil && c.s.dev < 0 { // nostream
		return acl.Errorf(acl.ErrRTParamInvalid, "stream is NULL and there is no current context whose default stream it would name")
	}
	if st, err = c.bindStream(st); err != nil { // context
		return err
	}
	if err := c.streamCtx(st); err != nil { // streamctx
		return err
	}
	if err := c.enqueue(st); err != nil { // queue
		return err
	}
	s := c.s
	return be(c.s.b.LaunchHostFunc(st.h, func() error {
		s.ov.status.Store(false)
		return nil
	}))
}
