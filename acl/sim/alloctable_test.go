package sim

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAllocTable checks the id table: lookups of live, freed and never
// issued ids, growth, and that a page goes once all its ids were freed.
func TestAllocTable(t *testing.T) {
	var tb allocTable
	require.Nil(t, tb.get(1), "empty table")
	const n = 3<<pageBits + 7 // ids 1..n, over four pages
	for id := uint64(1); id <= n; id++ {
		tb.put(&alloc{id: id})
	}
	for id := uint64(1); id <= n; id++ {
		require.Equal(t, id, tb.get(id).id)
	}
	require.Nil(t, tb.get(0))
	require.Nil(t, tb.get(n+1))
	require.Nil(t, tb.get(1<<40), "far past the directory")

	pages := func() (k int) {
		for i := range *tb.dir.Load() {
			if (*tb.dir.Load())[i].Load() != nil {
				k++
			}
		}
		return k
	}
	require.Equal(t, 4, pages())
	// Page 1 (ids 512..1023): all but one freed, it stays; the last one
	// drops it. Freeing twice counts once.
	for id := uint64(1 << pageBits); id < 2<<pageBits-1; id++ {
		tb.del(id)
		tb.del(id)
	}
	require.Equal(t, 4, pages())
	require.Equal(t, uint64(2<<pageBits-1), tb.get(2<<pageBits-1).id)
	tb.del(2<<pageBits - 1)
	require.Equal(t, 3, pages())
	require.Nil(t, tb.get(1<<pageBits+5))
	// Page 0 holds ids 1..511 (0 is never issued).
	for id := uint64(1); id < 1<<pageBits; id++ {
		tb.del(id)
	}
	require.Equal(t, 2, pages())
	// The last page is not full: freeing what it holds keeps it, as ids
	// still to come land there.
	for id := uint64(3 << pageBits); id <= n; id++ {
		tb.del(id)
	}
	require.Equal(t, 2, pages())
	tb.put(&alloc{id: n + 1})
	require.Equal(t, uint64(n+1), tb.get(n+1).id)
	tb.clear()
	require.Nil(t, tb.get(n+1))
}
