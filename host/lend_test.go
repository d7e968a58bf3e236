package host

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// lent allocates n device bytes on physical device 0 through the backend,
// filled with a pattern, as an embedder's own model would have them.
func lent(t *testing.T, rt *Runtime, n uint64) (acl.DevPtr, []byte) {
	t.Helper()
	b := rt.Backend()
	p, err := b.Malloc(0, n, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Free(context.Background(), p), "the host never frees lent memory") })
	pat := make([]byte, n)
	for i := range pat {
		pat[i] = byte(i*13 + 5)
	}
	require.NoError(t, b.Memcpy(context.Background(), acl.Device(p), acl.Host(pat, 0), n))
	return p, pat
}

func devBytes(t *testing.T, rt *Runtime, p acl.DevPtr, n uint64) []byte {
	t.Helper()
	out := make([]byte, n)
	require.NoError(t, rt.Backend().Memcpy(context.Background(), acl.Host(out, 0), acl.Device(p), n))
	return out
}

func TestLendReadWrite(t *testing.T) {
	h := newHarness(t, Policy{})
	ctx := context.Background()
	p, pat := lent(t, h.rt, 4096)
	l, err := h.inst.Lend(p, 4096, LendOptions{})
	require.NoError(t, err)
	a := l.Addr()
	h.ok("aclrtSetDevice", 0)

	// The guest reads it and writes it with the ordinary imports.
	h.ok("aclrtMemcpy", data, 4096, a, 4096, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, pat, h.mem()[data:data+4096])
	want := h.fill(data2, 100, 9)
	h.ok("aclrtMemcpy", a+10, 100, data2, 100, uint64(acl.MemcpyHostToDevice))
	require.Equal(t, want, devBytes(t, h.rt, p+10, 100))
	// Its own allocation and a D2D copy out of the lent range.
	own := h.malloc(64)
	h.ok("aclrtMemcpy", own, 64, a, 64, uint64(acl.MemcpyDeviceToDevice))

	// Range checks as for its own memory: past the end, before the start.
	msg := h.code(acl.ErrRTParamInvalid, "aclrtMemcpy", data, 4097, a, 4097, uint64(acl.MemcpyDeviceToHost))
	require.Contains(t, msg, "crosses the end of the allocation")
	h.code(acl.ErrRTParamInvalid, "aclrtMemcpy", data, 1, a-1, 1, uint64(acl.MemcpyDeviceToHost))
	// The guest cannot free it.
	msg = h.code(acl.ErrRTParamInvalid, "aclrtFree", a)
	require.Contains(t, msg, "lent: only the host can revoke it")

	// After revocation it is as freed memory.
	require.NoError(t, l.Revoke(ctx))
	msg = h.code(acl.ErrRTParamInvalid, "aclrtMemcpy", data, 16, a, 16, uint64(acl.MemcpyDeviceToHost))
	require.Contains(t, msg, "not in guest memory or a live device allocation")
	h.code(acl.ErrRTParamInvalid, "aclrtMemcpy", a, 16, data, 16, uint64(acl.MemcpyHostToDevice))
	require.NoError(t, l.Revoke(ctx), "twice is fine")
}

