package host

import (
	"sync/atomic"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// Stats counts what a session did: calls, errors by code and bytes moved by
// direction, per function. Bytes count when they move: those of a queued
// copy when it has run, so that work cancelled before it ran (a timeout,
// a trap) is not counted.
type Stats struct {
	Funcs map[string]FuncStats
	// Bytes moved by direction ("H2D", "D2H", "D2D", "H2H") over all functions.
	Bytes map[string]uint64
	// Set is the bytes the memset functions set (device or guest
	// memory), which move nowhere, so Bytes leaves them out.
	Set uint64
}

// FuncStats is the part of Stats about one function.
type FuncStats struct {
	Calls  uint64
	Errors map[acl.Error]uint64
	Bytes  map[string]uint64 // by direction
	Set    uint64            // bytes set (Stats.Set)
}

// setSlot is the counter slot of the bytes memset functions set, after
// the four directions' (acl.Direction).
const setSlot = 4

// stats is the hot-path form of Stats: arrays indexed by function, so that
// a call costs two increments and no map access unless it fails. Bytes are
// atomic: descriptor and offset copies count theirs on stream workers, when
// they execute.
type stats struct {
	calls []uint64
	own   [][5]uint64 // bytes counted by the calls themselves (by direction, then setSlot): no atomic on the call path
	bytes [][5]atomic.Uint64
	errs  []map[acl.Error]uint64
	host  map[string]*FuncStats // functions outside module "acl", by module.name
}

// hostStat returns the counters of the host function named name.
func (st *stats) hostStat(name string) *FuncStats {
	if st.host == nil {
		st.host = map[string]*FuncStats{}
	}
	fs := st.host[name]
	if fs == nil {
		fs = &FuncStats{Errors: map[acl.Error]uint64{}, Bytes: map[string]uint64{}}
		st.host[name] = fs
	}
	return fs
}

// init makes the counters of the acl functions, at a session's first
// call of one (Session.invoke): a session that calls none (a
// short-lived or pooled instance) allocates none of these 10 KB.
func (st *stats) init() {
	n := len(abi.Funcs)
	st.calls = make([]uint64, n)
	st.own = make([][5]uint64, n)
	st.bytes = make([][5]atomic.Uint64, n)
	st.errs = make([]map[acl.Error]uint64, n)
}

func (st *stats) fail(fi int, code acl.Error) {
	if st.errs[fi] == nil {
		st.errs[fi] = map[acl.Error]uint64{}
	}
	st.errs[fi][code]++
}

func (st *stats) snapshot() Stats {
	out := Stats{Funcs: map[string]FuncStats{}, Bytes: map[string]uint64{}}
	for i, n := range st.calls {
		if n == 0 {
			continue
		}
		fs := FuncStats{Calls: n, Errors: map[acl.Error]uint64{}, Bytes: map[string]uint64{}}
		for c, k := range st.errs[i] {
			fs.Errors[c] = k
		}
		for d := range st.bytes[i] {
			b := st.own[i][d] + st.bytes[i][d].Load()
			if d == setSlot {
				fs.Set = b
				out.Set += b
				continue
			}
			if b != 0 {
				name := acl.Direction(d).String()
				fs.Bytes[name] = b
				out.Bytes[name] += b
			}
		}
		out.Funcs[abi.Funcs[i].Name] = fs
	}
	for name, h := range st.host {
		fs := FuncStats{Calls: h.Calls, Errors: map[acl.Error]uint64{}, Bytes: map[string]uint64{}}
		for c, k := range h.Errors {
			fs.Errors[c] = k
		}
		out.Funcs[name] = fs
	}
	return out
}

// movedWhenRun counts n bytes in direction d for the current function once
// the copy just queued on st has run: at once if it ran before returning
// (queued false: it touched unregistered guest memory), else through the
// backend's acl.Completer, so that work cancelled before it ran is never
// counted. A backend without Completer has them counted when queued.
func (c *call) movedWhenRun(st *streamRec, queued bool, d acl.Direction, n uint64) {
	cp, ok := c.s.b.(acl.Completer)
	if !queued || !ok {
		c.moved(d, n)
		return
	}
	s, fi := c.s, c.fi
	// A mark refused leaves the bytes uncounted: its stream is going away,
	// and with it, most likely, the copy.
	_ = cp.OnComplete(st.h, func() { s.countBytes(fi, d, n) })
}

// set counts n bytes set by the current (memset) function: at once, or,
// queued on st, once the memset has run, as movedWhenRun does for copies.
func (c *call) set(st *streamRec, n uint64) {
	if cp, ok := c.s.b.(acl.Completer); st != nil && ok {
		s, fi := c.s, c.fi
		_ = cp.OnComplete(st.h, func() { s.stats.bytes[fi][setSlot].Add(n) })
		return
	}
	c.s.stats.own[c.fi][setSlot] += n
}
