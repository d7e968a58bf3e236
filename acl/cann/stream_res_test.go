//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// TestStreamResLimit: the limits reach the native stream with its native
// handle and a refused value comes back with the native code (backend_test's
// old runtime: a library without them gives 207000 and calls nothing).
func TestStreamResLimit(t *testing.T) {
	b, s := open(t, full)
	st, err := b.CreateStream(1)
	require.NoError(t, err)
	defer func() { require.NoError(t, b.DestroyStream(t.Context(), st)) }()
	require.True(t, b.Supports("aclrtSetStreamResLimit"))
	native := b.streams[st].native
	s.logReset()
	require.NoError(t, b.SetStreamResLimit(st, acl.DevResVectorCore, 7))
	code(t, b.SetStreamResLimit(st, acl.DevResCubeCore, 25), acl.ErrRTParamInvalid)
	require.NoError(t, b.ResetStreamResLimit(st))
	match(t, []string{
		"aclrtSetStreamResLimit(stream=" + hexp(native) + ", type=1, value=7) = 0",
		"aclrtSetStreamResLimit(stream=" + hexp(native) + ", type=0, value=25) = 107000",
		"aclrtResetStreamResLimit(stream=" + hexp(native) + ") = 0",
	}, s.calls())
	code(t, b.SetStreamResLimit(acl.Stream(999), acl.DevResCubeCore, 1), acl.ErrRTInvalidHandle)

}
