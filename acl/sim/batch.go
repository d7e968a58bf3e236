package sim

import (
	"cmp"
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/aclwasm/aclwasm/acl"
)

// A batch whose work, its bytes plus entryCost per entry, reaches fanWork
// spreads its copies over GOMAXPROCS goroutines, in pieces of at most
// pieceBytes bytes or pieceCopies entries: many bytes or many entries. A
// smaller one runs on the caller's goroutine, where starting goroutines
// would cost more than it saves: a helper goroutine starts on another
// core only after the scheduler wakes a thread for it, which took longer
// than copying 4 MiB on the CI machines (helpers took 1% of a 4 MiB
// batch's pieces), so fanning out at 512 KiB made a 1024 x 4 KiB batch
// slower (1.50x its loop instead of 1.69x in BenchmarkBatch; 0.88x instead
// of 1.55x on wasmtime, whose host calls run on a thread of their own).
const (
	entryCost   = 64
	fanWork     = 16 << 20
	pieceBytes  = 256 << 10
	pieceCopies = 256
)

// batch is a resolved batch copy: its sizes and spans, and the memory it
// holds once, however many entries name it. It keeps nothing of the
// caller's []acl.Copy, which the caller may reuse once the call returns.
type batch struct {
	ns       []uint64 // the size of copy i, as validated
	spans    []span   // dst and src of copy i at 2i and 2i+1
	allocs   []*alloc // each once, locked in id order
	at       map[*alloc]bool
	pins     []*pin
	pinned   map[*pin]bool
	writes   []iv // disjoint's scratch space
	reads    []iv
	fan      *fan // copyAll's, reused
	total    uint64
	pageable bool // some entry touches pageable host memory
}

// MemcpyBatch implements [acl.Backend]. Every entry is validated before any
// byte moves; an error names the entry ("copy 3: ..."). The simulator does
// not repeat [acl.CheckBatchLocation]: it runs entries in any direction, with
// the peer rule for device to device.
func (b *Backend) MemcpyBatch(ctx context.Context, cs []acl.Copy) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	j, err := b.batch(cs)
	if err != nil {
		return err
	}
	err = b.runBatch(haltOn(ctx), j)
	if c := b.clk; c != nil && err == nil {
		c.hostOp(ctx, nil, c.batchCost(j))
	}
	j.release()
	return err
}

// MemcpyBatchAsync implements [acl.Backend]: the batch is one queued
// operation. If an entry touches pageable host memory, the whole batch waits
// for the stream and runs before returning, as MemcpyAsync does.
func (b *Backend) MemcpyBatchAsync(ctx context.Context, cs []acl.Copy, sh acl.Stream) error {
	st, err := b.stream(sh)
	if err != nil {
		return err
	}
	j, err := b.batch(cs)
	if err != nil {
		return err
	}
	if j.total == 0 {
		j.release()
		return nil
	}
	return submit(ctx, st, j.pageable, j, [2]span{}, j)
}

// bytes is the batch's size, for stream.steal.
func (j *batch) bytes() uint64 { return j.total }

// run is the work of MemcpyBatchAsync.
func (j *batch) run(st *stream, _ [2]span, stop halt) error { return st.b.runBatch(stop, j) }

// batch resolves every entry and takes one reference on each allocation
// and pin the batch touches.
func (b *Backend) batch(cs []acl.Copy) (*batch, error) {
	j := batches.Get().(*batch)
	j.ns = slices.Grow(j.ns[:0], len(cs))[:len(cs)]
	j.spans = slices.Grow(j.spans[:0], 2*len(cs))[:2*len(cs)]
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		j.recycle()
		return nil, errClosed()
	}
	var lastD, lastS *alloc
	var lastP *pin
	for i, c := range cs {
		j.ns[i] = c.N
		if c.N == 0 {
			continue
		}
		// Entries mostly fall in the allocation of the entry before: that
		// needs no lookup (under mu, what was live stays live). Written out
		// for each side: a helper holding both steps is not inlined, and
		// its call cost a 1024 x 64 B batch a third of its lead over the
		// loop (goal 5). Each side is resolved in place: a span returned
		// and then stored cost more than the checks.
		d, s := &j.spans[2*i], &j.spans[2*i+1]
		if !within(d, lastD, c.Dst, c.N) && !hostBytes(d, c.Dst, c.N) {
			var err error
			if *d, err = b.resolveLocked(c.Dst, c.N, true, "dst"); err != nil {
				j.recycle()
				return nil, entryErr(i, err)
			}
		}
		if !within(s, lastS, c.Src, c.N) && !hostBytes(s, c.Src, c.N) {
			var err error
			if *s, err = b.resolveLocked(c.Src, c.N, false, "src"); err != nil {
				j.recycle()
				return nil, entryErr(i, err)
			}
		}
		if d.a != nil && s.a != nil && d.a.dev != s.a.dev {
			if err := b.peerLocked(*d, *s); err != nil {
				j.recycle()
				return nil, entryErr(i, err)
			}
		}
		j.total += c.N
		j.pageable = j.pageable || d.pageable() || s.pageable()
		if d.a != nil && d.a != lastD {
			j.addAlloc(d.a)
			lastD = d.a
		}
		if s.a != nil && s.a != lastS {
			j.addAlloc(s.a)
			lastS = s.a
		}
		for _, p := range [2]*pin{d.pin, s.pin} {
			if p == nil || p == lastP {
				continue
			}
			lastP = p
			if !j.pinned[p] {
				if j.pinned == nil {
					j.pinned = map[*pin]bool{}
				}
				j.pinned[p] = true
				j.pins = append(j.pins, p)
			}
		}
	}
	slices.SortFunc(j.allocs, func(x, y *alloc) int { return cmp.Compare(x.id, y.id) })
	for k, a := range j.allocs {
		if !a.take() {
			for _, held := range j.allocs[:k] {
				held.refs.release()
			}
			j.recycle()
			return nil, errFreeing("batch entry", a.base, a)
		}
	}
	for k, p := range j.pins {
		if !p.take() {
			for _, a := range j.allocs {
				a.refs.release()
			}
			for _, held := range j.pins[:k] {
				held.refs.release()
			}
			j.recycle()
			return nil, errUnregistering("batch entry", p.h)
		}
	}
	return j, nil
}

