// Package peers measures aclwasm beside its peers in one process: Extism's
// Go SDK, on the same wazero, for an embedder's host function called by a
// guest and for bytes in and out of a plugin call. Each benchmark times the
// two side by side, alternating rounds (testsupport.Measure), and reports
// the ratio aclwasm / Extism as x-extism: below 1, aclwasm is faster.
// `make perf-table` runs them with the host's goal benchmarks.
//
// It is a module of its own so that the main module gains no dependency on
// Extism.
package peers

import (
	"bytes"
	"context"
	"encoding/binary"
	"testing"

	extism "github.com/extism/go-sdk"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// The aclwasm guest: a loop over a host function taking and returning an
// i64, and an echo through the bytes imports.
const aclwasmWAT = `(module
  (import "bench" "nop" (func $nop (param i64) (result i32)))
  (import "aclwasm" "input_len" (func $len (result i32)))
  (import "aclwasm" "input_read" (func $read (param i32 i32) (result i32)))
  (import "aclwasm" "output_write" (func $write (param i32 i32) (result i32)))
  (memory (export "memory") 40)
  (func (export "loop") (param $n i64) (result i32)
    (block $done (loop $l
      (br_if $done (i64.eqz (local.get $n)))
      (drop (call $nop (local.get $n)))
      (local.set $n (i64.sub (local.get $n) (i64.const 1)))
      (br $l)))
    (i32.const 0))
  (func (export "echo") (result i32) (local $n i32) (local $r i32)
    (local.set $n (call $len))
    (local.set $r (call $read (i32.const 0x10000) (local.get $n)))
    (if (local.get $r) (then (return (local.get $r))))
    (call $write (i32.const 0x10000) (local.get $n))))
`

// The Extism guest, as its plugin development kits build one: the same
// loop over a host function of the user namespace (its count read from
// the input), and an echo through Extism's kernel (input, memory and
// output functions), 8 bytes per call as the kits copy.
const extismWAT = `(module
  (import "extism:host/user" "nop" (func $nop (param i64) (result i64)))
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "input_load_u64" (func $input_load_u64 (param i64) (result i64)))
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "store_u64" (func $store_u64 (param i64 i64)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (memory (export "memory") 1)
  (func (export "loop") (result i32) (local $n i64)
    (local.set $n (call $input_load_u64 (i64.const 0)))
    (block $done (loop $l
      (br_if $done (i64.eqz (local.get $n)))
      (drop (call $nop (local.get $n)))
      (local.set $n (i64.sub (local.get $n) (i64.const 1)))
      (br $l)))
    (i32.const 0))
  (func (export "echo") (result i32) (local $n i64) (local $off i64) (local $i i64)
    (local.set $n (call $input_length))
    (local.set $off (call $alloc (local.get $n)))
    (block $done (loop $l
      (br_if $done (i64.gt_u (i64.add (local.get $i) (i64.const 8)) (local.get $n)))
      (call $store_u64 (i64.add (local.get $off) (local.get $i)) (call $input_load_u64 (local.get $i)))
      (local.set $i (i64.add (local.get $i) (i64.const 8)))
      (br $l)))
    (block $done (loop $l
      (br_if $done (i64.ge_u (local.get $i) (local.get $n)))
      (call $store_u8 (i64.add (local.get $off) (local.get $i)) (call $input_load_u8 (local.get $i)))
      (local.set $i (i64.add (local.get $i) (i64.const 1)))
      (br $l)))
    (call $output_set (local.get $off) (local.get $n))
    (i32.const 0))
)
`

// aclwasmInstance is the aclwasm guest, instantiated with a no-op host
// function bench.nop.
func aclwasmInstance(b *testing.B) *host.Instance {
	ctx := context.Background()
	nop := host.NewHostFunc("bench", "nop", []host.ValueType{host.ValueTypeI64}, []host.ValueType{host.ValueTypeI32},
		func(_ *host.HostCall, stack []uint64) error { stack[0] = 0; return nil })
	rt, err := host.NewRuntime(ctx, host.WithHostFuncs(nop))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { rt.Close(ctx) })
	pl, err := rt.Load(ctx, testsupport.WAT(b, aclwasmWAT), host.Policy{MemoryPages: 64, Timeout: host.NoTimeout})
	if err != nil {
		b.Fatal(err)
	}
	inst, err := pl.Instantiate(ctx, host.Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { inst.Close(ctx) })
	return inst
}

