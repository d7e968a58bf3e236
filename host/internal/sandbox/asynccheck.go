package sandbox

import (
	"bytes"
	"context"
	"fmt"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// The checking mode (Limits.CheckAsync) makes a plugin's asynchronous
// mistakes visible where the simulator, which mostly runs queued work at
// once, would hide them. An asynchronous copy into registered guest memory
// writes a host-side shadow instead; its destination reads Poison until a
// synchronize, a query reporting completion, an event synchronize or a
// stream callback that covers the copy lands the shadow in guest memory.
// A copy from registered guest memory keeps a snapshot of its source,
// compared with the source when the copy is covered: a change in between
// is a race natively. Copies never covered by the end of an export call
// are reported too (Session.AsyncFindings).
//
// Coverage follows the guest's own ordering: each stream numbers the
// copies queued on it; a stream's clock says, for every stream, up to
// which copy its queued work is known to wait (aclrtStreamWaitEvent
// merges the clock an event's record captured).

// Poison is the byte the checking mode fills a queued copy's registered
// destination with until a synchronize covers the copy.
const Poison = 0xCD

// AsyncKind says what a checking-mode finding is.
type AsyncKind int

const (
	// AsyncUnwaited: a queued copy touching registered guest memory that
	// nothing waited for before the export call returned.
	AsyncUnwaited AsyncKind = iota + 1
	// AsyncSourceChanged: the registered guest memory a queued copy reads
	// changed between the enqueue and the synchronize that covered it.
	AsyncSourceChanged
)

// AsyncFinding is one mistake the checking mode saw, with the call that
// queued the copy (its function and its arguments as the guest passed
// them) and what went wrong.
type AsyncFinding struct {
	Kind   AsyncKind
	Func   *abi.Func
	Args   []uint64
	Detail string
}

// clock maps a stream to the number of its last copy covered.
type clock map[*streamRec]uint64

// merge raises c to o, stream by stream.
func (c clock) merge(o clock) {
	for st, n := range o {
		if n > c[st] {
			c[st] = n
		}
	}
}

// asyncOp is one queued copy the checking mode follows.
type asyncOp struct {
	st   *streamRec
	n    uint64 // its number on st
	fi   int
	args []uint64
	// dst is the registered guest memory it writes (nil: device memory),
	// shadow what the backend writes instead, registered under pin.
	dst, shadow []byte
	pin         acl.HostPin
	// src is the registered guest memory it reads (nil: device memory),
	// snap a copy of it at enqueue, registered under snapPin: what the
	// backend reads, so that the poison of a copy queued after it into
	// the same memory is not what it copies.
	src, snap []byte
	snapPin   acl.HostPin
	// dstAt and srcAt are the guest addresses of dst and src; dstPin and
	// srcPin those of the registrations they lie in (0: none).
	dstAt, srcAt, dstPin, srcPin uint64
	// handed: a copy queued after it writes its source, which from then
	// on may change without the guest's doing.
	handed bool
}

// asyncCheck is a session's checking-mode state.
type asyncCheck struct {
	ops   []*asyncOp            // not yet covered, in queue order
	seq   map[*streamRec]uint64 // the number of each stream's last copy
	clk   map[*streamRec]clock  // what each stream's queued work waits for
	ev    map[*eventRec]clock   // what each event's latest record covers
	held  uint64                // shadow and snapshot bytes
	found []AsyncFinding
}

func newAsyncCheck() *asyncCheck {
	return &asyncCheck{seq: map[*streamRec]uint64{}, clk: map[*streamRec]clock{}, ev: map[*eventRec]clock{}}
}

// cover returns what the work queued on st so far covers: its own copies
// and what it waits for.
func (k *asyncCheck) cover(st *streamRec) clock {
	c := clock{st: k.seq[st]}
	c.merge(k.clk[st])
	return c
}

// checkedCopy is the tail of an asynchronous copy in the checking mode,
// queued on st from s to d: a registered guest destination is written
// through a shadow and poisoned, a registered guest source is
// snapshotted.
// dstAt and srcAt are the guest's addresses of the two sides.
func (c *Call) checkedCopy(st *streamRec, d, s *span, dstAt, srcAt, n uint64, dir acl.Direction) error {
	k, sess := c.s.ck, c.s
	op := &asyncOp{st: st, fi: c.fi, args: append([]uint64(nil), c.args[:len(abi.Funcs[c.fi].Params)]...)}
	guestDst, guestSrc := d.a == nil && d.buf.Pin != 0, s.a == nil && s.buf.Pin != 0
	var extra uint64
	if guestDst {
		extra += n
	}
	if guestSrc {
		extra += n
	}
	if extra > sess.policy.PinnedMemory-min(k.held, sess.policy.PinnedMemory) {
		return acl.Errorf(acl.ErrRTOverLimit, "the checking mode (check-async) already holds %d bytes of copies not yet waited for, the pinned memory quota: synchronize first", k.held)
	}
	dst, src := d.buf, s.buf
	if guestSrc {
		op.src, op.srcAt = s.buf.Host[:n:n], srcAt
		op.srcPin = sess.as.pinAt(srcAt, srcAt+1).start
		op.snap = bytes.Clone(op.src)
		pin, err := sess.registerShadow(op.snap)
		if err != nil {
			return err
		}
		op.snapPin = pin
		src = acl.Host(op.snap, pin)
	}
	if guestDst {
		op.dst, op.dstAt = d.buf.Host[:n:n], dstAt
		op.dstPin = sess.as.pinAt(dstAt, dstAt+1).start
		// The shadow starts as the destination is: a copy that fails, or
		// is cancelled, lands what was there.
		op.shadow = bytes.Clone(op.dst)
		pin, err := sess.registerShadow(op.shadow)
		if err != nil {
			sess.unregisterShadows(c.ctx, op)
			return err
		}
		op.pin = pin
		dst = acl.Host(op.shadow, pin)
	}
	if err := sess.b.MemcpyAsync(c.ctx, dst, src, n, st.h); err != nil {
		sess.unregisterShadows(c.ctx, op)
		return be(err)
	}
	if guestDst {
		// The copies queued before that read this memory: what the guest
		// did to it up to now is theirs to answer for, the poison is not.
		for _, q := range k.ops {
			if q.src != nil && !q.handed && q.srcAt < dstAt+n && dstAt < q.srcAt+uint64(len(q.src)) {
				k.sourceCheck(q)
				q.handed = true
			}
		}
		for i := range op.dst {
			op.dst[i] = Poison
		}
	}
	k.held += extra
	k.seq[st]++
	op.n = k.seq[st]
	k.ops = append(k.ops, op)
	c.movedWhenRun(st, true, dir, n)
	return nil
}

// registerShadow registers a shadow with the backend, on the current
// device as hostRegister does.
func (s *Session) registerShadow(b []byte) (acl.HostPin, error) {
	var h acl.HostPin
	var err error
	if dr := s.b.Traits().DeviceRegisterer; dr != nil {
		h, err = dr.HostRegisterOn(s.phys(s.dev), b, acl.HostRegisterMapped)
	} else {
		h, err = s.b.HostRegister(b, acl.HostRegisterMapped)
	}
	return h, be(err)
}

// unregisterShadows lets go of op's shadow and snapshot, waiting for the
// work that uses them.
func (s *Session) unregisterShadows(ctx context.Context, op *asyncOp) {
	for _, h := range [2]acl.HostPin{op.pin, op.snapPin} {
		if h != 0 {
			_ = s.b.HostUnregister(context.WithoutCancel(ctx), h)
		}
	}
}

// sourceCheck reports op if the guest changed its source since the
// enqueue.
func (k *asyncCheck) sourceCheck(op *asyncOp) {
	if op.src == nil || op.handed || bytes.Equal(op.src, op.snap) {
		return
	}
	at := 0
	for at < len(op.src) && op.src[at] == op.snap[at] {
		at++
	}
	k.found = append(k.found, AsyncFinding{Kind: AsyncSourceChanged, Func: &abi.Funcs[op.fi], Args: op.args,
		Detail: fmt.Sprintf("its registered source changed before a synchronize covered the copy (first at byte %d of %d): natively the copy may read either content", at, len(op.src))})
}

// land finishes every followed copy that cv covers, in queue order.
func (s *Session) land(ctx context.Context, cv clock) {
	k := s.ck
	keep := k.ops[:0]
	for _, op := range k.ops {
		if n, ok := cv[op.st]; ok && op.n <= n {
			s.finish(ctx, op, "")
			continue
		}
		keep = append(keep, op)
	}
	clear(k.ops[len(keep):])
	k.ops = keep
}

// landWhere finishes every followed copy for which drained says its work
// is over (its stream is gone, its memory unregistered); unwaited is as
// for finish.
func (s *Session) landWhere(ctx context.Context, unwaited string, drained func(op *asyncOp) bool) {
	k := s.ck
	keep := k.ops[:0]
	for _, op := range k.ops {
		if drained(op) {
			s.finish(ctx, op, unwaited)
			continue
		}
		keep = append(keep, op)
	}
	clear(k.ops[len(keep):])
	k.ops = keep
}

// finish ends following op: it waits for the copy (the shadow's
// unregistration waits for the work that uses it), lands the shadow and
// compares the source with its snapshot. unwaited, when not "", says
// what came before anything covered the copy: it is reported.
func (s *Session) finish(ctx context.Context, op *asyncOp, unwaited string) {
	k := s.ck
	if op.snapPin != 0 {
		_ = s.b.HostUnregister(context.WithoutCancel(ctx), op.snapPin)
	}
	if op.pin != 0 {
		if err := s.b.HostUnregister(context.WithoutCancel(ctx), op.pin); err == nil || unwaited == "" {
			copy(op.dst, op.shadow)
		}
	}
	if unwaited != "" {
		what := "copy"
		if op.dst != nil {
			what = fmt.Sprintf("copy into registered memory (which read %#x bytes until then)", Poison)
		}
		k.found = append(k.found, AsyncFinding{Kind: AsyncUnwaited, Func: &abi.Funcs[op.fi], Args: op.args,
			Detail: "the " + what + " was never waited for: no synchronize, query or event covered it before " + unwaited})
	} else {
		k.sourceCheck(op)
	}
	k.held -= uint64(len(op.shadow) + len(op.snap))
}

// AsyncFindings ends the checking mode's following of the export call that
// just returned: copies still not covered are waited for, landed and
// reported; it returns every finding since the last time and forgets
// them. It returns nil outside the checking mode.
func (s *Session) AsyncFindings(ctx context.Context) []AsyncFinding {
	k := s.ck
	if k == nil {
		return nil
	}
	for _, op := range k.ops {
		s.finish(ctx, op, "the call returned")
	}
	clear(k.ops)
	k.ops = k.ops[:0]
	f := k.found
	k.found = nil
	return f
}

// releaseChecks lets go of the shadows of a released session.
func (s *Session) releaseChecks(ctx context.Context) (errs []error) {
	if s.ck == nil {
		return nil
	}
	for _, op := range s.ck.ops {
		for _, h := range [2]acl.HostPin{op.pin, op.snapPin} {
			if h != 0 {
				errs = append(errs, s.b.HostUnregister(ctx, h))
			}
		}
	}
	s.ck.ops = nil
	return errs
}

// checkAfter holds, by function index, what the checking mode does after a
// successful call of the functions that wait for, order or drain queued
// work.
var checkAfter = func() []func(c *Call) {
	byName := map[string]func(c *Call){
		"aclrtSynchronizeStream":            afterStreamSync,
		"aclrtSynchronizeStreamWithTimeout": afterStreamSync,
		"aclrtStreamQuery":                  afterStreamQuery,
		"aclrtSynchronizeDevice":            afterDeviceSync,
		"aclrtSynchronizeDeviceWithTimeout": afterDeviceSync,
		"aclrtRecordEvent":                  afterRecord,
		"aclrtStreamWaitEvent":              afterStreamWait,
		"aclrtSynchronizeEvent":             afterEventSync,
		"aclrtSynchronizeEventWithTimeout":  afterEventSync,
		"aclrtQueryEventStatus":             afterEventQuery,
		"aclrtDestroyStream":                afterDrain,
		"aclrtDestroyStreamForce":           afterDrain,
		"aclrtResetDevice":                  afterDrain,
		"aclrtResetDeviceForce":             afterDrain,
		"aclrtDestroyContext":               afterDrain,
		"aclFinalize":                       afterDrain,
		"aclrtHostUnregister":               afterUnregister,
	}
	t := make([]func(c *Call), len(abi.Funcs))
	for i, f := range abi.Funcs {
		t[i] = byName[f.Name]
	}
	return t
}()

// checkHook runs the checking mode's step for the call that just
// succeeded, if its function has one.
func (c *Call) checkHook() {
	if f := checkAfter[c.fi]; f != nil {
		f(c)
	}
}

// namedStream is the stream that parameter i named in the call that just
// succeeded: the default stream of the current context for 0.
func (c *Call) namedStream(i int) *streamRec {
	if h := c.u32(i); h != 0 {
		return c.s.streams[h]
	}
	if c.s.dev < 0 {
		return nil
	}
	return c.s.cur.def
}

func afterStreamSync(c *Call) {
	if st := c.namedStream(0); st != nil {
		c.s.land(c.ctx, c.s.ck.cover(st))
	}
}

func afterStreamQuery(c *Call) {
	st := c.namedStream(0)
	if st != nil && le.Uint32(c.mem[c.u32(1):]) == uint32(acl.StreamStatusComplete) {
		c.s.land(c.ctx, c.s.ck.cover(st))
	}
}

func afterDeviceSync(c *Call) {
	cv := clock{}
	for _, st := range c.s.sessionStreams(c.s.dev) {
		cv.merge(c.s.ck.cover(st))
	}
	c.s.land(c.ctx, cv)
}

func afterRecord(c *Call) {
	ev, st := c.s.events[c.u32(0)], c.namedStream(1)
	if ev != nil && st != nil {
		c.s.ck.ev[ev] = c.s.ck.cover(st)
	}
}

func afterStreamWait(c *Call) {
	st, ev := c.namedStream(0), c.s.events[c.u32(1)]
	if st == nil || ev == nil || c.s.ck.ev[ev] == nil {
		return
	}
	k := c.s.ck
	if k.clk[st] == nil {
		k.clk[st] = clock{}
	}
	k.clk[st].merge(k.ev[ev])
}

func afterEventSync(c *Call) {
	if ev := c.s.events[c.u32(0)]; ev != nil {
		c.s.land(c.ctx, c.s.ck.ev[ev])
	}
}

func afterEventQuery(c *Call) {
	ev := c.s.events[c.u32(0)]
	if ev != nil && le.Uint32(c.mem[c.u32(1):]) == uint32(acl.EventRecordedStatusComplete) {
		c.s.land(c.ctx, c.s.ck.ev[ev])
	}
}

// afterDrain lands the copies of streams that are gone: destroying a
// stream, resetting a device or finalizing waits for (or cancels) their
// work.
func afterDrain(c *Call) {
	live := map[*streamRec]bool{}
	for _, st := range c.s.sessionStreams(-1) {
		live[st] = true
	}
	c.s.landWhere(c.ctx, "", func(op *asyncOp) bool { return !live[op.st] })
}

// afterUnregister lands the copies into or from the range just
// unregistered, which the guest may now reuse. The sandbox's unregister
// waits for them, but releasing the memory is no way to wait natively:
// they are reported.
func afterUnregister(c *Call) {
	p := c.u64(0)
	c.s.landWhere(c.ctx, "its memory was unregistered (aclrtHostUnregister)", func(op *asyncOp) bool { return op.dstPin == p || op.srcPin == p })
}
