package module

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCompileLimits: one problem per limit exceeded, naming the function
// and the policy's field; a size at its limit is within it.
func TestCompileLimits(t *testing.T) {
	l := Limits{MaxModuleBytes: 1000, MaxFunctions: 10, MaxFunctionBodyBytes: 100, MaxLocals: 20, MaxBlockDepth: 30, MaxBrTableTargets: 40}
	at := CodeStats{Funcs: 10, MaxBody: 100, MaxBodyAt: 1, MaxLocals: 20, MaxLocalsAt: 2, MaxDepth: 30, MaxDepthAt: 3, MaxTable: 40, MaxTableAt: 4}
	require.Empty(t, CompileLimits(1000, at, l), "every size at its limit")
	require.Empty(t, CompileLimits(0, CodeStats{}, Limits{}), "an empty module under zero limits")

	over := CodeStats{Funcs: 11, MaxBody: 101, MaxBodyAt: 1, MaxLocals: 21, MaxLocalsAt: 2, MaxDepth: 31, MaxDepthAt: 3, MaxTable: 41, MaxTableAt: 4}
	require.Equal(t, []string{
		"module size in bytes: 1001, more than the limit 1000 (MaxModuleBytes)",
		"function bodies: 11, more than the limit 10 (MaxFunctions)",
		"function 1: body size in bytes: 101, more than the limit 100 (MaxFunctionBodyBytes)",
		"function 2: locals: 21, more than the limit 20 (MaxLocals)",
		"function 3: nesting depth of blocks: 31, more than the limit 30 (MaxBlockDepth)",
		"function 4: br_table targets: 41, more than the limit 40 (MaxBrTableTargets)",
	}, CompileLimits(1001, over, l))

	one := at
	one.MaxLocals = ^uint64(0) // a saturated count is over any limit
	require.Equal(t, []string{"function 2: locals: 18446744073709551615, more than the limit 20 (MaxLocals)"}, CompileLimits(10, one, l))
}