// within resolves x, n bytes, as a range of allocation a (nil: none) into
// *sp, reporting whether it is one.
func within(sp *span, a *alloc, x acl.Buf, n uint64) bool {
	if a == nil || x.Host != nil || x.Dev < a.base {
		return false
	}
	off := uint64(x.Dev - a.base)
	if off >= a.size || n > a.size-off {
		return false
	}
	*sp = span{a: a, off: off}
	return true
}

// hostBytes resolves x, n bytes, as pageable host bytes into *sp (what
// resolveLocked makes of them), reporting whether they are: inline, where
// resolveLocked's call and its span returned cost the host side of each
// entry more than the check.
func hostBytes(sp *span, x acl.Buf, n uint64) bool {
	if x.Host == nil || x.Dev != 0 || x.Pin != 0 || uint64(len(x.Host)) < n {
		return false
	}
	*sp = span{host: x.Host}
	return true
}

func entryErr(i int, err error) error {
	return acl.Errorf(acl.CodeOf(err), "copy %d: %s", i, acl.MessageOf(err))
}

func (j *batch) addAlloc(a *alloc) {
	if j.at == nil {
		j.at = map[*alloc]bool{}
	}
	if !j.at[a] {
		j.at[a] = true
		j.allocs = append(j.allocs, a)
	}
}

// release drops the batch's references and recycles it.
func (j *batch) release() {
	for _, a := range j.allocs {
		a.refs.release()
	}
	for _, p := range j.pins {
		p.refs.release()
	}
	j.recycle()
}

// batches recycles batch structures: a big batch's spans are the one
// allocation per call worth saving.
var batches = sync.Pool{New: func() any { return new(batch) }}

func (j *batch) recycle() {
	clear(j.spans) // drop the references to memory and host slices
	clear(j.allocs)
	clear(j.pins)
	clear(j.at)
	clear(j.pinned)
	*j = batch{ns: j.ns[:0], spans: j.spans[:0], allocs: j.allocs[:0], pins: j.pins[:0], at: j.at, pinned: j.pinned, writes: j.writes[:0], reads: j.reads[:0], fan: j.fan}
	batches.Put(j)
}

// runBatch copies every entry under the data locks of all the batch's
// allocations, taken in id order, stopping between two chunks (or pieces)
// when h says.
func (b *Backend) runBatch(h halt, j *batch) error {
	for _, a := range j.allocs {
		a.mu.Lock()
	}
	err := j.copyAll(h)
	for _, a := range j.allocs {
		a.mu.Unlock()
	}
	return err
}

// piece is a share of a fanned-out batch: copies [i, j), or, when n > 0,
// bytes [off, off+n) of copy i.
type piece struct {
	i, j   int
	off, n uint64
}

