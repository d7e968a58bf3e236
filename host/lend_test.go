package host_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// lent allocates n device bytes on physical device 0 through the backend,
// filled with a pattern, as an embedder's own model would have them.
func lent(t *testing.T, rt *host.Runtime, n uint64) (acl.DevPtr, []byte) {
	t.Helper()
	return testsupport.Lent(t, rt.Backend(), n)
}

func devBytes(t *testing.T, rt *host.Runtime, p acl.DevPtr, n uint64) []byte {
	t.Helper()
	out := make([]byte, n)
	require.NoError(t, rt.Backend().Memcpy(context.Background(), acl.Host(out, 0), acl.Device(p), n))
	return out
}

func TestLendReadWrite(t *testing.T) {
	h := proxytest.New(t, host.Policy{})
	ctx := context.Background()
	p, pat := lent(t, h.RT, 4096)
	l, err := h.Inst.Lend(p, 4096, host.LendOptions{})
	require.NoError(t, err)
	a := l.Addr()
	h.OK("aclrtSetDevice", 0)

	// The guest reads it and writes it with the ordinary imports.
	h.OK("aclrtMemcpy", data, 4096, a, 4096, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, pat, h.Mem()[data:data+4096])
	want := h.Fill(data2, 100, 9)
	h.OK("aclrtMemcpy", a+10, 100, data2, 100, uint64(acl.MemcpyHostToDevice))
	require.Equal(t, want, devBytes(t, h.RT, p+10, 100))
	// Its own allocation and a D2D copy out of the lent range.
	own := h.Malloc(64)
	h.OK("aclrtMemcpy", own, 64, a, 64, uint64(acl.MemcpyDeviceToDevice))

	// Range checks as for its own memory: past the end, before the start.
	msg := h.Code(acl.ErrRTParamInvalid, "aclrtMemcpy", data, 4097, a, 4097, uint64(acl.MemcpyDeviceToHost))
	require.Contains(t, msg, "crosses the end of the allocation")
	h.Code(acl.ErrRTParamInvalid, "aclrtMemcpy", data, 1, a-1, 1, uint64(acl.MemcpyDeviceToHost))
	// The guest cannot free it.
	msg = h.Code(acl.ErrRTParamInvalid, "aclrtFree", a)
	require.Contains(t, msg, "lent: only the host can revoke it")

	// After revocation it is as freed memory.
	require.NoError(t, l.Revoke(ctx))
	msg = h.Code(acl.ErrRTParamInvalid, "aclrtMemcpy", data, 16, a, 16, uint64(acl.MemcpyDeviceToHost))
	require.Contains(t, msg, "not in guest memory or a live device allocation")
	h.Code(acl.ErrRTParamInvalid, "aclrtMemcpy", a, 16, data, 16, uint64(acl.MemcpyHostToDevice))
	require.NoError(t, l.Revoke(ctx), "twice is fine")
}

