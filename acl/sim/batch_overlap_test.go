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
	const n = fanWork / 4 // 4 entries: enough to fan out, were they disjoint
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

// TestBatchFansOut: disjoint batches big enough to fan out, one after the
// other (the pooled batch and its fan are reused, and a helper that starts
// late must find nothing to do), copy every byte where it belongs; with
// -race, helpers and callers do not race.
func TestBatchFansOut(t *testing.T) {
	b := New()
	defer b.Close()
	const entries, size = 64, 2 * fanWork / 64
	dst, err := b.Malloc(0, entries*size, 0)
	require.NoError(t, err)
	src := make([]byte, entries*size)
	out := make([]byte, entries*size)
	for round := range 8 {
		for i := range src {
			src[i] = byte(i/size + round)
		}
		cs := make([]acl.Copy, entries)
		for i := range cs {
			// Entries in reverse order: the source of entry i goes to
			// slot entries-1-i.
			k := entries - 1 - i
			cs[i] = acl.Copy{Dst: acl.Device(dst + acl.DevPtr(k*size)), Src: acl.Host(src[i*size:(i+1)*size], 0), N: size}
		}
		require.NoError(t, b.MemcpyBatch(t.Context(), cs))
		require.NoError(t, b.Memcpy(t.Context(), acl.Host(out, 0), acl.Device(dst), entries*size))
		for k := range entries {
			want := byte(entries - 1 - k + round)
			require.Equal(t, want, out[k*size], "round %d, slot %d", round, k)
			require.Equal(t, want, out[(k+1)*size-1], "round %d, slot %d", round, k)
		}
	}
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
