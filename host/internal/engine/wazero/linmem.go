package wazero

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/aclwasm/aclwasm/host/internal/engine"
)

// linearMemory backs a guest's linear memory with one reservation of the
// policy's maximum size, made up front, so that the memory never moves when
// the guest grows it. Asynchronous copies on registered (pinned) guest
// memory hold views of it while they run on stream workers; a stable base
// is what keeps them correct, and deferring the release until the session
// has drained its streams is what keeps them memory safe: the engine's
// Free (on exit, trap or timeout) only drops the engine's reference.
type linearMemory struct {
	mu    sync.Mutex
	res   []byte // the whole reservation
	heap  bool   // res is Go memory (the mapping failed): the GC releases it
	size  uint64 // current length: what the guest could have touched
	refs  int    // engine + session
	freed bool   // the engine has let go
	max   uint64
	pool  *memPool // where the reservation goes when released
	// The guest's memory as wazero last sized it (Reallocate), what the
	// host functions pass on without asking the module: base[:view-1],
	// none (0) before the first Reallocate and once released. base is
	// the reservation, never changed: a length is all that a Reallocate
	// stores, where a slice would be an allocation.
	base []byte
	view atomic.Uint64
}

// newLinearMemory reserves max bytes, reusing one of pool's when it has
// one of that size. The engine and the session each hold a reference; the
// reservation is released (to pool, or unmapped) when both have let go.
func newLinearMemory(pool *memPool, max uint64) *linearMemory {
	m := &linearMemory{max: max, refs: 2, pool: pool}
	if m.res = pool.get(max); m.res == nil {
		var err error
		if m.res, err = reserve(max); err != nil {
			m.res, m.heap = make([]byte, max), true // Go does not move heap objects either
		}
	}
	m.base = m.res
	engine.LiveMemories.Add(1)
	return m
}

// Reallocate implements experimental.LinearMemory: it grows the view
// within the reservation and never moves it. nil means "cannot grow".
func (m *linearMemory) Reallocate(size uint64) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	if size > m.max || m.res == nil {
		return nil
	}
	m.size = size
	m.view.Store(size + 1)
	return m.res[:size:size]
}

// bytes returns the guest's memory now: what Reallocate last returned.
func (m *linearMemory) bytes() []byte {
	if n := m.view.Load(); n != 0 {
		return m.base[: n-1 : n-1]
	}
	return nil
}

// Free implements experimental.LinearMemory for the engine's reference.
// The adapter calls it too when an instantiation fails after the memory
// was made (wazero then drops the module without freeing it), so a second
// Free does nothing.
func (m *linearMemory) Free() {
	m.mu.Lock()
	freed := m.freed
	m.freed = true
	m.mu.Unlock()
	if !freed {
		m.Release()
	}
}

// Release drops one reference and, with the last (the session's:
// engine.Invoker.Hold, after its streams stopped), gives the reservation
// to the pool, or unmaps it where the pool keeps no more.
func (m *linearMemory) Release() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.refs--
	if m.refs == 0 && m.res != nil {
		if !m.heap && !m.pool.put(m.res, m.size) {
			unreserve(m.res)
		}
		m.res = nil
		m.view.Store(0)
		engine.LiveMemories.Add(-1)
	}
}

// memPool keeps reservations released by ended instances for the next
// ones of the same maximum size: a command plugin run per request (serve,
// Plugin.Run) would otherwise map and unmap its whole reservation each
// time. A reservation leaves the pool zeroed: the bytes the guest could
// reach (its final size, since wasm memory only grows) are cleared,
// nothing beyond, which no view ever covered. The pool unmaps what it
// holds when the engine closes.
//
// It keeps as many reservations as instances were alive at once, up to
// poolMax, and no more than poolResident bytes resident among them: a
// server with 64 requests in flight needs 64 memories at the next burst,
// and one that unmaps those past a small count maps them again and
// faults their pages in, at every burst (a tenth of the request's CPU at
// 64 clients, with 16 kept). What the count costs while idle is address
// space; what stays resident is bounded by bytes.
//
// A released reservation of more than a wasm page touched is scrubbed by
// a goroutine of the pool's, not by the releasing call: an instance's
// Close (the end of Plugin.Run) then returns without the scrub (mincore
// over the memory, 7 us for serve's 4 MiB echo), which runs beside the
// caller's next work, serve's answer on its way, on another core. The
// goroutine runs while there are released reservations to scrub, and
// close waits for it. A get that finds none scrubbed takes a released one
// and scrubs it itself, or waits for the one being scrubbed: it never
// maps anew while the pool holds one. One of a page or less the releasing
// call scrubs: less than the hand-off costs (scrubInline).
type memPool struct {
	mu        sync.Mutex
	free      map[uint64][]pooled // scrubbed, by length
	dirty     [][]byte            // released, touched start, to be scrubbed; the latest last
	busy      uint64              // the length of the reservation being scrubbed (0: none)
	scrubbing bool                // the scrubber runs
	done      sync.Cond           // a scrub ended, or the scrubber stopped
	n         int                 // reservations kept, to be scrubbed or being scrubbed
	resident  uint64              // bytes the scrubbed ones left resident
	closed    bool
}

