package sim_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// TestBatchAsyncKeepsValidatedSizes: a caller may reuse its []acl.Copy once
// MemcpyBatchAsync has returned. The queued batch copies what was validated
// when it was queued, not what the slice says when the stream runs it.
func TestBatchAsyncKeepsValidatedSizes(t *testing.T) {
	b := newSim(t)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	src, err := b.Malloc(0, 4096, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	require.NoError(t, b.Memset(t.Context(), acl.Device(src), 0xAA, 4096))
	buf := make([]byte, 4096) // only the first 64 bytes are registered
	pin, err := b.HostRegister(buf[:64], acl.HostRegisterMapped)
	require.NoError(t, err)

	release := gate(t, b, s)
	cs := []acl.Copy{
		{Dst: acl.Host(buf[:16], pin), Src: acl.Device(src), N: 16},
		{Dst: acl.Host(buf[32:48], pin), Src: acl.Device(src), N: 0},
	}
	require.NoError(t, b.MemcpyBatchAsync(t.Context(), cs, s))
	cs[0].N = 4096 // past the registered range, and past what was validated
	cs[1].N = 16   // an entry skipped as empty when validated
	release()
	err = b.SynchronizeStream(t.Context(), s, -1)
	require.Equal(t, bytes.Repeat([]byte{0xAA}, 16), buf[:16])
	require.Zero(t, bytes.Count(buf[16:], []byte{0xAA}), "only the 16 validated bytes may change")
	require.NoError(t, err)
}
