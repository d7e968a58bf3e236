package sandbox_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// TestReexportedImportMemory: an import the guest re-exports, called by
// the host, works on the guest's memory on every engine, as the guest's
// own call would: wazero passes the host module to the host function then,
// and its adapter takes the memory of the instance the call's binding
// names, as wasmtime's takes its store's.
func TestReexportedImportMemory(t *testing.T) {
	rt := proxytest.Runtime(t)
	pl := proxytest.Load(t, rt, testsupport.WAT(t, `(module
  (import "acl" "aclrtSetDevice" (func (param i32) (result i32)))
  (import "acl" "aclrtGetDevice" (func (param i32) (result i32)))
  (memory (export "memory") 1)
  (export "aclrtSetDevice" (func 0))
  (export "aclrtGetDevice" (func 1)))`), host.Policy{})
	ctx := context.Background()
	inst, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(t, err)
	defer func() { require.NoError(t, inst.Close(ctx)) }()
	res, err := inst.Call(ctx, "aclrtSetDevice", 0)
	require.NoError(t, err)
	require.Equal(t, []uint64{0}, res)
	mem := proxytest.Mem(inst)
	copy(mem[outA:], []byte{0xff, 0xff, 0xff, 0xff})
	res, err = inst.Call(ctx, "aclrtGetDevice", outA)
	require.NoError(t, err)
	require.Equal(t, []uint64{0}, res, inst.Session().LastError())
	require.Equal(t, []byte{0, 0, 0, 0}, proxytest.Mem(inst)[outA:outA+4])
}

// TestSmallCopyEndedContext: a small aclrtMemcpy in a call whose context
// has ended copies nothing and fails as Memcpy does (its first check),
// although the small copy gives the backend no context: the session looks
// at it first, the instance's own context and any other alike.
func TestSmallCopyEndedContext(t *testing.T) {
	h := newInvokeHarness(t)
	fi := abi.Lookup("aclrtMemcpy").Index()
	copy(h.mem[data:], []byte{1, 2, 3, 4, 5, 6, 7, 8})
	dead, cancel := context.WithCancel(context.Background())
	cancel()
	stack := []uint64{h.dev, 64, data, 64, uint64(acl.MemcpyHostToDevice)}
	h.inv.Invoke(dead, fi, h.mem, stack)
	require.Equal(t, uint64(acl.ErrRTStreamSyncTimeout), stack[0])
	require.Contains(t, h.s.LastError(), "cancelled")

	// Nothing reached the device: a copy back reads zeros.
	stack = []uint64{data2, 64, h.dev, 64, uint64(acl.MemcpyDeviceToHost)}
	h.inv.Invoke(context.Background(), fi, h.mem, stack)
	require.Zero(t, stack[0], h.s.LastError())
	require.Equal(t, make([]byte, 64), h.mem[data2:data2+64])

	// The same through an instance whose call's context ended.
	stack = []uint64{h.dev, 64, data, 64, uint64(acl.MemcpyHostToDevice)}
	h.inv.Invoke(h.endedCallCtx(t), fi, h.mem, stack)
	require.Equal(t, uint64(acl.ErrRTStreamSyncTimeout), stack[0])
	stack = []uint64{data2, 64, h.dev, 64, uint64(acl.MemcpyDeviceToHost)}
	h.inv.Invoke(context.Background(), fi, h.mem, stack)
	require.Zero(t, stack[0], h.s.LastError())
	require.Equal(t, make([]byte, 64), h.mem[data2:data2+64])
}
