package sandbox

import (
	"errors"

	"github.com/aclwasm/aclwasm/acl"
)

// The methods of this file let package host's tests that have not yet
// moved beside the imports (the compute check-order cases, the model and
// kernel tests) look at and set up what the embedding API does not show: a
// session's backend, streams, holdings and handle counter. What only this
// package's own tests use is in export_test.go. Nothing outside tests
// calls them.

// Backend returns the backend the session delegates to.
func (s *Session) Backend() acl.Backend { return s.b }

// Stream returns the backend stream of the guest's stream handle h (0:
// the current context's default stream, made on first use) and its
// physical device.
func (s *Session) Stream(h uint32) (acl.Stream, int32, error) {
	st, err := s.stream(h)
	if err != nil {
		return 0, 0, err
	}
	return st.h, s.phys(st.dev), nil
}

func (s *Session) stream(h uint32) (*streamRec, error) {
	if h == 0 {
		return s.defaultStream()
	}
	st, ok := s.streams[h]
	if !ok {
		return nil, errors.New("sandbox: no such stream")
	}
	return st, nil
}

// Holdings returns how many allocations (leases included) and streams
// the session holds.
func (s *Session) Holdings() (allocs, streams int) { return len(s.as.allocs), len(s.streams) }

// SetNextHandle makes n the last handle handed out.
func (s *Session) SetNextHandle(n uint32) { s.nextHandle = n }

// LeaveDevice makes the session have no current device, as a context of
// another thread would natively.
func (s *Session) LeaveDevice() { s.dev = -1 }

// Recount makes the session's count of what is queued on its stream h
// (0: the default stream) the backend's (acl.Backend.Pending), after a
// test queued work there behind the session's back.
func (s *Session) Recount(h uint32) error {
	st, err := s.stream(h)
	if err != nil {
		return err
	}
	n, err := s.b.Pending(st.h)
	st.queued = n
	return err
}