// TestLendReadOnly: no path writes into a read-only lease, and a refused
// write changes nothing.
func TestLendReadOnly(t *testing.T) {
	h := proxytest.New(t, host.Policy{})
	p, pat := lent(t, h.RT, 4096)
	l, err := h.Inst.Lend(p, 4096, host.LendOptions{ReadOnly: true})
	require.NoError(t, err)
	a := l.Addr()
	h.OK("aclrtSetDevice", 0)
	h.OK("aclrtMemcpy", data, 4096, a, 4096, uint64(acl.MemcpyDeviceToHost)) // reading is fine
	own := h.Malloc(4096)
	s := h.Stream()
	h.Fill(data2, 64, 1)
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
			h.PutU64s(outA, a, own)
			h.OK("aclrtMemcpy", own+2048, 16, outA, 16, uint64(acl.MemcpyHostToDevice))
			h.OK(tc.name, tc.args...)
			res, err := h.Inst.Call(context.Background(), "aclrtSynchronizeStream", s)
			require.NoError(t, err)
			require.Equal(t, uint64(acl.ErrRTParamInvalid), res[0])
			require.Contains(t, h.Inst.Session().LastError(), "lent read-only")
			continue
		}
		msg := h.Code(acl.ErrRTParamInvalid, tc.name, tc.args...)
		require.Contains(t, msg, "lent read-only", tc.name)
	}
	require.Equal(t, pat, devBytes(t, h.RT, p, 4096), "nothing was written")
	// A batch with one entry into it fails as a whole.
	b := h.Batch([]uint64{own, a}, []uint64{data2, data2}, []uint64{64, 64}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
	require.Equal(t, int32(acl.ErrRTParamInvalid), h.Call("aclrtMemcpyBatch", b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, 2, b.Attrs, b.Idx, 1, b.Fail))
	require.Equal(t, uint64(1), h.U64(uint32(b.Fail)), "entry 1 failed")
	require.Contains(t, h.Inst.Session().LastError(), "lent read-only")
	require.Equal(t, pat, devBytes(t, h.RT, p, 4096))
}

// TestLendRevokeWaitsForQueuedWork: a copy out of the lease queued behind
// an event nobody recorded yet holds Revoke up; once it ran, Revoke
// returns and the copy saw the lent data.
func TestLendRevokeWaitsForQueuedWork(t *testing.T) {
	h := proxytest.New(t, host.Policy{})
	ctx := context.Background()
	p, _ := lent(t, h.RT, 4096)
	l, err := h.Inst.Lend(p, 4096, host.LendOptions{ReadOnly: true})
	require.NoError(t, err)
	h.OK("aclrtSetDevice", 0)
	own := h.Malloc(4096)
	s, s2, ev := h.Stream(), h.Stream(), h.Waitable()
	h.OK("aclrtStreamWaitEvent", s, ev) // until its next record
	h.OK("aclrtMemcpyAsync", own, 4096, l.Addr(), 4096, uint64(acl.MemcpyDeviceToDevice), s)

	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	err = l.Revoke(short)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorContains(t, err, "queued work has not finished")
	// Already revoked for the guest.
	h.Code(acl.ErrRTParamInvalid, "aclrtMemcpy", data, 16, l.Addr(), 16, uint64(acl.MemcpyDeviceToHost))

	h.OK("aclrtRecordEvent", ev, s2) // releases the wait
	require.NoError(t, l.Revoke(ctx))
	h.OK("aclrtMemcpy", data, 4096, own, 4096, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, devBytes(t, h.RT, p, 4096), h.Mem()[data:data+4096], "the queued copy read the lent data")
}

func TestLendQuota(t *testing.T) {
	h := proxytest.New(t, host.Policy{DeviceMemory: 1 << 20, MaxAllocations: 2})
	p, _ := lent(t, h.RT, 1<<20)
	h.OK("aclrtSetDevice", 0)
	// Uncharged: the guest still has its whole quota and allocation count.
	l, err := h.Inst.Lend(p, 1<<20, host.LendOptions{})
	require.NoError(t, err)
	h.OK("aclrtGetMemInfo", 0, outA, outB)
	require.Equal(t, uint64(1<<20), h.U64(outA))
	h.Malloc(512 << 10)
	h.Malloc(256 << 10)
	require.NoError(t, l.Revoke(context.Background()))

	// Charged: it counts as an allocation of the session.
	_, err = h.Inst.Lend(p, 1<<20, host.LendOptions{Charge: true})
	require.ErrorContains(t, err, "the session holds 2 allocations, the policy's limit")
	h2 := proxytest.New(t, host.Policy{DeviceMemory: 1 << 20})
	h2.OK("aclrtSetDevice", 0)
	p2, _ := lent(t, h2.RT, 1<<20)
	l2, err := h2.Inst.Lend(p2, 64<<10, host.LendOptions{Charge: true})
	require.NoError(t, err)
	h2.OK("aclrtGetMemInfo", 0, outA, outB)
	require.Less(t, h2.U64(outA), uint64(1<<20-64<<10+1))
	_, err = h2.Inst.Lend(p2, 1<<20, host.LendOptions{Charge: true})
	require.ErrorContains(t, err, "exceed the session's free quota")
	require.NoError(t, l2.Revoke(context.Background()))
	h2.OK("aclrtGetMemInfo", 0, outA, outB)
	require.Equal(t, uint64(1<<20), h2.U64(outA), "revoking gives the quota back")

	// Bad lends.
	_, err = h.Inst.Lend(p, 0, host.LendOptions{})
	require.ErrorContains(t, err, "size is 0")
	_, err = h.Inst.Lend(p, 2<<20, host.LendOptions{})
	require.ErrorContains(t, err, "crosses the end of the 1048576-byte allocation")
	_, err = h.Inst.Lend(12345, 16, host.LendOptions{})
	require.ErrorContains(t, err, "not device memory of the backend")
}

