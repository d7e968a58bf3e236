package sim

import (
	"context"
	"math"
	"sync"
	"time"
)

// The timing model (WithTiming) is a discrete-event simulation of the
// device on a virtual clock, run beside the real work: the stream workers
// still move the bytes as fast as this machine can, and the model says when
// each operation would have started and ended on the chip. Times are
// float64 nanoseconds since New; what the model computes depends only on
// the sequence of calls (and on how long host functions run, which is the
// host's own time), never on how fast this machine copies. Pacing
// (WithPacing) adds the wall clock.
//
// The clock has one reading, now: the host's time, which is also how far
// the model has run. Calls are instants at now; only waiting moves now
// forward (a synchronize, a synchronous copy, a poll that finds work not
// done, room in a full queue). An operation queued at now therefore starts
// at now or later, so nothing the model has decided before now can change:
// the model runs lazily, to the next time someone needs, and what it has
// computed up to now is final.
//
// Every device has three links: host to device and device to host (the two
// directions of its host interface) and its own memory (a copy within the
// device, a memset); every ordered pair of devices has a peer link.
// Transfers on a link share its bandwidth equally (processor sharing),
// whichever streams, sessions or synchronous callers they come from.

// linkKind is what a link connects.
type linkKind uint8

const (
	linkH2D  linkKind = iota // host to device a
	linkD2H                  // device a to host
	linkHBM                  // within device a
	linkPeer                 // device a to device b
)

type linkKey struct {
	kind linkKind
	a, b int32
}

// link is one direction of one connection.
type link struct {
	bw float64 // bytes per modeled nanosecond
	n  int     // transfers on it now
}

// rate is the bandwidth each of the link's transfers gets now.
func (l *link) rate() float64 { return l.bw / float64(l.n) }

// flow is an operation's transfer over one link.
type flow struct {
	l    *link // nil once done
	key  linkKey
	left float64 // bytes
}

// vkind is what an operation is to the model.
type vkind uint8

const (
	vNone   vkind = iota // takes no modeled time: the host's completion marks
	vWork                // the launch latency, then its flows at once
	vRecord              // an event record or reset: its end is the timestamp
	vWait                // a stream's wait for rec
	vHost                // a host function: as long as it really ran
)

type vstate uint8

const (
	vQueued  vstate = iota
	vRunning        // a host function that started at t and has not returned
	vWaiting        // a wait not over yet; with a timeout, it ends at t
	vTimed          // until t: a launch latency, a host function's run
	vFlow           // its flows run
	vDone           // at end
)

// vop is an operation as the model sees it. Its fields are guarded by
// clock.mu.
type vop struct {
	kind  vkind
	state vstate
	flows []flow
	rec   *record // vRecord: the record it stamps; vWait: the one it waits for
	ev    *event  // vWait: the event, whose destruction ends the wait
	t     float64 // vRunning: when it started; vTimed: when it ends
	end   float64 // vDone: when it completed
	ran   bool    // vHost: the function has returned, after dur
	dur   float64
	tmo   float64 // vWait: its timeout (0: none)
	one   [1]flow // room for the one flow most operations have
}

func (v *vop) done() bool { return v != nil && v.state == vDone }

// vstream is a stream's queue as the model sees it: the operations not
// done in modeled time, in order. sub and done count operations submitted
// and completed, in step with the stream's own enq and done.
type vstream struct {
	q      []*vop
	sub    uint64
	done   uint64
	dead   bool // its queued work was cancelled: its waits end
	listed bool // in clock.active
}

// clock is the timing model of one Backend.
type clock struct {
	prof   profile
	depth  int
	paced  bool
	origin time.Time

	mu     sync.Mutex
	now    float64
	active []*vstream // streams with operations not done
	links  map[linkKey]*link
}

func newClock(prof profile, depth int, paced bool) *clock {
	return &clock{prof: prof, depth: depth, paced: paced, origin: time.Now(), links: map[linkKey]*link{}}
}

// cost is the model of an operation that moves bytes; a flow of 0 bytes
// is left out, and one with no flow at all touches no device memory and
// takes no modeled time.
func (c *clock) cost(fs ...flow) *vop {
	v := &vop{kind: vWork}
	v.flows = v.one[:0]
	for _, f := range fs {
		if f.left > 0 {
			v.flows = addFlow(v.flows, f.key, f.left)
		}
	}
	if len(v.flows) == 0 {
		v.kind = vNone
	}
	return v
}

