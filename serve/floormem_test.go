package serve

import (
	"sync"
	"testing"

	"github.com/tetratelabs/wazero/experimental"
)

// floorMems is the command floor's guest memory, configured as the
// host's for serve: a reservation of the policy's limit per instance (so
// that memory never moves as it grows), kept when the instance closes
// and handed to the next one, the bytes the guest could reach cleared
// first. It is what a bare server that reuses guest memory does; the
// host's own (linmem.go) clears only the pages the guest made resident.
type floorMems struct {
	size uint64
	mu   sync.Mutex
	free [][]byte
}

// newFloorMems keeps reservations of size bytes until tb ends.
func newFloorMems(tb testing.TB, size uint64) *floorMems {
	m := &floorMems{size: size}
	tb.Cleanup(func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		for _, r := range m.free {
			floorUnreserve(r)
		}
		m.free = nil
	})
	return m
}

// Allocate implements experimental.MemoryAllocator.
func (m *floorMems) Allocate(_, max uint64) experimental.LinearMemory {
	m.mu.Lock()
	var r []byte
	if n := len(m.free); n > 0 {
		r, m.free = m.free[n-1], m.free[:n-1]
	}
	m.mu.Unlock()
	if r == nil {
		r = floorReserve(m.size)
	}
	return &floorMem{m: m, res: r, max: min(max, m.size)}
}

// floorMem is one instance's memory.
type floorMem struct {
	m         *floorMems
	res       []byte
	size, max uint64
}

func (f *floorMem) Reallocate(size uint64) []byte {
	if size > f.max {
		return nil
	}
	f.size = size
	return f.res[:size:size]
}

// Free clears what the guest could reach and keeps the reservation.
func (f *floorMem) Free() {
	if f.res == nil {
		return
	}
	floorClear(f.res[:f.size])
	f.m.mu.Lock()
	f.m.free = append(f.m.free, f.res)
	f.m.mu.Unlock()
	f.res = nil
}

// TestFloorMemsClear: the command floor reuses a released reservation,
// and the next instance finds none of the bytes the last one wrote.
func TestFloorMemsClear(t *testing.T) {
	m := newFloorMems(t, 4<<16)
	a := m.Allocate(1<<16, 4<<16)
	b := a.Reallocate(2 << 16)
	for i := range b {
		b[i] = 0xa5
	}
	a.Free()
	a.Free() // once only
	c := m.Allocate(1<<16, 4<<16)
	d := c.Reallocate(4 << 16)
	if &d[0] != &b[0] {
		t.Fatal("the reservation was not reused")
	}
	for i, x := range d {
		if x != 0 {
			t.Fatalf("byte %d of the last instance's memory is %#x", i, x)
		}
	}
	if c.Reallocate(5<<16) != nil {
		t.Fatal("grew past the limit")
	}
	c.Free()
}