// TestLendEndsWithInstance: closing the instance ends its leases without
// freeing the embedder's memory (lent's cleanup frees it, once); a reset
// of the device by the guest keeps the lease.
func TestLendEndsWithInstance(t *testing.T) {
	h := proxytest.New(t, host.Policy{})
	ctx := context.Background()
	p, _ := lent(t, h.RT, 4096)
	l, err := h.Inst.Lend(p, 4096, host.LendOptions{})
	require.NoError(t, err)
	h.OK("aclrtSetDevice", 0)
	h.OK("aclrtResetDevice", 0)
	h.OK("aclrtSetDevice", 0)
	h.OK("aclrtMemcpy", data, 16, l.Addr(), 16, uint64(acl.MemcpyDeviceToHost))
	inst2, err := h.Plugin.Instantiate(ctx, host.Config{})
	require.NoError(t, err)
	l2, err := inst2.Lend(p, 4096, host.LendOptions{}) // lent to two sessions at once
	require.NoError(t, err)
	require.NoError(t, inst2.Close(ctx))
	require.NoError(t, l2.Revoke(ctx), "ended with its instance")
	h.OK("aclrtMemcpy", data, 16, l.Addr(), 16, uint64(acl.MemcpyDeviceToHost))
	_, err = inst2.Lend(p, 16, host.LendOptions{})
	require.ErrorContains(t, err, "instance is closed")
}

