package sim

import (
	"sync"
	"sync/atomic"

	"github.com/aclwasm/aclwasm/acl"
)

// table maps ids to live values: allocations by id, streams and events by
// handle. Lookups take no lock and hash nothing: every copy looks up its
// allocations and every asynchronous call its stream, on every core, so a
// lookup must cost a few loads (a sync.Map hashed an interface key, a map
// under the backend's RWMutex took two atomic operations on a shared
// word, and each cost more than the rest of a small copy's checks). Ids
// are handed out in increasing order and never reused, so the table is a
// directory of fixed pages indexed by id. A page whose values are all
// gone, below the page of the highest id stored, is dropped: no later id
// can land there, so memory follows the live values, not the number ever
// made (the directory keeps a word per page).
//
// Writers of one value (put, del) hold the table's own lock and
// Backend.mu, shared or exclusive; clear and each (a walk) hold Backend.mu
// exclusively; readers (get) hold nothing.
type table[T any] struct {
	mu  sync.Mutex // put and del, which may run at once under Backend.mu shared
	dir atomic.Pointer[[]atomic.Pointer[page[T]]]
	top uint64 // the highest id stored, under mu
}

const pageBits = 9 // ids per page: 512

type page[T any] struct {
	slots [1 << pageBits]atomic.Pointer[T]
	live  int // values stored and not deleted, under table.mu
}

// get returns the value of id, or nil.
func (t *table[T]) get(id uint64) *T {
	d := t.dir.Load()
	if d == nil || id>>pageBits >= uint64(len(*d)) {
		return nil
	}
	p := (*d)[id>>pageBits].Load()
	if p == nil {
		return nil
	}
	return p.slots[id&(1<<pageBits-1)].Load()
}

// put stores v under id, which is higher than every id stored before on
// another page, growing the directory as needed.
func (t *table[T]) put(id uint64, v *T) {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := id >> pageBits
	d := t.dir.Load()
	if d == nil || i >= uint64(len(*d)) {
		n := make([]atomic.Pointer[page[T]], max(2*(i+1), 8))
		if d != nil {
			for k := range *d {
				n[k].Store((*d)[k].Load())
			}
		}
		t.dir.Store(&n)
		d = &n
	}
	p := (*d)[i].Load()
	if p == nil {
		p = new(page[T])
		(*d)[i].Store(p)
	}
	if p.slots[id&(1<<pageBits-1)].Swap(v) == nil {
		p.live++
	}
	t.top = max(t.top, id)
}

// del drops the value of id, and its page once the page holds nothing and
// lies below the highest id stored. It reports whether it dropped a value:
// of two dels of one id at once, one does.
func (t *table[T]) del(id uint64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := t.dir.Load()
	if d == nil || id>>pageBits >= uint64(len(*d)) {
		return false
	}
	slot := &(*d)[id>>pageBits]
	p := slot.Load()
	if p == nil || p.slots[id&(1<<pageBits-1)].Swap(nil) == nil {
		return false
	}
	p.live--
	if p.live == 0 && id>>pageBits < t.top>>pageBits {
		slot.Store(nil)
	}
	return true
}

// each calls f with every value, in id order.
func (t *table[T]) each(f func(*T)) {
	d := t.dir.Load()
	if d == nil {
		return
	}
	for i := range *d {
		if p := (*d)[i].Load(); p != nil {
			for k := range p.slots {
				if v := p.slots[k].Load(); v != nil {
					f(v)
				}
			}
		}
	}
}

// clear drops every value.
func (t *table[T]) clear() { t.dir.Store(nil) }

// remove takes the live entry id (an event or a notify: what names it in
// the error) out of t for its destruction. Of two removals at once, one
// wins; the other gets the error of a handle that is not live.
func remove[T any](b *Backend, t *table[T], id uint64, what string) (*T, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	v := t.get(id)
	switch {
	case b.closed:
		return nil, errClosed()
	case v == nil || !t.del(id):
		return nil, acl.Errorf(acl.ErrRTInvalidHandle, "%s %d is not a live %s", what, id, what)
	}
	return v, nil
}