// addFlow adds n bytes over key to fs.
func addFlow(fs []flow, key linkKey, n float64) []flow {
	for i := range fs {
		if fs[i].key == key {
			fs[i].left += n
			return fs
		}
	}
	return append(fs, flow{key: key, left: n})
}

// path returns the link a copy of device memory (or host memory, for
// nil) to device memory (or host memory) takes, and false for a copy
// between host memory.
func path(dst, src *device) (linkKey, bool) {
	switch {
	case dst != nil && src != nil && dst == src:
		return linkKey{kind: linkHBM, a: dst.id}, true
	case dst != nil && src != nil:
		return linkKey{kind: linkPeer, a: src.id, b: dst.id}, true
	case dst != nil:
		return linkKey{kind: linkH2D, a: dst.id}, true
	case src != nil:
		return linkKey{kind: linkD2H, a: src.id}, true
	}
	return linkKey{}, false
}

// spanDev is the device of s, or nil for host memory.
func spanDev(s span) *device {
	if s.a == nil {
		return nil
	}
	return s.a.dev
}

// copyFlow is the flow of a copy of n bytes from s to d.
func copyFlow(d, s span, n uint64) flow {
	k, ok := path(spanDev(d), spanDev(s))
	if !ok {
		return flow{}
	}
	return flow{key: k, left: float64(n)}
}

// fillFlow is the flow of a memset of n bytes at d: device memory is
// written at the speed of a copy within the device.
func fillFlow(d span, n uint64) flow {
	if d.a == nil {
		return flow{}
	}
	return flow{key: linkKey{kind: linkHBM, a: d.a.dev.id}, left: float64(n)}
}

// workCost is the model of the work of an asynchronous copy or memset.
func (c *clock) workCost(w any, held [2]span) *vop {
	switch x := w.(type) {
	case xferOp:
		return c.cost(copyFlow(held[0], held[1], x.n))
	case rect:
		return c.cost(copyFlow(held[0], held[1], x.width*x.height))
	case fillOp:
		return c.cost(fillFlow(held[0], x.n))
	case fill32Op:
		return c.cost(fillFlow(held[0], x.n))
	case *batch:
		return c.batchCost(x)
	}
	return &vop{}
}

// batchCost is the model of a batch: one launch, then each link's share of
// the entries as one transfer.
func (c *clock) batchCost(j *batch) *vop {
	v := &vop{kind: vWork}
	v.flows = v.one[:0]
	for i, n := range j.ns {
		if n == 0 {
			continue
		}
		if k, ok := path(spanDev(j.spans[2*i]), spanDev(j.spans[2*i+1])); ok {
			v.flows = addFlow(v.flows, k, float64(n))
		}
	}
	if len(v.flows) == 0 {
		v.kind = vNone
	}
	return v
}

// link returns the link k, made on first use.
func (c *clock) link(k linkKey) *link {
	l := c.links[k]
	if l == nil {
		var bw float64
		switch k.kind {
		case linkH2D:
			bw = c.prof.h2d
		case linkD2H:
			bw = c.prof.d2h
		case linkHBM:
			bw = c.prof.d2d
		case linkPeer:
			bw = c.prof.peer
		}
		l = &link{bw: bw / 1e9}
		c.links[k] = l
	}
	return l
}

