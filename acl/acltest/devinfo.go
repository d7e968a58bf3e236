package acltest

import (
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// devinfoTests cover the backend side of the device and product queries
// of ABI v1.3 section 15: every backend answers for a chip the native
// platform description knows, and refuses what the runtime refuses.
var devinfoTests = []test{
	{"DeviceQueries", func(e *env) {
		soc, err := e.b.SocName()
		require.NoError(e, err)
		require.NotEmpty(e, soc)
		ok, err := e.b.ArchCompatible(soc)
		require.NoError(e, err)
		require.True(e, ok, "%s runs its own code", soc)
		_, err = e.b.ArchCompatible("NoSuchSoc")
		code(e, err, acl.ErrRTParamInvalid)
		for _, a := range acl.CannAttrs {
			v, err := e.b.CannAttribute(a)
			require.NoError(e, err, "%s", a)
			require.Contains(e, []int32{0, 1}, v, "%s", a)
		}
		for _, a := range []acl.DevAttr{acl.DevAttrAICoreCoreNum, acl.DevAttrCubeCoreNum, acl.DevAttrVectorCoreNum, acl.DevAttrL2CacheSize, acl.DevAttrNPUArch} {
			v, err := e.b.DeviceInfo(0, a)
			require.NoError(e, err, "%s", a)
			require.Positive(e, v, "%s", a)
		}
		cube, err := e.b.DeviceInfo(0, acl.DevAttrCubeCoreNum)
		require.NoError(e, err)
		e.stream(0) // natively the core limit needs the device set
		limit, err := e.b.DeviceResLimit(0, acl.DevResCubeCore)
		require.NoError(e, err)
		require.Equal(e, int64(limit), cube, "aclrtGetDeviceInfo and aclrtGetDeviceResLimit agree on the cube cores")
		_, err = e.b.DeviceInfo(0, 103)
		code(e, err, acl.ErrRTParamInvalid)
		v, err := e.b.DeviceCapability(0, acl.FeatureMemQEventCrossDev)
		require.NoError(e, err)
		require.Contains(e, []int32{acl.FeatureNotSupported, acl.FeatureSupported}, v)
		st, err := e.b.DeviceStatus(0)
		require.NoError(e, err)
		require.Equal(e, acl.DeviceStatusNormal, st)
		_, err = e.b.DeviceStatus(99)
		code(e, err, acl.ErrRTInvalidDeviceID)
	}},
}

// notifyResetTests cover ResetNotify (aclrtNotifyBatchReset, ABI v1.3
// section 15): a reset clears a set notify, so that a wait after it needs
// a new record; an old TS firmware refuses it, as Supports then says.
var notifyResetTests = []test{
	{"ResetNotify", func(e *env) {
		w, r := e.stream(0), e.stream(0)
		n := e.notify(0)
		require.NoError(e, e.b.RecordNotify(n, r))
		e.sync(r)
		err := e.b.ResetNotify(n)
		if e.lacks(err, "aclrtNotifyBatchReset") {
			return
		}
		require.NoError(e, err)
		require.NoError(e, e.b.WaitAndResetNotify(n, w, 20*time.Millisecond))
		code(e, e.b.SynchronizeStream(e.ctx, w, -1), acl.ErrRTWaitTimeout, "the reset cleared the record")
		require.NoError(e, e.b.ResetNotify(n), "a clear notify")
		require.NoError(e, e.b.RecordNotify(n, r))
		require.NoError(e, e.b.WaitAndResetNotify(n, w, 0))
		e.sync(w)
		code(e, e.b.ResetNotify(n+1000), acl.ErrRTInvalidHandle, "an unknown notify")
	}},
}
