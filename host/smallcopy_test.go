package host_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
)

// countingSim is the simulator counting how each copy reached it.
type countingSim struct {
	*sim.Backend
	memcpys, smalls atomic.Int32
}

func (b *countingSim) Memcpy(ctx context.Context, dst, src acl.Buf, n uint64) error {
	b.memcpys.Add(1)
	return b.Backend.Memcpy(ctx, dst, src, n)
}

// Traits implements [acl.Runtime]: the simulator's, its small copies
// counted here.
func (b *countingSim) Traits() acl.Traits {
	t := b.Backend.Traits()
	t.SmallCopier = b
	return t
}

func (b *countingSim) CopySmall(dst, src *acl.SmallSide, n uint64) (bool, error) {
	done, err := b.Backend.CopySmall(dst, src, n)
	if done {
		b.smalls.Add(1)
	}
	return done, err
}

// TestSmallCopyResolvedOnce: a small aclrtMemcpy H2D, D2H and D2D that
// passes its checks reaches the backend with the allocations the session
// resolved (acl.SmallCopier), with the bytes right, no allocation of its
// own, and anything else still goes through Memcpy with its errors: a
// freed allocation, a copy from registered memory. Traced, every call
// takes invoke's general way; untraced, a small copy takes its one pass
// (memcpyFast).
func TestSmallCopyResolvedOnce(t *testing.T) {
	for _, traced := range []bool{true, false} {
		t.Run(map[bool]string{true: "traced", false: "untraced"}[traced], func(t *testing.T) {
			b := &countingSim{Backend: sim.New()}
			t.Cleanup(func() { b.Close() })
			if traced {
				smallCopies(t, proxytest.New(t, host.Policy{}, host.WithBackend(b)), b)
			} else {
				smallCopies(t, proxytest.NewUntraced(t, abi.Wide, host.Policy{}, host.WithBackend(b)), b)
			}
		})
	}
}

func smallCopies(t *testing.T, h *proxytest.Harness, b *countingSim) {
	h.OK("aclrtSetDevice", 0)
	dev := h.Malloc(4096)
	h.RoundTrip(dev, 64, 3)
	require.EqualValues(t, 3, b.smalls.Load(), "small copies")
	require.Zero(t, b.memcpys.Load(), "copies through Memcpy")

	// No allocation beyond the call's own (Instance.Call's result), which
	// aclrtGetDevice has too.
	call := func(name string, args ...uint64) func() {
		return func() {
			if res, err := h.Inst.Call(context.Background(), name, args...); err != nil || res[0] != 0 {
				t.Fatalf("%s = %v, %v", name, res, err)
			}
		}
	}
	floor := testing.AllocsPerRun(100, call("aclrtGetDevice", outA))
	require.LessOrEqual(t, testing.AllocsPerRun(100, call("aclrtMemcpy", dev+64, 64, dev, 64, uint64(acl.MemcpyDeviceToDevice))), floor)
	require.LessOrEqual(t, testing.AllocsPerRun(100, call("aclrtMemcpy", dev, 64, data, 64, uint64(acl.MemcpyHostToDevice))), floor)

	// Registered guest memory: Memcpy's path.
	b.memcpys.Store(0)
	h.OK("aclrtHostRegister", data, 4096, 0, outB)
	h.OK("aclrtMemcpy", dev, 64, data, 64, uint64(acl.MemcpyHostToDevice))
	require.EqualValues(t, 1, b.memcpys.Load())
	h.OK("aclrtHostUnregister", data)

	// Freed: the error is Memcpy's path's, as before.
	h.OK("aclrtFree", dev)
	msg := h.Code(acl.ErrRTParamInvalid, "aclrtMemcpy", dev, 64, data, 64, uint64(acl.MemcpyHostToDevice))
	require.Contains(t, msg, "not in guest memory or a live device allocation")
}

// panickingSim is the simulator whose small copies panic while panics is
// above zero: a host bug on the small path.
type panickingSim struct {
	*sim.Backend
	panics atomic.Int32
}

func (b *panickingSim) Traits() acl.Traits {
	t := b.Backend.Traits()
	t.SmallCopier = b
	return t
}

func (b *panickingSim) CopySmall(dst, src *acl.SmallSide, n uint64) (bool, error) {
	if b.panics.Add(-1) >= 0 {
		panic("the small path's bug")
	}
	return b.Backend.CopySmall(dst, src, n)
}

