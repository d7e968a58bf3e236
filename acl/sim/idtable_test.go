package sim

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTable checks the id table: lookups of live, deleted and never
// stored ids, growth, walking, and which pages go once emptied.
func TestTable(t *testing.T) {
	var tb table[uint64]
	val := func(id uint64) *uint64 { return &id }
	require.Nil(t, tb.get(1), "empty table")
	const n = 3<<pageBits + 7 // ids 1..n over four pages
	for id := uint64(1); id <= n; id++ {
		tb.put(id, val(id))
	}
	for id := uint64(1); id <= n; id++ {
		require.Equal(t, id, *tb.get(id))
	}
	require.Nil(t, tb.get(0))
	require.Nil(t, tb.get(n+1))
	require.Nil(t, tb.get(1<<40), "far past the directory")

	pages := func() (k int) {
		d := *tb.dir.Load()
		for i := range d {
			if d[i].Load() != nil {
				k++
			}
		}
		return k
	}
	count := func() (k int) {
		prev := uint64(0)
		tb.each(func(v *uint64) {
			require.Greater(t, *v, prev, "in id order")
			prev = *v
			k++
		})
		return k
	}
	require.Equal(t, 4, pages())
	require.Equal(t, n, count())
	// Page 1 (ids 512..1023): all but one deleted, it stays; the last one
	// drops it. Deleting twice counts once.
	for id := uint64(1 << pageBits); id < 2<<pageBits-1; id++ {
		tb.del(id)
		tb.del(id)
	}
	require.Equal(t, 4, pages())
	require.Equal(t, uint64(2<<pageBits-1), *tb.get(2<<pageBits - 1))
	tb.del(2<<pageBits - 1)
	require.Equal(t, 3, pages())
	require.Nil(t, tb.get(1<<pageBits+5))
	// Page 0 holds ids 1..511 (0 is never handed out).
	for id := uint64(1); id < 1<<pageBits; id++ {
		tb.del(id)
	}
	require.Equal(t, 2, pages())
	// The page of the highest id stays when emptied: ids still to come
	// land there.
	for id := uint64(3 << pageBits); id <= n; id++ {
		tb.del(id)
	}
	require.Equal(t, 2, pages())
	tb.put(n+1, val(n+1))
	require.Equal(t, uint64(n+1), *tb.get(n + 1))
	// A value stored late on a page already dropped (an allocation whose
	// id was reserved before a higher one was stored) brings the page back.
	tb.put(1<<pageBits+9, val(1<<pageBits+9))
	require.Equal(t, uint64(1<<pageBits+9), *tb.get(1<<pageBits + 9))
	require.Equal(t, 1<<pageBits+2, count(), "page 2, n+1 and the late one")
	tb.clear()
	require.Nil(t, tb.get(n+1))
	require.Zero(t, count())
}