func (j *batch) copyAll(h halt) error {
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 || j.total+entryCost*uint64(len(j.ns)) < fanWork || !j.disjoint() {
		var since uint64 // bytes copied since the last look at h
		for i, n := range j.ns {
			if n > chunk {
				if err := move(h, j.dst(i, 0, n), j.src(i, 0, n)); err != nil {
					return err
				}
				continue
			}
			if since += n; since >= chunk {
				if err := h.err(); err != nil {
					return err
				}
				since = 0
			}
			j.copyOne(i, 0, n)
		}
		return nil
	}
	f := j.fan
	if f == nil {
		f = &fan{j: j}
		j.fan = f
	}
	ps := f.ps[:0]
	start, acc := 0, uint64(0)
	for i, n := range j.ns {
		if n > pieceBytes {
			if i > start {
				ps = append(ps, piece{i: start, j: i})
			}
			for off := uint64(0); off < n; off += pieceBytes {
				ps = append(ps, piece{i: i, j: i + 1, off: off, n: min(pieceBytes, n-off)})
			}
			start, acc = i+1, 0
			continue
		}
		acc += n
		if acc >= pieceBytes || i+1-start >= pieceCopies {
			ps = append(ps, piece{i: start, j: i + 1})
			start, acc = i+1, 0
		}
	}
	if start < len(j.ns) {
		ps = append(ps, piece{i: start, j: len(j.ns)})
	}
	f.ps, f.h = ps, h
	f.next.Store(0)
	f.stopped.Store(nil)
	helpers := min(workers, len(ps)) - 1
	f.live.Store(int32(helpers))
	for range helpers {
		go f.helper()
	}
	f.work()
	// Every piece is claimed (or the batch stopped): wait only for the
	// pieces helpers are copying, without parking. A caller that parks
	// here and is locked to its thread (a wasmtime host call runs in a
	// cgo callback) costs two thread hand-offs, which made a 4 MiB batch
	// slower than the same copies one call each. A helper that has not
	// started yet finds nothing to do; it keeps this fan, and the batch
	// takes a new one.
	for spins := 0; f.busy.Load() != 0; spins++ {
		if spins > 1<<12 {
			runtime.Gosched()
		}
	}
	for spins := 0; f.live.Load() != 0 && spins < 1<<10; spins++ {
		// a helper past its last piece returns at once
	}
	err := f.stopped.Load()
	if f.live.Load() == 0 {
		f.ps, f.h = ps[:0], halt{}
	} else {
		j.fan = nil
	}
	if err != nil {
		return *err
	}
	return nil
}

// fan is the shared state of a fanned-out batch's goroutines, kept with
// the pooled batch so that fanning out allocates nothing.
type fan struct {
	j       *batch
	h       halt
	ps      []piece
	next    atomic.Int64 // the next piece to take
	busy    atomic.Int32 // goroutines between taking a piece and finishing it
	live    atomic.Int32 // helpers that have not returned
	stopped atomic.Pointer[error]
}

// stop records the first reason to stop. (Taking the address of the
// loop's own error would allocate one per piece.)
func (f *fan) stop(err error) { f.stopped.CompareAndSwap(nil, &err) }

func (f *fan) helper() {
	defer f.live.Add(-1)
	f.work()
}

// work copies pieces until there are none left or h says to stop. busy
// counts it from before it takes a piece until the piece is copied, so
// that once every piece is taken, busy at 0 means every copy is done.
func (f *fan) work() {
	for {
		f.busy.Add(1)
		k := int(f.next.Add(1) - 1)
		if k >= len(f.ps) || f.stopped.Load() != nil {
			f.busy.Add(-1)
			return
		}
		if err := f.h.err(); err != nil {
			f.stop(err)
			f.busy.Add(-1)
			return
		}
		p := f.ps[k]
		if p.n > 0 {
			f.j.copyOne(p.i, p.off, p.n)
		} else {
			for i := p.i; i < p.j; i++ {
				f.j.copyOne(i, 0, f.j.ns[i])
			}
		}
		f.busy.Add(-1)
	}
}

// disjoint reports whether no byte one entry writes is read or written by
// any other entry (or piece). Natively the order of dependent entries is
// undefined; here only disjoint batches fan out, so that a guest's
// overlapping batch runs in order instead of racing on the host's memory.
// It reuses the batch's interval slices and sorts them only when they are
// not in address order already (entries usually are), so a fanned-out
// batch allocates nothing and checks in linear time.
func (j *batch) disjoint() bool {
	j.writes, j.reads = j.writes[:0], j.reads[:0]
	for i, n := range j.ns {
		if n == 0 {
			continue
		}
		d := uintptr(unsafe.Pointer(unsafe.SliceData(j.spans[2*i].bytes(n))))
		s := uintptr(unsafe.Pointer(unsafe.SliceData(j.spans[2*i+1].bytes(n))))
		j.writes = append(j.writes, iv{d, d + uintptr(n)})
		j.reads = append(j.reads, iv{s, s + uintptr(n)})
	}
	byLo := func(x, y iv) int { return cmp.Compare(x.lo, y.lo) }
	for _, v := range [2][]iv{j.writes, j.reads} {
		if !slices.IsSortedFunc(v, byLo) {
			slices.SortFunc(v, byLo)
		}
	}
	// Writes must not overlap each other; reads may overlap reads but no
	// write: merge the two sorted lists.
	for k := 1; k < len(j.writes); k++ {
		if j.writes[k].lo < j.writes[k-1].hi {
			return false
		}
	}
	w := 0
	for _, r := range j.reads {
		for w < len(j.writes) && j.writes[w].hi <= r.lo {
			w++
		}
		if w < len(j.writes) && j.writes[w].lo < r.hi {
			return false
		}
	}
	return true
}

// iv is the address interval [lo, hi) of one side of a copy.
type iv struct{ lo, hi uintptr }

// copyOne copies bytes [off, off+n) of copy i.
func (j *batch) copyOne(i int, off, n uint64) {
	if n == 0 {
		return
	}
	copy(j.dst(i, off, n), j.src(i, off, n))
}

// dst and src return bytes [off, off+n) of copy i's destination and source.
func (j *batch) dst(i int, off, n uint64) []byte { return j.spans[2*i].bytes(off + n)[off:] }
func (j *batch) src(i int, off, n uint64) []byte { return j.spans[2*i+1].bytes(off + n)[off:] }
