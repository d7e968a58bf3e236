package acltest

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// Tenants share a backend (the sandbox's sessions share one). What one
// tenant does with its own memory and streams may cost the others the
// machine's time, never a wait behind its queued work or its long copies:
// no call may wait for those while it holds a lock the other tenants'
// calls need.
var contentionTests = []test{
	{"NoCrossTenantConvoy", func(e *env) { e.noConvoy() }},
}

const (
	tenants    = 256      // sessions: one hostile, the rest well-behaved
	tenantOps  = 6        // rounds of the well-behaved calls per tenant
	floodBytes = 16 << 20 // each of the hostile tenant's large copies
	// A call beside the flood stalls when it takes stallBound and
	// stallRatio times its worst alone: a lock convoy behind the hostile
	// tenant's work costs the others seconds, hundreds of times their
	// worst alone (each waits for a large copy or for room in a full
	// queue, one after another), where the flood's work on the machine's
	// cores costs them a few times.
	stallBound = time.Second
	stallRatio = 10
)

// tenantCalls are the calls each well-behaved tenant times, by index in
// the latencies noConvoy collects.
var tenantCalls = [...]string{"Malloc", "Free", "HostRegister", "HostUnregister"}

// noConvoy times the well-behaved tenants' Malloc, Free, HostRegister and
// HostUnregister alone, then beside a hostile tenant (flood) that makes its
// calls wait for its own queued work and long copies. It reports the worst
// latency of each call beside the flood as a ratio to the worst alone, and
// fails on a stall of seconds.
func (e *env) noConvoy() {
	dev := int32(e.b.DeviceCount() - 1) // the tenants' device; the flood's is 0
	// Each tenant registers its own page.
	slab := make([]byte, (tenants+1)*pageBytes)
	off := pageBytes - int(addrOf(slab)%pageBytes)
	pages := make([][]byte, tenants)
	for i := range pages {
		pages[i] = slab[off+i*pageBytes : off+(i+1)*pageBytes : off+(i+1)*pageBytes]
	}
	t0 := time.Now()
	alone := e.tenants(dev, pages, func() {})
	t1 := time.Now()
	release, stop := e.flood()
	t2 := time.Now()
	flooded := e.tenants(dev, pages, release)
	t3 := time.Now()
	stop()
	e.Logf("phases: alone %v, flood start %v, flooded %v, flood stop %v", t1.Sub(t0), t2.Sub(t1), t3.Sub(t2), time.Since(t3))

	for i, call := range tenantCalls {
		e.Logf("%s: worst %v alone, %v beside the flood: x%.1f", call, alone[i], flooded[i], float64(flooded[i])/float64(max(alone[i], time.Microsecond)))
	}
	for i, call := range tenantCalls {
		// A machine busy enough to stretch the calls alone stretches them
		// beside the flood too: a stall is both of seconds and many times
		// the worst alone.
		if flooded[i] >= stallBound && flooded[i] >= stallRatio*alone[i] {
			e.Errorf("%s stalled %v behind another tenant's copies (%v alone)", call, flooded[i], alone[i])
		}
	}
}

// pageBytes is the page each tenant registers.
const pageBytes = 4096

func addrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// tenants runs the well-behaved tenants, each its own goroutine, one of
// them doing nothing (the hostile tenant's place), and returns the worst
// latency of each of tenantCalls. If they have not finished within a
// minute, it fails the test and calls release, which lets their calls
// return.
func (e *env) tenants(dev int32, pages [][]byte, release func()) [len(tenantCalls)]time.Duration {
	var (
		mu    sync.Mutex
		worst [len(tenantCalls)]time.Duration
		wg    sync.WaitGroup
		quit  atomic.Bool // stop after this round: a stall, or the watchdog
	)
	for i := 1; i < tenants; i++ {
		wg.Go(func() {
			var mine [len(tenantCalls)]time.Duration
			timed := func(k int, f func() error) bool {
				t := time.Now()
				err := f()
				d := time.Since(t)
				mine[k] = max(mine[k], d)
				if d >= stallBound {
					quit.Store(true) // a stall: the others stop after this round
				}
				if err != nil {
					e.Errorf("tenant %d: %s: %v", i, tenantCalls[k], err)
				}
				return err == nil
			}
			for range tenantOps {
				var p acl.DevPtr
				var h acl.HostPin
				ok := timed(0, func() (err error) { p, err = e.b.Malloc(dev, pageBytes, acl.MemMallocHugeFirst); return err }) &&
					timed(1, func() error { return e.b.Free(e.ctx, p) }) &&
					timed(2, func() (err error) { h, err = e.b.HostRegister(pages[i], acl.HostRegisterMapped); return err }) &&
					timed(3, func() error { return e.b.HostUnregister(e.ctx, h) })
				if !ok || quit.Load() {
					break
				}
				// Well-behaved: a pause between rounds, so that the
				// tenants leave the machine's cores to the flood and
				// their latencies measure waits, not a run queue.
				time.Sleep(5 * time.Millisecond)
			}
			mu.Lock()
			for k := range worst {
				worst[k] = max(worst[k], mine[k])
			}
			mu.Unlock()
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		e.Error("the well-behaved tenants did not finish within a minute")
		quit.Store(true)
		release()
		<-done
	}
	return worst
}

// flood starts the hostile tenant on device 0 and returns once each of its
// loops has run once. The tenant copies in loops: large copies into one
// allocation on two streams, small asynchronous copies into the same
// allocation on streams of their own (each waits for its turn behind the
// large ones), large synchronous copies, and small copies queued behind a
// blocked stream until it is full, after which each waits for room, that
// is for the work queued before it. release ends the loops and unblocks
// the stream; stop releases and waits for the tenant's work.
func (e *env) flood() (release, stop func()) {
	var a, src acl.DevPtr
	for _, p := range []*acl.DevPtr{&a, &src} {
		var err error
		*p, err = e.b.Malloc(0, floodBytes, acl.MemMallocHugeFirst)
		require.NoError(e, err)
	}
	host, pin := e.pinned(pageBytes)
	pageable := make([]byte, floodBytes)
	big := []acl.Stream{e.stream(0), e.stream(0)}
	small := []acl.Stream{e.stream(0), e.stream(0), e.stream(0), e.stream(0)}
	blocked := e.stream(0)

	var (
		quit atomic.Bool
		wg   sync.WaitGroup
		warm sync.WaitGroup // each loop has run once: its memory is touched
		once sync.Once
		open = make(chan struct{}) // unblocks blocked
	)
	release = func() {
		once.Do(func() {
			quit.Store(true)
			close(open)
		})
	}
	e.Cleanup(release)
	loop := func(what string, f func() error) {
		warm.Add(1)
		wg.Go(func() {
			for i := 0; !quit.Load(); i++ {
				err := f()
				if i == 0 {
					warm.Done()
				}
				if err != nil {
					e.Errorf("hostile tenant: %s: %v", what, err)
					return
				}
			}
		})
	}
	// Large copies into a on two streams: one runs while the other's
	// next is queued, so that a's data is nearly always being copied.
	for _, s := range big {
		require.NoError(e, e.b.MemcpyAsync(e.ctx, acl.Device(a), acl.Device(src), floodBytes, s))
	}
	loop("large asynchronous copies", func() error {
		for _, s := range big {
			if err := e.b.SynchronizeStream(e.ctx, s, -1); err != nil {
				return err
			}
			if err := e.b.MemcpyAsync(e.ctx, acl.Device(a), acl.Device(src), floodBytes, s); err != nil {
				return err
			}
		}
		return nil
	})
	// Small copies between pinned memory into a, each on an idle stream
	// of its own: the kind a fast path may run in the call.
	for i, s := range small {
		loop("small asynchronous copies", func() error {
			at := uint64(64 * i)
			if err := e.b.MemcpyAsync(e.ctx, acl.Device(a+acl.DevPtr(at)), acl.Host(host[at:at+64], pin), 64, s); err != nil {
				return err
			}
			return e.b.SynchronizeStream(e.ctx, s, -1)
		})
	}
	// Large synchronous copies from pageable memory into a too.
	loop("large synchronous copies", func() error {
		return e.b.Memcpy(e.ctx, acl.Device(a), acl.Host(pageable, 0), floodBytes)
	})
	// Small copies queued behind a host function that blocks until
	// release: once the stream holds as many operations as the backend
	// (or its runtime) queues, each call waits for room.
	require.NoError(e, e.b.LaunchHostFunc(blocked, func() error { <-open; return nil }))
	loop("copies queued behind a blocked stream", func() error {
		at := uint64(pageBytes - 64)
		return e.b.MemcpyAsync(e.ctx, acl.Device(a+acl.DevPtr(at)), acl.Host(host[at:], pin), 64, blocked)
	})

	warm.Wait()
	return release, func() {
		release()
		wg.Wait()
		for _, s := range slices.Concat(big, small, []acl.Stream{blocked}) {
			e.sync(s)
			require.NoError(e, e.b.DestroyStream(e.ctx, s))
		}
		require.NoError(e, e.b.HostUnregister(e.ctx, pin))
		for _, p := range []acl.DevPtr{a, src} {
			e.free(p)
		}
	}
}
