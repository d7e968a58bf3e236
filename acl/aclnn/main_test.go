package aclnn

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind (gonum's
// GEMM runs its blocks on goroutines of its own).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
