package cann

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/cann"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/kernels/basic"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// kernelGuest fills a and b with FillF32, adds them into c with AddF32 (a
// status launcher), writes c to stdout, then launches Boom, a kernel that
// faults, and checks that the next synchronize reports it. It exits with
// the number of the step that went wrong, 0 when none did.
const kernelGuest = `(module
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (import "acl" "aclrtMalloc" (func $malloc (param i32 i64 i32) (result i32)))
  (import "acl" "aclrtCreateStream" (func $cs (param i32) (result i32)))
  (import "acl" "aclrtSynchronizeStream" (func $sync (param i32) (result i32)))
  (import "acl" "aclrtMemcpy" (func $memcpy (param i64 i64 i64 i64 i32) (result i32)))
  (import "env" "FillF32" (func $fill (param i32 i32 i64 i32 f32)))
  (import "env" "AddF32" (func $add (param i32 i32 i64 i64 i64 i32) (result i32)))
  (import "env" "Boom" (func $boom (param i32 i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 2)
  (func $check (param $r i32) (param $step i32)
    (if (local.get $r) (then (call $exit (local.get $step)))))
  (func (export "_start") (local $s i32)
    (call $check (call $set (i32.const 0)) (i32.const 1))
    (call $check (call $malloc (i32.const 16) (i64.const 4000) (i32.const 0)) (i32.const 2))
    (call $check (call $malloc (i32.const 24) (i64.const 4000) (i32.const 0)) (i32.const 3))
    (call $check (call $malloc (i32.const 32) (i64.const 4000) (i32.const 0)) (i32.const 4))
    (call $check (call $cs (i32.const 40)) (i32.const 5))
    (local.set $s (i32.load (i32.const 40)))
    (call $fill (i32.const 3) (local.get $s) (i64.load (i32.const 16)) (i32.const 1000) (f32.const 1.5))
    (call $fill (i32.const 2) (local.get $s) (i64.load (i32.const 24)) (i32.const 1000) (f32.const 2.25))
    (call $check (call $add (i32.const 4) (local.get $s) (i64.load (i32.const 16)) (i64.load (i32.const 24)) (i64.load (i32.const 32)) (i32.const 999)) (i32.const 6))
    (call $check (call $sync (local.get $s)) (i32.const 7))
    (call $check (call $memcpy (i64.const 4096) (i64.const 4000) (i64.load (i32.const 32)) (i64.const 4000) (i32.const 2)) (i32.const 8))
    (i32.store (i32.const 64) (i32.const 4096))
    (i32.store (i32.const 68) (i32.const 4000))
    (call $check (call $write (i32.const 1) (i32.const 64) (i32.const 1) (i32.const 80)) (i32.const 9))
    (call $boom (i32.const 1) (local.get $s))
    (call $check (i32.ne (call $sync (local.get $s)) (i32.const 507015)) (i32.const 10))
    (call $check (call $sync (local.get $s)) (i32.const 11))))
`

// kernelSet is basic's FillF32 and AddF32 with the stand-in's binary, and
// Boom, a kernel that faults (the binary's entry Fault).
func kernelSet(t *testing.T) []host.Kernel {
	bin, err := filepath.Abs(filepath.Join("..", "..", "acl", "cann", "testdata", "standin", "kernels.txt"))
	require.NoError(t, err)
	var ks []host.Kernel
	for _, k := range basic.Kernels() {
		if k.Name == "FillF32" || k.Name == "AddF32" {
			k.Binary = bin
			ks = append(ks, k)
		}
	}
	return append(ks, host.Kernel{Name: "Boom", Binary: bin, Entry: "Fault",
		Run: func(context.Context, *host.KernelBlock) error { return errors.New("illegal address") }})
}

// loadedBinaries is how many kernel binaries the stand-in holds.
func loadedBinaries(t *testing.T) int64 {
	h, err := purego.Dlopen(lib, purego.RTLD_NOW|purego.RTLD_LOCAL)
	require.NoError(t, err)
	var stats func(out *int64)
	purego.RegisterLibFunc(&stats, h, "aclwasmStandinKernelStats")
	var n int64
	stats(&n)
	return n
}

// TestKernelsDifferential runs one guest's kernel launches on the
// simulator (the kernels' Go code) and on the stand-in (its C kernels
// from the binary the host loads): same output, same codes.
func TestKernelsDifferential(t *testing.T) {
	ctx := context.Background()
	wasm := testsupport.WAT(t, kernelGuest)
	run := func(b acl.Backend) []byte {
		rt, err := host.NewRuntime(ctx, host.WithBackend(b), host.WithEngine(testsupport.Engine()), host.WithKernels(kernelSet(t)...))
		require.NoError(t, err)
		defer func() { require.NoError(t, rt.Close(ctx)) }()
		pl, err := rt.Load(ctx, wasm, host.Policy{Kernels: []string{"FillF32", "AddF32", "Boom"}})
		require.NoError(t, err)
		var out bytes.Buffer
		res, err := pl.Run(ctx, host.Config{Stdout: &out})
		require.NoError(t, err)
		require.Zero(t, res.ExitCode, "the step that failed on %s", b.Name())
		require.NoError(t, pl.Close(ctx))
		return out.Bytes()
	}
	s := sim.New()
	defer s.Close()
	want := run(s)
	require.Len(t, want, 4000)
	for i := range 1000 {
		v := math.Float32frombits(binary.LittleEndian.Uint32(want[4*i:]))
		if i < 999 {
			require.Equal(t, float32(3.75), v, "element %d", i)
		} else {
			require.Zero(t, v, "element 999 is past the launch's n")
		}
	}
	n, err := cann.Open(lib)
	require.NoError(t, err)
	defer func() { require.NoError(t, n.Close()) }()
	callLog(t)
	require.Equal(t, want, run(n))
	require.Zero(t, loadedBinaries(t), "the plugin's close unloaded its binary")
	launches := 0
	for _, l := range callLog(t) {
		if name, _, _ := bytes.Cut([]byte(l), []byte("(")); string(name) == "aclrtLaunchKernelWithConfig" {
			launches++
		}
	}
	require.Equal(t, 4, launches, "two fills, an add and Boom, each one native launch")
}
