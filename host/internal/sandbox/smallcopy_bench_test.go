package sandbox_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// invokeHarness is a session of the proxy guest driven below the engine:
// its imports are called through the Invoker as an engine calls them, so
// that a benchmark measures the sandbox's own cost of an import.
type invokeHarness struct {
	inv invoker
	s   *sandbox.Session
	mem []byte
	dev uint64
}

// invoker is the engine's view of a session (engine.Invoker), as far as
// a call goes.
type invoker interface {
	Invoke(ctx context.Context, fn int, mem []byte, stack []uint64)
}

func newInvokeHarness(tb testing.TB) *invokeHarness {
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, append(proxytest.Backend(tb), host.WithEngine(testEngine))...)
	require.NoError(tb, err)
	tb.Cleanup(func() { rt.Close(ctx) })
	pl, err := rt.Load(ctx, testsupport.Proxy(abi.Wide, 4), host.Policy{})
	require.NoError(tb, err)
	inst, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(tb, err)
	tb.Cleanup(func() { inst.Close(ctx) })
	s := proxytest.Session(inst)
	h := &invokeHarness{inv: s.Invoker(), s: s, mem: proxytest.Mem(inst)}
	require.Zero(tb, h.call("aclrtSetDevice", 0))
	require.Zero(tb, h.call("aclrtMalloc", outA, 8<<10, 0))
	h.dev = le.Uint64(h.mem[outA:])
	return h
}

// endedCallCtx returns an instance's call context (sandbox.CallCtx) whose
// call has ended, cancelled.
func (h *invokeHarness) endedCallCtx(tb testing.TB) context.Context {
	cc := &sandbox.CallCtx{}
	cc.Arm(context.Background(), -1)
	cc.Cancel(context.Canceled, context.Canceled)
	tb.Cleanup(cc.End)
	return cc
}

// call invokes the import name with args as an engine does, returning its
// result.
func (h *invokeHarness) call(name string, args ...uint64) int32 {
	stack := make([]uint64, max(len(args), 1))
	copy(stack, args)
	h.inv.Invoke(context.Background(), abi.Lookup(name).Index(), h.mem, stack)
	return int32(uint32(stack[0]))
}

// nopInvoker is an Invoker whose every import does nothing.
type nopInvoker struct{}

func (nopInvoker) Invoke(_ context.Context, _ int, _ []byte, stack []uint64) { stack[0] = 0 }

// BenchmarkInvokeSmallCopy is the sandbox's own cost of a 64-byte
// aclrtMemcpy, H2D and D2D, called as an engine calls an import but
// without an engine: what the goal benchmarks 1 and 8 measure above the
// engine's no-op import. ns/call is the copy's, floor-ns/op an Invoker's
// that does nothing.
func BenchmarkInvokeSmallCopy(b *testing.B) {
	h := newInvokeHarness(b)
	fi := abi.Lookup("aclrtMemcpy").Index()
	for _, c := range []struct {
		name     string
		dst, src uint64
		kind     acl.MemcpyKind
	}{
		{"H2D", h.dev, data, acl.MemcpyHostToDevice},
		{"D2D", h.dev, h.dev + 4<<10, acl.MemcpyDeviceToDevice},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			var stack [5]uint64
			loop := func(inv invoker) func(n int) {
				return func(n int) {
					for range n {
						stack = [5]uint64{c.dst, 64, c.src, 64, uint64(c.kind)}
						inv.Invoke(ctx, fi, h.mem, stack[:])
					}
					if stack[0] != 0 {
						b.Fatalf("aclrtMemcpy = %d", stack[0])
					}
				}
			}
			testsupport.Measure(b, 1000, loop(nopInvoker{}), loop(h.inv))
		})
	}
}
