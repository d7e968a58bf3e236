package sandbox_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
)

// TestRegionsNeverShared: two live sessions never get the same device
// address, however many sessions ran in between. Regions used to be handed
// out round robin, so the 2^14th session after a live one got its region,
// and its first allocation the live session's address (issue 9, bug 8).
// The pool is cut to a few regions so that a full turn is quick.
func TestRegionsNeverShared(t *testing.T) {
	const n = 4
	h := newHarness(t, host.Policy{})
	h.shared().LimitRegions(n)
	h.OK("aclrtSetDevice", 0)
	first := h.Malloc(64)

	ctx := context.Background()
	pl, err := h.RT.Load(ctx, proxytest.Proxy(abi.Wide), host.Policy{})
	require.NoError(t, err)
	defer pl.Close(ctx)
	for range 2 * n { // past the wrap, twice
		inst, err := pl.Instantiate(ctx, host.Config{})
		require.NoError(t, err)
		other := &harness{Harness: &proxytest.Harness{T: t, RT: h.RT, Inst: inst}}
		other.OK("aclrtSetDevice", 0)
		require.NotEqual(t, first, other.Malloc(64), "two live sessions were given the same device address")
		other.Code(acl.ErrRTParamInvalid, "aclrtMemcpy", first, 8, data, 8, 1) // the first session's
		require.NoError(t, inst.Close(ctx))
	}

	// Every region held: one more session is refused, until one ends.
	var live []*host.Instance
	for range n - 1 {
		inst, err := pl.Instantiate(ctx, host.Config{})
		require.NoError(t, err)
		live = append(live, inst)
	}
	_, err = pl.Instantiate(ctx, host.Config{})
	require.ErrorContains(t, err, "sessions are live")
	require.NoError(t, live[0].Close(ctx))
	inst, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(t, err)
	for _, i := range append(live[1:], inst) {
		require.NoError(t, i.Close(ctx))
	}
}
