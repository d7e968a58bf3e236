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
	host := func(x []byte) *acl.SmallSide { return &acl.SmallSide{Host: x} }
	dev := func(x acl.DevPtr, rg any) *acl.SmallSide { return &acl.SmallSide{Region: rg, Dev: x} }
	done, err := b.CopySmall(dev(p+8, rp), host(src), 64)
	require.True(t, done)
	require.NoError(t, err)
	done, err = b.CopySmall(dev(p+2048, rp), dev(p+8, rp), 64)
	require.True(t, done)
	require.NoError(t, err)
	out := make([]byte, 64)
	done, err = b.CopySmall(host(out), dev(p+2048, rp), 64)
	require.True(t, done)
	require.NoError(t, err)
	require.Equal(t, src, out)

	refused := func(name string, dst, s *acl.SmallSide, n uint64) {
		t.Helper()
		done, err := b.CopySmall(dst, s, n)
		require.False(t, done, name)
		require.NoError(t, err, name)
	}
	refused("another allocation's region", dev(p, rq), host(src), 64)
	refused("past the end", dev(p+4090, rp), host(src), 64)
	refused("host bytes too short", dev(p, rp), host(src[:8]), 64)
	refused("no bytes", dev(p, rp), host(src), 0)
	refused("a region of another backend", dev(p, &struct{}{}), host(src), 64)
	big := make([]byte, acl.SmallCopyMax+1)
	refused("above SmallCopyMax", host(big), host(big), uint64(len(big)))
	require.NoError(t, b.Free(ctx, q))
	refused("freed", dev(q, rq), host(src), 64)

	require.NoError(t, b.Close())
	refused("closed", dev(p, rp), host(src), 64)
}
