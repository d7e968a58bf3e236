package host

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// TestPluginExports: the function exports in the module's order, without
// the start function the host hoists into a hidden export.
func TestPluginExports(t *testing.T) {
	ctx := context.Background()
	rt, err := NewRuntime(ctx, append(testBackend(t), WithEngine(testEngine))...)
	require.NoError(t, err)
	defer rt.Close(ctx)
	wasm := testsupport.WAT(t, `(module
  (memory (export "memory") 1)
  (func $init)
  (func (export "b"))
  (func (export "a") (param i32) (result i32) local.get 0)
  (start $init))`)
	pl, err := rt.Load(ctx, wasm, Policy{})
	require.NoError(t, err)
	defer pl.Close(ctx)
	require.Equal(t, []string{"b", "a"}, pl.Exports())
	pl.Exports()[0] = "x"
	require.Equal(t, []string{"b", "a"}, pl.Exports(), "callers get a copy")
}