// submit appends v, the model of an operation just queued on a stream, to
// vs. The stream's lock is held, so the model sees a stream's operations in
// their queue's order. A stream that holds the configured depth of
// operations not done in modeled time makes the host wait for room, as a
// full native task queue would.
func (c *clock) submit(vs *vstream, v *vop) {
	if v == nil {
		v = &vop{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.catchUp()
	if c.depth > 0 && len(vs.q) >= c.depth {
		c.run(math.Inf(1), func() bool { return len(vs.q) < c.depth })
	}
	if v.kind == vRecord {
		v.rec.v = v
	}
	vs.q = append(vs.q, v)
	vs.sub++
	if !vs.listed {
		vs.listed = true
		c.active = append(c.active, vs)
	}
}

// drop removes the last n operations of vs, which its stream cancelled
// before they ran, and ends its waits: it is being destroyed. A dropped
// record completes now, as the stream's cancel completes it.
func (c *clock) drop(vs *vstream, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	vs.dead = true
	n = min(n, len(vs.q))
	for _, v := range vs.q[len(vs.q)-n:] {
		for i := range v.flows {
			if f := &v.flows[i]; f.l != nil && v.state == vFlow {
				f.l.n--
				f.l = nil
			}
		}
		v.state, v.end = vDone, c.now
	}
	clear(vs.q[len(vs.q)-n:])
	vs.q = vs.q[:len(vs.q)-n]
	vs.done += uint64(n)
}

// ran reports that v, a host function, returned after running for d.
// The model knows how long host code runs only once it has run: if the
// model has gone past the function's end meanwhile, it ends now.
func (c *clock) ran(v *vop, d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v.ran, v.dur = true, float64(d)
	if v.state == vRunning {
		v.state, v.t = vTimed, max(v.t+v.dur, c.now)
	}
}

// pass is how a wait ended.
type pass int

const (
	passed  pass = iota // what it waited for completed in modeled time
	expired             // the limit came first
)

// waitStream makes the host wait for the first target operations of vs in
// modeled time, for at most ms milliseconds (-1: no limit).
func (c *clock) waitStream(ctx context.Context, vs *vstream, target uint64, ms int32) pass {
	return c.wait(ctx, ms, func() bool { return vs.done >= target })
}

// waitRecord makes the host wait for the record r in modeled time.
func (c *clock) waitRecord(ctx context.Context, r *record, ms int32) pass {
	return c.wait(ctx, ms, func() bool { return r.v.done() })
}

// wait runs the model until ok or for ms milliseconds of modeled time
// (-1: no limit). With pacing, it then also waits for the wall clock to
// reach the modeled time, or for ctx. If the model can go no further and ok
// is still false (a wait whose record the device will never see, a case
// where the real work completed anyway), the host's wait ends all the same.
func (c *clock) wait(ctx context.Context, ms int32, ok func() bool) pass {
	c.mu.Lock()
	c.catchUp()
	limit := math.Inf(1)
	if ms >= 0 {
		limit = c.now + float64(ms)*1e6
	}
	r := passed
	if !c.run(limit, ok) && ms >= 0 {
		r = expired
	}
	now := c.now
	c.mu.Unlock()
	c.pace(ctx, now)
	return r
}

// hostOp runs v, a synchronous operation of the host, in modeled time: it
// starts now, after the operations of vs (nil: none) when the host first
// waited for them, and the host waits for it.
func (c *clock) hostOp(ctx context.Context, vs *vstream, v *vop) {
	c.mu.Lock()
	c.catchUp()
	if vs != nil {
		target := vs.sub
		c.run(math.Inf(1), func() bool { return vs.done >= target })
	}
	tmp := &vstream{q: []*vop{v}, sub: 1, listed: true}
	c.active = append(c.active, tmp)
	c.run(math.Inf(1), v.done)
	now := c.now
	c.mu.Unlock()
	c.pace(ctx, now)
}

// poll reports whether ok holds in modeled time. If not, time passes as it
// does for a host that polls: to the model's next event (or, with pacing,
// to the wall clock's reading), and ok is asked again.
func (c *clock) poll(ok func() bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.catchUp()
	c.settle()
	if ok() {
		return true
	}
	if !c.paced {
		if next := c.next(); !math.IsInf(next, 1) {
			c.run(next, nil)
		}
	}
	return ok()
}

// stamp returns the modeled time of r, and whether the model has it.
func (c *clock) stamp(r *record) (float64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !r.v.done() {
		return 0, false
	}
	return r.v.end, true
}

// elapsed returns the modeled time since New.
func (c *clock) elapsed() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.catchUp()
	return time.Duration(math.Round(c.now))
}

// catchUp moves the model to the wall clock's reading when it is paced and
// behind it: the host's own time counts.
func (c *clock) catchUp() {
	if c.paced {
		if w := float64(time.Since(c.origin)); w > c.now {
			c.run(w, nil)
		}
	}
}

// pace waits, with pacing, until the wall clock reaches now, or ctx is done.
func (c *clock) pace(ctx context.Context, now float64) {
	if !c.paced {
		return
	}
	d := time.Until(c.origin.Add(time.Duration(now)))
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-done(ctx):
	}
}

