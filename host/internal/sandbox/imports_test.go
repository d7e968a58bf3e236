package sandbox

import (
	"testing"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/stretchr/testify/require"
)

// TestImportsComplete: every function of abi.Funcs has one implementation,
// in its place.
func TestImportsComplete(t *testing.T) {
	require.Len(t, imports, len(abi.Funcs))
	for i, fn := range imports {
		require.NotNil(t, fn, abi.Funcs[i].Name)
	}
	fns, err := link(abi.Funcs, byRule, irregular)
	require.NoError(t, err)
	require.Len(t, fns, len(abi.Funcs))
}

// TestLinkErrors: a function without an implementation, with two, or an
// implementation of a function the table lacks, fails with its name.
func TestLinkErrors(t *testing.T) {
	a := abi.Func{Name: "aclrtA", Group: abi.Runtime}
	b := abi.Func{Name: "aclrtB", Group: abi.Runtime}
	op := abi.Func{Name: "aclnnC", Group: abi.Operator, Launch: true}
	fn := func(*Call) error { return nil }

	fns, err := link([]abi.Func{a, op}, map[string]importFn{"aclrtA": fn}, nil)
	require.NoError(t, err)
	require.Len(t, fns, 2)
	require.NotNil(t, fns[1], "an operator function: runOp")

	_, err = link([]abi.Func{a, b}, map[string]importFn{"aclrtA": fn}, nil)
	require.ErrorContains(t, err, "no implementation of aclrtB: write it in its family's file")

	_, err = link([]abi.Func{a}, map[string]importFn{"aclrtA": fn}, map[string]importFn{"aclrtA": fn})
	require.ErrorContains(t, err, "aclrtA has two implementations")

	_, err = link([]abi.Func{op}, nil, map[string]importFn{"aclnnC": fn})
	require.ErrorContains(t, err, "aclnnC is an operator function")

	_, err = link([]abi.Func{a}, map[string]importFn{"aclrtA": fn, "aclrtGone": fn}, map[string]importFn{"aclrtOld": fn})
	require.ErrorContains(t, err, "irregular (imports.go) implements aclrtOld, which abi.Funcs lacks")
	require.ErrorContains(t, err, "imports_gen.go implements aclrtGone, which abi.Funcs lacks: run go generate")
}