// TestLendReadOnly: no path writes into a read-only lease, and a refused
// write changes nothing.
func TestLendReadOnly(t *testing.T) {
	h := newHarness(t, Policy{})
	p, pat := lent(t, h.rt, 4096)
	l, err := h.inst.Lend(p, 4096, LendOptions{ReadOnly: true})
	require.NoError(t, err)
	a := l.Addr()
	h.ok("aclrtSetDevice", 0)
	h.ok("aclrtMemcpy", data, 4096, a, 4096, uint64(acl.MemcpyDeviceToHost)) // reading is fine
	own := h.malloc(4096)
	s := h.stream()
	h.fill(data2, 64, 1)
	for _, tc := range []struct {
		name string
		args []uint64
	}{
		{"aclrtMemcpy", []uint64{a, 64, data2, 64, uint64(acl.MemcpyHostToDevice)}},
		{"aclrtMemcpy", []uint64{a + 4032, 64, own, 64, uint64(acl.MemcpyDeviceToDevice)}},
		{"aclrtMemcpyAsync", []uint64{a, 64, data2, 64, uint64(acl.MemcpyHostToDevice), s}},
		{"aclrtMemset", []uint64{a, 4096, 0, 4096}},
		{"aclrtMemsetAsync", []uint64{a + 8, 8, 0, 8, s}},
		{"aclrtMemcpy2d", []uint64{a, 64, data2, 64, 32, 2, uint64(acl.MemcpyHostToDevice)}},
		{"aclrtSetMemcpyDesc", []uint64{a, uint64(acl.MemcpyInnerDeviceToDevice), own, own + 64, 64, 0}},                        // the descriptor itself
		{"aclrtSetMemcpyDesc", []uint64{own + 1024, uint64(acl.MemcpyInnerDeviceToDevice), own, a, 64, 0}},                      // its destination
		{"aclrtMemcpyAsyncWithOffset", []uint64{own + 2048, 64, 0, own + 2056, 8, 0, uint64(acl.MemcpyInnerDeviceToDevice), s}}, // slots name it below
	} {
		if tc.name == "aclrtMemcpyAsyncWithOffset" {
			// Base-address slots pointing the destination at the lease:
			// refused when the copy runs, in stream order.
			h.putU64s(outA, a, own)
			h.ok("aclrtMemcpy", own+2048, 16, outA, 16, uint64(acl.MemcpyHostToDevice))
			h.ok(tc.name, tc.args...)
			res, err := h.inst.Call(context.Background(), "aclrtSynchronizeStream", s)
			require.NoError(t, err)
			require.Equal(t, uint64(acl.ErrRTParamInvalid), res[0])
			require.Contains(t, h.inst.Session().LastError(), "lent read-only")
			continue
		}
		msg := h.code(acl.ErrRTParamInvalid, tc.name, tc.args...)
		require.Contains(t, msg, "lent read-only", tc.name)
	}
	require.Equal(t, pat, devBytes(t, h.rt, p, 4096), "nothing was written")
	// A batch with one entry into it fails as a whole.
	b := h.batch([]uint64{own, a}, []uint64{data2, data2}, []uint64{64, 64}, []acl.MemcpyBatchAttr{h2d(0)}, []uint64{0})
	require.Equal(t, int32(acl.ErrRTParamInvalid), h.call("aclrtMemcpyBatch", b.dsts, b.destMaxs, b.srcs, b.sizes, 2, b.attrs, b.idx, 1, b.fail))
	require.Equal(t, uint64(1), h.u64(uint32(b.fail)), "entry 1 failed")
	require.Contains(t, h.inst.Session().LastError(), "lent read-only")
	require.Equal(t, pat, devBytes(t, h.rt, p, 4096))
}

// TestLendRevokeWaitsForQueuedWork: a copy out of the lease queued behind
// an event nobody recorded yet holds Revoke up; once it ran, Revoke
// returns and the copy saw the lent data.
func TestLendRevokeWaitsForQueuedWork(t *testing.T) {
	h := newHarness(t, Policy{})
	ctx := context.Background()
	p, _ := lent(t, h.rt, 4096)
	l, err := h.inst.Lend(p, 4096, LendOptions{ReadOnly: true})
	require.NoError(t, err)
	h.ok("aclrtSetDevice", 0)
	own := h.malloc(4096)
	s, s2, ev := h.stream(), h.stream(), h.waitable()
	h.ok("aclrtStreamWaitEvent", s, ev) // until its next record
	h.ok("aclrtMemcpyAsync", own, 4096, l.Addr(), 4096, uint64(acl.MemcpyDeviceToDevice), s)

	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	err = l.Revoke(short)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorContains(t, err, "queued work has not finished")
	// Already revoked for the guest.
	h.code(acl.ErrRTParamInvalid, "aclrtMemcpy", data, 16, l.Addr(), 16, uint64(acl.MemcpyDeviceToHost))

	h.ok("aclrtRecordEvent", ev, s2) // releases the wait
	require.NoError(t, l.Revoke(ctx))
	h.ok("aclrtMemcpy", data, 4096, own, 4096, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, devBytes(t, h.rt, p, 4096), h.mem()[data:data+4096], "the queued copy read the lent data")
}

