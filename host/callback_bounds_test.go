package host

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDispatcherType: a module that launches callbacks and exports a
// dispatcher of another type than (i32, i32) -> () is refused at load
// time with the expected signature (one of (f64, f64) loaded, and its
// callbacks ran nothing, silently).
func TestDispatcherType(t *testing.T) {
	ctx := context.Background()
	rt, err := NewRuntime(ctx, WithEngine(testEngine))
	require.NoError(t, err)
	defer rt.Close(ctx)
	for sig, want := range map[string]string{
		"(param f64 f64)": "(f64, f64) -> ()",
		"(param i32)":     "(i32) -> ()",
		"(param i32 i32) (result i32) i32.const 0": "(i32, i32) -> (i32)",
		"(param i64 i32)":                          "(i64, i32) -> ()",
	} {
		_, err = rt.Load(ctx, wat2wasm(t, `(module (import "acl" "aclrtLaunchHostFunc" (func (param i32 i32 i32) (result i32)))
  (memory 1) (func (export "aclwasm_dispatch_callback") `+sig+`))`), Policy{})
		var le *LoadError
		require.True(t, errors.As(err, &le), "%s: %v", sig, err)
		require.ErrorContains(t, err, "export aclwasm_dispatch_callback has type "+want+": the host calls it as (fn i32, userData i32) -> ()")
	}
	// The right type loads.
	pl, err := rt.Load(ctx, wat2wasm(t, `(module (import "acl" "aclrtLaunchHostFunc" (func (param i32 i32 i32) (result i32)))
  (memory 1) (func (export "aclwasm_dispatch_callback") (param i32 i32)))`), Policy{})
	require.NoError(t, err)
	require.NoError(t, pl.Close(ctx))
}
