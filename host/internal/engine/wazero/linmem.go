package wazero

import (
	"sync"

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
	size  uint64 // current length
	refs  int    // engine + session
	freed bool   // the engine has let go
	max   uint64
}

// newLinearMemory reserves max bytes. The engine and the session each hold
// a reference; the reservation is released when both have let go.
func newLinearMemory(max uint64) *linearMemory {
	m := &linearMemory{max: max, refs: 2}
	var err error
	if m.res, err = reserve(max); err != nil {
		m.res, m.heap = make([]byte, max), true // Go does not move heap objects either
	}
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
	return m.res[:size:size]
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

// Release drops one reference and unmaps the reservation with the last:
// the session's (engine.Invoker.Hold), after its streams stopped.
func (m *linearMemory) Release() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.refs--
	if m.refs == 0 && m.res != nil {
		if !m.heap {
			unreserve(m.res)
		}
		m.res = nil
		engine.LiveMemories.Add(-1)
	}
}
