package sim_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
)

// TestCopySmall: CopySmall copies as Memcpy does between the regions it
// is given and host bytes, and refuses, having done nothing, whatever it
// cannot take so: a region that does not hold the address, a freed one,
// pinned memory, too many bytes, a closed backend.
func TestCopySmall(t *testing.T) {
	ctx := context.Background()
	b := sim.New()
	defer b.Close()
	p, err := b.Malloc(0, 4096, 0)
	require.NoError(t, err)
	q, err := b.Malloc(0, 4096, 0)
	require.NoError(t, err)
	rp, rq := b.Region(p+100), b.Region(q)
	require.NotNil(t, rp)
	require.Nil(t, b.Region(0))

	src := make([]byte, 64)
	for i := range src {
		src[i] = byte(i + 1)
	}
	host := func(x []byte) *acl.Buf { return &acl.Buf{Host: x} }
	dev := func(x acl.DevPtr) *acl.Buf { return &acl.Buf{Dev: x} }
	done, err := b.CopySmall(ctx, dev(p+8), rp, host(src), nil, 64)
	require.True(t, done)
	require.NoError(t, err)
	done, err = b.CopySmall(ctx, dev(p+2048), rp, dev(p+8), rp, 64)
	require.True(t, done)
	require.NoError(t, err)
	out := make([]byte, 64)
	done, err = b.CopySmall(ctx, host(out), nil, dev(p+2048), rp, 64)
	require.True(t, done)
	require.NoError(t, err)
	require.Equal(t, src, out)

	refused := func(name string, dst *acl.Buf, dr any, s *acl.Buf, sr any, n uint64) {
		t.Helper()
		done, err := b.CopySmall(ctx, dst, dr, s, sr, n)
		require.False(t, done, name)
		require.NoError(t, err, name)
	}
	refused("another allocation's region", dev(p), rq, host(src), nil, 64)
	refused("past the end", dev(p+4090), rp, host(src), nil, 64)
	refused("host bytes too short", dev(p), rp, host(src[:8]), nil, 64)
	refused("no region for device memory", dev(p), nil, host(src), nil, 64)
	big := make([]byte, acl.SmallCopyMax+1)
	refused("above SmallCopyMax", host(big), nil, host(big), nil, uint64(len(big)))
	pin, err := b.HostRegister(src, acl.HostRegisterMapped)
	require.NoError(t, err)
	refused("pinned", dev(p), rp, &acl.Buf{Host: src, Pin: pin}, nil, 64)
	require.NoError(t, b.HostUnregister(ctx, pin))
	require.NoError(t, b.Free(ctx, q))
	refused("freed", dev(q), rq, host(src), nil, 64)

	// A done context: Memcpy's error, before anything.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	done, err = b.CopySmall(cctx, dev(p), rp, host(src), nil, 64)
	require.True(t, done)
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, b.Memcpy(cctx, acl.Buf{Dev: p}, acl.Buf{Host: src}, 64), context.Canceled)

	require.NoError(t, b.Close())
	refused("closed", dev(p), rp, host(src), nil, 64)
}
