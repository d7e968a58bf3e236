package host

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// typedWAT imports host functions of NewHostFunc's form: env.mix of
// every value type with four results, env.store with none, env.fail.
const typedWAT = `(module
  (import "env" "mix" (func $mix (param i32 i64 f32 f64) (result f64 i32 i64 f32)))
  (import "env" "store" (func $store (param f64)))
  (import "env" "fail" (func $fail (param i32) (result i32)))
  (import "acl" "aclGetRecentErrMsg" (func $msg (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "mix") (param i32 i64 f32 f64) (result f64 i32 i64 f32)
    (call $mix (local.get 0) (local.get 1) (local.get 2) (local.get 3)))
  (func (export "store") (param f64) (call $store (local.get 0)))
  (func (export "fail") (param i32) (result i32) (call $fail (local.get 0))))
`

// typedFuncs are typedWAT's host functions: mix returns its f64 halved,
// its i32 negated, its i64 plus one and its f32 doubled; store keeps its
// f64 in *stored; fail returns its argument, or fails for 1 and 3 (a long
// message), panics for 2.
func typedFuncs(stored *float64) []HostFunc {
	i32, i64, f32, f64 := ValueTypeI32, ValueTypeI64, ValueTypeF32, ValueTypeF64
	return []HostFunc{
		NewHostFunc("env", "mix", []ValueType{i32, i64, f32, f64}, []ValueType{f64, i32, i64, f32}, func(_ *HostCall, stack []uint64) error {
			a, b, c, d := int32(uint32(stack[0])), int64(stack[1]), math.Float32frombits(uint32(stack[2])), math.Float64frombits(stack[3])
			stack[0], stack[1], stack[2], stack[3] = math.Float64bits(d/2), uint64(uint32(-a)), uint64(b+1), uint64(math.Float32bits(2*c))
			return nil
		}),
		NewHostFunc("env", "store", []ValueType{f64}, nil, func(_ *HostCall, stack []uint64) error {
			*stored = math.Float64frombits(stack[0])
			return nil
		}),
		NewHostFunc("env", "fail", []ValueType{i32}, []ValueType{i32}, func(c *HostCall, stack []uint64) error {
			switch stack[0] {
			case 1:
				return acl.Errorf(acl.ErrInvalidParam, "the embedder refuses %d", stack[0])
			case 2:
				panic("the embedder's bug")
			case 3:
				return errors.New(strings.Repeat("long ", 200))
			}
			return nil // the result is the argument, left in place
		}),
	}
}

// TestHostFuncTyped: host functions of any wasm type, several results or
// none, on the engine under test; an error or a panic traps the guest with
// the function's name and message, and calls are counted and traced.
func TestHostFuncTyped(t *testing.T) {
	ctx := context.Background()
	var stored float64
	var log []CallRecord
	_, inst := bytesInstance(t, typedWAT, WithHostFuncs(typedFuncs(&stored)...), WithTrace(func(r CallRecord) { log = append(log, r) }))

	res, err := inst.Call(ctx, "mix", uint64(uint32(7)), uint64(1<<40), uint64(math.Float32bits(1.25)), math.Float64bits(-3.5))
	require.NoError(t, err)
	require.Equal(t, []uint64{math.Float64bits(-1.75), uint64(uint32(0xfffffff9)), 1<<40 + 1, uint64(math.Float32bits(2.5))}, res)
	require.Equal(t, "env.mix", log[len(log)-1].Func.Name)
	require.Equal(t, []uint64{7, 1 << 40, uint64(math.Float32bits(1.25)), math.Float64bits(-3.5)}, log[len(log)-1].Args, "the trace shows the parameters, not the results")

	_, err = inst.Call(ctx, "store", math.Float64bits(math.Pi))
	require.NoError(t, err)
	require.Equal(t, math.Pi, stored)

	res, err = inst.Call(ctx, "fail", 42)
	require.NoError(t, err)
	require.Equal(t, []uint64{42}, res)

	st := inst.Session().Stats().Funcs
	require.Equal(t, uint64(1), st["env.mix"].Calls)
	require.Equal(t, uint64(1), st["env.store"].Calls)

	// An error and a panic trap: the reason names the function and says
	// what happened; the instance ends as after any trap.
	for _, tc := range []struct {
		arg  uint64
		want string
	}{
		{1, "host function env.fail: the embedder refuses 1"},
		{2, "host function env.fail: host bug: the embedder's bug"},
		{3, ("host function env.fail: " + strings.Repeat("long ", 200))[:256]}, // clipped as any trap's reason
	} {
		_, inst := bytesInstance(t, typedWAT, WithHostFuncs(typedFuncs(&stored)...))
		_, err := inst.Call(ctx, "fail", tc.arg)
		require.ErrorIs(t, err, ErrTrap)
		var te *TrapError
		require.ErrorAs(t, err, &te)
		require.Equal(t, tc.want, te.Reason)
	}
}

