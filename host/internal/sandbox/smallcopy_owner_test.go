package sandbox_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
)

// memcpyCounter intercepts Memcpy and forwards everything else, Traits
// included, as a wrapper written without thought of the small copies does.
type memcpyCounter struct {
	*sim.Backend
	n atomic.Int32
}

func (b *memcpyCounter) Memcpy(ctx context.Context, dst, src acl.Buf, n uint64) error {
	b.n.Add(1)
	return b.Backend.Memcpy(ctx, dst, src, n)
}

// TestSmallCopyWrapperSeesMemcpy: the forwarded Traits name the inner
// simulator's small copies, yet every small aclrtMemcpy (H2D, D2D, D2H)
// reaches the wrapper's Memcpy: the sandbox takes the small path only
// from the backend it holds (acl.SmallCopierOf).
func TestSmallCopyWrapperSeesMemcpy(t *testing.T) {
	b := &memcpyCounter{Backend: sim.New()}
	t.Cleanup(func() { b.Close() })
	require.NotNil(t, b.Traits().SmallCopier)
	h := newHarness(t, host.Policy{}, host.WithBackend(b))
	h.OK("aclrtSetDevice", 0)
	h.RoundTrip(h.Malloc(4096), 64, 3)
	require.EqualValues(t, 3, b.n.Load(), "copies through the wrapper's Memcpy")
}
