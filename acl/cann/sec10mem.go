//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"context"
	"math"
	"time"

	"github.com/aclwasm/aclwasm/acl"
)

// The optional interfaces of ABI v1.1's 32-bit memsets, event resets, op
// wait timeouts and operator timeout intervals, each over its native
// function when the library exports it (ErrRTFeatureNotSupport otherwise).
var (
	_ acl.MemsetD32er   = (*Backend)(nil)
	_ acl.EventResetter = (*Backend)(nil)
	_ acl.TimedWaiter   = (*Backend)(nil)
	_ acl.OpTimeouts    = (*Backend)(nil)
)

// d32Chunk is the most bytes one native 32-bit memset sets: a multiple of
// 4, so that every piece starts on a word.
const d32Chunk = nativeChunk

// d32Bytes returns the bytes of n words, or 107000 when they overflow.
func d32Bytes(n uint64) (uint64, error) {
	if n > math.MaxUint64/4 {
		return 0, acl.Errorf(acl.ErrRTParamInvalid, "%d 32-bit words overflow a byte count", n)
	}
	return n * 4, nil
}

// MemsetD32 implements acl.MemsetD32er with aclrtMemsetD32 on device
// memory, and in Go on host memory, as Memset does.
func (b *Backend) MemsetD32(ctx context.Context, dst acl.Buf, value uint32, n uint64) error {
	if err := orBackground(ctx).Err(); err != nil {
		return err
	}
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	if n == 0 {
		return nil
	}
	size, err := d32Bytes(n)
	if err != nil {
		return err
	}
	if dst.IsDevice() && b.api.aclrtMemsetD32 == nil {
		return b.missing("aclrtMemsetD32")
	}
	sides, err := b.resolve(req{dst, size, true})
	if err != nil {
		return err
	}
	defer b.done(nil, sides)
	d := sides[0]
	return pieces(ctx, size, d32Chunk, false, func(off, k uint64) error {
		if !d.isDev {
			acl.Fill32(d.host[off:off+k], value)
			return nil
		}
		return b.call(d.dev, "aclrtMemsetD32", func() int32 { return b.api.aclrtMemsetD32(d.addr+uintptr(off), k, value, k/4) })
	})
}

// MemsetD32Async implements acl.MemsetD32er with aclrtMemsetD32Async on
// device or registered memory; on unregistered host memory it waits for
// the stream and sets the words in Go.
func (b *Backend) MemsetD32Async(ctx context.Context, dst acl.Buf, value uint32, n uint64, sh acl.Stream) error {
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	if n == 0 {
		return nil
	}
	size, err := d32Bytes(n)
	if err != nil {
		return err
	}
	if b.api.aclrtMemsetD32Async == nil {
		return b.missing("aclrtMemsetD32Async")
	}
	st, sides, err := b.acquire(sh, req{dst, size, true})
	if err != nil {
		return err
	}
	defer b.done(st, sides)
	d := sides[0]
	return b.queueOrRun(ctx, st, sides, d.pinned, "aclrtMemsetD32Async", func(stream uintptr) int32 {
		return b.api.aclrtMemsetD32Async(d.addr, size, value, n, stream)
	}, func() error { acl.Fill32(d.host, value); return nil })
}

// ResetEvent implements acl.EventResetter with aclrtResetEvent. The event
// then counts as never recorded: a synchronize of it returns at once.
func (b *Backend) ResetEvent(eh acl.Event, sh acl.Stream) error {
	if b.api.aclrtResetEvent == nil {
		return b.missing("aclrtResetEvent")
	}
	return b.onEventAndStream(eh, sh, func(e *event, s *stream) error {
		if err := b.submit(s, nil, false, "aclrtResetEvent", func(st uintptr) int32 { return b.api.aclrtResetEvent(e.native, st) }); err != nil {
			return err
		}
		b.mu.Lock()
		e.hostErr, e.recStream, e.recSeq = nil, nil, 0
		b.mu.Unlock()
		return nil
	})
}

// StreamWaitEventTimeout implements acl.TimedWaiter with
// aclrtStreamWaitEventWithTimeout, whose limit is in milliseconds: a
// longer timeout is cut to the largest it takes (about 24 days, beyond
// any run's timeout). 0 is aclrtStreamWaitEvent.
func (b *Backend) StreamWaitEventTimeout(sh acl.Stream, eh acl.Event, timeout time.Duration) error {
	if timeout < 0 {
		return acl.Errorf(acl.ErrRTParamInvalid, "wait timeout %v is negative", timeout)
	}
	if timeout == 0 {
		return b.StreamWaitEvent(sh, eh)
	}
	if b.api.aclrtStreamWaitEventWithTimeout == nil {
		return b.missing("aclrtStreamWaitEventWithTimeout")
	}
	ms := int32(min(max((timeout+time.Millisecond-1)/time.Millisecond, 1), math.MaxInt32))
	return b.onEventAndStream(eh, sh, func(e *event, s *stream) error {
		return b.submit(s, nil, false, "aclrtStreamWaitEventWithTimeout", func(st uintptr) int32 {
			return b.api.aclrtStreamWaitEventWithTimeout(st, e.native, ms)
		})
	})
}

// OpTimeoutInterval implements acl.OpTimeouts with
// aclrtGetOpTimeOutInterval, asked in device 0's context.
func (b *Backend) OpTimeoutInterval() (uint64, error) {
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.exit()
	if b.api.aclrtGetOpTimeOutInterval == nil {
		return 0, b.missing("aclrtGetOpTimeOutInterval")
	}
	var iv uint64
	if err := b.call(0, "aclrtGetOpTimeOutInterval", func() int32 { return b.api.aclrtGetOpTimeOutInterval(&iv) }); err != nil {
		return 0, err
	}
	if iv == 0 {
		return 0, acl.Errorf(acl.ErrRTInternal, "aclrtGetOpTimeOutInterval reported an interval of 0")
	}
	return iv, nil
}
