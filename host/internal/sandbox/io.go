package sandbox

import (
	"strings"
	"unicode/utf8"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// IO is the input and output of the bytes call in progress
// (host.Instance.CallBytes).
type IO struct {
	In, Out []byte
	Base    int    // len(Out) before the call: the output is Out[Base:]
	Limit   uint64 // the most output bytes the host holds
	Capped  bool   // limit is the call's MaxOutput, not the memory limit
	Report  bool   // MaxOutput was given: a refused write is ErrOutputLimit
	Refused bool   // a write was refused, with report set
}

// MaxVarLen bounds a config value, so that config_read's result (a
// length) stays an i32 far from its sign.
const MaxVarLen = 64 << 10

// SetIO makes io the input and output of the session's next calls; nil
// ends the bytes call.
func (s *Session) SetIO(io *IO) { s.io = io }

// guestMessage is the message error_set keeps of msg: valid UTF-8, at
// most abi.MaxErrorLen bytes, cut at a rune boundary.
func guestMessage(msg []byte) string {
	s := strings.ToValidUTF8(string(msg[:min(len(msg), abi.MaxErrorLen+utf8.UTFMax)]), "\uFFFD")
	if len(s) <= abi.MaxErrorLen {
		return s
	}
	cut := abi.MaxErrorLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// GuestMessage returns the message the guest set with error_set during
// the current or last call of an export ("" for none).
func (s *Session) GuestMessage() string { return s.guestMsg }

// ClearGuestMessage forgets the guest's message, as each call of an
// export begins.
func (s *Session) ClearGuestMessage() { s.guestMsg = "" }

// IOFuncs returns the functions of abi.IOModule.
func IOFuncs() []*HostFunc {
	impl := map[string]func(c *Call) (int32, error){
		"input_len": func(c *Call) (int32, error) {
			if c.s.io == nil {
				return 0, nil
			}
			return int32(len(c.s.io.In)), nil
		},
		"input_read": func(c *Call) (int32, error) {
			n := c.i32(1)
			var in []byte
			if c.s.io != nil {
				in = c.s.io.In
			}
			if n < 0 || int(n) > len(in) {
				return 0, acl.Errorf(acl.ErrInvalidParam, "len %d: the input has %d bytes", n, len(in))
			}
			dst, err := c.guest("buf", c.u32(0), uint64(n))
			if err != nil {
				return 0, err
			}
			copy(dst, in)
			return 0, nil
		},
		"config_read": func(c *Call) (int32, error) {
			key, err := c.guest("key", c.u32(0), uint64(c.u32(1)))
			if err != nil && c.u32(1) != 0 {
				return 0, err
			}
			v, ok := c.s.vars[string(key)]
			if !ok {
				return -1, nil
			}
			if len(v) > MaxVarLen {
				return 0, acl.Errorf(acl.ErrRTOverLimit, "the value of %q has %d bytes, more than config_read can report", key, len(v))
			}
			n := min(uint64(c.u32(3)), uint64(len(v)))
			if n == 0 {
				return int32(len(v)), nil
			}
			dst, err := c.guest("buf", c.u32(2), n)
			if err != nil {
				return 0, err
			}
			copy(dst, v)
			return int32(len(v)), nil
		},
		"error_set": func(c *Call) (int32, error) {
			n := c.i32(1)
			switch {
			case n < 0:
				return 0, acl.Errorf(acl.ErrInvalidParam, "len %d is negative", n)
			case n == 0:
				c.s.guestMsg = ""
				return 0, nil
			}
			msg, err := c.guest("msg", c.u32(0), uint64(n))
			if err != nil {
				return 0, err
			}
			c.s.guestMsg = guestMessage(msg)
			return 0, nil
		},
		"output_write": func(c *Call) (int32, error) {
			io := c.s.io
			if io == nil {
				return 0, acl.Errorf(acl.ErrInvalidParam, "no bytes call is in progress: the output goes nowhere")
			}
			n := c.i32(1)
			if n < 0 {
				return 0, acl.Errorf(acl.ErrInvalidParam, "len %d is negative", n)
			}
			src, err := c.guest("buf", c.u32(0), uint64(n))
			if err != nil {
				return 0, err
			}
			if after := uint64(len(io.Out)-io.Base) + uint64(n); after > io.Limit {
				io.Refused = io.Report
				if io.Capped {
					return 0, acl.Errorf(acl.ErrRTOverLimit, "the output would reach %d bytes, beyond the call's limit of %d (MaxOutput)", after, io.Limit)
				}
				return 0, acl.Errorf(acl.ErrRTOverLimit, "the output would reach %d bytes, beyond the policy's limit of %d", after, io.Limit)
			}
			io.Out = append(io.Out, src...)
			return 0, nil
		},
	}
	out := make([]*HostFunc, len(abi.IOFuncs))
	for k, f := range abi.IOFuncs {
		fn := impl[f.Name]
		if fn == nil {
			panic("host: no implementation of " + abi.IOModule + "." + f.Name)
		}
		g := f
		g.Name = abi.IOModule + "." + f.Name
		out[k] = &HostFunc{Module: abi.IOModule, Name: f.Name, F: g, Fn: fn}
	}
	return out
}
