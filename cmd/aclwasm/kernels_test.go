package main

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/testsupport"
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

// watVecAdd launches VecAdd (a kernels file's) on n = 4 float32s: c = a +
// b with a = 1..4 and b = 10..40, on two blocks (wide profile), and writes
// c's bytes to stdout; a failed launch exits 3, a failed synchronize 4.
const watVecAdd = `(module
  (import "acl" "aclrtSetDevice" (func $setDevice (param i32) (result i32)))
  (import "acl" "aclrtMalloc" (func $malloc (param i32 i64 i32) (result i32)))
  (import "acl" "aclrtMemcpy" (func $memcpy (param i64 i64 i64 i64 i32) (result i32)))
  (import "acl" "aclrtSynchronizeDevice" (func $sync (result i32)))
  (import "env" "VecAdd" (func $VecAdd (param i32 i32 i64 i64 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 64) "\00\00\80\3f\00\00\00\40\00\00\40\40\00\00\80\40")
  (data (i32.const 80) "\00\00\20\41\00\00\a0\41\00\00\f0\41\00\00\20\42")
  (func (export "_start")
    (drop (call $setDevice (i32.const 0)))
    (drop (call $malloc (i32.const 8) (i64.const 16) (i32.const 0)))
    (drop (call $malloc (i32.const 16) (i64.const 16) (i32.const 0)))
    (drop (call $malloc (i32.const 24) (i64.const 16) (i32.const 0)))
    (drop (call $memcpy (i64.load (i32.const 8)) (i64.const 16) (i64.const 64) (i64.const 16) (i32.const 1)))
    (drop (call $memcpy (i64.load (i32.const 16)) (i64.const 16) (i64.const 80) (i64.const 16) (i32.const 1)))
    (if (call $VecAdd (i32.const 2) (i32.const 0) (i64.load (i32.const 8)) (i64.load (i32.const 16)) (i64.load (i32.const 24)) (i32.const 4))
      (then (call $exit (i32.const 3))))
    (if (call $sync) (then (call $exit (i32.const 4))))
    (drop (call $memcpy (i64.const 128) (i64.const 16) (i64.load (i32.const 24)) (i64.const 16) (i32.const 2)))
    (i32.store (i32.const 0) (i32.const 128))
    (i32.store (i32.const 4) (i32.const 16))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 32)))
    (call $exit (i32.const 0))))`

// vecKernels is a kernels file declaring VecAdd, whose binary vec.o (the
// stand-in's form of one: acl/cann/testdata/standin) names the stand-in's
// float32 add under its own entry.
const vecKernels = `set: vecops
kernels:
  - name: VecAdd
    binary: vec.o
    entry: vec_add
    params:
      - {name: a, buffer: ACL_FLOAT, access: read, extent: n}
      - {name: b, buffer: ACL_FLOAT, access: read, extent: n}
      - {name: c, buffer: ACL_FLOAT, access: write, extent: n}
      - {name: n, scalar: ACL_UINT32}
`

// writeFile writes src to name in dir and returns its path.
func writeFile(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
	return p
}

// TestKernelFile: --kernel-file registers a file's kernels as its set,
// granted by the set's name or a kernel's, on the command line or in a
// manifest. The native backend (the stand-in ACLWASM_TEST_ACL_LIB names)
// runs them and the guest reads the sums; the simulator refuses the
// launch (207000), naming the backend.
func TestKernelFile(t *testing.T) {
	g := wat(t, "vecadd", watVecAdd)
	dir := t.TempDir()
	writeFile(t, dir, "vec.o", "aclwasm-standin-kernels\nvec_add standin_add_f32\n")
	kf := writeFile(t, dir, "vec.yaml", vecKernels)
	man := writeFile(t, filepath.Dir(g), "vecadd.yaml", "name: vecadd\nmodule: {path: vecadd.wasm}\npolicy: {kernels: [vecops]}\n")

	var want []byte
	for _, v := range []float32{11, 22, 33, 44} {
		want = binary.LittleEndian.AppendUint32(want, math.Float32bits(v))
	}
	backend := []string{"--backend", "sim"}
	if lib := testsupport.NativeLib(); lib != "" {
		backend = []string{"--backend", "cann", "--acl-lib", lib}
	}
	for _, args := range [][]string{
		{"--kernel-file", kf, "--kernels", "vecops", g},
		{"--kernel-file", kf, "--kernels", "VecAdd,basic", g},
		{"--kernel-file", kf, "--manifest", man},
	} {
		r := cli(t, append(append([]string{"run", "--trace"}, backend...), args...)...)
		if backend[1] == "sim" {
			require.Equal(t, 3, r.code, r.stderr)
			require.Contains(t, r.stderr, "207000")
			require.Contains(t, r.stderr, "kernel VecAdd has only a native binary (vec.o), no simulator implementation (host.Kernel.Run): the sim backend runs only kernels implemented in Go")
			continue
		}
		require.Equal(t, 0, r.code, r.stderr)
		require.Equal(t, want, []byte(r.stdout))
	}

	r := cli(t, "run", "--kernel-file", kf, g)
	require.Equal(t, 125, r.code)
	require.Contains(t, r.stderr, "no kernel VecAdd for its launcher: it is not granted to the plugin")
	r = cli(t, "run", "--kernel-file", kf, "--kernels", "nope", g)
	require.Equal(t, 126, r.code)
	require.Contains(t, r.stderr, `--kernels "nope": no such kernel set or kernel (sets: basic, cann-examples, vecops)`)
	r = cli(t, "check", "--kernel-file", kf, "--kernels", "vecops", g)
	require.Equal(t, 0, r.code, r.stderr+r.stdout)
	r = cli(t, "check", "--kernels", "vecops", g)
	require.Equal(t, 126, r.code)
	require.Contains(t, r.stderr, `--kernels "vecops": no such kernel set or kernel`)

	// A file that does not decode, and names taken: each is a host error
	// naming the file, in run, check and serve alike.
	bad := writeFile(t, dir, "bad.yaml", "set: s\nkernels:\n  - name: K\n    binary: vec.o\n")
	basicSet := writeFile(t, dir, "basic.yaml", strings.Replace(vecKernels, "set: vecops", "set: basic", 1))
	writeDo := writeFile(t, dir, "writedo.yaml", strings.Replace(vecKernels, "name: VecAdd", "name: WriteDo", 1))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--kernel-file", bad, g}, "--kernel-file: host: kernels file " + bad + ": kernels[0].entry (line 3): missing"},
		{[]string{"check", "--kernel-file", bad, g}, "kernels[0].entry (line 3): missing"},
		{[]string{"serve", "--listen", "127.0.0.1:0", "--kernel-file", bad, dir}, "kernels[0].entry (line 3): missing"},
		{[]string{"run", "--kernel-file", basicSet, g}, "--kernel-file " + basicSet + ": set basic is a name of a linked set too: a grant must name one thing"},
		{[]string{"run", "--kernel-file", writeDo, g}, "--kernel-file " + writeDo + ": kernel WriteDo is a name of linked set cann-examples too"},
		{[]string{"run", "--kernel-file", kf, "--kernel-file", kf, g}, "--kernel-file " + kf + ": set vecops is a name of --kernel-file " + kf + " too"},
	} {
		r := cli(t, c.args...)
		require.Equal(t, 126, r.code, c.args)
		require.Contains(t, r.stderr, c.want, c.args)
	}
}