// TestSmallCopyHostBug: a panic on the small path of aclrtMemcpy (which
// has no recover of its own: the engine adapter's hands the panic back to
// the session, engine.Recoverer) fails the call with
// ACL_ERROR_INTERNAL_ERROR and its message, counted as the call's error,
// as any import's host bug does; the guest goes on, and the copies after
// it are done and counted, bytes included.
func TestSmallCopyHostBug(t *testing.T) {
	for _, prof := range []string{"wide", "acl32"} {
		t.Run(prof, func(t *testing.T) {
			b := &panickingSim{Backend: sim.New()}
			t.Cleanup(func() { b.Close() })
			p := abi.Wide
			if prof == "acl32" {
				p = abi.Native32
			}
			h := proxytest.NewUntraced(t, p, host.Policy{}, host.WithBackend(b))
			h.OK("aclrtSetDevice", 0)
			dev := h.Malloc(4096)
			b.panics.Store(1)
			msg := h.Code(acl.ErrInternal, "aclrtMemcpy", dev, 64, data, 64, uint64(acl.MemcpyHostToDevice))
			require.Equal(t, "aclrtMemcpy: host bug: the small path's bug", msg)
			h.RoundTrip(dev, 64, 7)
			st := h.Inst.Session().Stats().Funcs["aclrtMemcpy"]
			require.Equal(t, uint64(4), st.Calls)
			require.Equal(t, map[acl.Error]uint64{acl.ErrInternal: 1}, st.Errors)
			require.Equal(t, map[string]uint64{"H2D": 64, "D2D": 64, "D2H": 64}, st.Bytes)
		})
	}
}

// failingSim is the simulator whose copies, small or not, fail with err
// once they reach it, as a backend may; with small false it has no small
// copies (acl.SmallCopier), and every copy goes through Memcpy.
type failingSim struct {
	*sim.Backend
	small bool
	err   error
}

func (b *failingSim) Traits() acl.Traits {
	t := b.Backend.Traits()
	t.SmallCopier = nil
	if b.small {
		t.SmallCopier = b
	}
	return t
}

func (b *failingSim) Memcpy(ctx context.Context, dst, src acl.Buf, n uint64) error {
	if b.err != nil {
		return b.err
	}
	return b.Backend.Memcpy(ctx, dst, src, n)
}

func (b *failingSim) CopySmall(dst, src *acl.SmallSide, n uint64) (bool, error) {
	if b.err != nil {
		return true, b.err
	}
	return b.Backend.CopySmall(dst, src, n)
}

// TestSmallCopyAsInvoke: a small aclrtMemcpy ends as the step-by-step
// way ends it (a backend without small copies), on invoke's general way
// (traced) and in memcpyFast's one pass (untraced): the same results,
// recent error messages (the guest's and the embedder's), call counts,
// error counts and bytes by direction, for copies that succeed, that fail
// the checks, and that the backend fails. The backend fails every copy
// it is handed in the second round, so that a check the small path left
// out would show as the backend's error instead of the check's.
func TestSmallCopyAsInvoke(t *testing.T) {
	type outcome struct {
		results      []int32
		recent, last []string
		calls        uint64
		errs         map[acl.Error]uint64
		bytes        map[string]uint64
	}
	run := func(t *testing.T, small, traced bool) outcome {
		b := &failingSim{Backend: sim.New(), small: small}
		t.Cleanup(func() { b.Close() })
		var h *proxytest.Harness
		if traced {
			h = proxytest.New(t, host.Policy{}, host.WithBackend(b))
		} else {
			h = proxytest.NewUntraced(t, abi.Wide, host.Policy{}, host.WithBackend(b))
		}
		h.OK("aclrtSetDevice", 0)
		dev := h.Malloc(4096)
		var o outcome
		copyOf := func(dst, destMax, src, n uint64, kind acl.MemcpyKind) {
			o.results = append(o.results, h.Call("aclrtMemcpy", dst, destMax, src, n, uint64(kind)))
			o.last = append(o.last, h.Inst.Session().LastError())
			o.recent = append(o.recent, h.RecentMsg())
		}
		for _, err := range []error{nil, acl.Errorf(acl.ErrRTInternal, "the device failed")} {
			b.err = err
			copyOf(dev, 64, data, 64, acl.MemcpyHostToDevice)
			copyOf(dev+1024, 64, dev, 48, acl.MemcpyDeviceToDevice)
			copyOf(data+256, 64, dev+1024, 32, acl.MemcpyDeviceToHost)
			copyOf(dev, 16, data, 64, acl.MemcpyHostToDevice)        // destMax
			copyOf(dev+4090, 64, data, 64, acl.MemcpyHostToDevice)   // past the allocation's end
			copyOf(dev, 64, dev+4090, 16, acl.MemcpyDeviceToDevice)  // from within dst's allocation past its end
			copyOf(dev, 64, data, 64, acl.MemcpyKind(9))             // kind
			copyOf(dev, 64, 0x7fff_fff0, 64, acl.MemcpyHostToDevice) // past guest memory
			copyOf(dev, 64, dev, 64, acl.MemcpyDeviceToDevice)       // the same address
		}
		st := h.Inst.Session().Stats().Funcs["aclrtMemcpy"]
		o.calls, o.errs, o.bytes = st.Calls, st.Errors, st.Bytes
		return o
	}
	memcpy := run(t, false, false)
	require.Equal(t, memcpy, run(t, true, true), "invoke's way")
	require.Equal(t, memcpy, run(t, true, false), "memcpyFast")
	require.EqualValues(t, 18, memcpy.calls)
	require.Equal(t, map[string]uint64{"H2D": 64, "D2D": 48, "D2H": 32}, memcpy.bytes)
	require.Len(t, memcpy.errs, 3, "the checks' two codes and the backend's: %v", memcpy.errs)
	require.Contains(t, memcpy.last[5], "src", "the copy from past the allocation's end")
}
