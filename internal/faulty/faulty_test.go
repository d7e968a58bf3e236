package faulty_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/internal/faulty"
)

func TestFailCall(t *testing.T) {
	b := faulty.Wrap(sim.New())
	defer b.Close()
	b.FailCall("Malloc", 2, faulty.Injected)
	p, err := b.Malloc(0, 64, 0)
	require.NoError(t, err)
	_, err = b.Malloc(0, 64, 0)
	require.ErrorIs(t, err, acl.ErrRTInternal, "the second call fails")
	q, err := b.Malloc(0, 64, 0)
	require.NoError(t, err, "and only that one")
	require.Equal(t, 3, b.Calls("Malloc"))
	require.Zero(t, b.Unfired())
	ctx := context.Background()
	require.NoError(t, b.Free(ctx, p))
	require.NoError(t, b.Free(ctx, q))
}

func TestFailExec(t *testing.T) {
	b := faulty.Wrap(sim.New())
	defer b.Close()
	ctx := context.Background()
	p, err := b.Malloc(0, 64, 0)
	require.NoError(t, err)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	b.FailExec("MemsetAsync", 1, faulty.Injected)
	require.NoError(t, b.MemsetAsync(ctx, acl.Device(p), 0xee, 64, s), "the call succeeds")
	require.NoError(t, b.MemsetAsync(ctx, acl.Device(p+32), 0x11, 32, s))
	require.ErrorIs(t, b.SynchronizeStream(ctx, s, -1), acl.ErrRTInternal, "the operation fails")
	require.NoError(t, b.SynchronizeStream(ctx, s, -1))
	got := make([]byte, 64)
	require.NoError(t, b.Memcpy(ctx, acl.Host(got, 0), acl.Device(p), 64))
	want := make([]byte, 64)
	for i := 32; i < 64; i++ {
		want[i] = 0x11
	}
	require.Equal(t, want, got, "the failed memset wrote nothing; the next one ran")
	require.NoError(t, b.DestroyStream(ctx, s))
	require.NoError(t, b.Free(ctx, p))
}

func TestMisuse(t *testing.T) {
	inner := sim.New(sim.WithChip(sim.AtlasA3))
	b := faulty.Wrap(inner)
	defer b.Close()
	require.Panics(t, func() { b.FailCall("Nope", 1, faulty.Injected) })
	require.Panics(t, func() { b.FailCall("Malloc", 0, faulty.Injected) })
	require.Panics(t, func() { b.FailExec("Malloc", 1, errors.New("x")) })
	require.Equal(t, inner.PeerAccessRequired(), b.(acl.PeerRule).PeerAccessRequired(), "the wrapped backend's peer rule")
}

// bare has none of the optional interfaces; zeroOnly and peerOnly one each.
type (
	bare     struct{ acl.Backend }
	zeroOnly struct {
		acl.Backend
		acl.Zeroer
	}
	peerOnly struct {
		acl.Backend
		acl.PeerRule
	}
)

// TestWrapInterfaces: a wrapped backend implements exactly the optional
// interfaces of the one it wraps, so that the sandbox takes the same paths
// over both, and forwards every method of acl.Backend it does not inject
// faults into. (The native backend's case is in acl/cann, which builds
// the stand-in.)
func TestWrapInterfaces(t *testing.T) {
	s := sim.New()
	defer s.Close()
	for name, inner := range map[string]acl.Backend{
		"sim":       s,
		"sim 950":   sim.New(sim.WithChip(sim.Ascend950)),
		"bare":      bare{s},
		"zero only": zeroOnly{s, s},
		"peer only": peerOnly{s, s},
	} {
		b := faulty.Wrap(inner)
		require.Equal(t, faulty.Interfaces(inner), faulty.Interfaces(b), name)
		if z, ok := inner.(acl.Zeroer); ok {
			require.Equal(t, z.ZeroesAllocations(), b.(acl.Zeroer).ZeroesAllocations(), name)
		}
		require.Equal(t, inner.Supports("aclrtDestroyStreamForce"), b.Supports("aclrtDestroyStreamForce"), name)
		iv, err := b.OpTimeoutInterval()
		require.NoError(t, err, name)
		want, _ := inner.OpTimeoutInterval()
		require.Equal(t, want, iv, name)
	}
	require.Equal(t, []string{"Zeroer", "PeerRule"}, faulty.Interfaces(s), "the simulator states both")
	require.Empty(t, faulty.Interfaces(bare{}))
}
