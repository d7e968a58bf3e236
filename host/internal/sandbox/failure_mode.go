package sandbox

import "github.com/aclwasm/aclwasm/acl"

// setStreamFailureMode is aclrtSetStreamFailureMode(stream, mode), in the
// runtime's order (api_c_stream.cc rtStreamSetMode, api_error.cc and
// api_impl.cc StreamSetMode): the handle; NULL without a current context
// (there is no stream to resolve it to: 107000); a DEVICE_USE_ONLY stream
// (207000); the current context (107002); only bit 0 of mode counts, and
// the same mode again succeeds at once; stop back to continue (207000);
// a stream of another context (107003).
func setStreamFailureMode(c *Call) error {
	st, err := c.streamHandle(c.u32(0)) // stream
	if err != nil {
		return err
	}
	if st == nil && c.s.dev < 0 { // nullctx
		return acl.Errorf(acl.ErrRTParamInvalid, "stream is NULL and there is no current context whose default stream it would name")
	}
	if st != nil && st.flags&acl.StreamDeviceUseOnly != 0 { // devuse
		return acl.Unrecorded(acl.Errorf(acl.ErrRTFeatureNotSupport, "the stream was created with ACL_STREAM_DEVICE_USE_ONLY, whose failure mode cannot be set"))
	}
	if st, err = c.bindStream(st); err != nil { // context
		return err
	}
	mode := acl.FailureModeOf(c.u64(1))
	if mode == st.mode { // same
		return nil
	}
	if err := acl.CheckFailureModeChange(st.mode, mode); err != nil { // back
		return acl.Unrecorded(err) // a 207000 from below the entry point
	}
	if err := c.streamCtx(st); err != nil { // streamctx
		return err
	}
	if !c.s.b.Supports("aclrtSetStreamFailureMode") {
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "the %s backend has no stream failure modes", c.s.b.Name())
	}
	if err := c.s.b.SetStreamFailureMode(st.h, mode); err != nil {
		return be(err)
	}
	st.mode = mode
	return nil
}
