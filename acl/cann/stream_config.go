//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"context"

	"github.com/aclwasm/aclwasm/acl"
)

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

// RunMode implements [acl.Backend] with aclrtGetRunMode; a library without
// it gives 207000.
func (b *Backend) RunMode() (acl.RunMode, error) {
	f := b.api.aclrtGetRunMode
	if f == nil {
		return 0, b.missing("aclrtGetRunMode")
	}
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.exit()
	var m uint32
	if rc := f(&m); rc != 0 {
		return 0, nativeErr(rc, "aclrtGetRunMode")
	}
	return acl.RunMode(m), nil
}

// OpTimeoutInterval implements [acl.Backend] with
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