// TestLendInsideOneAllocation: a lease lies inside one live allocation of
// the backend. A range that runs from one allocation into the next (both
// ends on the same device) is refused, and through a lease of part of an
// allocation no import reaches a byte outside it: not the rest of that
// allocation, not the allocation behind it.
func TestLendInsideOneAllocation(t *testing.T) {
	h := proxytest.New(t, host.Policy{})
	pa, patA := lent(t, h.RT, 4096)
	pb, patB := lent(t, h.RT, 4096)
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
		_, err := h.Inst.Lend(r.ptr, r.size, host.LendOptions{})
		require.Error(t, err, "[%#x, +%d)", r.ptr, r.size)
	}
	_, err := h.Inst.Lend(lo+4096, 16, host.LendOptions{})
	require.Error(t, err, "past the allocation: no device memory")

	// A lease of the middle 1 KiB of A.
	l, err := h.Inst.Lend(pa+1024, 1024, host.LendOptions{})
	require.NoError(t, err)
	a := l.Addr()
	h.OK("aclrtSetDevice", 0)
	own := h.Malloc(4096)
	s := h.Stream()
	h.Fill(data2, 256, 3)
	h.PutU64s(outA, a, own) // offset-copy slots: the lease and own memory
	h.OK("aclrtMemcpy", own+2048, 16, outA, 16, uint64(acl.MemcpyHostToDevice))
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
		h.Code(acl.ErrRTParamInvalid, tc.name, tc.args...)
	}
	// Offset copies whose slot names the lease, with offsets past its end:
	// refused when they run, in stream order.
	for _, args := range [][]uint64{
		{own + 2056, 64, 0, own + 2048, 64, end - 32, uint64(acl.MemcpyInnerDeviceToDevice), s},   // source past the end
		{own + 2048, 2048, end - 32, own + 2056, 64, 0, uint64(acl.MemcpyInnerDeviceToDevice), s}, // destination past the end
	} {
		h.OK("aclrtMemcpyAsyncWithOffset", args...)
		res, err := h.Inst.Call(context.Background(), "aclrtSynchronizeStream", s)
		require.NoError(t, err)
		require.Equal(t, uint64(acl.ErrRTParamInvalid), res[0], "%v", args)
	}
	// Batches, synchronous and asynchronous, with one entry over the end.
	for _, name := range []string{"aclrtMemcpyBatch", "aclrtMemcpyBatchAsync"} {
		b := h.Batch([]uint64{own, a + end - 16}, []uint64{data2, data2}, []uint64{64, 64}, []acl.MemcpyBatchAttr{proxytest.H2D(0)}, []uint64{0})
		args := []uint64{b.Dsts, b.DestMaxs, b.Srcs, b.Sizes, 2, b.Attrs, b.Idx, 1, b.Fail}
		if name == "aclrtMemcpyBatchAsync" {
			args = append(args, s)
		}
		require.Equal(t, int32(acl.ErrRTParamInvalid), h.Call(name, args...), name)
		require.Equal(t, uint64(1), h.U64(uint32(b.Fail)), "%s: entry 1 failed", name)
	}
	h.OK("aclrtSynchronizeStream", s)
	require.Equal(t, make([]byte, 64), h.Mem()[data:data+64], "nothing was read into guest memory")
	require.Equal(t, patA, devBytes(t, h.RT, pa, 4096), "the lent allocation is as it was")
	require.Equal(t, patB, devBytes(t, h.RT, pb, 4096), "the allocation behind it is as it was")
	// Inside the lease everything works.
	h.OK("aclrtMemcpy", data, end, a, end, uint64(acl.MemcpyDeviceToHost))
	require.Equal(t, patA[1024:2048], h.Mem()[data:data+end])
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
		h := proxytest.New(t, host.Policy{})
		pa, patA := lent(t, h.RT, 4096)
		pb, patB := lent(t, h.RT, 4096)
		ptr := pa + acl.DevPtr(off)
		l, err := h.Inst.Lend(ptr, size, host.LendOptions{})
		if err != nil {
			return
		}
		inA := ptr >= pa && uint64(ptr-pa)+size <= 4096
		inB := ptr >= pb && uint64(ptr-pb)+size <= 4096
		require.True(t, inA || inB, "lent [%#x, +%d) outside both allocations", ptr, size)
		h.OK("aclrtSetDevice", 0)
		wantA, wantB := patA, patB
		src := h.Fill(data2, int(n), 7)
		var code int32
		if write {
			code = h.Call("aclrtMemcpy", l.Addr()+gOff, n, data2, n, uint64(acl.MemcpyHostToDevice))
		} else {
			code = h.Call("aclrtMemcpy", data, n, l.Addr()+gOff, n, uint64(acl.MemcpyDeviceToHost))
		}
		inside := gOff+n <= size && (n > 0 || gOff < size)
		if !inside || n == 0 {
			if n > 0 {
				require.Equal(t, int32(acl.ErrRTParamInvalid), code)
			}
			require.Equal(t, make([]byte, n), h.Mem()[data:data+uint32(n)], "nothing read")
		} else {
			require.Zero(t, code, h.Inst.Session().LastError())
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
				require.Equal(t, pat[at:at+n], h.Mem()[data:data+uint32(n)])
			}
		}
		require.Equal(t, wantA, devBytes(t, h.RT, pa, 4096))
		require.Equal(t, wantB, devBytes(t, h.RT, pb, 4096))
	})
}
