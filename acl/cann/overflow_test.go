//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// TestStreamOverflowSwitch: the switch reaches the native stream with its
// native handle and reads back from it; a library without the functions
// gives 207000 and calls nothing.
func TestStreamOverflowSwitch(t *testing.T) {
	b, s := open(t, full)
	st, err := b.CreateStream(1)
	require.NoError(t, err)
	defer func() { require.NoError(t, b.DestroyStream(t.Context(), st)) }()
	require.True(t, b.Supports("aclrtSetStreamOverflowSwitch"))
	native := b.streams[st].native
	on, err := b.StreamOverflowSwitch(st)
	require.NoError(t, err)
	require.False(t, on, "off until set")
	s.logReset()
	require.NoError(t, b.SetStreamOverflowSwitch(st, true))
	on, err = b.StreamOverflowSwitch(st)
	require.NoError(t, err)
	require.True(t, on)
	match(t, []string{
		"aclrtSetStreamOverflowSwitch(stream=" + hexp(native) + ", flag=1) = 0",
		"aclrtGetStreamOverflowSwitch(stream=" + hexp(native) + ", flag=*) = 0",
	}, s.calls())
	code(t, b.SetStreamOverflowSwitch(acl.Stream(999), true), acl.ErrRTInvalidHandle)

	old, _ := open(t, older)
	require.False(t, old.Supports("aclrtSetStreamOverflowSwitch"))
	ost, err := old.CreateStream(0)
	require.NoError(t, err)
	defer func() { require.NoError(t, old.DestroyStream(t.Context(), ost)) }()
	code(t, old.SetStreamOverflowSwitch(ost, true), acl.ErrRTFeatureNotSupport)
}
