package host

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// importsWAT imports one function of each status Imports reports, and a
// table.
const importsWAT = `(module
  (import "acl" "aclrtSetDevice" (func (param i32) (result i32)))
  (import "acl" "aclrtResetDevice" (func (param i32) (result i32)))
  (import "acl" "aclrtNoSuch" (func))
  (import "acl" "aclrtGetDevice" (func (param i64) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write2" (func))
  (import "wasi_snapshot_preview1" "proc_exit" (func (param i64)))
  (import "aclwasm" "input_len" (func (result i32)))
  (import "aclwasm" "input_len2" (func (result i32)))
  (import "aclwasm" "output_write" (func (param i32) (result i32)))
  (import "elsewhere" "f" (func))
  (import "env" "tab" (table 1 funcref))
  (memory 1))`

// TestImports: Imports judges each import as Load does, and Load's
// problems are those of the imports Imports refuses.
func TestImports(t *testing.T) {
	ctx := context.Background()
	rt := newRuntime(t)
	wasm := testsupport.WAT(t, importsWAT)
	p := Policy{Deny: []string{"aclrtResetDevice"}}
	sts, err := rt.Imports(ctx, wasm, p)
	require.NoError(t, err)
	type row struct{ Module, Name, Kind, Signature, Status string }
	var got []row
	var probs []string
	for _, st := range sts {
		got = append(got, row{st.Module, st.Name, st.Kind, st.Signature, st.Status})
		require.Equal(t, st.Status == "ok" || st.Status == "WASI preview1" || st.Status == "host function", st.Problem == "", st)
		if st.Problem != "" {
			probs = append(probs, st.Problem)
		}
	}
	require.Equal(t, []row{
		{"acl", "aclrtSetDevice", "function", "(i32) -> i32", "ok"},
		{"acl", "aclrtResetDevice", "function", "(i32) -> i32", "denied by the policy"},
		{"acl", "aclrtNoSuch", "function", "() -> ", "not a function of ABI v1"},
		{"acl", "aclrtGetDevice", "function", "(i64) -> i32", "signature mismatch: expects (i32) -> i32"},
		{"wasi_snapshot_preview1", "fd_write", "function", "(i32, i32, i32, i32) -> i32", "WASI preview1"},
		{"wasi_snapshot_preview1", "fd_write2", "function", "() -> ", "not a function of WASI preview1"},
		{"wasi_snapshot_preview1", "proc_exit", "function", "(i64) -> ", "signature mismatch: expects (i32) -> "},
		{"aclwasm", "input_len", "function", "() -> i32", "host function"},
		{"aclwasm", "input_len2", "function", "() -> i32", "not a function of host module"},
		{"aclwasm", "output_write", "function", "(i32) -> i32", "signature mismatch: expects (i32, i32) -> i32"},
		{"elsewhere", "f", "function", "() -> ", "unknown module"},
		{"env", "tab", "table", "", "not a function"},
	}, got)

	// Load refuses the module for exactly these problems (it has none of
	// its own).
	_, err = rt.Load(ctx, wasm, p)
	var le *LoadError
	require.True(t, errors.As(err, &le), "%v", err)
	require.Equal(t, probs, le.Problems)

	// A module refused before its imports are looked at: a LoadError.
	_, err = rt.Imports(ctx, []byte("\x00asm\x01\x00\x00\x00\x99"), Policy{})
	require.True(t, errors.As(err, &le), "%v", err)
}

// TestImportsGrants: a host function not granted to the plugin has its
// own status, and Imports takes Load's grants (LoadHostFuncs) too.
func TestImportsGrants(t *testing.T) {
	ctx := context.Background()
	var stored float64
	rt := newRuntime(t, WithGrantedHostFuncs(typedFuncs(&stored)...))
	wasm := testsupport.WAT(t, `(module (import "env" "mix" (func (param i32 i64 f32 f64) (result f64 i32 i64 f32))))`)
	sts, err := rt.Imports(ctx, wasm, Policy{})
	require.NoError(t, err)
	require.Len(t, sts, 1)
	require.Equal(t, "not granted to the plugin", sts[0].Status)
	require.Equal(t, "import env.mix is denied: not granted to the plugin (Policy.HostFuncs, LoadHostFuncs)", sts[0].Problem)
	sts, err = rt.Imports(ctx, wasm, Policy{}, LoadHostFuncs("env.mix"))
	require.NoError(t, err)
	require.Equal(t, "host function", sts[0].Status)
	require.Empty(t, sts[0].Problem)
}

// TestWASITable: the table Load checks WASI imports against is what the
// engines provide: a module importing every function of it instantiates,
// and it is exactly wazero's WASI.
func TestWASITable(t *testing.T) {
	names := make([]string, 0, len(wasiFuncs))
	for n := range wasiFuncs {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("(module\n")
	for _, n := range names {
		params, results, _ := strings.Cut(strings.TrimPrefix(wasiFuncs[n], "("), ") -> ")
		fmt.Fprintf(&b, "  (import %q %q (func (param %s) (result %s)))\n", wasiModule, n,
			strings.ReplaceAll(params, ",", ""), results)
	}
	b.WriteString("  (memory (export \"memory\") 1))\n")
	rt := newRuntime(t)
	pl := load(t, rt, testsupport.WAT(t, b.String()), Policy{})
	inst, err := pl.Instantiate(context.Background(), Config{})
	require.NoError(t, err, "%s provides every function of the table", testEngine)
	require.NoError(t, inst.Close(context.Background()))

	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, r)
	got := map[string]string{}
	for n, d := range r.Module(wasiModule).ExportedFunctionDefinitions() {
		ts := make([]string, len(d.ParamTypes()))
		for i, t := range d.ParamTypes() {
			ts[i] = api.ValueTypeName(t)
		}
		rs := make([]string, len(d.ResultTypes()))
		for i, t := range d.ResultTypes() {
			rs[i] = api.ValueTypeName(t)
		}
		got[n] = "(" + strings.Join(ts, ", ") + ") -> " + strings.Join(rs, ", ")
	}
	require.Equal(t, got, wasiFuncs)
}
