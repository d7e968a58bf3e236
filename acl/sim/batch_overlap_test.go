package sim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// TestBatchOverlappingEntriesRunInOrder: a batch big enough to fan out whose
// entries overlap must not race (go test -race) and, run in order, leaves
// the last writer's bytes.
func TestBatchOverlappingEntriesRunInOrder(t *testing.T) {
	b := New()
	defer b.Close()
	const n = 1 << 20
	dst, err := b.Malloc(0, n, 0)
	require.NoError(t, err)
	srcs := [4][]byte{}
	var cs []acl.Copy
	for i := range srcs {
		srcs[i] = make([]byte, n)
		for k := range srcs[i] {
			srcs[i][k] = byte(i + 1)
		}
		cs = append(cs, acl.Copy{Dst: acl.Device(dst), Src: acl.Host(srcs[i], 0), N: n})
	}
	require.NoError(t, b.MemcpyBatch(t.Context(), cs))
	out := make([]byte, n)
	require.NoError(t, b.Memcpy(t.Context(), acl.Host(out, 0), acl.Device(dst), n))
	require.Equal(t, byte(4), out[0])
	require.Equal(t, byte(4), out[n-1])
}

func TestBatchDisjoint(t *testing.T) {
	buf := make([]byte, 64)
	sp := func(off, n int) span { return span{host: buf[off : off+n]} }
	for _, tc := range []struct {
		name  string
		spans []span // dst, src pairs
		want  bool
	}{
		{"disjoint", []span{sp(0, 8), sp(8, 8), sp(16, 8), sp(24, 8)}, true},
		{"shared source", []span{sp(0, 8), sp(32, 8), sp(16, 8), sp(32, 8)}, true},
		{"write over a read", []span{sp(0, 8), sp(8, 8), sp(12, 8), sp(32, 8)}, false},
		{"write over a write", []span{sp(0, 8), sp(32, 8), sp(4, 8), sp(48, 8)}, false},
		{"own src overlaps dst", []span{sp(0, 8), sp(4, 8)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := &batch{spans: tc.spans}
			for i := 0; i < len(tc.spans)/2; i++ {
				j.ns = append(j.ns, 8)
			}
			require.Equal(t, tc.want, j.disjoint())
		})
	}
}
