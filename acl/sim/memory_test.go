package sim_test

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
)

func free(t *testing.T, b *sim.Backend, dev int32) uint64 {
	t.Helper()
	f, _, err := b.MemInfo(dev, acl.HBMMem)
	require.NoError(t, err)
	return f
}

func TestMallocRounding(t *testing.T) {
	b := newSim(t, sim.WithMemory(1<<20))
	for _, tc := range []struct {
		size   uint64
		policy acl.MemMallocPolicy
		charge uint64
	}{
		{1, acl.MemMallocHugeFirst, 64},
		{31, acl.MemMallocHugeFirst, 64},
		{32, acl.MemMallocHugeFirst, 64},
		{33, acl.MemMallocHugeFirst, 96},
		{64, acl.MemMallocNormalOnly, 96},
		{1000, acl.MemMallocHugeOnlyP2P, 1056},
		{1, acl.MemMallocHuge1GOnly, 32},
		{32, acl.MemMallocHuge1GOnlyP2P, 32},
		{33, acl.MemMallocHuge1GOnly, 64},
		{100, acl.MemMallocPolicy(0xdead00), 160}, // unknown values fall back to the default
	} {
		before := free(t, b, 0)
		p, err := b.Malloc(0, tc.size, tc.policy)
		require.NoError(t, err)
		require.Equal(t, tc.charge, before-free(t, b, 0), "size %d policy %#x", tc.size, tc.policy)
		require.Equal(t, tc.charge, acl.AllocatedSize(tc.size, tc.policy))
		_, err = b.DeviceOf(p + acl.DevPtr(tc.size))
		require.Error(t, err, "the extent is the size asked for, not the rounded one")
		require.NoError(t, b.Free(t.Context(), p))
		require.Equal(t, before, free(t, b, 0))
	}
}

func TestOutOfMemory(t *testing.T) {
	b := newSim(t, sim.WithMemory(1024), sim.WithDevices(2))
	_, total, err := b.MemInfo(0, acl.DDRMem)
	require.NoError(t, err)
	require.EqualValues(t, 1024, total)
	p, err := b.Malloc(0, 960, acl.MemMallocHugeFirst) // charged 992
	require.NoError(t, err)
	require.EqualValues(t, 32, free(t, b, 0))
	_, err = b.Malloc(0, 1, acl.MemMallocHugeFirst) // needs 64
	require.ErrorIs(t, err, acl.ErrRTMemoryAllocation)
	q, err := b.Malloc(0, 32, acl.MemMallocHuge1GOnly) // needs 32: fits exactly
	require.NoError(t, err)
	require.Zero(t, free(t, b, 0))
	q1, err := b.Malloc(1, 960, acl.MemMallocHugeFirst) // devices are accounted apart
	require.NoError(t, err)
	for _, x := range []acl.DevPtr{p, q, q1} {
		require.NoError(t, b.Free(t.Context(), x))
	}
	require.EqualValues(t, 1024, free(t, b, 0))
	require.EqualValues(t, 1024, free(t, b, 1))
}

// TestRefusedMallocAllocatesNothing: a request that does not fit in the
// free memory is refused before any Go memory is allocated for it.
func TestRefusedMallocAllocatesNothing(t *testing.T) {
	const size = 40 << 20
	b := newSim(t, sim.WithMemory(64<<20))
	p, err := b.Malloc(0, size, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = b.Malloc(0, size, acl.MemMallocHugeFirst) // fits the device, not what is free
	runtime.ReadMemStats(&after)
	require.ErrorIs(t, err, acl.ErrRTMemoryAllocation)
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "the refused Malloc allocated its size")
	require.EqualValues(t, 64<<20-acl.AllocatedSize(size, acl.MemMallocHugeFirst), free(t, b, 0), "the refusal leaves the accounting as it was")
	require.NoError(t, b.Free(t.Context(), p))
	require.EqualValues(t, 64<<20, free(t, b, 0))
}

