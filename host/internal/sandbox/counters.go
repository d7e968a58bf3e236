package sandbox

import (
	"iter"
	"math/bits"
	"sync/atomic"
	"time"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// SetSlot is the counter slot of the bytes memset functions set, after
// the four directions' (acl.Direction).
const SetSlot = 4

// stats is the hot-path form of the statistics (host.Stats): counters
// indexed by function, so that a call costs two loads and two increments
// and no map access unless it fails. Each function's are made at its first
// call, in chunks of statChunk functions: an idle session holds only those
// of the functions it called, and a session that calls a few (a command
// run per request) one or two chunks, not a pointer per function of the
// ABI. Bytes are atomic: descriptor and offset copies count theirs on
// stream workers, when they execute.
type stats struct {
	fn    [statChunks]*[statChunk]*fnStat // by index in abi.Funcs (at), chunks nil until a call of one of theirs
	spare []fnStat                        // counters made ahead for the next functions called: statSlab at a time
	host  map[string]*hostCount           // functions outside module "acl", by module.name
	hostK []*hostCount                    // the same by index in Shared.hostFuncs: no map access per call
	// off: the session counts nothing of module "acl" (Config.NoStats):
	// of and at return nil, and the counters are never made.
	off bool
	// memcpy is aclrtMemcpy's counters once memcpyFast has made them
	// (of): one load instead of of's call on every small copy.
	memcpy *fnStat
}

// The chunks of stats.fn: statChunks of statChunk functions hold every
// function of module "acl" (checked at init).
const (
	statChunk  = 32
	statChunks = 16
)

func init() {
	if len(abi.Funcs) > statChunks*statChunk {
		panic("host: stats.fn holds the counters of fewer functions than abi.Funcs has: raise statChunks")
	}
}

// statSlab is how many functions' counters are made in one allocation.
const statSlab = 4

// at returns the counters of acl function fi, which its first call made,
// or nil when the session counts nothing.
func (st *stats) at(fi int) *fnStat {
	if st.off {
		return nil
	}
	return st.fn[fi/statChunk][fi%statChunk]
}

// fnStat counts the calls of one acl function.
type fnStat struct {
	calls uint64
	own   [5]uint64 // bytes counted by the calls themselves (by direction, then SetSlot): no atomic on the call path
	bytes [5]atomic.Uint64
	errs  map[acl.Error]uint64
	// Launches of compute this function queued (operator.go), counted on
	// stream workers as they execute: those that ran, those that failed
	// there, and the time they ran.
	ran, runFailed atomic.Uint64
	runNs          atomic.Int64
}

// hostCount counts the calls of a host function outside module "acl".
type hostCount struct {
	calls uint64
	errs  map[acl.Error]uint64
}

// hostStat returns the counters of host function k of n (its index in
// Shared.hostFuncs), named name, made at its first call.
func (st *stats) hostStat(k, n int, name string) *hostCount {
	if k < len(st.hostK) && st.hostK[k] != nil {
		return st.hostK[k]
	}
	return st.newHostStat(k, n, name)
}

// newHostStat is hostStat's first call for host function k, apart so
// that the lookup inlines into the host call's path.
func (st *stats) newHostStat(k, n int, name string) *hostCount {
	if st.host == nil {
		st.host = map[string]*hostCount{}
	}
	if len(st.hostK) < n {
		st.hostK = append(st.hostK, make([]*hostCount, n-len(st.hostK))...)
	}
	hc := &hostCount{}
	st.host[name] = hc
	st.hostK[k] = hc
	return hc
}

// fail counts a failed call with code.
func (hc *hostCount) fail(code acl.Error) {
	if hc.errs == nil {
		hc.errs = map[acl.Error]uint64{}
	}
	hc.errs[code]++
}

// of returns the counters of acl function fi, made at its first call
// (Session.invoke), or nil when the session counts nothing. Stream workers
// count bytes into those of a function whose call queued the work, so
// made before.
func (st *stats) of(fi int) *fnStat {
	c := st.fn[fi/statChunk]
	if c != nil {
		if f := c[fi%statChunk]; f != nil {
			return f
		}
	} else {
		if st.off { // no chunk is ever made: the common path is untouched
			return nil
		}
		c = new([statChunk]*fnStat)
		st.fn[fi/statChunk] = c
	}
	if len(st.spare) == 0 {
		st.spare = make([]fnStat, statSlab)
	}
	f := &st.spare[0]
	st.spare = st.spare[1:]
	c[fi%statChunk] = f
	return f
}

// all yields the counters of every acl function called, by index in
// abi.Funcs, in its order.
func (st *stats) all() iter.Seq2[int, *fnStat] {
	return func(yield func(int, *fnStat) bool) {
		for k, c := range st.fn {
			if c == nil {
				continue
			}
			for j, f := range c {
				if f != nil && !yield(k*statChunk+j, f) {
					return
				}
			}
		}
	}
}

// count counts a call of the function, failed with code when failed;
// nothing when f is nil (the session counts nothing).
func (f *fnStat) count(failed bool, code acl.Error) {
	if f == nil {
		return
	}
	f.calls++
	if failed {
		f.fail(code)
	}
}

// ranLaunch counts a launch of compute the function queued, which ran
// for d and failed with err; nothing when f is nil.
func (f *fnStat) ranLaunch(d time.Duration, err error) {
	if f == nil {
		return
	}
	f.ran.Add(1)
	f.runNs.Add(int64(d))
	if err != nil {
		f.runFailed.Add(1)
	}
}

func (f *fnStat) fail(code acl.Error) {
	if f.errs == nil {
		f.errs = map[acl.Error]uint64{}
	}
	f.errs[code]++
}

// FuncCount is what the session counted of one function: its calls, its
// errors by code and the bytes it moved, by acl.Direction and then the
// bytes it set (index 4).
type FuncCount struct {
	Name   string
	Calls  uint64
	Errors map[acl.Error]uint64
	Bytes  [5]uint64
	// Launches is the compute the function queued that executed (an
	// operator's launches, a kernel launcher's: on a backend that runs
	// kernel binaries, those queued), LaunchFailures those of them that
	// failed there, Compute the time they ran.
	Launches, LaunchFailures uint64
	Compute                  time.Duration
}

// Counts returns the session's counts of every function it called, those
// of module "acl" first. Call it between the session's host calls.
func (s *Session) Counts() []FuncCount {
	st := &s.stats
	n := len(st.host)
	for _, f := range st.all() {
		if f.calls != 0 {
			n++
		}
	}
	out := make([]FuncCount, 0, n)
	for i, f := range st.all() {
		if f.calls == 0 {
			continue
		}
		fc := FuncCount{Name: abi.Funcs[i].Name, Calls: f.calls, Errors: f.errs,
			Launches: f.ran.Load(), LaunchFailures: f.runFailed.Load(), Compute: time.Duration(f.runNs.Load())}
		for d := range f.bytes {
			fc.Bytes[d] = f.own[d] + f.bytes[d].Load()
		}
		out = append(out, fc)
	}
	for name, h := range st.host {
		fc := FuncCount{Name: name, Calls: h.calls, Errors: h.errs}
		if lc := s.klaunch[name]; lc != nil { // a kernel's launcher
			fc.Launches, fc.LaunchFailures, fc.Compute = lc.launches(), lc.failed.Load(), lc.compute()
		}
		out = append(out, fc)
	}
	return out
}

// movedWhenRun counts n bytes in direction d for the current function once
// the copy just queued on st has run: at once if it ran before returning
// (queued false: it touched unregistered guest memory) or st is idle
// (ran), else through the backend's OnComplete, so that work cancelled
// before it ran is never counted.
func (c *Call) movedWhenRun(st *streamRec, queued bool, d acl.Direction, n uint64) {
	if !queued {
		c.moved(d, n)
		return
	}
	if c.ran(st) {
		c.moved(d, n)
		return
	}
	s, fi := c.s, c.fi
	// A mark refused leaves the bytes uncounted: its stream is going away,
	// and with it, most likely, the copy.
	_ = c.s.b.OnComplete(st.h, func() { s.countBytes(fi, d, n) })
}

// ran reports whether st is known idle: what was just queued on it has
// run. A small copy on an idle stream mostly has (the simulator runs it in
// the call that queues it), and asking costs far less than a mark (a
// closure and a queued operation); a native stream is asked nothing
// (acl.Backend.Idle).
func (c *Call) ran(st *streamRec) bool {
	if !c.s.b.Idle(st.h) {
		return false
	}
	st.queued = 0
	return true
}

// set counts n bytes set by the current (memset) function: at once, or,
// queued on st, once the memset has run, as movedWhenRun does for copies.
func (c *Call) set(st *streamRec, n uint64) {
	if st != nil && !c.ran(st) {
		s, fi := c.s, c.fi
		f := s.stats.at(fi)
		if f == nil { // nothing to count once it has run
			return
		}
		_ = c.s.b.OnComplete(st.h, func() { f.bytes[SetSlot].Add(n) })
		return
	}
	if f := c.s.stats.at(c.fi); f != nil {
		f.own[SetSlot] += n
	}
}

// budget fails with 207012 when one call would move (or set) more than the
// policy's MaxCallBytes. The copy paths call it after their checks and
// before any effect.
func (c *Call) budget(n uint64) error {
	if max := c.s.policy.MaxCallBytes; n > max {
		return acl.Errorf(acl.ErrRTOverLimit, "the call would move %d bytes, more than the policy's %d bytes per call (MaxCallBytes)", n, max)
	}
	return nil
}

// total returns the sum of sizes, or the largest uint64 when it overflows.
func total(sizes acl.Words) uint64 {
	var sum uint64
	for i := range sizes.Len() {
		var carry uint64
		if sum, carry = bits.Add64(sum, sizes.At(i), 0); carry != 0 {
			return ^uint64(0)
		}
	}
	return sum
}
