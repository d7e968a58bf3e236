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
