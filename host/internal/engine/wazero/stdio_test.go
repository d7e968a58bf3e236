package wazero

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// stdioWasm copies what it reads from stdin (up to 64 bytes, one read)
// to stdout and to stderr, each behind a one-byte tag of its own.
const stdioWasm = `(module
  (import "wasi_snapshot_preview1" "fd_read" (func $read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0x40) "OE")
  (func $out (param $fd i32) (param $tag i32) (param $n i32)
    (i32.store (i32.const 0) (local.get $tag))
    (i32.store (i32.const 4) (i32.const 1))
    (i32.store (i32.const 8) (i32.const 0x100))
    (i32.store (i32.const 12) (local.get $n))
    (drop (call $write (local.get $fd) (i32.const 0) (i32.const 2) (i32.const 0x20))))
  (func (export "echo") (result i32) (local $n i32)
    (i32.store (i32.const 0) (i32.const 0x100))
    (i32.store (i32.const 4) (i32.const 64))
    (drop (call $read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 0x20)))
    (local.set $n (i32.load (i32.const 0x20)))
    (call $out (i32.const 1) (i32.const 0x40) (local.get $n))
    (call $out (i32.const 2) (i32.const 0x41) (local.get $n))
    (local.get $n)))`

// TestStdioRoutes: instances whose stdio configuration is lent and given
// back (stdio.go) each read and write their own streams only, whether
// they live at once or one after the other (the next one made with the
// configuration the last one gave back: a closed instance's streams get
// nothing more), and with some streams missing (no input, output
// discarded, as wazero's defaults). An *os.File stream is given to wazero
// as such, not routed.
func TestStdioRoutes(t *testing.T) {
	ctx := context.Background()
	e, err := New(ctx, engine.Options{})
	require.NoError(t, err)
	defer func() { require.NoError(t, e.Close(ctx)) }()
	cm, err := e.Compile(ctx, engine.Module{Wasm: testsupport.WAT(t, stdioWasm)})
	require.NoError(t, err)
	defer func() { require.NoError(t, cm.Close(ctx)) }()

	type run struct {
		inv           *nopInvoker
		inst          engine.Instance
		in            io.Reader
		stdout, stder *bytes.Buffer
		want          string
	}
	start := func(t *testing.T, in string, out, errw bool, det bool) *run {
		r := &run{inv: &nopInvoker{}, want: in}
		cfg := engine.Config{Invoker: r.inv, MemoryLimit: 1 << 16, Args: []string{"x"}, DeterministicClocks: det}
		if in != "" {
			r.in = strings.NewReader(in)
			cfg.Stdin = r.in
		}
		if out {
			r.stdout = &bytes.Buffer{}
			cfg.Stdout = r.stdout
		}
		if errw {
			r.stder = &bytes.Buffer{}
			cfg.Stderr = r.stder
		}
		r.inst, err = cm.Instantiate(ctx, cfg)
		require.NoError(t, err)
		return r
	}
	echo := func(t *testing.T, r *run) {
		n, err := r.inst.Call(ctx, "echo")
		require.NoError(t, err)
		require.Equal(t, []uint64{uint64(len(r.want))}, n, "bytes read")
		if r.stdout != nil {
			require.Equal(t, "O"+r.want, r.stdout.String())
		}
		if r.stder != nil {
			require.Equal(t, "E"+r.want, r.stder.String())
		}
	}
	closeRun := func(t *testing.T, r *run) {
		require.NoError(t, errors.Join(r.inst.Close(ctx), r.inv.Release(ctx)))
	}

	// At once: every combination of streams, each instance its own.
	var live []*run
	for k := range 16 {
		r := start(t, fmt.Sprint("in", k), k&1 != 0, k&2 != 0, k&4 != 0)
		if k&8 != 0 {
			r.in, r.want = nil, ""
			closeRun(t, r)
			r = start(t, "", k&1 != 0, k&2 != 0, k&4 != 0)
		}
		live = append(live, r)
	}
	for _, r := range live {
		echo(t, r)
	}
	for _, r := range live {
		closeRun(t, r)
	}

	// One after the other: a closed instance's streams get nothing more.
	var last *run
	for k := range 20 {
		r := start(t, fmt.Sprint("turn", k), true, true, k%3 == 0)
		if last != nil {
			out, stder := last.stdout.String(), last.stder.String()
			echo(t, r)
			require.Equal(t, out, last.stdout.String(), "the closed instance's stdout")
			require.Equal(t, stder, last.stder.String(), "the closed instance's stderr")
		} else {
			echo(t, r)
		}
		closeRun(t, r)
		last = r
	}

	// An *os.File is wazero's own.
	f, err := os.CreateTemp(t.TempDir(), "stdout")
	require.NoError(t, err)
	defer f.Close()
	inv := &nopInvoker{}
	inst, err := cm.Instantiate(ctx, engine.Config{Invoker: inv, MemoryLimit: 1 << 16, Stdin: strings.NewReader("file"), Stdout: f})
	require.NoError(t, err)
	require.Nil(t, inst.(*instance).io, "an *os.File stdout is routed")
	_, err = inst.Call(ctx, "echo")
	require.NoError(t, err)
	require.NoError(t, errors.Join(inst.Close(ctx), inv.Release(ctx)))
	b, err := os.ReadFile(f.Name())
	require.NoError(t, err)
	require.Equal(t, "Ofile", string(b))
}
