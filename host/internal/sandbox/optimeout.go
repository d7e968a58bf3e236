package sandbox

import (
	"math"

	"github.com/aclwasm/aclwasm/acl"
)

// The op timeouts of ABI v1.1 section 10. Natively they are process-wide;
// in the sandbox each session keeps its own, so one plugin cannot change
// another's (or the embedder's) runtime. The wait timeout bounds the
// session's aclrtStreamWaitEvent waits, through the backend's
// StreamWaitEventTimeout (aclrtStreamWaitEventWithTimeout natively). Kernels never run in the sandbox, so the execute
// timeout is kept and reported, and bounds nothing.

// setOpWaitTimeout is aclrtSetOpWaitTimeout(timeout): seconds, 0 for no
// limit. It applies to the waits queued after it; one that is still
// blocked when the time is up ends, and its stream's next synchronize
// returns ACL_ERROR_RT_WAIT_TIMEOUT (107019).
func setOpWaitTimeout(c *Call) error {
	t := c.u32(0)
	if t != 0 && !c.s.b.Supports("aclrtStreamWaitEventWithTimeout") {
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "the %s backend cannot bound event waits", c.s.b.Name())
	}
	c.s.opWait = t
	return nil
}

// opTimeoutInterval returns the backend's step for operator timeouts, in
// microseconds.
func (c *Call) opTimeoutInterval() (uint64, error) {
	if !c.s.b.Supports("aclrtGetOpTimeOutInterval") {
		return 0, acl.Errorf(acl.ErrRTFeatureNotSupport, "the %s backend does not report an operator timeout interval", c.s.b.Name())
	}
	iv, err := c.s.b.OpTimeoutInterval()
	if err == nil && (iv == 0 || iv > math.MaxUint64/acl.MaxOpTimeoutSteps) {
		err = acl.Errorf(acl.ErrRTInternal, "the %s backend reports an operator timeout interval of %d µs", c.s.b.Name(), iv)
	}
	return iv, be(err)
}

// setOpExec makes us microseconds the session's operator execute timeout,
// as the hardware takes it: a whole number of intervals from 1 to
// acl.MaxOpTimeoutSteps, rounded up, 0 asking for the most. It returns
// the timeout in effect.
func (c *Call) setOpExec(us uint64) (uint64, error) {
	iv, err := c.opTimeoutInterval()
	if err != nil {
		return 0, err
	}
	steps := uint64(acl.MaxOpTimeoutSteps)
	if us != 0 {
		steps = min(max((us-1)/iv+1, 1), acl.MaxOpTimeoutSteps)
	}
	c.s.opExec = steps * iv
	return c.s.opExec, nil
}

// setOpExecuteTimeOut is aclrtSetOpExecuteTimeOut(timeout): seconds, 0
// for the most the hardware takes.
func setOpExecuteTimeOut(c *Call) error {
	_, err := c.setOpExec(uint64(c.u32(0)) * 1e6)
	return err
}

// setOpExecuteTimeOutV2 is aclrtSetOpExecuteTimeOutV2(timeout,
// actualTimeout): microseconds; the timeout in effect is written to
// *actualTimeout (8 bytes in both profiles).
func setOpExecuteTimeOutV2(c *Call) error {
	out, err := c.out(1, 8) // null
	if err != nil {
		return err
	}
	if err := c.needDevice(); err != nil { // context: the runtime asks for the current one
		return err
	}
	us, err := c.setOpExec(c.u64(0))
	if err != nil {
		return err
	}
	le.PutUint64(out, us)
	return nil
}

// getOpExecuteTimeout is aclrtGetOpExecuteTimeout(timeoutMs): the
// operator execute timeout in effect, in milliseconds (4 bytes); before
// any set, the hardware's default, the most it takes.
func getOpExecuteTimeout(c *Call) error {
	out, err := c.out(0, 4) // null
	if err != nil {
		return err
	}
	us := c.s.opExec
	if us == 0 {
		iv, err := c.opTimeoutInterval()
		if err != nil {
			return err
		}
		us = acl.MaxOpTimeoutSteps * iv
	}
	le.PutUint32(out, uint32(min(us/1000, math.MaxUint32)))
	return nil
}

// getOpTimeOutInterval is aclrtGetOpTimeOutInterval(interval): the
// hardware's step for operator timeouts, in microseconds (8 bytes in both
// profiles).
func getOpTimeOutInterval(c *Call) error {
	out, err := c.out(0, 8) // null
	if err != nil {
		return err
	}
	if err := c.needDevice(); err != nil { // context
		return err
	}
	iv, err := c.opTimeoutInterval()
	if err != nil {
		return err
	}
	le.PutUint64(out, iv)
	return nil
}
