package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// watWriteDo launches the cann-examples set's WriteDo on two blocks of a
// fresh allocation (wide profile), then synchronizes: each block prints.
const watWriteDo = `(module
  (import "acl" "aclrtSetDevice" (func $setDevice (param i32) (result i32)))
  (import "acl" "aclrtMalloc" (func $malloc (param i32 i64 i32) (result i32)))
  (import "acl" "aclrtSynchronizeDevice" (func $sync (result i32)))
  (import "env" "_Z7WriteDojPvyi" (func $WriteDo (param i32 i32 i64 i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (func (export "_start")
    (drop (call $setDevice (i32.const 0)))
    (drop (call $malloc (i32.const 8) (i64.const 64) (i32.const 0)))
    (call $WriteDo (i32.const 2) (i32.const 0) (i64.load (i32.const 8)) (i32.const 5))
    (call $exit (call $sync))))`

func TestKernels(t *testing.T) {
	g := wat(t, "writedo", watWriteDo)
	r := cli(t, "run", "--kernels", "cann-examples", g)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "Source data: 5\nSource data: 5\n", r.stdout)

	r = cli(t, "run", "--kernels", "WriteDo,basic", g) // a kernel of a set, alone
	require.Equal(t, 0, r.code, r.stderr)

	r = cli(t, "run", g)
	require.Equal(t, 125, r.code)
	require.Contains(t, r.stderr, "import env._Z7WriteDojPvyi is undefined: no kernel WriteDo for its launcher: it is not granted to the plugin (Policy.Kernels, --kernels) (granted: none)")

	r = cli(t, "run", "--kernels", "nope", g)
	require.Equal(t, 126, r.code)
	require.Contains(t, r.stderr, `--kernels "nope": no such kernel set or kernel (sets: basic, cann-examples)`)

	r = cli(t, "check", "--kernels", "cann-examples", g)
	require.Equal(t, 0, r.code, r.stderr+r.stdout)
	r = cli(t, "check", "--imports", "--kernels", "cann-examples", g)
	require.Contains(t, r.stdout, "env\t_Z7WriteDojPvyi\t(i32, i32, i64, i32) -> \tkernel launcher\n")

	// A manifest grants them in its policy.
	man := filepath.Join(filepath.Dir(g), "k.yaml")
	require.NoError(t, os.WriteFile(man, []byte("name: writedo\nmodule: {path: writedo.wasm}\npolicy: {kernels: [cann-examples]}\n"), 0o644))
	r = cli(t, "run", "--manifest", man)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "Source data: 5\nSource data: 5\n", r.stdout)
	r = cli(t, "run", "--manifest", man, "--kernels", "basic")
	require.Equal(t, 126, r.code)
	require.Contains(t, r.stderr, "--kernels: with --manifest the policy comes from the manifest")
}
