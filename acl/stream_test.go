package acl

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStreamFlagString(t *testing.T) {
	for _, tc := range []struct {
		f    StreamFlag
		want string
	}{
		{0, "0"},
		{StreamFastLaunch, "ACL_STREAM_FAST_LAUNCH"},
		{StreamFastLaunch | StreamFastSync, "ACL_STREAM_FAST_LAUNCH|ACL_STREAM_FAST_SYNC"},
		{StreamDeviceUseOnly, "ACL_STREAM_DEVICE_USE_ONLY"},
		{StreamPersistent | 0x100, "ACL_STREAM_PERSISTENT|0x100"},
		{0xC0, "0xc0"},
	} {
		require.Equal(t, tc.want, tc.f.String(), "%#x", uint32(tc.f))
	}
	require.Equal(t, StreamHuge|StreamCPUSchedule, (StreamHuge | StreamCPUSchedule | 0x40 | 0x8000).Known(), "the bits the ACL layer drops")
}

func TestCheckStreamFlags(t *testing.T) {
	for _, ok := range []StreamFlag{0, StreamFastLaunch | StreamFastSync | StreamPersistent | StreamHuge | StreamCPUSchedule, StreamDeviceUseOnly, StreamDeviceUseOnly | 0x40, 0x40} {
		require.NoError(t, CheckStreamFlags(ok), "%v", ok)
	}
	for _, bad := range []StreamFlag{StreamDeviceUseOnly | StreamFastLaunch, StreamDeviceUseOnly | StreamCPUSchedule | 0x40} {
		err := CheckStreamFlags(bad)
		require.ErrorIs(t, err, ErrRTParamInvalid, "%v", bad)
		require.Contains(t, MessageOf(err), "ACL_STREAM_DEVICE_USE_ONLY cannot be combined")
		require.NotContains(t, MessageOf(err), "0x40", "the message names the flags the ACL layer passes on")
	}
}

func TestFailureMode(t *testing.T) {
	require.Equal(t, "ACL_CONTINUE_ON_FAILURE", ContinueOnFailure.String())
	require.Equal(t, "ACL_STOP_ON_FAILURE", StopOnFailure.String())
	require.Equal(t, "aclrtStreamFailureMode(2)", FailureMode(2).String())
	for mode, want := range map[uint64]FailureMode{0: ContinueOnFailure, 1: StopOnFailure, 2: ContinueOnFailure, 3: StopOnFailure, 1 << 63: ContinueOnFailure} {
		require.Equal(t, want, FailureModeOf(mode), "only bit 0 counts: %#x", mode)
	}
	require.NoError(t, CheckFailureModeChange(ContinueOnFailure, StopOnFailure))
	require.NoError(t, CheckFailureModeChange(StopOnFailure, StopOnFailure))
	require.NoError(t, CheckFailureModeChange(ContinueOnFailure, ContinueOnFailure))
	require.ErrorIs(t, CheckFailureModeChange(StopOnFailure, ContinueOnFailure), ErrRTFeatureNotSupport, "no way back from stop-on-failure")
}

// TestStreamConfig: the priority the runtime keeps, and
// aclrtStreamConfigHandle in both layouts.
func TestStreamConfig(t *testing.T) {
	for p, want := range map[uint32]uint32{0: 0, 5: 5, 7: 7, 8: 7, 1<<31 - 1: 7, 1 << 31: 0, 1<<32 - 1: 0} {
		require.Equal(t, want, StreamPriority(p), "priority %d", p)
	}
	require.Equal(t, 32, StreamConfigSize(8))
	require.Equal(t, 16, StreamConfigSize(4))
	b := []byte{1, 0, 0, 0, 0, 0, 0, 2, 3, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}
	require.Equal(t, StreamConfig{WorkPtr: 0x0200000000000001, WorkSize: 3, Flag: 4, Priority: 5}, StreamConfigOf(b, 8))
	require.Equal(t, StreamConfig{WorkPtr: 1, WorkSize: 0x02000000, Flag: 3, Priority: 0}, StreamConfigOf(b, 4))
}
