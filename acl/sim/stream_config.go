package sim

import (
	"context"

	"github.com/aclwasm/aclwasm/acl"
)

// cancelled is a context that is done from the start: DestroyStream with
// it cancels the queued work instead of waiting for it.
var cancelled = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// DestroyStreamForce implements [acl.Backend]: the operations not yet
// started are dropped (records of events in them complete with
// ACL_ERROR_RT_STREAM_ABORT), a running one stops within a chunk, and the
// stream is destroyed.
func (b *Backend) DestroyStreamForce(h acl.Stream) error {
	return b.DestroyStream(cancelled, h)
}

// CreateStreamWithConfig implements [acl.Backend]. The simulator
// has no launch paths or scheduling for the flags and the priority to
// tune, so the stream is a plain one.
func (b *Backend) CreateStreamWithConfig(dev int32, _ uint32, _ acl.StreamFlag) (acl.Stream, error) {
	return b.CreateStream(dev)
}

// SetStreamFailureMode implements [acl.Backend]. With
// [acl.StopOnFailure], once an operation of the stream fails, the operations
// after it fail without effect (event records still complete, reporting
// the error) until a synchronize takes the error.
func (b *Backend) SetStreamFailureMode(h acl.Stream, mode acl.FailureMode) error {
	s, err := b.stream(h)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := acl.CheckFailureModeChange(s.mode(), mode); err != nil {
		return err
	}
	s.failStop = mode == acl.StopOnFailure
	return nil
}

// mode returns the stream's failure mode. Called with s.mu held.
func (s *stream) mode() acl.FailureMode {
	if s.failStop {
		return acl.StopOnFailure
	}
	return acl.ContinueOnFailure
}

// RunMode implements [acl.Backend]: the simulated device is attached to
// the host it runs in, ACL_HOST.
func (b *Backend) RunMode() (acl.RunMode, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return 0, errClosed()
	}
	return acl.RunModeHost, nil
}

// Supports implements [acl.Backend]: the simulator serves every function.
func (b *Backend) Supports(fn string) bool { return true }