// extismPlugin is the Extism guest with a no-op host function nop, on
// Extism's default wazero configuration.
func extismPlugin(b *testing.B) *extism.Plugin {
	ctx := context.Background()
	nop := extism.NewHostFunctionWithStack("nop", func(_ context.Context, _ *extism.CurrentPlugin, stack []uint64) { stack[0] = 0 },
		[]extism.ValueType{extism.ValueTypeI64}, []extism.ValueType{extism.ValueTypeI64})
	m := extism.Manifest{Wasm: []extism.Wasm{extism.WasmData{Data: testsupport.WAT(b, extismWAT)}}}
	p, err := extism.NewPlugin(ctx, m, extism.PluginConfig{}, []extism.HostFunction{nop})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close(ctx) })
	return p
}

// BenchmarkPeerHostFunc: a guest calling an embedder's host function that
// does nothing, in a guest loop of 1000 calls, on aclwasm and on Extism.
func BenchmarkPeerHostFunc(b *testing.B) {
	const iters = 1000
	inst, p := aclwasmInstance(b), extismPlugin(b)
	count := make([]byte, 8)
	ext := func(n int) {
		for done := 0; done < n; done += iters {
			binary.LittleEndian.PutUint64(count, uint64(min(iters, n-done)))
			if rc, _, err := p.Call("loop", count); err != nil || rc != 0 {
				b.Fatal(rc, err)
			}
		}
	}
	acw := func(n int) {
		for done := 0; done < n; done += iters {
			if res, err := inst.Call(context.Background(), "loop", uint64(min(iters, n-done))); err != nil || res[0] != 0 {
				b.Fatal(res, err)
			}
		}
	}
	f, r := testsupport.Measure(b, iters, ext, acw)
	b.ReportMetric(r/f, "x-extism")
}

// BenchmarkPeerEcho: bytes in and out of one plugin call (the guest
// copies its input to its output), at 5 B, 4 KiB and 1 MiB, on aclwasm
// (CallBytesTo into a reused buffer) and on Extism (Plugin.Call).
func BenchmarkPeerEcho(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"5B", 5}, {"4KiB", 4 << 10}, {"1MiB", 1 << 20}} {
		b.Run(size.name, func(b *testing.B) {
			inst, p := aclwasmInstance(b), extismPlugin(b)
			in := bytes.Repeat([]byte("aclw!"), size.n/5+1)[:size.n]
			out := make([]byte, 0, size.n)
			ext := func(n int) {
				for range n {
					rc, got, err := p.Call("echo", in)
					if err != nil || rc != 0 || len(got) != len(in) {
						b.Fatal(rc, len(got), err)
					}
				}
			}
			acw := func(n int) {
				for range n {
					got, err := inst.CallBytesTo(context.Background(), "echo", in, out[:0])
					if err != nil || len(got) != len(in) {
						b.Fatal(len(got), err)
					}
				}
			}
			// Both echo exactly what they were given.
			ext(1)
			_, got, _ := p.Call("echo", in)
			if !bytes.Equal(got, in) {
				b.Fatal("Extism's echo differs from its input")
			}
			if got, _ := inst.CallBytesTo(context.Background(), "echo", in, out[:0]); !bytes.Equal(got, in) {
				b.Fatal("aclwasm's echo differs from its input")
			}
			f, r := testsupport.Measure(b, 16, ext, acw)
			b.ReportMetric(r/f, "x-extism")
		})
	}
}