// run advances the model until stop holds (reported true) or until limit,
// whichever is first; with no event left before limit, now becomes limit
// (time passes with nothing to do). It reports whether stop held; a nil
// stop never does.
func (c *clock) run(limit float64, stop func() bool) bool {
	for {
		c.settle()
		if stop != nil && stop() {
			return true
		}
		next := c.next()
		if next > limit || math.IsInf(next, 1) {
			if !math.IsInf(limit, 1) && limit > c.now {
				c.flowFor(limit - c.now)
				c.now = limit
			}
			return false
		}
		c.flowFor(next - c.now)
		c.now = next
	}
}

// settle does everything due at now: completes finished launches, flows
// and operations, starts the next operation of every stream, ends the
// waits whose record has completed, until nothing changes.
func (c *clock) settle() {
	for changed := true; changed; {
		changed = false
		k := 0
		for _, vs := range c.active {
			if c.settleStream(vs) {
				changed = true
			}
			if len(vs.q) > 0 {
				c.active[k] = vs
				k++
			} else {
				vs.listed = false
			}
		}
		clear(c.active[k:])
		c.active = c.active[:k]
	}
}

// settleStream does what is due at now on vs, and reports whether anything
// completed (which may release another stream's wait).
func (c *clock) settleStream(vs *vstream) bool {
	changed := false
	for len(vs.q) > 0 {
		v := vs.q[0]
		if !c.step(vs, v) {
			break
		}
		v.state, v.end = vDone, c.now
		v.flows = nil
		vs.q[0] = nil
		vs.q = vs.q[1:]
		vs.done++
		changed = true
	}
	return changed
}

// step moves v, the head of vs, as far as it goes at now, and reports
// whether it is complete.
func (c *clock) step(vs *vstream, v *vop) bool {
	if v.state == vQueued {
		switch v.kind {
		case vNone, vRecord:
			return true
		case vWait:
			v.state, v.t = vWaiting, c.now+v.tmo
		case vHost:
			if !v.ran {
				v.state, v.t = vRunning, c.now
				return false
			}
			v.state, v.t = vTimed, c.now+v.dur
		case vWork:
			v.state, v.t = vTimed, c.now+float64(c.prof.launch)
		}
	}
	switch v.state {
	case vRunning:
		return false
	case vWaiting:
		return v.rec.v.done() || vs.dead || isClosed(v.ev.gone) || v.tmo > 0 && v.t <= c.now
	case vTimed:
		if v.t > c.now {
			return false
		}
		v.state = vFlow
		for i := range v.flows {
			f := &v.flows[i]
			f.l = c.link(f.key)
			f.l.n++
		}
	}
	busy := false
	for i := range v.flows {
		f := &v.flows[i]
		if f.l == nil {
			continue
		}
		if f.left <= 0 || c.now+f.left/f.l.rate() <= c.now { // done, within the clock's resolution
			f.l.n--
			f.l = nil
			continue
		}
		busy = true
	}
	return !busy
}

// next returns the time of the model's next event: a launch that ends or a
// flow that completes at the current rates; +Inf if none.
func (c *clock) next() float64 {
	next := math.Inf(1)
	for _, vs := range c.active {
		v := vs.q[0]
		switch v.state {
		case vTimed:
			next = min(next, v.t)
		case vWaiting:
			if v.tmo > 0 {
				next = min(next, v.t)
			}
		case vFlow:
			for _, f := range v.flows {
				if f.l != nil {
					next = min(next, c.now+f.left/f.l.rate())
				}
			}
		}
	}
	return next
}

// flowFor moves every running flow on by dt nanoseconds at the current
// rates.
func (c *clock) flowFor(dt float64) {
	for _, vs := range c.active {
		if v := vs.q[0]; v.state == vFlow {
			for i := range v.flows {
				if f := &v.flows[i]; f.l != nil {
					f.left -= dt * f.l.rate()
				}
			}
		}
	}
}

// isClosed reports whether ch is closed.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
