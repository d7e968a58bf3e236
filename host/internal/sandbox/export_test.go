package sandbox

// What this package's external tests (package sandbox_test, which reach a
// session through Peek) may look at or set up inside a session or the
// state sessions share, beyond what the embedding API shows.

// LimitRegions cuts the runtime's device address regions to n.
func (sh *Shared) LimitRegions(n uint64) { sh.regions.n = n }

// MaxQueued is the session's limit of operations queued on one stream:
// the policy's, after its defaults.
func (s *Session) MaxQueued() int { return s.policy.MaxQueued }
