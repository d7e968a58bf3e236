package engine

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain: a watched call's action, run on a goroutine of its own, has
// ended by the time the tests do.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
