package sandbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// TestCallBytesOverlapBusy: a CallBytes overlapping a running one is
// refused with ErrBusy and leaves the running call's input and output
// alone.
func TestCallBytesOverlapBusy(t *testing.T) {
	ctx := context.Background()
	entered, release := make(chan struct{}), make(chan struct{})
	gate := host.HostFunc{Module: "test", Name: "gate", Fn: func(*host.HostCall) (int32, error) {
		entered <- struct{}{}
		<-release
		return 0, nil
	}}
	rt, err := host.NewRuntime(ctx, append(proxytest.Backend(t), host.WithEngine(testEngine), host.WithHostFuncs(gate))...)
	require.NoError(t, err)
	defer rt.Close(ctx)
	pl, err := rt.Load(ctx, testsupport.WAT(t, `(module
  (import "test" "gate" (func $gate (result i32)))
  (import "aclwasm" "input_len" (func $len (result i32)))
  (import "aclwasm" "input_read" (func $read (param i32 i32) (result i32)))
  (import "aclwasm" "output_write" (func $write (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  ;; waits at the gate, then echoes its input
  (func (export "echo") (result i32)
    (drop (call $gate))
    (drop (call $read (i32.const 16) (call $len)))
    (call $write (i32.const 16) (call $len))))`), host.Policy{Timeout: time.Minute})
	require.NoError(t, err)
	inst, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(t, err)
	defer inst.Close(ctx)
	type res struct {
		out []byte
		err error
	}
	first := make(chan res, 1)
	go func() { out, err := inst.CallBytes(ctx, "echo", []byte("first")); first <- res{out, err} }()
	<-entered
	_, err = inst.CallBytes(ctx, "echo", []byte("second"))
	require.ErrorIs(t, err, host.ErrBusy)
	close(release)
	r := <-first
	require.NoError(t, r.err)
	require.Equal(t, "first", string(r.out))
}
