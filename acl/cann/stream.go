//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/aclwasm/aclwasm/acl"
)

// stream is a native stream (native 0: the device's default stream) and
// what the backend knows about the work it queued there.
type stream struct {
	dev       int32
	native    uintptr
	isDefault bool

	// Guarded by Backend.mu.
	refs  int  // operations using the stream right now
	dying bool // DestroyStream has begun: no new operations

	// Guarded by mu, which also orders native submissions and is held
	// across them. A submission may wait for the stream's work (a full
	// native queue does), so no holder of Backend.mu takes mu.
	mu      sync.Mutex
	seq     uint64 // operations submitted so far
	pending int    // operations submitted since the stream was last seen idle

	// Guarded by use, never held across a native call: what holders of
	// Backend.mu read (Free's and HostUnregister's look at every stream,
	// settleLocked; the error RecordEvent and hostFuncFailed pass on), so
	// that no session's call waits behind another's submission. uses,
	// pinUses and opaque change with mu held too, and a submission records
	// them before its native call.
	use      sync.Mutex
	uses     map[*alloc]struct{}
	pinUses  map[*pin]struct{}
	opaque   bool  // queued work reads addresses from device memory: it may use any allocation
	asyncErr error // held for the next synchronize: LaunchHostFunc errors and errors the backend's own waits met
	// failStop is ACL_STOP_ON_FAILURE and held mirrors asyncErr != nil:
	// host functions do not run while both are set. Atomics, since a host
	// function must not wait for s.mu, which a native call that waits for
	// the stream may hold.
	failStop, held atomic.Bool
	rep            *reporter
}

func newStream(dev int32, native uintptr, isDefault bool) *stream {
	return &stream{dev: dev, native: native, isDefault: isDefault, uses: map[*alloc]struct{}{}, pinUses: map[*pin]struct{}{}}
}

// streamLocked looks up a live stream and takes a reference. Called with b.mu held.
func (b *Backend) streamLocked(h acl.Stream) (*stream, error) {
	s := b.streams[h]
	if s == nil || s.dying {
		return nil, acl.Errorf(acl.ErrRTInvalidHandle, "stream %d is not a live stream of this backend", h)
	}
	s.refs++
	return s, nil
}

func (b *Backend) unrefStreamLocked(s *stream) {
	s.refs--
	if s.refs == 0 && s.dying {
		b.cond.Broadcast()
	}
}

// check evaluates uses on s with s.use held.
func (s *stream) check(uses func(*stream) bool) bool {
	s.use.Lock()
	defer s.use.Unlock()
	return uses(s)
}

// streamsUsingLocked returns, with a reference taken on each, the live
// streams for which uses reports true, leaving out those being destroyed.
// Called with b.mu held.
func (b *Backend) streamsUsingLocked(uses func(*stream) bool) []*stream {
	var out []*stream
	for _, s := range b.streams {
		if !s.dying && s.check(uses) {
			s.refs++
			out = append(out, s)
		}
	}
	return out
}

// settleLocked waits until no stream's queued work may use what uses
// reports true for (Free, HostUnregister): it drains the live streams that
// use it, and waits for DestroyStream to be done with those being
// destroyed, whose work has then run or been dropped. Called with b.mu
// held; it returns with b.mu held, having released it while waiting.
func (b *Backend) settleLocked(ctx context.Context, uses func(*stream) bool) error {
	dying := func() bool {
		for _, s := range b.streams {
			if s.dying && s.check(uses) {
				return true
			}
		}
		return false
	}
	for {
		if err := b.waitFor(ctx, func() bool { return !dying() }); err != nil {
			return err
		}
		users := b.streamsUsingLocked(uses)
		b.mu.Unlock()
		err := b.drainAll(ctx, users)
		b.mu.Lock()
		// A stream whose destruction began during the drain is waited
		// for on the next round.
		if !errors.Is(err, errStreamDestroyed) {
			return err
		}
	}
}

// drainAll drains each stream and drops the references streamsUsingLocked took.
func (b *Backend) drainAll(ctx context.Context, ss []*stream) error {
	var err error
	for _, s := range ss {
		if err == nil {
			err = b.drain(ctx, s)
		}
	}
	b.mu.Lock()
	for _, s := range ss {
		b.unrefStreamLocked(s)
	}
	b.mu.Unlock()
	return err
}

func (s *stream) seqNow() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

