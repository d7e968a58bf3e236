package sim_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
)

// params are the timing model's parameters as the package doc lists them:
// the tests check the model against the documentation, not against itself.
type params struct {
	h2d, d2h, d2d, peer float64 // bytes per second
	launch              float64 // ms
}

var chipParams = map[sim.Chip]params{
	sim.AtlasA2:   {h2d: 25e9, d2h: 25e9, d2d: 800e9, peer: 56e9, launch: 0.005},
	sim.AtlasA3:   {h2d: 25e9, d2h: 25e9, d2d: 1000e9, peer: 100e9, launch: 0.005},
	sim.Ascend950: {h2d: 50e9, d2h: 50e9, d2d: 1600e9, peer: 200e9, launch: 0.003},
}

// ms is the modeled milliseconds n bytes take at bw bytes per second.
func ms(n uint64, bw float64) float64 { return float64(n) / bw * 1e3 }

// rig is a simulator with the timing model and memory to copy between.
type rig struct {
	t    *testing.T
	b    *sim.Backend
	dev  [2]acl.DevPtr // n bytes on device 0, and on device 1
	dev2 acl.DevPtr    // n more bytes on device 0
	host []byte        // n pinned bytes
	pin  acl.HostPin
	n    uint64
}

func newRig(t *testing.T, n uint64, opts ...sim.Option) *rig {
	b := newSim(t, append([]sim.Option{sim.WithTiming(), sim.WithMemory(1 << 30)}, opts...)...)
	r := &rig{t: t, b: b, n: n, host: make([]byte, n)}
	for i := range r.dev {
		p, err := b.Malloc(int32(i), n, acl.MemMallocHugeFirst)
		require.NoError(t, err)
		r.dev[i] = p
	}
	p, err := b.Malloc(0, n, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	r.dev2 = p
	r.pin, err = b.HostRegister(r.host, acl.HostRegisterMapped)
	require.NoError(t, err)
	return r
}

func (r *rig) stream(dev int32) acl.Stream {
	s, err := r.b.CreateStream(dev)
	require.NoError(r.t, err)
	return s
}

func (r *rig) event() acl.Event {
	e, err := r.b.CreateEvent(0)
	require.NoError(r.t, err)
	return e
}

// timed queues, on s, a record, what queue queues, and a second record, and
// returns the two events.
func (r *rig) timed(s acl.Stream, queue func(s acl.Stream)) [2]acl.Event {
	e := [2]acl.Event{r.event(), r.event()}
	require.NoError(r.t, r.b.RecordEvent(e[0], s))
	queue(s)
	require.NoError(r.t, r.b.RecordEvent(e[1], s))
	return e
}

// elapsed synchronizes e[1] and returns the modeled milliseconds from e[0]
// to e[1].
func (r *rig) elapsed(e [2]acl.Event) float64 {
	require.NoError(r.t, r.b.SynchronizeEvent(r.t.Context(), e[1], -1))
	got, err := r.b.EventElapsedTime(e[0], e[1])
	require.NoError(r.t, err)
	return float64(got)
}

// near asserts got is want milliseconds within the model's rounding:
// EventElapsedTime's float32, ModelTime's nanosecond.
func near(t *testing.T, want, got float64, msg string, args ...any) {
	t.Helper()
	require.InDelta(t, want, got, want*1e-6+1e-6, append([]any{msg}, args...)...)
}

func (r *rig) copyAsync(dst, src acl.Buf, s acl.Stream) {
	require.NoError(r.t, r.b.MemcpyAsync(r.t.Context(), dst, src, r.n, s))
}

func TestTimingOneOperation(t *testing.T) {
	const n = 1 << 20
	for chip, p := range chipParams {
		t.Run(chip.String(), func(t *testing.T) {
			r := newRig(t, n, sim.WithChip(chip))
			require.NoError(t, r.b.EnablePeerAccess(1, 0))
			host := acl.Host(r.host, r.pin)
			for _, c := range []struct {
				name  string
				queue func(s acl.Stream)
				want  float64
			}{
				{"H2D", func(s acl.Stream) { r.copyAsync(acl.Device(r.dev[0]), host, s) }, ms(n, p.h2d)},
				{"D2H", func(s acl.Stream) { r.copyAsync(host, acl.Device(r.dev[0]), s) }, ms(n, p.d2h)},
				{"D2D", func(s acl.Stream) { r.copyAsync(acl.Device(r.dev2), acl.Device(r.dev[0]), s) }, ms(n, p.d2d)},
				{"peer", func(s acl.Stream) { r.copyAsync(acl.Device(r.dev[1]), acl.Device(r.dev[0]), s) }, ms(n, p.peer)},
				{"memset", func(s acl.Stream) {
					require.NoError(t, r.b.MemsetAsync(t.Context(), acl.Device(r.dev[0]), 7, n, s))
				}, ms(n, p.d2d)},
				{"memset of 32-bit words", func(s acl.Stream) {
					require.NoError(t, r.b.MemsetD32Async(t.Context(), acl.Device(r.dev[0]), 7, n/4, s))
				}, ms(n, p.d2d)},
				{"2D H2D", func(s acl.Stream) {
					require.NoError(t, r.b.Memcpy2DAsync(t.Context(), acl.Device(r.dev[0]), 4096, host, 4096, 1024, n/4096, s))
				}, ms(n/4, p.h2d)},
				{"batch H2D and D2H", func(s acl.Stream) {
					// One launch; the two directions are two links, so
					// the longer share sets the time.
					require.NoError(t, r.b.MemcpyBatchAsync(t.Context(), []acl.Copy{
						{Dst: acl.Device(r.dev[0]), Src: acl.Host(r.host[:n/2], r.pin), N: n / 2},
						{Dst: acl.Host(r.host[n/2:], r.pin), Src: acl.Device(r.dev2), N: n / 2},
						{Dst: acl.Device(r.dev[0] + n/2), Src: acl.Host(r.host[:n/4], r.pin), N: n / 4},
					}, s))
				}, ms(3*n/4, p.h2d)},
				{"host function", func(s acl.Stream) {
					require.NoError(t, r.b.LaunchHostFunc(s, func() error { time.Sleep(2 * time.Millisecond); return nil }))
				}, -1},
			} {
				s := r.stream(0)
				got := r.elapsed(r.timed(s, c.queue))
				if c.want < 0 { // as long as it really ran: a wall-clock time
					require.GreaterOrEqual(t, got, 2.0, "%s: as long as it ran", c.name)
					continue
				}
				near(t, p.launch+c.want, got, "%s: the launch latency plus the bytes over the link's bandwidth", c.name)
			}
		})
	}
}

func TestTimingSharedLink(t *testing.T) {
	const n = 4 << 20
	p := chipParams[sim.AtlasA2]
	r := newRig(t, n)
	require.Zero(t, r.b.ModelTime(), "setting up touched no stream and copied nothing")
	host := acl.Host(r.host, r.pin)
	dev := acl.Device(r.dev[0])

	alone := r.elapsed(r.timed(r.stream(0), func(s acl.Stream) { r.copyAsync(dev, host, s) }))
	near(t, p.launch+ms(n, p.h2d), alone, "one copy alone")

	// Two streams copying to the same device at the same time share its
	// host-to-device link: each takes twice as long.
	s1, s2 := r.stream(0), r.stream(0)
	e1 := r.timed(s1, func(s acl.Stream) { r.copyAsync(dev, host, s) })
	e2 := r.timed(s2, func(s acl.Stream) { r.copyAsync(acl.Device(r.dev2), host, s) })
	for _, e := range [][2]acl.Event{e1, e2} {
		near(t, p.launch+2*ms(n, p.h2d), r.elapsed(e), "a copy sharing its link with another")
	}
	near(t, 2*(alone-p.launch), r.elapsed(e1)-p.launch, "twice the transfer time")

	// A synchronous copy shares the link too: with one async copy queued
	// at the same modeled time, it takes twice as long.
	e3 := r.timed(s1, func(s acl.Stream) { r.copyAsync(dev, host, s) })
	before := r.b.ModelTime()
	require.NoError(t, r.b.Memcpy(t.Context(), acl.Device(r.dev2), host, n))
	near(t, p.launch+2*ms(n, p.h2d), ms2(r.b.ModelTime()-before), "the synchronous copy")
	near(t, p.launch+2*ms(n, p.h2d), r.elapsed(e3), "the asynchronous copy beside it")
}

// ms2 is d in milliseconds.
func ms2(d time.Duration) float64 { return float64(d) / 1e6 }

func TestTimingLinksOverlap(t *testing.T) {
	const n = 4 << 20
	p := chipParams[sim.AtlasA2]
	r := newRig(t, n)
	host := acl.Host(r.host, r.pin)
	h2d := func(s acl.Stream) { r.copyAsync(acl.Device(r.dev[0]), host, s) }
	for _, c := range []struct {
		name  string
		other func(s acl.Stream)
		want  float64
	}{
		{"D2H: the other direction of the host link", func(s acl.Stream) {
			out := make([]byte, n) // pageable would wait for the stream: pin it
			pin, err := r.b.HostRegister(out, acl.HostRegisterMapped)
			require.NoError(t, err)
			r.copyAsync(acl.Host(out, pin), acl.Device(r.dev2), s)
		}, ms(n, p.d2h)},
		{"D2D: the device's own memory", func(s acl.Stream) { r.copyAsync(acl.Device(r.dev2), acl.Device(r.dev[0]), s) }, ms(n, p.d2d)},
		{"H2D to another device: its own link", func(s acl.Stream) { r.copyAsync(acl.Device(r.dev[1]), host, s) }, ms(n, p.h2d)},
	} {
		e1 := r.timed(r.stream(0), h2d)
		e2 := r.timed(r.stream(0), c.other)
		near(t, p.launch+ms(n, p.h2d), r.elapsed(e1), "%s: the H2D copy is not slowed", c.name)
		near(t, p.launch+c.want, r.elapsed(e2), "%s: nor is the other", c.name)
	}
}

func TestTimingStreamOrder(t *testing.T) {
	const n = 1 << 20
	p := chipParams[sim.AtlasA2]
	r := newRig(t, n)
	host := acl.Host(r.host, r.pin)
	up, down := r.stream(0), r.stream(0)

	// Two copies on one stream run one after the other.
	e := r.timed(up, func(s acl.Stream) {
		r.copyAsync(acl.Device(r.dev[0]), host, s)
		r.copyAsync(acl.Device(r.dev2), host, s)
	})
	near(t, 2*(p.launch+ms(n, p.h2d)), r.elapsed(e), "two copies on one stream")

	// A stream waiting for an event starts after the record.
	uploaded := r.event()
	start := r.timed(up, func(s acl.Stream) {
		r.copyAsync(acl.Device(r.dev[0]), host, s)
		require.NoError(t, r.b.RecordEvent(uploaded, s))
	})
	require.NoError(t, r.b.StreamWaitEvent(down, uploaded))
	end := r.timed(down, func(s acl.Stream) { r.copyAsync(host, acl.Device(r.dev[0]), s) })
	near(t, 2*p.launch+ms(n, p.h2d)+ms(n, p.d2h), r.elapsed([2]acl.Event{start[0], end[1]}), "the download waits for the upload")

	// Destroying the event a stream waits for ends the wait at that moment.
	never := waitable(t, r.b, 0)
	require.NoError(t, r.b.StreamWaitEvent(down, never))
	r.timed(down, func(s acl.Stream) { r.copyAsync(host, acl.Device(r.dev[0]), s) })
	require.NoError(t, r.b.SynchronizeStream(t.Context(), up, -1))
	at := r.b.ModelTime()
	require.NoError(t, r.b.DestroyEvent(never))
	require.NoError(t, r.b.SynchronizeStream(t.Context(), down, -1))
	near(t, p.launch+ms(n, p.d2h), ms2(r.b.ModelTime()-at), "the copy after the wait starts when the event is destroyed")

	// A wait with a timeout ends after its timeout in modeled time too.
	require.NoError(t, r.b.StreamWaitEventTimeout(down, waitable(t, r.b, 0), 3*time.Millisecond))
	r.copyAsync(host, acl.Device(r.dev[0]), down)
	at = r.b.ModelTime()
	require.ErrorIs(t, r.b.SynchronizeStream(t.Context(), down, -1), acl.ErrRTWaitTimeout)
	near(t, 3+p.launch+ms(n, p.d2h), ms2(r.b.ModelTime()-at), "the copy after the wait starts when it times out")
}

func TestTimingCompletionOrder(t *testing.T) {
	const n = 1 << 20
	p := chipParams[sim.AtlasA2]
	r := newRig(t, n)
	// Three streams start together; in modeled time the small copy ends
	// first, then the medium one, then the big one, whatever order the
	// host machine finishes them in.
	big := r.timed(r.stream(0), func(s acl.Stream) {
		require.NoError(t, r.b.MemcpyAsync(t.Context(), acl.Device(r.dev[0]), acl.Host(r.host[:n/2], r.pin), n/2, s))
	})
	medium := r.timed(r.stream(0), func(s acl.Stream) {
		require.NoError(t, r.b.MemcpyAsync(t.Context(), acl.Host(r.host[n/2:], r.pin), acl.Device(r.dev2), n/4, s))
	})
	small := r.timed(r.stream(1), func(s acl.Stream) {
		require.NoError(t, r.b.MemcpyAsync(t.Context(), acl.Device(r.dev[1]), acl.Host(r.host[:n/2], r.pin), n/8, s))
	})
	for _, e := range [][2]acl.Event{big, medium, small} {
		sim.WaitReal(t.Context(), r.b, e[1])
	}
	require.NoError(t, r.b.SynchronizeEvent(t.Context(), small[1], -1))
	near(t, p.launch+ms(n/8, p.h2d), ms2(r.b.ModelTime()), "the host's clock stops at the end of what it waited for")
	_, err := r.b.EventElapsedTime(big[0], big[1])
	require.ErrorIs(t, err, acl.ErrRTEventNotComplete, "not complete in modeled time yet")

	// A host that polls lets modeled time pass, one event at a time.
	status := func(e [2]acl.Event) acl.EventRecordedStatus {
		st, err := r.b.QueryEvent(e[1])
		require.NoError(t, err)
		return st
	}
	require.Equal(t, acl.EventRecordedStatusNotReady, status(big), "the medium copy ends first")
	near(t, p.launch+ms(n/4, p.d2h), ms2(r.b.ModelTime()), "the poll moved the clock to the next completion")
	require.Equal(t, acl.EventRecordedStatusComplete, status(medium))
	require.Equal(t, acl.EventRecordedStatusComplete, status(big), "then the big one")
	near(t, p.launch+ms(n/2, p.h2d), ms2(r.b.ModelTime()), "the poll moved the clock to the big copy's end")
	near(t, p.launch+ms(n/2, p.h2d), r.elapsed(big), "the big copy")
}

func TestTimingResetEvent(t *testing.T) {
	const n = 1 << 20
	r := newRig(t, n)
	s := r.stream(0)
	e := r.timed(s, func(acl.Stream) {})
	require.NoError(t, r.b.SynchronizeStream(t.Context(), s, -1))
	r.copyAsync(acl.Device(r.dev[0]), acl.Host(r.host, r.pin), s)
	require.NoError(t, r.b.ResetEvent(e[1], s))
	sim.WaitReal(t.Context(), r.b, e[1])
	// The reset has run on this machine, not yet in modeled time: the
	// record before it still counts.
	st, err := r.b.QueryEvent(e[1])
	require.NoError(t, err)
	require.Equal(t, acl.EventRecordedStatusComplete, st)
	ms, err := r.b.EventElapsedTime(e[0], e[1])
	require.NoError(t, err)
	require.Zero(t, ms)
	require.NoError(t, r.b.SynchronizeStream(t.Context(), s, -1))
	ms, err = r.b.EventElapsedTime(e[0], e[1])
	require.NoError(t, err, "a reset keeps the record before it, also once it has run in modeled time")
	require.Zero(t, ms)
}

func TestTimingTimeout(t *testing.T) {
	const n = 8 << 20
	p := chipParams[sim.AtlasA2]
	r := newRig(t, n)
	s := r.stream(0)
	e := r.timed(s, func(s acl.Stream) { // 2.72 ms on the A2's host link
		for range 8 {
			r.copyAsync(acl.Device(r.dev[0]), acl.Host(r.host, r.pin), s)
		}
	})
	sim.WaitReal(t.Context(), r.b, e[1])
	require.ErrorIs(t, r.b.SynchronizeStream(t.Context(), s, 1), acl.ErrRTStreamSyncTimeout, "the copy lasts longer than 1 ms of modeled time")
	near(t, 1, ms2(r.b.ModelTime()), "the host waited 1 ms")
	require.ErrorIs(t, r.b.SynchronizeDevice(t.Context(), 0, 1), acl.ErrRTStreamSyncTimeout)
	near(t, 2, ms2(r.b.ModelTime()), "and 1 ms more")
	require.NoError(t, r.b.SynchronizeEvent(t.Context(), e[1], 1), "the copies end 0.72 ms later")
	near(t, 8*(p.launch+ms(n, p.h2d)), ms2(r.b.ModelTime()), "the host's clock stops at their end")
}

func TestTimingQueueDepth(t *testing.T) {
	const n = 1 << 20
	p := chipParams[sim.AtlasA2]
	r := newRig(t, n, sim.WithQueueDepth(2))
	s := r.stream(0)
	one := p.launch + ms(n, p.h2d)
	for i := range 4 {
		r.copyAsync(acl.Device(r.dev[0]), acl.Host(r.host, r.pin), s)
		// The third copy finds two queued: the host waits for room, until
		// the first ends in modeled time.
		near(t, float64(max(i-1, 0))*one, ms2(r.b.ModelTime()), "after copy %d", i)
	}
}

func TestTimingDescriptorCopy(t *testing.T) {
	const n = 1 << 20
	p := chipParams[sim.AtlasA2]
	r := newRig(t, n)
	desc, err := r.b.Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	require.NoError(t, r.b.SetMemcpyDesc(desc, acl.MemcpyInnerDeviceToDevice, r.dev[0], r.dev2, n/2))
	e := r.timed(r.stream(0), func(s acl.Stream) {
		require.NoError(t, r.b.MemcpyAsyncWithDesc(desc, acl.MemcpyInnerDeviceToDevice, s))
	})
	near(t, p.launch+ms(n/2, p.d2d), r.elapsed(e), "the count the descriptor holds, within the device")
}

func TestTimingPageable(t *testing.T) {
	const n = 1 << 20
	p := chipParams[sim.AtlasA2]
	r := newRig(t, n)
	s := r.stream(0)
	r.copyAsync(acl.Device(r.dev[0]), acl.Host(r.host, r.pin), s)
	// Pageable memory: the host waits for the stream, then for the copy.
	require.NoError(t, r.b.MemcpyAsync(t.Context(), acl.Host(make([]byte, n), 0), acl.Device(r.dev[0]), n, s))
	near(t, 2*p.launch+ms(n, p.h2d)+ms(n, p.d2h), ms2(r.b.ModelTime()), "both copies, one after the other")

	// Synchronous copies, pageable or pinned, and memsets.
	for _, c := range []struct {
		name string
		do   func() error
		want float64
	}{
		{"pageable H2D", func() error {
			return r.b.Memcpy(t.Context(), acl.Device(r.dev[0]), acl.Host(make([]byte, n), 0), n)
		}, ms(n, p.h2d)},
		{"pinned D2H", func() error { return r.b.Memcpy(t.Context(), acl.Host(r.host, r.pin), acl.Device(r.dev[0]), n) }, ms(n, p.d2h)},
		{"D2D", func() error { return r.b.Memcpy(t.Context(), acl.Device(r.dev2), acl.Device(r.dev[0]), n) }, ms(n, p.d2d)},
		{"memset", func() error { return r.b.Memset(t.Context(), acl.Device(r.dev[0]), 1, n) }, ms(n, p.d2d)},
		{"2D D2H", func() error {
			return r.b.Memcpy2D(t.Context(), acl.Host(r.host, r.pin), 1024, acl.Device(r.dev[0]), 1024, 512, n/1024)
		}, ms(n/2, p.d2h)},
		{"batch", func() error {
			return r.b.MemcpyBatch(t.Context(), []acl.Copy{{Dst: acl.Device(r.dev2), Src: acl.Host(r.host, r.pin), N: n}})
		}, ms(n, p.h2d)},
		{"host to host: no device, no time", func() error {
			return r.b.Memcpy(t.Context(), acl.Host(make([]byte, n), 0), acl.Host(r.host, r.pin), n)
		}, -p.launch},
	} {
		before := r.b.ModelTime()
		require.NoError(t, c.do(), c.name)
		near(t, p.launch+c.want, ms2(r.b.ModelTime()-before), c.name)
	}
}

func TestTimingOff(t *testing.T) {
	b := newSim(t)
	p, err := b.Malloc(0, 64, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	require.NoError(t, b.Memcpy(t.Context(), acl.Device(p), acl.Host(make([]byte, 64), 0), 64))
	require.Zero(t, b.ModelTime(), "no model, no modeled time")
}

func TestTimingPaced(t *testing.T) {
	const n = 16 << 20
	p := chipParams[sim.AtlasA2]
	r := newRig(t, n, sim.WithPacing())
	r.b.ModelTime() // the wall clock has moved since New: so has the model
	start := time.Now()
	before := r.b.ModelTime()
	require.NoError(t, r.b.Memcpy(t.Context(), acl.Device(r.dev[0]), acl.Host(r.host, r.pin), n))
	want := time.Duration((p.launch + ms(n, p.h2d)) * 1e6)
	require.GreaterOrEqual(t, r.b.ModelTime()-before+time.Nanosecond, want, "at least the modeled time (the host's own time counts too)")
	require.GreaterOrEqual(t, time.Since(start), want, "the wall clock waited for it")
}

// A copy left running when its stream is destroyed still occupies its
// link; a wait on a cancelled stream ends.
func TestTimingDestroyStream(t *testing.T) {
	const n = 1 << 20
	p := chipParams[sim.AtlasA2]
	r := newRig(t, n)
	s := r.stream(0)
	r.copyAsync(acl.Device(r.dev[0]), acl.Host(r.host, r.pin), s)
	require.NoError(t, r.b.DestroyStream(t.Context(), s))
	near(t, p.launch+ms(n, p.h2d), ms2(r.b.ModelTime()), "destroying a stream waits for its work")

	s = r.stream(0)
	release := gate(t, r.b, s)
	require.NoError(t, r.b.StreamWaitEvent(s, waitable(t, r.b, 0)))
	r.copyAsync(acl.Device(r.dev[0]), acl.Host(r.host, r.pin), s)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	at := r.b.ModelTime()
	done := goErr(func() error { return r.b.DestroyStream(ctx, s) })
	release()
	require.NoError(t, <-done)
	require.NoError(t, r.b.SynchronizeDevice(t.Context(), 0, -1))
	require.Equal(t, at, r.b.ModelTime(), "the dropped copy takes no modeled time")
}

// BenchmarkTiming measures what the timing model costs the calls: 64 queued
// 64-byte copies and a synchronize on a simulator with the model on, timed
// in the same iterations as the same calls on one without. x-off is the
// time with the model over the time without.
func BenchmarkTiming(b *testing.B) {
	type rig struct {
		s    *sim.Backend
		st   acl.Stream
		p    acl.DevPtr
		host []byte
		pin  acl.HostPin
	}
	var rigs [2]rig
	for i, opts := range [][]sim.Option{nil, {sim.WithTiming()}} {
		s := sim.New(opts...)
		defer s.Close()
		st, err := s.CreateStream(0)
		check(b, err)
		p, err := s.Malloc(0, 64, acl.MemMallocHugeFirst)
		check(b, err)
		host := make([]byte, 64)
		pin, err := s.HostRegister(host, acl.HostRegisterMapped)
		check(b, err)
		rigs[i] = rig{s, st, p, host, pin}
	}
	round := func(r rig) {
		for range 64 {
			check(b, r.s.MemcpyAsync(b.Context(), acl.Device(r.p), acl.Host(r.host, r.pin), 64, r.st))
		}
		check(b, r.s.SynchronizeStream(b.Context(), r.st, -1))
	}
	var off time.Duration
	b.ResetTimer()
	for range b.N {
		round(rigs[1])
		b.StopTimer()
		t := time.Now()
		round(rigs[0])
		off += time.Since(t)
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed())/float64(off), "x-off")
}

// TestTimingConcurrentUse runs the programs of TestConcurrentUse on one
// simulator with the timing model: many callers share its clock and links,
// under -race, and every program still gets its data right and returns.
func TestTimingConcurrentUse(t *testing.T) {
	b := newSim(t, sim.WithTiming(), sim.WithMemory(256<<20), sim.WithChip(sim.AtlasA3))
	const workers, rounds, n = 8, 20, 4096
	errs := make(chan error, workers)
	for w := range workers {
		go func() { errs <- program(t.Context(), b, int32(w%2), byte(w), rounds, n) }()
	}
	for range workers {
		require.NoError(t, <-errs)
	}
	require.NoError(t, b.SynchronizeDevice(t.Context(), 0, -1))
	require.Positive(t, b.ModelTime(), "their waits moved the clock")
}
