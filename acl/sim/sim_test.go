package sim_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/acltest"
	"github.com/aclwasm/aclwasm/acl/sim"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// newSim returns a simulator closed when the test ends.
func newSim(t testing.TB, opts ...sim.Option) *sim.Backend {
	b := sim.New(opts...)
	t.Cleanup(func() { b.Close() })
	return b
}

func TestConformance(t *testing.T) {
	for _, chip := range []sim.Chip{sim.AtlasA2, sim.AtlasA3, sim.Ascend950} {
		t.Run(chip.String(), func(t *testing.T) {
			acltest.Run(t, func(t *testing.T) acl.Backend {
				return newSim(t, sim.WithChip(chip), sim.WithMemory(1<<30))
			})
		})
	}
	// The timing model changes when work counts as complete and what
	// events measure, never the semantics the suite checks.
	for name, opt := range map[string]sim.Option{"timing": sim.WithTiming(), "pacing": sim.WithPacing()} {
		t.Run(name, func(t *testing.T) {
			acltest.Run(t, func(t *testing.T) acl.Backend {
				return newSim(t, opt, sim.WithMemory(1<<30))
			})
		})
	}
}