// TestFreeRefusesNewUses: while Free waits for the operations that hold an
// allocation, new operations naming it fail as if it were freed, so that
// steady use cannot starve Free. A Free that gives up makes it live again.
func TestFreeRefusesNewUses(t *testing.T) {
	b := newSim(t)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	p, err := b.Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	host := make([]byte, 64)
	pin, err := b.HostRegister(host, acl.HostRegisterMapped)
	require.NoError(t, err)
	use := func() error { return b.MemcpyAsync(t.Context(), acl.Host(host, pin), acl.Device(p), 64, s) }
	dying := func() bool { _, err := b.DeviceOf(p); return err != nil }

	release := gate(t, b, s)
	require.NoError(t, use()) // holds p until the gate opens

	ctx, cancel := context.WithCancel(t.Context())
	done := goErr(func() error { return b.Free(ctx, p) })
	require.Eventually(t, dying, 2*time.Second, time.Millisecond, "a waiting Free must stop new uses of the allocation")
	require.ErrorIs(t, use(), acl.ErrRTParamInvalid)
	require.ErrorIs(t, b.Memset(ctx, acl.Device(p+8), 1, 8), acl.ErrRTParamInvalid, "an interior address too")
	require.ErrorIs(t, b.Free(t.Context(), p), acl.ErrRTParamInvalid, "a second Free, as after the first")
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	require.False(t, dying(), "a Free that gave up leaves the allocation live")
	require.NoError(t, use())

	done = goErr(func() error { return b.Free(context.Background(), p) })
	require.Eventually(t, dying, 2*time.Second, time.Millisecond)
	require.ErrorIs(t, use(), acl.ErrRTParamInvalid)
	notYet(t, done, "Free")
	n, err := b.Pending(s)
	require.NoError(t, err)
	require.Equal(t, 3, n, "the gate and the two copies accepted before the Frees")
	release()
	require.NoError(t, <-done)
	require.True(t, dying())
	require.NoError(t, b.SynchronizeStream(t.Context(), s, -1))
}

func TestAddresses(t *testing.T) {
	b := newSim(t)
	seen := map[acl.DevPtr]bool{}
	for i := range 500 {
		p, err := b.Malloc(int32(i%2), uint64(1+i), acl.MemMallocHugeFirst)
		require.NoError(t, err)
		require.GreaterOrEqual(t, uint64(p), uint64(1)<<32, "device addresses are never below 2^32")
		require.Zero(t, p%64, "device addresses are 64-byte aligned")
		require.False(t, seen[p], "address %#x handed out twice", p)
		seen[p] = true
		if i%3 == 0 {
			require.NoError(t, b.Free(t.Context(), p))
			_, err := b.DeviceOf(p)
			require.ErrorIs(t, err, acl.ErrRTParamInvalid, "a freed address stays invalid")
		}
	}
}

func TestAddressesRunOut(t *testing.T) {
	if testing.Short() {
		t.Skip("hands out every address")
	}
	// The largest memory leaves the fewest allocation ids: 2^18 - 1.
	b := newSim(t, sim.WithMemory(sim.MaxMemory), sim.WithDevices(1))
	n := 0
	for ; ; n++ {
		p, err := b.Malloc(0, 1, acl.MemMallocHugeFirst)
		if err != nil {
			require.ErrorIs(t, err, acl.ErrRTMemoryAllocation)
			require.Contains(t, err.Error(), "allocation addresses")
			break
		}
		require.NoError(t, b.Free(t.Context(), p))
	}
	require.Equal(t, 1<<18-1, n)
}