// idleSince records that s was seen idle after a wait that began when seq
// operations had been submitted; work submitted since may still be queued.
func (s *stream) idleSince(seq uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seq == seq {
		s.idleLocked()
	}
}

// idleLocked forgets the work submitted so far. Called with s.mu held.
func (s *stream) idleLocked() {
	s.pending = 0
	s.use.Lock()
	s.opaque = false
	clear(s.uses)
	clear(s.pinUses)
	s.use.Unlock()
}

func (s *stream) takeErr() error {
	s.use.Lock()
	defer s.use.Unlock()
	err := s.asyncErr
	s.asyncErr = nil
	s.held.Store(false)
	return err
}

func (s *stream) holdErr(err error) {
	s.use.Lock()
	if s.asyncErr == nil {
		s.asyncErr = err
		s.held.Store(true)
	}
	s.use.Unlock()
}

// errStreamDestroyed ends a wait on a stream that DestroyStream has begun
// to destroy.
var errStreamDestroyed = acl.Errorf(acl.ErrRTInvalidHandle, "the stream was destroyed during the wait")

// syncStream waits for s with aclrtSynchronizeStreamWithTimeout, in slices.
// It returns the native code; a wait cut short by ctx, Close or (unless
// owner) the stream's destruction returns an error instead.
func (b *Backend) syncStream(ctx context.Context, s *stream, timeoutMs int32, owner bool) (int32, error) {
	seq := s.seqNow()
	stop := func() error {
		b.mu.Lock()
		defer b.mu.Unlock()
		if s.dying && !owner {
			return errStreamDestroyed
		}
		return nil
	}
	rc, err := b.wait(ctx, timeoutMs, acl.ErrRTStreamSyncTimeout, stop, func(ms int32) (int32, error) {
		var rc int32
		err := b.onDevice(s.dev, func() { rc = b.api.aclrtSynchronizeStreamWithTimeout(s.native, ms) })
		return rc, err
	})
	if err == nil && acl.Error(rc) != acl.ErrRTStreamSyncTimeout {
		s.idleSince(seq)
	}
	return rc, err
}

// drain waits for s's queued work before the backend acts on its own
// (pageable fallbacks, LaunchHostFunc, Free, HostUnregister). An error the
// work met is held for s's next synchronize rather than reported to an
// operation it does not belong to.
func (b *Backend) drain(ctx context.Context, s *stream) error {
	rc, err := b.syncStream(ctx, s, -1, false)
	if err != nil {
		return err
	}
	if rc != 0 {
		s.holdErr(nativeErr(rc, "an operation queued on the stream"))
	}
	return nil
}

// submit queues one native operation on s, in submission order, and
// records what it uses so that Free and HostUnregister can wait for it.
func (b *Backend) submit(s *stream, sides []side, opaque bool, fn string, call func(stream uintptr) int32) error {
	return b.submitOp(s, sides, opaque, true, fn, call)
}

// submitOp is submit; an operation not counted is left out of Pending
// (an OnComplete mark).
func (b *Backend) submitOp(s *stream, sides []side, opaque, counted bool, fn string, call func(stream uintptr) int32) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	// What the operation uses is known before the runtime has it: a Free
	// that looks meanwhile (without mu) waits for the stream. A failed
	// submission leaves it until the stream is next seen idle.
	s.use.Lock()
	for _, sd := range sides {
		if sd.a != nil {
			s.uses[sd.a] = struct{}{}
		}
		if sd.p != nil {
			s.pinUses[sd.p] = struct{}{}
		}
	}
	s.opaque = s.opaque || opaque
	s.use.Unlock()
	if err := b.call(s.dev, fn, func() int32 { return call(s.native) }); err != nil {
		return err
	}
	s.seq++
	if counted {
		s.pending++
	}
	return nil
}

