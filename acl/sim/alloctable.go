package sim

import "sync/atomic"

// allocTable maps allocation ids to live allocations. Lookups take no lock
// and hash nothing: the synchronous copy path reads it on every call, on
// every core, so it must cost a few loads (a sync.Map, hashing an
// interface key, cost more than the rest of a small copy's lookup). Ids
// are handed out in order and never reused, so the table is a directory
// of fixed pages indexed by id: a page whose every id was handed out and
// freed is dropped, so memory follows the live allocations, not the
// number ever made (the directory keeps a word per page).
//
// Writers (put, del, clear) hold Backend.mu; readers hold nothing.
type allocTable struct {
	dir atomic.Pointer[[]atomic.Pointer[allocPage]]
}

const pageBits = 9 // ids per page: 512

type allocPage struct {
	slots [1 << pageBits]atomic.Pointer[alloc]
	freed int // ids of the page freed so far, under Backend.mu
}

// get returns the live allocation with id, or nil.
func (t *allocTable) get(id uint64) *alloc {
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

// put records a under its id, growing the directory as needed.
func (t *allocTable) put(a *alloc) {
	i := a.id >> pageBits
	d := t.dir.Load()
	if d == nil || i >= uint64(len(*d)) {
		n := make([]atomic.Pointer[allocPage], max(2*(i+1), 8))
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
		p = new(allocPage)
		(*d)[i].Store(p)
	}
	p.slots[a.id&(1<<pageBits-1)].Store(a)
}

// del drops the allocation with id; once every id of its page has been
// freed, the page goes too. id 0 is never handed out: page 0 counts it as
// freed from the start.
func (t *allocTable) del(id uint64) {
	d := t.dir.Load()
	if d == nil || id>>pageBits >= uint64(len(*d)) {
		return
	}
	slot := &(*d)[id>>pageBits]
	p := slot.Load()
	if p == nil || p.slots[id&(1<<pageBits-1)].Swap(nil) == nil {
		return
	}
	p.freed++
	if full := 1 << pageBits; p.freed == full || (id>>pageBits == 0 && p.freed == full-1) {
		slot.Store(nil)
	}
}

// clear drops every allocation.
func (t *allocTable) clear() { t.dir.Store(nil) }