func TestLendQuota(t *testing.T) {
	h := newHarness(t, Policy{DeviceMemory: 1 << 20, MaxAllocations: 2})
	p, _ := lent(t, h.rt, 1<<20)
	h.ok("aclrtSetDevice", 0)
	// Uncharged: the guest still has its whole quota and allocation count.
	l, err := h.inst.Lend(p, 1<<20, LendOptions{})
	require.NoError(t, err)
	h.ok("aclrtGetMemInfo", 0, outA, outB)
	require.Equal(t, uint64(1<<20), h.u64(outA))
	h.malloc(512 << 10)
	h.malloc(256 << 10)
	require.NoError(t, l.Revoke(context.Background()))

	// Charged: it counts as an allocation of the session.
	_, err = h.inst.Lend(p, 1<<20, LendOptions{Charge: true})
	require.ErrorContains(t, err, "the session holds 2 allocations, the policy's limit")
	h2 := newHarness(t, Policy{DeviceMemory: 1 << 20})
	h2.ok("aclrtSetDevice", 0)
	p2, _ := lent(t, h2.rt, 1<<20)
	l2, err := h2.inst.Lend(p2, 64<<10, LendOptions{Charge: true})
	require.NoError(t, err)
	h2.ok("aclrtGetMemInfo", 0, outA, outB)
	require.Less(t, h2.u64(outA), uint64(1<<20-64<<10+1))
	_, err = h2.inst.Lend(p2, 1<<20, LendOptions{Charge: true})
	require.ErrorContains(t, err, "exceed the session's free quota")
	require.NoError(t, l2.Revoke(context.Background()))
	h2.ok("aclrtGetMemInfo", 0, outA, outB)
	require.Equal(t, uint64(1<<20), h2.u64(outA), "revoking gives the quota back")

	// Bad lends.
	_, err = h.inst.Lend(p, 0, LendOptions{})
	require.ErrorContains(t, err, "size is 0")
	_, err = h.inst.Lend(p, 2<<20, LendOptions{})
	require.ErrorContains(t, err, "not inside one allocation")
	_, err = h.inst.Lend(12345, 16, LendOptions{})
	require.ErrorContains(t, err, "not device memory of the backend")
}

// TestLendEndsWithInstance: closing the instance ends its leases without
// freeing the embedder's memory (lent's cleanup frees it, once); a reset
// of the device by the guest keeps the lease.
func TestLendEndsWithInstance(t *testing.T) {
	h := newHarness(t, Policy{})
	ctx := context.Background()
	p, _ := lent(t, h.rt, 4096)
	l, err := h.inst.Lend(p, 4096, LendOptions{})
	require.NoError(t, err)
	h.ok("aclrtSetDevice", 0)
	h.ok("aclrtResetDevice", 0)
	h.ok("aclrtSetDevice", 0)
	h.ok("aclrtMemcpy", data, 16, l.Addr(), 16, uint64(acl.MemcpyDeviceToHost))
	inst2, err := h.inst.p.Instantiate(ctx, Config{})
	require.NoError(t, err)
	l2, err := inst2.Lend(p, 4096, LendOptions{}) // lent to two sessions at once
	require.NoError(t, err)
	require.NoError(t, inst2.Close(ctx))
	require.NoError(t, l2.Revoke(ctx), "ended with its instance")
	h.ok("aclrtMemcpy", data, 16, l.Addr(), 16, uint64(acl.MemcpyDeviceToHost))
	_, err = inst2.Lend(p, 16, LendOptions{})
	require.ErrorContains(t, err, "instance is closed")
}
