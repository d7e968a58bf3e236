package sim

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/aclwasm/aclwasm/acl"
)

// launch is a queued [acl.Launch]: the spans of its regions, referenced
// until it has run, so a Free of their memory waits for it.
type launch struct {
	l     *acl.Launch
	spans []span
}

// Compute implements [acl.Computer]: l runs on the stream's worker once the
// work queued before it has, with the data locks of its allocations held.
func (b *Backend) Compute(h acl.Stream, l *acl.Launch) error {
	if l == nil || l.Run == nil {
		return acl.Errorf(acl.ErrInvalidParam, "the launch has no computation")
	}
	s, err := b.stream(h)
	if err != nil {
		return err
	}
	x := &launch{l: l, spans: make([]span, 0, len(l.Regions))}
	if err := b.hold(x); err != nil {
		x.release()
		return err
	}
	o := op{work: x, free: x}
	if b.clk != nil {
		o.v = &vop{kind: vHost}
	}
	return s.pushNow(o)
}

// hold resolves and references every region of x's launch.
func (b *Backend) hold(x *launch) error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return errClosed()
	}
	for i, r := range x.l.Regions {
		if r.Ptr == 0 {
			return acl.Errorf(acl.ErrRTParamInvalid, "%s: buffer %d is NULL", x.l.Name, i)
		}
		sp, err := b.spanLocked(acl.Device(r.Ptr), r.N, r.Write, x.l.Name)
		if err != nil {
			return err
		}
		x.spans = append(x.spans, sp)
	}
	return nil
}

func (x *launch) release() {
	for _, s := range x.spans {
		s.release()
	}
}

// cost is the launch's declared duration for the timing model (0: the
// time it really ran).
func (x *launch) cost() time.Duration { return x.l.Cost }

// run locks each allocation once, in id order (two regions may share one,
// and copies take the same locks in the same order), and runs the
// computation on the regions' bytes.
func (x *launch) run(_ *stream, _ [2]span, stop halt) (err error) {
	l := x.l
	if err := stop.err(); err != nil {
		return err
	}
	if l.Check != nil {
		if err := l.Check(); err != nil {
			return err
		}
	}
	allocs := make([]*alloc, 0, len(x.spans))
	for _, s := range x.spans {
		allocs = append(allocs, s.a)
	}
	slices.SortFunc(allocs, func(a, b *alloc) int { return cmp.Compare(a.id, b.id) })
	allocs = slices.Compact(allocs)
	for _, a := range allocs {
		a.mu.Lock()
	}
	defer func() {
		for _, a := range allocs {
			a.mu.Unlock()
		}
		if r := recover(); r != nil {
			err = acl.Errorf(acl.ErrRTAicoreException, "%s failed on the device: it panicked: %v", l.Name, r)
		}
	}()
	mem := make([][]byte, len(x.spans))
	for i, s := range x.spans {
		mem[i] = s.bytes(l.Regions[i].N)
	}
	if err := l.Run(haltCtx{stop}, mem); err != nil {
		return launchErr(l.Name, err)
	}
	return nil
}

// launchErr is the stream's error for a launch that failed as it ran: its
// own code when it carries one, else a device fault, as a kernel that
// faults natively fails its stream.
func launchErr(name string, err error) error {
	var code acl.Error
	if errors.As(err, &code) {
		return err
	}
	if errors.Is(err, context.Canceled) {
		return errStopped()
	}
	return acl.Errorf(acl.ErrRTAicoreException, "%s failed on the device: %v", name, err)
}

// haltCtx is a halt as a context, for computations that take one: done
// when the stream's work is cancelled (or the synchronous caller's
// context is).
type haltCtx struct{ h halt }

func (c haltCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c haltCtx) Done() <-chan struct{}       { return c.h.done }
func (c haltCtx) Value(any) any               { return nil }
func (c haltCtx) Err() error {
	select {
	case <-c.h.done:
		if c.h.ctx != nil {
			return c.h.ctx.Err()
		}
		return context.Canceled
	default:
		return nil
	}
}
