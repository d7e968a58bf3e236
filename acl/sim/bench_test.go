package sim_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
)

// BenchmarkCopy64MiB measures 64 MiB copies in each direction against a
// plain copy() between the same bytes, timed in the same iterations
// (interleaved, so that both see the same machine). x-copy is the
// simulator's throughput over copy()'s: 1 means no overhead.
func BenchmarkCopy64MiB(b *testing.B) {
	const n = 64 << 20
	for _, dir := range []string{"H2D", "D2H", "D2D"} {
		for _, async := range []bool{false, true} {
			name := dir
			if async {
				name += "/async"
			}
			b.Run(name, func(b *testing.B) {
				s := sim.New(sim.WithMemory(1 << 30))
				defer s.Close()
				st, err := s.CreateStream(0)
				check(b, err)
				x, err := s.Malloc(0, n, acl.MemMallocHugeFirst)
				check(b, err)
				y, err := s.Malloc(0, n, acl.MemMallocHugeFirst)
				check(b, err)
				host := make([]byte, n)
				pin, err := s.HostRegister(host, acl.HostRegisterMapped)
				check(b, err)
				// Fault every page in before timing anything.
				for _, p := range []acl.DevPtr{x, y} {
					check(b, s.Memset(b.Context(), acl.Device(p), 1, n))
				}
				clear(host)

				dst, src := acl.Device(x), acl.Host(host, pin)
				rawDst, rawSrc := sim.Bytes(s, x, n), host
				switch dir {
				case "D2H":
					dst, src = acl.Host(host, pin), acl.Device(x)
					rawDst, rawSrc = host, sim.Bytes(s, x, n)
				case "D2D":
					dst, src = acl.Device(y), acl.Device(x)
					rawDst, rawSrc = sim.Bytes(s, y, n), sim.Bytes(s, x, n)
				}
				run := func() {
					if !async {
						check(b, s.Memcpy(b.Context(), dst, src, n))
						return
					}
					check(b, s.MemcpyAsync(context.Background(), dst, src, n, st))
					check(b, s.SynchronizeStream(context.Background(), st, -1))
				}
				var raw time.Duration
				b.SetBytes(n)
				b.ResetTimer()
				for range b.N {
					run()
					b.StopTimer()
					t := time.Now()
					copy(rawDst, rawSrc)
					raw += time.Since(t)
					b.StartTimer()
				}
				b.ReportMetric(float64(raw)/float64(b.Elapsed()), "x-copy")
			})
		}
	}
}

// BenchmarkSmall measures the fixed cost of a call: a 64-byte synchronous
// copy, a 64-byte asynchronous copy followed by a synchronize, and (queued)
// a 64-byte asynchronous copy alone, synchronized every 1024 copies.
func BenchmarkSmall(b *testing.B) {
	s := sim.New()
	defer s.Close()
	st, err := s.CreateStream(0)
	check(b, err)
	p, err := s.Malloc(0, 64, acl.MemMallocHugeFirst)
	check(b, err)
	host := make([]byte, 64)
	pin, err := s.HostRegister(host, acl.HostRegisterMapped)
	check(b, err)
	ctx := context.Background()

	b.Run("Memcpy", func(b *testing.B) {
		b.SetBytes(64)
		for range b.N {
			check(b, s.Memcpy(ctx, acl.Device(p), acl.Host(host, 0), 64))
		}
	})
	b.Run("MemcpyAsync+Sync", func(b *testing.B) {
		b.SetBytes(64)
		for range b.N {
			check(b, s.MemcpyAsync(ctx, acl.Device(p), acl.Host(host, pin), 64, st))
			check(b, s.SynchronizeStream(ctx, st, -1))
		}
	})
	b.Run("MemcpyAsync/queued", func(b *testing.B) {
		b.SetBytes(64)
		for i := range b.N {
			check(b, s.MemcpyAsync(ctx, acl.Device(p), acl.Host(host, pin), 64, st))
			if i%1024 == 1023 {
				check(b, s.SynchronizeStream(ctx, st, -1))
			}
		}
		check(b, s.SynchronizeStream(ctx, st, -1))
	})
	b.Run("MemcpyAsync/pageable", func(b *testing.B) {
		b.SetBytes(64)
		for range b.N {
			check(b, s.MemcpyAsync(ctx, acl.Device(p), acl.Host(host, 0), 64, st))
		}
	})
}

// BenchmarkBatch measures a 1024-entry host-to-device batch against a loop
// of 1024 synchronous copies of the same entries, timed in the same
// iterations. x-loop is the loop's time over the batch's.
func BenchmarkBatch(b *testing.B) {
	for _, size := range []int{64, 4096, 64 << 10} {
		b.Run(byteSize(size), func(b *testing.B) {
			const entries = 1024
			s := sim.New(sim.WithMemory(1 << 30))
			defer s.Close()
			p, err := s.Malloc(0, uint64(entries*size), acl.MemMallocHugeFirst)
			check(b, err)
			check(b, s.Memset(b.Context(), acl.Device(p), 0, uint64(entries*size)))
			host := make([]byte, entries*size)
			pin, err := s.HostRegister(host, acl.HostRegisterMapped)
			check(b, err)
			cs := make([]acl.Copy, entries)
			for i := range cs {
				cs[i] = acl.Copy{
					Dst: acl.Device(p + acl.DevPtr(i*size)),
					Src: acl.Host(host[i*size:(i+1)*size], pin),
					N:   uint64(size),
				}
			}
			var loop time.Duration
			b.SetBytes(int64(entries * size))
			b.ResetTimer()
			for range b.N {
				check(b, s.MemcpyBatch(b.Context(), cs))
				b.StopTimer()
				t := time.Now()
				for _, c := range cs {
					check(b, s.Memcpy(b.Context(), c.Dst, c.Src, c.N))
				}
				loop += time.Since(t)
				b.StartTimer()
			}
			b.ReportMetric(float64(loop)/float64(b.Elapsed()), "x-loop")
		})
	}
}

func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return strconv.Itoa(n>>20) + "MiB"
	case n >= 1<<10:
		return strconv.Itoa(n>>10) + "KiB"
	}
	return strconv.Itoa(n) + "B"
}

func check(b testing.TB, err error) {
	if err != nil {
		b.Helper()
		b.Fatal(err)
	}
}
