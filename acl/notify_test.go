package acl

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheckNotifyFlag(t *testing.T) {
	require.NoError(t, CheckNotifyFlag(NotifyDefault))
	require.NoError(t, CheckNotifyFlag(NotifyDeviceUseOnly))
	for _, f := range []uint64{2, 3, 1 << 32} {
		require.Equal(t, ErrRTParamInvalid, CodeOf(CheckNotifyFlag(f)), "%#x", f)
	}
}

func TestCheckEventExFlag(t *testing.T) {
	for f := uint32(1); f <= 0xF; f++ {
		require.NoError(t, CheckEventExFlag(f), "%#x", f)
	}
	require.Equal(t, ErrRTFeatureNotSupport, CodeOf(CheckEventExFlag(0x40)))
	for _, f := range []uint32{0, 0x10, 0x20, 0x11, 0x21, 0x41, 0x30, 0x50, 0x80, 0x81, 0xFFFFFFFF} {
		require.Equal(t, ErrRTParamInvalid, CodeOf(CheckEventExFlag(f)), "%#x", f)
	}
}
