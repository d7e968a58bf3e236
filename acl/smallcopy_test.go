package acl_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
)

// forwards embeds a backend and forwards its Traits, as a wrapper does.
type forwards struct{ *sim.Backend }

// reports embeds a backend and reports itself as its small copier.
type reports struct{ *sim.Backend }

func (r reports) Traits() acl.Traits {
	t := r.Backend.Traits()
	t.SmallCopier = r
	return t
}

// uncomparable reports itself but cannot be compared with itself.
type uncomparable struct {
	*sim.Backend
	_ []int
}

func (u uncomparable) Traits() acl.Traits {
	t := u.Backend.Traits()
	t.SmallCopier = u
	return t
}

// TestSmallCopierOf: the small copies are taken only from the backend
// that is the role, so a wrapper that forwards an inner backend's Traits
// has none unless it reports itself.
func TestSmallCopierOf(t *testing.T) {
	s := sim.New()
	defer s.Close()
	require.Equal(t, acl.SmallCopier(s), acl.SmallCopierOf(s), "the simulator's own")
	require.NotNil(t, forwards{s}.Traits().SmallCopier, "the forwarded Traits name the inner backend's")
	require.Nil(t, acl.SmallCopierOf(forwards{s}), "a forwarding wrapper")
	require.Nil(t, acl.SmallCopierOf(&forwards{s}), "a forwarding wrapper by pointer")
	require.Equal(t, acl.SmallCopier(reports{s}), acl.SmallCopierOf(reports{s}), "a wrapper that reports itself")
	require.Nil(t, acl.SmallCopierOf(uncomparable{Backend: s}), "a value that cannot be compared")
}
