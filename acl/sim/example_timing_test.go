package sim_test

import (
	"context"
	"fmt"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
)

// A double-buffered pipeline on the timing model: chunks go up to the
// device on one stream and come back on another, so that the upload of a
// chunk overlaps the download of the one before, as the two directions of
// the host link allow. The modeled times are the same on any machine: the
// pipeline can be tuned on a laptop.
func ExampleWithTiming() {
	const chunks, size = 8, 1 << 20
	ctx := context.Background()

	// serial moves every chunk up and back on one stream.
	serial := func(b *sim.Backend, in, out acl.Buf, dev [2]acl.DevPtr) (start, end acl.Event) {
		s, _ := b.CreateStream(0)
		start, _ = b.CreateEvent(0)
		end, _ = b.CreateEvent(0)
		_ = b.RecordEvent(start, s)
		for n := range uint64(chunks) {
			_ = b.MemcpyAsync(ctx, acl.Device(dev[0]), acl.Host(in.Host[n*size:(n+1)*size], in.Pin), size, s)
			_ = b.MemcpyAsync(ctx, acl.Host(out.Host[n*size:(n+1)*size], out.Pin), acl.Device(dev[0]), size, s)
		}
		_ = b.RecordEvent(end, s)
		return start, end
	}

	// doubled uploads on "up" and downloads on "down", two device buffers,
	// events between the streams.
	doubled := func(b *sim.Backend, in, out acl.Buf, dev [2]acl.DevPtr) (start, end acl.Event) {
		up, _ := b.CreateStream(0)
		down, _ := b.CreateStream(0)
		var uploaded, downloaded [2]acl.Event
		for i := range 2 {
			uploaded[i], _ = b.CreateEvent(0)
			downloaded[i], _ = b.CreateEvent(0)
		}
		start, _ = b.CreateEvent(0)
		end, _ = b.CreateEvent(0)
		_ = b.RecordEvent(start, up)
		for n := range uint64(chunks) {
			i := n % 2
			if n >= 2 {
				_ = b.StreamWaitEvent(up, downloaded[i]) // dev[i] is free again
			}
			_ = b.MemcpyAsync(ctx, acl.Device(dev[i]), acl.Host(in.Host[n*size:(n+1)*size], in.Pin), size, up)
			_ = b.RecordEvent(uploaded[i], up)
			_ = b.StreamWaitEvent(down, uploaded[i])
			_ = b.MemcpyAsync(ctx, acl.Host(out.Host[n*size:(n+1)*size], out.Pin), acl.Device(dev[i]), size, down)
			_ = b.RecordEvent(downloaded[i], down)
		}
		_ = b.RecordEvent(end, down)
		return start, end
	}

	for _, c := range []struct {
		name string
		run  func(*sim.Backend, acl.Buf, acl.Buf, [2]acl.DevPtr) (acl.Event, acl.Event)
	}{{"one stream ", serial}, {"two streams", doubled}} {
		b := sim.New(sim.WithTiming()) // Atlas A2: 25 GB/s each way, 5 µs per launch
		in, out := make([]byte, chunks*size), make([]byte, chunks*size)
		inPin, _ := b.HostRegister(in, acl.HostRegisterMapped)
		outPin, _ := b.HostRegister(out, acl.HostRegisterMapped)
		var dev [2]acl.DevPtr
		for i := range dev {
			dev[i], _ = b.Malloc(0, size, acl.MemMallocHugeFirst)
		}
		start, end := c.run(b, acl.Host(in, inPin), acl.Host(out, outPin), dev)
		_ = b.SynchronizeEvent(ctx, end, -1)
		ms, _ := b.EventElapsedTime(start, end)
		fmt.Printf("%s  %.3f ms\n", c.name, ms)
		b.Close()
	}
	// Output:
	// one stream   0.751 ms
	// two streams  0.422 ms
}