// pooled is a kept reservation and the bytes its scrub left resident.
type pooled struct {
	res      []byte
	resident uint64
}

const (
	// poolMax bounds the reservations one engine keeps.
	poolMax = 256
	// poolResident bounds the bytes they keep resident (scrub clears up
	// to scrubInPlace bytes in place, returning the rest to the kernel).
	poolResident = 64 << 20
	// scrubInline is the most touched bytes a releasing call scrubs
	// itself: a wasm page's scrub (mincore over its 16 pages and their
	// clearing) costs less than handing it to the pool's goroutine, whose
	// start and thread's wake-up were 1.3 us of a small module's
	// instantiation and close.
	scrubInline = 64 << 10
)

// get returns a zeroed reservation of n bytes, or nil.
func (p *memPool) get(n uint64) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if rs := p.free[n]; len(rs) > 0 {
			r := rs[len(rs)-1]
			rs[len(rs)-1] = pooled{}
			p.free[n] = rs[:len(rs)-1]
			p.n--
			p.resident -= r.resident
			engine.ReusedMemories.Add(1)
			return r.res
		}
		for i := len(p.dirty) - 1; i >= 0; i-- {
			if r := p.dirty[i]; uint64(cap(r)) == n {
				p.dirty = slices.Delete(p.dirty, i, i+1)
				p.n--
				p.mu.Unlock()
				scrub(r)
				p.mu.Lock()
				engine.ReusedMemories.Add(1)
				return r[:n]
			}
		}
		if p.busy != n {
			return nil
		}
		p.wait()
	}
}

// put keeps r, of which the guest touched the first touched bytes, to be
// scrubbed, or reports that the pool is full or closed (the caller unmaps
// r). Up to scrubInline touched bytes it scrubs r itself.
func (p *memPool) put(r []byte, touched uint64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.n >= poolMax || p.resident >= poolResident {
		return false
	}
	p.n++
	if touched <= scrubInline {
		p.mu.Unlock()
		kept := scrub(r[:touched])
		p.mu.Lock()
		p.keepLocked(r, kept)
		return true
	}
	p.dirty = append(p.dirty, r[:touched])
	if !p.scrubbing {
		p.scrubbing = true
		go p.scrubber()
	}
	return true
}

// scrubber scrubs the released reservations, the latest first, until
// there are none or the pool closes.
func (p *memPool) scrubber() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.dirty) > 0 && !p.closed {
		r := p.dirty[len(p.dirty)-1]
		p.dirty[len(p.dirty)-1] = nil
		p.dirty = p.dirty[:len(p.dirty)-1]
		p.busy = uint64(cap(r))
		p.mu.Unlock()
		kept := scrub(r)
		p.mu.Lock()
		p.busy = 0
		p.keepLocked(r, kept)
	}
	p.scrubbing = false
	p.done.Broadcast()
}

// keepLocked keeps r, scrubbed, which left kept bytes resident, unless
// the pool closed or would keep too many bytes resident: then it unmaps
// r. p.mu is held.
func (p *memPool) keepLocked(r []byte, kept uint64) {
	if p.closed || p.resident+kept > poolResident {
		p.n--
		unreserve(r[:cap(r)])
	} else {
		if p.free == nil {
			p.free = map[uint64][]pooled{}
		}
		p.free[uint64(cap(r))] = append(p.free[uint64(cap(r))], pooled{r[:cap(r)], kept})
		p.resident += kept
	}
	p.done.Broadcast()
}

// wait waits, p.mu held, for a scrub to end or the scrubber to stop.
func (p *memPool) wait() {
	if p.done.L == nil {
		p.done.L = &p.mu
	}
	p.done.Wait()
}

// close unmaps what the pool holds, once the scrubber stopped; later
// puts are refused. A put scrubbing its reservation itself meanwhile
// still counts it (n), and unmaps it as it finds the pool closed.
func (p *memPool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for p.scrubbing {
		p.wait()
	}
	for _, rs := range p.free {
		for _, r := range rs {
			unreserve(r.res)
		}
		p.n -= len(rs)
	}
	for _, r := range p.dirty {
		unreserve(r[:cap(r)])
	}
	p.n -= len(p.dirty)
	p.free, p.dirty, p.resident = nil, nil, 0
}