// DefaultStream implements [acl.Backend]. The handle stands for the native
// NULL stream in dev's default context.
func (b *Backend) DefaultStream(dev int32) (acl.Stream, error) {
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.exit()
	if err := b.checkDevice(dev); err != nil {
		return 0, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if h := b.defaults[dev]; h != 0 {
		return h, nil
	}
	h := acl.Stream(b.nextH.Add(1))
	b.streams[h] = newStream(dev, 0, true)
	b.defaults[dev] = h
	return h, nil
}

// CreateStream implements [acl.Backend] with aclrtCreateStream in dev's context.
func (b *Backend) CreateStream(dev int32) (acl.Stream, error) {
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.exit()
	var native uintptr
	if err := b.call(dev, "aclrtCreateStream", func() int32 { return b.api.aclrtCreateStream(&native) }); err != nil {
		return 0, err
	}
	h := acl.Stream(b.nextH.Add(1))
	b.mu.Lock()
	b.streams[h] = newStream(dev, native, false)
	b.mu.Unlock()
	return h, nil
}

// DestroyStream implements [acl.Backend]. It stops new operations on the
// stream, waits for those in flight, then for the queued work, and destroys
// the stream with aclrtDestroyStream. If ctx is done first, it destroys the
// stream with aclrtDestroyStreamForce, which drops the work not yet started,
// once the calls in flight have noticed (within a wait slice); a ctx done on
// entry does not wait for the queued work at all. A library without
// aclrtDestroyStreamForce leaves the stream alive and returns ctx's error.
// The default stream cannot be destroyed.
func (b *Backend) DestroyStream(ctx context.Context, h acl.Stream) error {
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	force := b.api.aclrtDestroyStreamForce
	b.mu.Lock()
	s := b.streams[h]
	switch {
	case s == nil || s.dying:
		b.mu.Unlock()
		return acl.Errorf(acl.ErrRTInvalidHandle, "stream %d is not a live stream of this backend", h)
	case s.isDefault:
		b.mu.Unlock()
		return acl.Errorf(acl.ErrInvalidParam, "the default stream cannot be destroyed")
	}
	s.dying = true
	forced := false
	if err := b.waitFor(ctx, func() bool { return s.refs == 0 }); err != nil {
		if force == nil {
			b.revive(s)
			b.mu.Unlock()
			return err
		}
		// The calls using the stream see dying and return within a wait
		// slice; none may be left using the native stream.
		forced = true
		_ = b.waitFor(context.Background(), func() bool { return s.refs == 0 })
	}
	b.mu.Unlock()

	// A ctx already done asks for the work not yet started to be dropped
	// now: a first wait slice would let it start (or finish) meanwhile.
	if force != nil && ctx != nil && ctx.Err() != nil {
		forced = true
	}
	if !forced {
		if _, err := b.syncStream(ctx, s, -1, true); err != nil {
			if force == nil {
				b.mu.Lock()
				b.revive(s)
				b.mu.Unlock()
				return err
			}
			forced = true
		}
	}
	fn, destroy := "aclrtDestroyStream", b.api.aclrtDestroyStream
	if forced {
		fn, destroy = "aclrtDestroyStreamForce", force
	}
	// A drained stream's report thread unsubscribes before the stream goes;
	// a forced destruction may have to let a running host function finish,
	// so the thread outlives the stream and does not unsubscribe.
	if !forced {
		s.stopReporter(false)
	}
	// An error the queued work met dies with the stream, as natively.
	// No lock of the stream is held: nothing else submits to it now, and a
	// host function the forced destruction waits for may fail, which takes
	// b.mu and s.use (hostFuncFailed).
	err := b.call(s.dev, fn, func() int32 { return destroy(s.native) })
	if forced {
		s.stopReporter(err == nil)
		if err == nil {
			// The host functions the destruction dropped never run.
			forgetHostCalls(func(hc *hostCall) bool { return hc.s == s })
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil {
		b.revive(s)
		return err
	}
	delete(b.streams, h)
	b.cond.Broadcast() // Free and HostUnregister wait for dying streams to go
	return nil
}

// revive undoes the start of a DestroyStream that failed: the stream and
// its queued work live on. Called with b.mu held.
func (b *Backend) revive(s *stream) {
	s.dying = false
	b.cond.Broadcast()
}

// SynchronizeStream implements [acl.Backend] with
// aclrtSynchronizeStreamWithTimeout; after a native success it returns the
// error held for the stream, if any, and clears it.
func (b *Backend) SynchronizeStream(ctx context.Context, h acl.Stream, timeoutMs int32) error {
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	if err := acl.CheckTimeout(timeoutMs); err != nil {
		return err
	}
	s, _, err := b.acquire(h)
	if err != nil {
		return err
	}
	defer b.done(s, nil)
	rc, err := b.syncStream(ctx, s, timeoutMs, false)
	if err != nil {
		return err
	}
	if rc != 0 {
		return nativeErr(rc, "aclrtSynchronizeStreamWithTimeout")
	}
	return s.takeErr()
}

// StreamQuery implements [acl.Backend] with aclrtStreamQuery.
func (b *Backend) StreamQuery(h acl.Stream) (acl.StreamStatus, error) {
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.exit()
	s, _, err := b.acquire(h)
	if err != nil {
		return 0, err
	}
	defer b.done(s, nil)
	s.mu.Lock()
	defer s.mu.Unlock()
	return b.queryLocked(s)
}

// queryLocked asks the runtime whether s is idle. Called with s.mu held,
// so that no submission slips between the answer and forgetting the work.
func (b *Backend) queryLocked(s *stream) (acl.StreamStatus, error) {
	var status uint32
	if err := b.call(s.dev, "aclrtStreamQuery", func() int32 { return b.api.aclrtStreamQuery(s.native, &status) }); err != nil {
		return 0, err
	}
	if acl.StreamStatus(status) == acl.StreamStatusComplete {
		s.idleLocked()
	}
	return acl.StreamStatus(status), nil
}

// Pending implements [acl.Backend]. The runtime keeps no count, so the
// backend counts the operations it submitted since it last saw the stream
// idle, and asks aclrtStreamQuery whether they are done: 0 means the stream
// is idle, otherwise the count is an upper bound (at least 1).
func (b *Backend) Pending(h acl.Stream) (int, error) {
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.exit()
	s, _, err := b.acquire(h)
	if err != nil {
		return 0, err
	}
	defer b.done(s, nil)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending == 0 {
		return 0, nil
	}
	status, err := b.queryLocked(s)
	if err != nil || status == acl.StreamStatusComplete {
		return 0, err
	}
	return s.pending, nil
}

// Idle implements [acl.Backend] from the backend's own count: true only
// when nothing was submitted on h since the stream was last seen idle
// (an error is the runtime's to report, at the next synchronize). It never
// asks the runtime (Pending does), so a copy just submitted makes it
// false.
func (b *Backend) Idle(h acl.Stream) bool {
	if err := b.enter(); err != nil {
		return false
	}
	defer b.exit()
	s, _, err := b.acquire(h)
	if err != nil {
		return false
	}
	defer b.done(s, nil)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pending == 0
}

// cancelled is a context done from the start: DestroyStream with it
// destroys the stream with aclrtDestroyStreamForce at once.
var cancelled = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// DestroyStreamForce implements [acl.Backend] with
// aclrtDestroyStreamForce: the work not yet started is dropped, as natively.
// A library without it gives 207000 and leaves the stream alive.
func (b *Backend) DestroyStreamForce(h acl.Stream) error {
	if b.api.aclrtDestroyStreamForce == nil {
		return b.missing("aclrtDestroyStreamForce")
	}
	return b.DestroyStream(cancelled, h)
}

// CreateStreamWithConfig implements [acl.Backend] with
// aclrtCreateStreamWithConfig in dev's context; the library checks the
// priority and flags again, as natively.
func (b *Backend) CreateStreamWithConfig(dev int32, priority uint32, flags acl.StreamFlag) (acl.Stream, error) {
	f := b.api.aclrtCreateStreamWithConfig
	if f == nil {
		return 0, b.missing("aclrtCreateStreamWithConfig")
	}
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.exit()
	var native uintptr
	if err := b.call(dev, "aclrtCreateStreamWithConfig", func() int32 { return f(&native, priority, uint32(flags)) }); err != nil {
		return 0, err
	}
	h := acl.Stream(b.nextH.Add(1))
	b.mu.Lock()
	b.streams[h] = newStream(dev, native, false)
	b.mu.Unlock()
	return h, nil
}

// SetStreamFailureMode implements [acl.Backend] with
// aclrtSetStreamFailureMode, in submission order with the stream's work.
// The native runtime stops the stream after a failed native operation; a
// host function (LaunchHostFunc) queued after an error of the stream does
// not run either, but the error of a host function does not stop the
// native operations queued after it, which the runtime alone runs.
func (b *Backend) SetStreamFailureMode(h acl.Stream, mode acl.FailureMode) error {
	f := b.api.aclrtSetStreamFailureMode
	if f == nil {
		return b.missing("aclrtSetStreamFailureMode")
	}
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	s, _, err := b.acquire(h)
	if err != nil {
		return err
	}
	defer b.done(s, nil)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := b.call(s.dev, "aclrtSetStreamFailureMode", func() int32 { return f(s.native, uint64(mode)) }); err != nil {
		return err
	}
	s.failStop.Store(mode == acl.StopOnFailure)
	return nil
}
