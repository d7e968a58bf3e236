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
	require.Equal(t, inner.Traits(), b.Traits(), "the wrapped backend's traits")
	require.Nil(t, acl.SmallCopierOf(b), "small copies would bypass Memcpy's faults")
}

// bare has no optional role and makes no promise; zeroOnly and peerOnly
// make one promise each, and computes plays one role.
type (
	bare     struct{ acl.Backend }
	zeroOnly struct{ acl.Backend }
	peerOnly struct{ acl.Backend }
	computes struct{ acl.Backend }
)

func (bare) Traits() acl.Traits     { return acl.Traits{} }
func (zeroOnly) Traits() acl.Traits { return acl.Traits{ZeroesAllocations: true} }
func (peerOnly) Traits() acl.Traits { return acl.Traits{PeerAccessImplicit: true} }
func (c computes) Traits() acl.Traits {
	return acl.Traits{Computer: c.Backend.Traits().Computer}
}

// registers plays the optional role DeviceRegisterer, with the
// simulator's HostRegister for every device.
type registers struct{ acl.Backend }

func (r registers) Traits() acl.Traits { return acl.Traits{DeviceRegisterer: r} }

func (r registers) HostRegisterOn(_ int32, b []byte, typ acl.HostRegisterType) (acl.HostPin, error) {
	return r.HostRegister(b, typ)
}

// TestWrapTraits: a wrapped backend reports exactly the traits of the one
// it wraps, so that the sandbox takes the same paths over both, and
// forwards every method of acl.Backend it does not inject faults into.
// (The native backend's case is in acl/cann, which builds the stand-in.)
func TestWrapTraits(t *testing.T) {
	s := sim.New()
	defer s.Close()
	for name, inner := range map[string]acl.Backend{
		"sim":       s,
		"sim 950":   sim.New(sim.WithChip(sim.Ascend950)),
		"sim A3":    sim.New(sim.WithChip(sim.AtlasA3)),
		"bare":      bare{s},
		"zero only": zeroOnly{s},
		"peer only": peerOnly{s},
		"computes":  computes{s},
	} {
		b := faulty.Wrap(inner)
		require.Equal(t, inner.Traits(), b.Traits(), name)
		require.Equal(t, faulty.Roles(inner), faulty.Roles(b), name)
		// The small copies, which would bypass Memcpy's faults, are not the wrapper's.
		require.Nil(t, acl.SmallCopierOf(b), name)
		require.Equal(t, inner.Supports("aclrtDestroyStreamForce"), b.Supports("aclrtDestroyStreamForce"), name)
		iv, err := b.OpTimeoutInterval()
		require.NoError(t, err, name)
		wantIv, _ := inner.OpTimeoutInterval()
		require.Equal(t, wantIv, iv, name)
	}
	require.Equal(t, []string{"ZeroesAllocations", "Computer", "SmallCopier"}, faulty.Roles(s), "the simulator of an Atlas A2")
	require.Equal(t, []string{"ZeroesAllocations", "PeerAccessImplicit", "Computer", "SmallCopier"}, faulty.Roles(sim.New(sim.WithChip(sim.AtlasA3))), "the simulator of an Atlas A3")
	require.Empty(t, faulty.Roles(bare{}))
}

// TestWrapRegisterer: a wrapped backend's DeviceRegisterer fails as its
// HostRegister does, the one call the sandbox makes in its place.
func TestWrapRegisterer(t *testing.T) {
	s := sim.New()
	defer s.Close()
	b := faulty.Wrap(registers{s})
	require.Equal(t, []string{"DeviceRegisterer"}, faulty.Roles(b))
	r := b.Traits().DeviceRegisterer
	b.FailCall("HostRegister", 2, faulty.Injected)
	buf := make([]byte, 4096)
	pin, err := r.HostRegisterOn(1, buf[:2048], acl.HostRegisterMapped)
	require.NoError(t, err)
	_, err = r.HostRegisterOn(1, buf[2048:], acl.HostRegisterMapped)
	require.ErrorIs(t, err, acl.ErrRTInternal, "the second registration fails")
	require.Equal(t, 2, b.Calls("HostRegister"))
	require.Zero(t, b.Unfired())
	require.NoError(t, b.HostUnregister(context.Background(), pin))
}
