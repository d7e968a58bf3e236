package acl

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheckEventExFlag(t *testing.T) {
	for f := uint32(1); f <= 0xF; f++ {
		require.NoError(t, CheckEventExFlag(f), "%#x", f)
	}
	require.Equal(t, ErrRTFeatureNotSupport, CodeOf(CheckEventExFlag(0x40)))
	for _, f := range []uint32{0, 0x10, 0x20, 0x11, 0x21, 0x41, 0x30, 0x50, 0x80, 0x81, 0xFFFFFFFF} {
		require.Equal(t, ErrRTParamInvalid, CodeOf(CheckEventExFlag(f)), "%#x", f)
	}
}
