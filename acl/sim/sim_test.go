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
}
