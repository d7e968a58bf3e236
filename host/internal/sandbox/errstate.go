package sandbox

import (
	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// The error state of ABI v1.2 section 12. Natively the runtime keeps the
// last error of each thread: every runtime failure sets it, the ACL
// layer's own argument checks do not (they return before the runtime is
// reached), aclrtGetLastError reads and clears it, aclrtPeekAtLastError
// only reads it. A guest has one thread, so the sandbox keeps one per
// session: a session reads its own failures, never another's or the
// embedder's.

// noteErr records a failed import: msg becomes the message
// aclGetRecentErrMsg returns, and err's code the last error where the
// native call path records it (acl.RecordsLastError: not for the ACL
// layer's codes, nor for the failures acl.UnrecordedSteps lists, which
// the imports mark with acl.Unrecorded). invoke calls it for every failed
// import.
func (s *Session) noteErr(msg string, err error) {
	s.lastErr, s.msgRead = msg, false
	if acl.RecordsLastError(err) {
		s.lastCode = acl.CodeOf(err)
	}
}

// getRecentErrMsg is aclGetRecentErrMsg(buf, bufLen): it returns the length
// of the session's most recent error message and copies up to bufLen-1
// bytes of it plus a NUL into buf. Natively reading the message clears it
// (error_manager.cc:588-629: GetErrorMessage empties the container it
// reads), so a second read without a new failure returns NULL. On the wire
// the message is cleared once a read has copied it whole: a length query
// (buf NULL or bufLen 0) or a truncated copy leaves it, so that the SDKs
// can size a buffer and read again. The read itself never becomes the
// recent error. The embedder's Session.LastError is not cleared.
func getRecentErrMsg(c *Call) error {
	msg := c.s.lastErr
	if c.s.msgRead {
		msg = ""
	}
	n := int32(len(msg))
	c.ret = &n
	buf, bufLen := c.u32(0), c.i32(1)
	if buf == 0 || bufLen <= 0 {
		return nil
	}
	k := min(uint64(bufLen)-1, uint64(len(msg)))
	out, err := c.guest("buf", buf, k+1)
	if err != nil {
		return nil // a buffer outside guest memory gets nothing; the length still tells
	}
	copy(out, msg[:k])
	out[k] = 0
	if k == uint64(len(msg)) {
		c.s.msgRead = true
	}
	return nil
}

// lastErrLevel checks the level parameter: the ACL layer accepts
// ACL_RT_THREAD_LEVEL only (100000 otherwise), before the runtime.
func (c *Call) lastErrLevel() error {
	if l := acl.LastErrLevel(c.i32(0)); l != acl.ThreadLevel {
		return acl.Errorf(acl.ErrInvalidParam, "level %d is not ACL_RT_THREAD_LEVEL (0), the only aclrtLastErrLevel", int32(l))
	}
	return nil
}

// getLastError is aclrtGetLastError(level): it returns the session's last
// error, 0 when none, and clears it. The code is the call's result, not
// its failure: the call itself sets nothing.
func getLastError(c *Call) error {
	if err := c.lastErrLevel(); err != nil {
		return err
	}
	r := int32(c.s.lastCode)
	c.s.lastCode = acl.Success
	c.ret = &r
	return nil
}

// peekAtLastError is aclrtPeekAtLastError(level): aclrtGetLastError
// without the clearing.
func peekAtLastError(c *Call) error {
	if err := c.lastErrLevel(); err != nil {
		return err
	}
	r := int32(c.s.lastCode)
	c.ret = &r
	return nil
}

// errorInfoSize is the size of aclrtErrorInfo in the session's profile:
// its union holds pointers and sizes.
func (c *Call) errorInfoSize() uint64 {
	if c.s.prof == abi.Native32 {
		return acl.ErrorInfoSize32
	}
	return acl.ErrorInfoSize
}

// getErrorVerbose is aclrtGetErrorVerbose(deviceId, errorInfo): the
// device's fault as the session may see it. Natively it describes the
// physical device, whose faults any session's work may have caused; the
// sandbox shows a session no other session's state, and simulates no
// hardware fault of its own, so it reports ACL_RT_NO_ERROR without detail,
// writing the fields the native ACL layer writes (tryRepair, hasDetail,
// errorType, detail.aicoreErrType).
func getErrorVerbose(c *Call) error {
	out, err := c.out(1, c.errorInfoSize()) // null
	if err != nil {
		return err
	}
	if !c.s.b.Supports("aclrtGetErrorVerbose") { // feature
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "the %s backend does not report device faults", c.s.b.Name())
	}
	if err := c.validDevice("deviceId", c.i32(0)); err != nil { // device
		return err
	}
	acl.ErrorInfo{Type: acl.ErrorTypeNone}.Encode(out)
	return nil
}
