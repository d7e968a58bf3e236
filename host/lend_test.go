package host

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// lent allocates n device bytes on physical device 0 through the backend,
// filled with a pattern, as an embedder's own model would have them.
func lent(t *testing.T, rt *Runtime, n uint64) (acl.DevPtr, []byte) {
	t.Helper()
	return testsupport.Lent(t, rt.Backend(), n)
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
	require.ErrorContains(t, err, "crosses the end of the 1048576-byte allocation")
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

// TestLendInsideOneAllocation: a lease lies inside one live allocation of
// the backend. A range that runs from one allocation into the next (both
// ends on the same device) is refused, and through a lease of part of an
// allocation no import reaches a byte outside it: not the rest of that
// allocation, not the allocation behind it.
func TestLendInsideOneAllocation(t *testing.T) {
	h := newHarness(t, Policy{})
	pa, patA := lent(t, h.rt, 4096)
	pb, patB := lent(t, h.rt, 4096)
	lo, hi := pa, pb
	if hi < lo {
		lo, hi = hi, lo
	}
	for _, r := range []struct {
		ptr  acl.DevPtr
		size uint64
	}{
		{lo, uint64(hi-lo) + 16}, // into the next allocation
		{lo, uint64(hi-lo) + 4096},
		{lo + 4000, 200}, // past its end
		{lo, 4097},
	} {
		_, err := h.inst.Lend(r.ptr, r.size, LendOptions{})
		require.Error(t, err, "[%#x, +%d)", r.ptr, r.size)
	}
	_, err := h.inst.Lend(lo+4096, 16, LendOptions{})
	require.Error(t, err, "past the allocation: no device memory")

	// A lease of the middle 1 KiB of A.
	l, err := h.inst.Lend(pa+1024, 1024, LendOptions{})
	require.NoError(t, err)
	a := l.Addr()
	h.ok("aclrtSetDevice", 0)
	own := h.malloc(4096)
	s := h.stream()
	h.fill(data2, 256, 3)
	h.putU64s(outA, a, own) // offset-copy slots: the lease and own memory
	h.ok("aclrtMemcpy", own+2048, 16, outA, 16, uint64(acl.MemcpyHostToDevice))
	const end = 1024
	for _, tc := range []struct {
		name string
		args []uint64
	}{
		{"aclrtMemcpy", []uint64{data, 64, a + end - 32, 64, uint64(acl.MemcpyDeviceToHost)}},
		{"aclrtMemcpy", []uint64{data, 64, a - 32, 64, uint64(acl.MemcpyDeviceToHost)}},
		{"aclrtMemcpy", []uint64{a + end - 32, 64, data2, 64, uint64(acl.MemcpyHostToDevice)}},
		{"aclrtMemcpy", []uint64{own, 64, a + end - 1, 64, uint64(acl.MemcpyDeviceToDevice)}},
		{"aclrtMemcpy", []uint64{a + end - 1, 64, own, 64, uint64(acl.MemcpyDeviceToDevice)}},
		{"aclrtMemcpyAsync", []uint64{data, 64, a + end - 32, 64, uint64(acl.MemcpyDeviceToHost), s}},
		{"aclrtMemcpyAsync", []uint64{a + end, 8, data2, 8, uint64(acl.MemcpyHostToDevice), s}},
		{"aclrtMemset", []uint64{a + end - 8, 16, 0, 16}},
		{"aclrtMemsetAsync", []uint64{a - 8, 16, 0, 16, s}},
		{"aclrtMemcpy2d", []uint64{data, 64, a + end - 64, 64, 64, 2, uint64(acl.MemcpyDeviceToHost)}},
		{"aclrtMemcpy2d", []uint64{a + end - 64, 64, data2, 64, 64, 2, uint64(acl.MemcpyHostToDevice)}},
		{"aclrtMemcpy2dAsync", []uint64{own, 64, a + end - 64, 64, 64, 2, uint64(acl.MemcpyDeviceToDevice), s}},
		{"aclrtSetMemcpyDesc", []uint64{own + 1024, uint64(acl.MemcpyInnerDeviceToDevice), a + end - 8, own, 64, 0}},
		{"aclrtSetMemcpyDesc", []uint64{own + 1024, uint64(acl.MemcpyInnerDeviceToDevice), own, a + end - 8, 64, 0}},
		{"aclrtSetMemcpyDesc", []uint64{a + end - 8, uint64(acl.MemcpyInnerDeviceToDevice), own, own + 64, 64, 0}},
	} {
		h.code(acl.ErrRTParamInvalid, tc.name, tc.args...)
	}
	// Offset copies whose slot names the lease, with offsets past its end:
	// refused when they run, in stream order.
	for _, args := range [][]uint64{
		{own + 2056, 64, 0, own + 2048, 64, end - 32, uint64(acl.MemcpyInnerDeviceToDevice), s},   // source past the end
		{own + 2048, 2048, end - 32, own + 2056, 64, 0, uint64(acl.MemcpyInnerDeviceToDevice), s}, // destination past the end
	} {
		h.ok("aclrtMemcpyAsyncWithOffset", args...)
		res, err := h.inst.Call(context.Background(), "aclrtSynchronizeStream", s)
		require.NoError(t, err)
		require.Equal(t, uint64(acl.ErrRTParamInvalid), res[0], "%v", args)
	}
	// Batches, synchronous and asynchronous, with one entry over the end.
	for _, name := range []string{"aclrtMemcpyBatch", "aclrtMemcpyBatchAsync"} {
		b := h.batch([]uint64{own, a + end - 16}, []uint64{data2, data2}, []uint64{64, 64}, []acl.MemcpyBatchAttr{h2d(0)}, []uint64{0})
		args := []uint64{b.dsts, b.destMaxs, b.srcs, b.sizes, 2, b.attrs, b.idx, 1, b.fail}
		if name == "aclrtMemcpyBatchAsync" {
			args = append(args, s)
		}
		require.Equal(t, int32(acl.ErrRTParamInvalid), h.call(name, args...), name)
		require.Equal(t, uint64(1), h.u64(uint32(b.fail)), "%s: entry 1 failed", name)
	}
	h.ok("aclrtSynchronizeStream", s)
	require.Equal(t, make([]byte, 64), h.mem()[data:data+64], "nothing was read into guest memory")
	require.Equal(t, patA, devBytes(t, h.rt, pa, 4096), "the lent allocation is as it was")
	require.Equal(t, patB, devBytes(t, h.rt, pb, 4096), "the allocation behind it is as it was")
	// Inside the lease everything works.
	h.ok("aclrtMemcpy", data, end, a, end, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, patA[1024:2048], h.mem()[data:data+end])
}

// FuzzLend lends fuzzed ranges around two allocations and copies through
// the lease at fuzzed offsets: a lease is granted only inside one
// allocation, and a guest copy through it succeeds exactly when it stays
// inside the lease, reading or writing only the lent bytes.
func FuzzLend(f *testing.F) {
	f.Add(int64(0), uint64(4096), uint64(0), uint64(4096), false)
	f.Add(int64(1024), uint64(1024), uint64(1000), uint64(100), true)
	f.Add(int64(4000), uint64(200), uint64(0), uint64(8), false)
	f.Add(int64(-8), uint64(16), uint64(0), uint64(1), true)
	f.Add(int64(1<<35), uint64(16), uint64(0), uint64(1), false)
	f.Fuzz(func(t *testing.T, off int64, size, gOff, n uint64, write bool) {
		size, gOff, n = size%(3<<12), gOff%(3<<12), n%(3<<12)
		h := newHarness(t, Policy{})
		pa, patA := lent(t, h.rt, 4096)
		pb, patB := lent(t, h.rt, 4096)
		ptr := pa + acl.DevPtr(off)
		l, err := h.inst.Lend(ptr, size, LendOptions{})
		if err != nil {
			return
		}
		inA := ptr >= pa && uint64(ptr-pa)+size <= 4096
		inB := ptr >= pb && uint64(ptr-pb)+size <= 4096
		require.True(t, inA || inB, "lent [%#x, +%d) outside both allocations", ptr, size)
		h.ok("aclrtSetDevice", 0)
		wantA, wantB := patA, patB
		src := h.fill(data2, int(n), 7)
		var code int32
		if write {
			code = h.call("aclrtMemcpy", l.Addr()+gOff, n, data2, n, uint64(acl.MemcpyHostToDevice))
		} else {
			code = h.call("aclrtMemcpy", data, n, l.Addr()+gOff, n, uint64(acl.MemcpyDeviceToHost))
		}
		inside := gOff+n <= size && (n > 0 || gOff < size)
		if !inside || n == 0 {
			if n > 0 {
				require.Equal(t, int32(acl.ErrRTParamInvalid), code)
			}
			require.Equal(t, make([]byte, n), h.mem()[data:data+uint32(n)], "nothing read")
		} else {
			require.Zero(t, code, h.inst.Session().LastError())
			base, pat := pa, patA
			if inB {
				base, pat = pb, patB
			}
			at := uint64(ptr-base) + gOff
			if write {
				pat = append([]byte(nil), pat...)
				copy(pat[at:], src)
				if inB {
					wantB = pat
				} else {
					wantA = pat
				}
			} else {
				require.Equal(t, pat[at:at+n], h.mem()[data:data+uint32(n)])
			}
		}
		require.Equal(t, wantA, devBytes(t, h.rt, pa, 4096))
		require.Equal(t, wantB, devBytes(t, h.rt, pb, 4096))
	})
}