func TestMallocZeroes(t *testing.T) {
	b := newSim(t, sim.WithMemory(1<<20))
	p, err := b.Malloc(0, 4096, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	require.NoError(t, b.Memset(t.Context(), acl.Device(p), 0x5A, 4096))
	require.NoError(t, b.Free(t.Context(), p))
	q, err := b.Malloc(0, 4096, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	out := make([]byte, 4096)
	require.NoError(t, b.Memcpy(t.Context(), acl.Host(out, 0), acl.Device(q), 4096))
	require.Equal(t, make([]byte, 4096), out, "new memory must not show an old allocation's bytes")
}

func TestMallocArguments(t *testing.T) {
	b := newSim(t)
	_, err := b.Malloc(0, 0, acl.MemMallocHugeFirst)
	require.ErrorIs(t, err, acl.ErrInvalidParam)
	_, err = b.Malloc(2, 1, acl.MemMallocHugeFirst)
	require.ErrorIs(t, err, acl.ErrRTInvalidDeviceID)
	require.ErrorIs(t, b.Free(t.Context(), 0), acl.ErrRTParamInvalid)
}

func TestBufChecks(t *testing.T) {
	b := newSim(t)
	p, err := b.Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	buf := make([]byte, 256)
	pin, err := b.HostRegister(buf[64:128], acl.HostRegisterMapped)
	require.NoError(t, err)
	ro, err := b.HostRegister(buf[128:192], acl.HostRegisterReadOnly)
	require.NoError(t, err)
	s, err := b.CreateStream(0)
	require.NoError(t, err)

	for _, tc := range []struct {
		name string
		buf  acl.Buf
		want acl.Error
	}{
		{"no memory", acl.Buf{}, acl.ErrInvalidParam},
		{"both device and host", acl.Buf{Dev: p, Host: buf[:8]}, acl.ErrRTParamInvalid},
		{"host buffer too short", acl.Host(buf[:7], 0), acl.ErrRTParamInvalid},
		{"unknown pin", acl.Host(buf[64:72], pin+100), acl.ErrRTInvalidHandle},
		{"bytes outside the pin", acl.Host(buf[60:68], pin), acl.ErrRTParamInvalid},
		{"bytes of another slice", acl.Host(make([]byte, 8), pin), acl.ErrRTParamInvalid},
		{"read-only pin written", acl.Host(buf[128:136], ro), acl.ErrRTParamInvalid},
	} {
		require.ErrorIs(t, b.Memcpy(t.Context(), tc.buf, acl.Device(p), 8), tc.want, "Memcpy dst: %s", tc.name)
		require.ErrorIs(t, b.MemcpyAsync(t.Context(), tc.buf, acl.Device(p), 8, s), tc.want, "MemcpyAsync dst: %s", tc.name)
		require.ErrorIs(t, b.Memset(t.Context(), tc.buf, 1, 8), tc.want, "Memset: %s", tc.name)
		require.ErrorIs(t, b.MemcpyBatch(t.Context(), []acl.Copy{{Dst: tc.buf, Src: acl.Device(p), N: 8}}), tc.want, "MemcpyBatch: %s", tc.name)
		if tc.name != "read-only pin written" { // a read-only range may be a source
			require.ErrorIs(t, b.MemcpyBatch(t.Context(), []acl.Copy{{Dst: acl.Device(p), Src: tc.buf, N: 8}}), tc.want, "MemcpyBatch src: %s", tc.name)
		}
		require.ErrorIs(t, b.Memcpy2D(t.Context(), tc.buf, 4, acl.Device(p), 4, 4, 2), tc.want, "Memcpy2D: %s", tc.name)
	}
	// A read-only range may be a source.
	copy(buf[128:136], "readonly")
	require.NoError(t, b.MemcpyAsync(t.Context(), acl.Device(p), acl.Host(buf[128:136], ro), 8, s))
	require.NoError(t, b.SynchronizeStream(t.Context(), s, -1))
	out := make([]byte, 8)
	require.NoError(t, b.Memcpy(t.Context(), acl.Host(out, 0), acl.Device(p), 8))
	require.Equal(t, "readonly", string(out))
	require.Equal(t, make([]byte, 64), buf[:64], "failed calls must not write")
}

func TestPinLifetime(t *testing.T) {
	// A queued copy into a pinned range writes it when it runs, after the
	// call returned; HostUnregister waits for it.
	b := newSim(t)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	p, err := b.Malloc(0, 1<<16, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	require.NoError(t, b.Memset(t.Context(), acl.Device(p), 0x77, 1<<16))
	host := make([]byte, 1<<16)
	pin, err := b.HostRegister(host, acl.HostRegisterMapped)
	require.NoError(t, err)
	open := make(chan struct{})
	require.NoError(t, b.LaunchHostFunc(s, func() error { <-open; return nil }))
	require.NoError(t, b.MemcpyAsync(t.Context(), acl.Host(host, pin), acl.Device(p), 1<<16, s))
	require.Equal(t, byte(0), host[0], "the copy has not run yet")
	close(open)
	require.NoError(t, b.HostUnregister(context.Background(), pin))
	require.Equal(t, byte(0x77), host[1<<16-1])
}

func TestAccountingBaseline(t *testing.T) {
	// Whatever a program does, releasing what it holds brings the device
	// back to where it started.
	b := newSim(t, sim.WithMemory(64<<20))
	ctx := t.Context()
	base := [2]uint64{free(t, b, 0), free(t, b, 1)}
	var ps []acl.DevPtr
	var ss []acl.Stream
	var es []acl.Event
	host := make([]byte, 1<<20)
	pin, err := b.HostRegister(host, acl.HostRegisterMapped)
	require.NoError(t, err)
	for i := range 20 {
		dev := int32(i % 2)
		p, err := b.Malloc(dev, uint64(1000*(i+1)), acl.MemMallocPolicy(i%8))
		require.NoError(t, err)
		ps = append(ps, p)
		s, err := b.CreateStream(dev)
		require.NoError(t, err)
		ss = append(ss, s)
		e, err := b.CreateEvent(dev)
		require.NoError(t, err)
		es = append(es, e)
		require.NoError(t, b.MemcpyAsync(ctx, acl.Device(p), acl.Host(host[:1000], pin), 1000, s))
		require.NoError(t, b.RecordEvent(e, s))
	}
	for i := range ps {
		require.NoError(t, b.DestroyStream(ctx, ss[i]))
		require.NoError(t, b.DestroyEvent(es[i]))
		require.NoError(t, b.Free(ctx, ps[i]))
	}
	require.NoError(t, b.HostUnregister(ctx, pin))
	require.Equal(t, base, [2]uint64{free(t, b, 0), free(t, b, 1)})
}

// TestHostUnregisterRefusesNewUses: while HostUnregister waits for the work
// that uses a pin, new uses of the pin are refused, so the wait only ends.
func TestHostUnregisterRefusesNewUses(t *testing.T) {
	b := newSim(t)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	p, err := b.Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	host := make([]byte, 64)
	pin, err := b.HostRegister(host, acl.HostRegisterMapped)
	require.NoError(t, err)
	use := func() error { return b.MemcpyAsync(t.Context(), acl.Device(p), acl.Host(host, pin), 64, s) }

	release := gate(t, b, s)
	require.NoError(t, use()) // holds the pin until the gate opens
	ctx, cancel := context.WithCancel(t.Context())
	done := goErr(func() error { return b.HostUnregister(ctx, pin) })
	require.Eventually(t, func() bool { return errors.Is(use(), acl.ErrRTInvalidHandle) }, 2*time.Second, time.Millisecond,
		"a waiting HostUnregister must stop new uses of the pin")
	require.ErrorIs(t, b.HostUnregister(t.Context(), pin), acl.ErrHostMemoryNotRegistered, "a second unregister, as after the first")
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	require.NoError(t, use(), "an unregister that gave up leaves the pin live")

	done = goErr(func() error { return b.HostUnregister(context.Background(), pin) })
	notYet(t, done, "HostUnregister")
	release()
	require.NoError(t, <-done)
	require.NoError(t, b.SynchronizeStream(t.Context(), s, -1))
	require.ErrorIs(t, use(), acl.ErrRTInvalidHandle)
}

// TestAllocationsDoNotQueue: Malloc and Free take the backend's table lock
// only shared, so they go on while another operation holds it (a batch
// resolving thousands of entries, say) instead of queueing every
// session's allocations behind it and behind one another.
func TestAllocationsDoNotQueue(t *testing.T) {
	b := newSim(t)
	p0, err := b.Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	release := sim.HoldShared(b)
	done := make(chan error, 1)
	go func() {
		p, err := b.Malloc(0, 1<<20, acl.MemMallocHugeFirst)
		if err == nil {
			err = b.Free(context.Background(), p)
		}
		if err == nil {
			err = b.Free(context.Background(), p0)
		}
		done <- err
	}()
	select {
	case err := <-done:
		release()
		require.NoError(t, err)
	case <-time.After(time.Minute): // a watchdog, not a timing assertion
		release()
		t.Fatal("Malloc or Free waited for a reader of the backend's tables")
	}
}

// TestFreeRacingCopies: copies into an allocation racing its Free either
// run before it is freed or fail with 107000; none touches freed memory
// (the race detector watches), and the accounting returns to its
// baseline.
func TestFreeRacingCopies(t *testing.T) {
	b := newSim(t)
	ctx := context.Background()
	base := free(t, b, 0)
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	src := make([]byte, 4096)
	for round := range 200 {
		p, err := b.Malloc(0, 4096, acl.MemMallocHugeFirst)
		require.NoError(t, err)
		errs := make(chan error, 3)
		go func() { errs <- b.MemcpyAsync(ctx, acl.Device(p), acl.Host(src, 0), 4096, s) }()
		go func() {
			errs <- b.MemcpyBatch(ctx, []acl.Copy{{Dst: acl.Device(p), Src: acl.Host(src, 0), N: 64}, {Dst: acl.Device(p + 64), Src: acl.Host(src, 0), N: 64}})
		}()
		go func() { errs <- b.Free(ctx, p) }()
		for range 3 {
			if err := <-errs; err != nil {
				require.Equal(t, acl.ErrRTParamInvalid, acl.CodeOf(err), "round %d: %v", round, err)
			}
		}
		require.NoError(t, b.SynchronizeStream(ctx, s, -1))
	}
	require.Equal(t, base, free(t, b, 0))
}

// TestHandlesDoNotQueue: streams and events are made and destroyed under
// the table lock shared, like allocations, and two destroys of one handle
// at once destroy it once.
func TestHandlesDoNotQueue(t *testing.T) {
	b := newSim(t)
	release := sim.HoldShared(b)
	done := make(chan error, 1)
	go func() {
		s, err := b.CreateStream(0)
		if err != nil {
			done <- err
			return
		}
		e, err := b.CreateEvent(0)
		if err != nil {
			done <- err
			return
		}
		done <- errors.Join(b.DestroyEvent(e), b.DestroyStream(context.Background(), s))
	}()
	select {
	case err := <-done:
		release()
		require.NoError(t, err)
	case <-time.After(time.Minute): // a watchdog, not a timing assertion
		release()
		t.Fatal("a stream or event call waited for a reader of the backend's tables")
	}
	for range 50 {
		s, err := b.CreateStream(0)
		require.NoError(t, err)
		e, err := b.CreateEvent(0)
		require.NoError(t, err)
		errs := make(chan error, 4)
		for range 2 {
			go func() { errs <- b.DestroyStream(context.Background(), s) }()
			go func() { errs <- b.DestroyEvent(e) }()
		}
		var failed int
		for range 4 {
			if err := <-errs; err != nil {
				require.Equal(t, acl.ErrRTInvalidHandle, acl.CodeOf(err), "%v", err)
				failed++
			}
		}
		require.Equal(t, 2, failed, "each handle is destroyed once")
	}
}

// TestAllocationsAligned: every allocation's memory, as a launch sees it,
// is aligned to 8 bytes whatever its size, so that compute may view a
// buffer whose device address is aligned to its elements as a slice of
// them (Go aligns a small []byte to as little as 1).
func TestAllocationsAligned(t *testing.T) {
	b := sim.New()
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	s, err := b.CreateStream(0)
	require.NoError(t, err)
	var ps []acl.DevPtr
	for range 4 {
		for size := uint64(1); size <= 16; size++ {
			p, err := b.Malloc(0, size, acl.MemMallocHugeFirst)
			require.NoError(t, err)
			ps = append(ps, p)
		}
	}
	for _, p := range ps {
		var at uintptr
		require.NoError(t, b.Compute(s, &acl.Launch{
			Name:    "align",
			Regions: []acl.Region{{Ptr: p, N: 1}},
			Run: func(_ context.Context, m [][]byte) error {
				at = uintptr(unsafe.Pointer(unsafe.SliceData(m[0])))
				return nil
			},
		}))
		require.NoError(t, b.SynchronizeStream(t.Context(), s, -1))
		require.Zero(t, at%8, "allocation %#x is at %#x", p, at)
	}
}

// TestSmallMallocOneObject: a small allocation (a command's buffers of a
// request) is one heap object with its record, not two, and behaves as
// any: zeroed, its extent its size, its bytes its own and gone with it.
func TestSmallMallocOneObject(t *testing.T) {
	b := newSim(t, sim.WithMemory(1<<20))
	ctx := t.Context()
	for _, size := range []uint64{1, 64, 128, 129} {
		p, err := b.Malloc(0, size, acl.MemMallocHugeFirst)
		require.NoError(t, err)
		q, err := b.Malloc(0, size, acl.MemMallocHugeFirst)
		require.NoError(t, err)
		in, out := make([]byte, size), make([]byte, size)
		require.NoError(t, b.Memcpy(ctx, acl.Host(out, 0), acl.Device(p), size))
		require.Equal(t, in, out, "size %d: zeroed", size)
		for i := range in {
			in[i] = byte(i + 1)
		}
		require.NoError(t, b.Memcpy(ctx, acl.Device(p), acl.Host(in, 0), size))
		require.Error(t, b.Memcpy(ctx, acl.Device(p), acl.Host(make([]byte, size+1), 0), size+1), "size %d: its extent", size)
		require.NoError(t, b.Memcpy(ctx, acl.Host(out, 0), acl.Device(q), size))
		require.Equal(t, make([]byte, size), out, "size %d: the next allocation's bytes are its own", size)
		require.NoError(t, b.Memcpy(ctx, acl.Host(out, 0), acl.Device(p), size))
		require.Equal(t, in, out)
		require.NoError(t, b.Free(ctx, p))
		require.NoError(t, b.Free(ctx, q))
		require.Error(t, b.Memcpy(ctx, acl.Host(out, 0), acl.Device(p), size), "size %d: freed", size)
	}
	got := testing.AllocsPerRun(100, func() {
		p, err := b.Malloc(0, 64, acl.MemMallocHugeFirst)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Free(ctx, p); err != nil {
			t.Fatal(err)
		}
	})
	require.LessOrEqual(t, got, 1.0, "allocations per Malloc and Free of 64 bytes")
}