// TestHostFuncTypedChecks: Load holds imports to the exact wasm type, and
// NewRuntime refuses a malformed function.
func TestHostFuncTypedChecks(t *testing.T) {
	ctx := context.Background()
	var stored float64
	rt, err := NewRuntime(ctx, WithEngine(testEngine), WithHostFuncs(typedFuncs(&stored)...))
	require.NoError(t, err)
	defer rt.Close(ctx)
	probs, err := rt.Check(ctx, testsupport.WAT(t, `(module (import "env" "mix" (func (param i32 i64 f32 f32) (result f64 i32 i64 f32))))`), Policy{})
	require.NoError(t, err)
	require.Equal(t, []string{"import env.mix has signature (i32, i64, f32, f32) -> f64, i32, i64, f32, the host function has (i32, i64, f32, f64) -> f64, i32, i64, f32"}, probs)
	probs, err = rt.Check(ctx, testsupport.WAT(t, `(module (import "env" "store" (func (param f64) (result i32))))`), Policy{})
	require.NoError(t, err)
	require.Equal(t, []string{"import env.store has signature (f64) -> i32, the host function has (f64) -> "}, probs)

	fn := func(*HostCall, []uint64) error { return nil }
	withFn := NewHostFunc("env", "f", nil, nil, fn)
	withFn.Fn = func(*HostCall) (int32, error) { return 0, nil }
	for _, tc := range []struct {
		f    HostFunc
		want string
	}{
		{NewHostFunc("env", "f", []ValueType{0x7b}, nil, fn), "host function env.f: value 0 is of no value type (0x7b): want i32, i64, f32 or f64"},
		{NewHostFunc("env", "f", nil, make([]ValueType, 17), fn), "host function env.f: 0 parameters and 17 results, at most 16 of each"},
		{NewHostFunc("acl", "f", nil, nil, fn), `module "acl" is reserved`},
		{withFn, "host function env.f: Fn is set on a function of NewHostFunc"},
	} {
		_, err := NewRuntime(ctx, WithEngine(testEngine), WithHostFuncs(tc.f))
		require.ErrorContains(t, err, tc.want)
	}
}

// TestHostFuncGrants: a plugin imports only the host functions granted to
// it (Policy.HostFuncs, LoadHostFuncs): WithGrantedHostFuncs' ones never
// without a grant, WithHostFuncs' ones unless its grants name others.
// Refusals read as the policy's denials; a grant naming nothing is an
// error.
func TestHostFuncGrants(t *testing.T) {
	ctx := context.Background()
	var stored float64
	fns := typedFuncs(&stored)
	rt, err := NewRuntime(ctx, WithEngine(testEngine), WithHostFuncs(sumFunc()), WithGrantedHostFuncs(fns...))
	require.NoError(t, err)
	defer rt.Close(ctx)
	mixer := testsupport.WAT(t, `(module (import "env" "mix" (func (param i32 i64 f32 f64) (result f64 i32 i64 f32))) (import "env" "sum" (func (param i32 i32 i32) (result i32))))`)
	summer := testsupport.WAT(t, `(module (import "env" "sum" (func (param i32 i32 i32) (result i32))))`)
	denied := func(name string) string {
		return "import env." + name + " is denied: not granted to the plugin (Policy.HostFuncs, LoadHostFuncs)"
	}
	for _, tc := range []struct {
		wasm  []byte
		p     Policy
		opts  []LoadOption
		probs []string
	}{
		{mixer, Policy{}, nil, []string{denied("mix")}},
		{mixer, Policy{HostFuncs: []string{"env.mix"}}, nil, []string{denied("sum")}},
		{mixer, Policy{HostFuncs: []string{"env.mix", "env.sum"}}, nil, nil},
		{mixer, Policy{HostFuncs: []string{"env.mix"}}, []LoadOption{LoadHostFuncs("env.sum")}, nil},
		{mixer, Policy{}, []LoadOption{LoadHostFuncs("env.*")}, nil},
		{summer, Policy{}, nil, nil},
		{summer, Policy{HostFuncs: []string{"env.store"}}, nil, []string{denied("sum")}},
		{summer, Policy{Deny: []string{"aclrtMemcpy"}}, nil, nil},
	} {
		pl, err := rt.Load(ctx, tc.wasm, tc.p, tc.opts...)
		if tc.probs == nil {
			require.NoError(t, err, "%v %v", tc.p.HostFuncs, tc.opts)
			require.NoError(t, pl.Close(ctx))
			continue
		}
		var le *LoadError
		require.ErrorAs(t, err, &le, "%v", tc.p.HostFuncs)
		require.Equal(t, tc.probs, le.Problems)
	}

	// A granted function runs.
	pl, err := rt.Load(ctx, testsupport.WAT(t, typedWAT), Policy{HostFuncs: []string{"env.*"}})
	require.NoError(t, err)
	defer pl.Close(ctx)
	inst, err := pl.Instantiate(ctx, Config{})
	require.NoError(t, err)
	defer inst.Close(ctx)
	_, err = inst.Call(ctx, "store", math.Float64bits(2.5))
	require.NoError(t, err)
	require.Equal(t, 2.5, stored)

	for _, g := range []string{"env.nothing", "other.*", "env", "aclwasm.input_len"} {
		_, err := rt.Load(ctx, summer, Policy{HostFuncs: []string{g}})
		require.ErrorContains(t, err, fmt.Sprintf("policy: HostFuncs: %q names no host function of the runtime", g))
		require.NotErrorIs(t, err, ErrLoad)
	}
}
