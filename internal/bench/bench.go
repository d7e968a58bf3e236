// Package bench measures what the sandbox costs: it times the same copies
// three ways in one run (through the sandbox from a guest, on the backend
// called directly, and as a Go copy, this machine's memmove) and reports
// bandwidth, latency per call and the ratios between them.
//
// The sandboxed copies are made by a small guest, built in Go (guest.go),
// whose export loops over aclrtMemcpy or aclrtMemcpyAsync, so that every
// measured call crosses the import boundary with all its checks. Before a
// point is timed its copy is made once and its result read back and
// compared, so that a broken path fails the run rather than reporting a
// speed.
//
// The package is internal: only the CLI's bench command (cmd/aclwasm) runs
// it. It exports what that command needs: [Run] with its [Config] and the
// [Report] of [Point]s and [Stat]s it returns (which the command prints,
// writes as JSON and plots); the directions and modes ([Kind], [Kinds],
// [Mode], [Modes]) that the command's flags name; [DefaultSizes] and
// [Size], the default sizes and their names; and [Needs], the guest pages
// and device memory a set of sizes takes, which the command turns into a
// policy.
package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"sync"
	"time"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
)

// Kind is a copy direction, as named on the command line.
type Kind string

// The directions the suite measures. H2D and D2H copy between guest
// (host) memory and device memory, D2D between two device allocations.
const (
	kindH2D Kind = "h2d"
	kindD2H Kind = "d2h"
	kindD2D Kind = "d2d"
)

// Mode is the API a copy goes through.
type Mode string

// The modes the suite measures, as the command line names them: sync is
// aclrtMemcpy; async is aclrtMemcpyAsync on a stream of its own,
// synchronized once after the calls of a timed run. Host memory is the
// guest's, not registered, so an asynchronous H2D or D2H copy runs before
// its call returns (as natively). 2d is aclrtMemcpy2d of the same bytes as
// rows (see rows), and batch aclrtMemcpyBatch of the same rows as entries;
// both are H2D and D2H only, as natively, so the suite leaves out their
// D2D points.
const (
	modeSync  Mode = "sync"
	modeAsync Mode = "async"
	mode2D    Mode = "2d"
	modeBatch Mode = "batch"
)

// maxRows bounds the rows of a 2D copy and the entries of a batch (the
// guest header holds arrays of that many entries).
const maxRows = 128

// rows returns the shape of a 2D or batch copy of n bytes: h rows of w
// bytes, pitch w (dense, so that it moves the same bytes as a plain copy),
// 16 rows or as many as divide n, more while a row is wider than
// aclrtMemcpy2d allows (acl.Memcpy2DMaxWidth), up to maxRows.
func rows(n uint64) (w, h uint64) {
	for h = 16; h > 1; h /= 2 {
		if n%h == 0 {
			break
		}
	}
	for n/h > acl.Memcpy2DMaxWidth && h < maxRows && n%(2*h) == 0 {
		h *= 2
	}
	return n / h, h
}

// Kinds and Modes list the values the suite knows, in table order.
var (
	Kinds = []Kind{kindH2D, kindD2H, kindD2D}
	Modes = []Mode{modeSync, modeAsync, mode2D, modeBatch}
)

// DefaultSizes are the sizes of the standard suite: 64 B to 256 MiB by
// powers of 4.
func DefaultSizes() []uint64 {
	var s []uint64
	for n := uint64(64); n <= 256<<20; n *= 4 {
		s = append(s, n)
	}
	return s
}

// Config is what Run measures.
type Config struct {
	Sizes []uint64
	Kinds []Kind
	Modes []Mode
	// Sessions is how many sandbox sessions copy at once (1 if 0); the
	// sandbox bandwidth is theirs summed.
	Sessions int
	// TimePerPoint is how long each path of each point is timed for
	// (100 ms if 0); a point's calls are repeated until it is reached.
	TimePerPoint time.Duration
	// Policy is the sessions' policy. Its MemoryPages and DeviceMemory
	// must hold the largest size (see Needs).
	Policy host.Policy
}

// Needs returns the guest memory pages and the device memory per session
// a suite with sizes up to max needs.
func Needs(max uint64) (pages uint32, deviceMemory uint64) {
	return uint32(guestPages(max)), 2 * max
}

// Stat is one path's measurement of one point.
type Stat struct {
	Calls   int64         `json:"calls"`      // copies made, over all sessions
	Elapsed time.Duration `json:"elapsed_ns"` // wall time of the timed run
	// BytesPerSec is the bytes copied per second of wall time.
	BytesPerSec float64 `json:"bytes_per_sec"`
	// NsPerCall is the wall time of one call, as one session sees it.
	NsPerCall float64 `json:"ns_per_call"`
}

// Point is one row of the report: one size, direction and mode.
type Point struct {
	Size     uint64 `json:"size"`
	Kind     Kind   `json:"kind"`
	Mode     Mode   `json:"mode"`
	Sessions int    `json:"sessions"`
	Sandbox  Stat   `json:"sandbox"`
	Direct   Stat   `json:"direct"`
	Memmove  Stat   `json:"memmove"`
	// XMemmove and XDirect are the sandbox's bandwidth over memmove's and
	// over the direct backend's: 1 means the same speed.
	XMemmove float64 `json:"x_memmove"`
	XDirect  float64 `json:"x_direct"`
}

// Report is a run's result.
type Report struct {
	Backend      string        `json:"backend"`
	TimePerPoint time.Duration `json:"time_per_point_ns"`
	Points       []Point       `json:"points"`
}

// Run measures the suite on rt, whose backend is b (the one given to
// [host.WithBackend]), and returns the report. The sessions and everything
// they and the direct measurements held are released before it returns.
func Run(ctx context.Context, rt *host.Runtime, b acl.Backend, cfg Config) (*Report, error) {
	if len(cfg.Sizes) == 0 || len(cfg.Kinds) == 0 || len(cfg.Modes) == 0 {
		return nil, errors.New("bench: no sizes, kinds or modes to measure")
	}
	for _, k := range cfg.Kinds {
		if _, err := aclKind(k); err != nil {
			return nil, err
		}
	}
	for _, m := range cfg.Modes {
		if m != modeSync && m != modeAsync && m != mode2D && m != modeBatch {
			return nil, fmt.Errorf("bench: mode %q: want sync, async, 2d or batch", m)
		}
	}
	if cfg.Sessions == 0 {
		cfg.Sessions = 1
	}
	if cfg.Sessions < 0 {
		return nil, fmt.Errorf("bench: %d sessions", cfg.Sessions)
	}
	if cfg.TimePerPoint == 0 {
		cfg.TimePerPoint = 100 * time.Millisecond
	}
	var max uint64
	for _, n := range cfg.Sizes {
		if n == 0 || n > 1<<31 {
			return nil, fmt.Errorf("bench: size %d: want 1 byte to 2 GiB", n)
		}
		max = maxu(max, n)
	}
	for _, m := range cfg.Modes {
		if m != mode2D && m != modeBatch {
			continue
		}
		for _, n := range cfg.Sizes {
			if w, h := rows(n); w > acl.Memcpy2DMaxWidth {
				return nil, fmt.Errorf("bench: size %d: %s rows of %d bytes (%d rows) exceed the 2D width limit %d", n, m, w, h, acl.Memcpy2DMaxWidth)
			}
		}
	}
	pages, devMem := Needs(max)
	if cfg.Policy.MemoryPages != 0 && cfg.Policy.MemoryPages < pages {
		return nil, fmt.Errorf("bench: sizes up to %d bytes need %d guest memory pages, the policy allows %d", max, pages, cfg.Policy.MemoryPages)
	}
	if cfg.Policy.DeviceMemory != 0 && cfg.Policy.DeviceMemory < devMem {
		return nil, fmt.Errorf("bench: sizes up to %d bytes need %d bytes of device memory, the policy allows %d", max, devMem, cfg.Policy.DeviceMemory)
	}
	wasm, err := guestModule(uint64(pages))
	if err != nil {
		return nil, err
	}
	pl, err := rt.Load(ctx, wasm, cfg.Policy)
	if err != nil {
		return nil, fmt.Errorf("bench: loading the guest: %w", err)
	}
	defer pl.Close(ctx)
	ss := make([]*session, 0, cfg.Sessions)
	defer func() {
		for _, s := range ss {
			s.close(ctx)
		}
	}()
	for range cfg.Sessions {
		s, err := openSession(ctx, pl, max)
		if err != nil {
			return nil, err
		}
		ss = append(ss, s)
	}
	dev := int32(0)
	if len(cfg.Policy.Devices) > 0 {
		dev = cfg.Policy.Devices[0]
	}
	d, err := openDirect(b, dev, max)
	if err != nil {
		return nil, err
	}
	defer d.close(ctx)

	rep := &Report{Backend: b.Name(), TimePerPoint: cfg.TimePerPoint}
	src, dst := make([]byte, max), make([]byte, max)
	for _, n := range cfg.Sizes {
		fill(src[:n], n)
		mm := measure(ctx, cfg.TimePerPoint, true, func(iters int) error {
			for range iters {
				copy(dst[:n], src[:n])
			}
			return nil
		})
		if !bytes.Equal(dst[:n], src[:n]) {
			return nil, fmt.Errorf("bench: memmove of %d bytes: copy differs", n)
		}
		mmStat := stat(mm, n, 1)
		for _, k := range cfg.Kinds {
			for _, m := range cfg.Modes {
				if (m == mode2D || m == modeBatch) && k == kindD2D {
					continue // aclrtMemcpy2d and aclrtMemcpyBatch copy H2D and D2H only
				}
				p := Point{Size: n, Kind: k, Mode: m, Sessions: len(ss), Memmove: mmStat}
				if err := ss[0].verify(ctx, k, m, n); err != nil {
					return nil, err
				}
				r := measure(ctx, cfg.TimePerPoint, false, func(iters int) error { return ss[0].loop(ctx, k, m, n, iters) })
				if r.err == nil && len(ss) > 1 {
					r = concurrent(ctx, ss, k, m, n, r.iters)
				}
				if r.err != nil {
					return nil, r.err
				}
				p.Sandbox = stat(r, n, len(ss))
				if err := d.verify(ctx, k, m, n); err != nil {
					return nil, err
				}
				r = measure(ctx, cfg.TimePerPoint, false, func(iters int) error { return d.loop(ctx, k, m, n, iters) })
				if r.err != nil {
					return nil, r.err
				}
				p.Direct = stat(r, n, 1)
				p.XMemmove = ratio(p.Sandbox.BytesPerSec, p.Memmove.BytesPerSec)
				p.XDirect = ratio(p.Sandbox.BytesPerSec, p.Direct.BytesPerSec)
				rep.Points = append(rep.Points, p)
			}
		}
	}
	return rep, nil
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func maxu(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}

// run is one timed run: iters calls per session in elapsed wall time.
type run struct {
	iters   int
	elapsed time.Duration
	err     error
}

// measure times fn(iters) with growing iters, as testing.B does, until one
// run lasts at least d, and returns that run. With warm, a first call is
// not timed: it takes the page faults of memory not touched yet, which
// under load can cost more than d and would be reported as the copy's
// speed. (The sandbox and direct paths are warm already: their verify
// call touched the same memory.)
func measure(ctx context.Context, d time.Duration, warm bool, fn func(iters int) error) run {
	if warm {
		if err := fn(1); err != nil {
			return run{err: err}
		}
	}
	iters := 1
	for {
		if err := ctx.Err(); err != nil {
			return run{err: err}
		}
		t0 := time.Now()
		err := fn(iters)
		el := time.Since(t0)
		if err != nil || el >= d || iters >= 1<<30 {
			return run{iters, el, err}
		}
		// Aim 20% past d, growing at most 100-fold and at least by one.
		next := int64(float64(iters) * 1.2 * float64(d) / float64(max(el, 1)))
		next = min(next, int64(iters)*100, 1<<30)
		iters = int(max(next, int64(iters)+1))
	}
}

// concurrent runs iters calls on every session at once.
func concurrent(ctx context.Context, ss []*session, k Kind, m Mode, n uint64, iters int) run {
	errs := make([]error, len(ss))
	var wg sync.WaitGroup
	t0 := time.Now()
	for i, s := range ss {
		wg.Go(func() { errs[i] = s.loop(ctx, k, m, n, iters) })
	}
	wg.Wait()
	return run{iters, time.Since(t0), errors.Join(errs...)}
}

func stat(r run, n uint64, sessions int) Stat {
	calls := int64(r.iters) * int64(sessions)
	sec := r.elapsed.Seconds()
	return Stat{
		Calls: calls, Elapsed: r.elapsed,
		BytesPerSec: float64(calls) * float64(n) / sec,
		NsPerCall:   float64(r.elapsed.Nanoseconds()) / float64(r.iters),
	}
}

// fill writes a pattern that differs with seed and with the offset: a
// pseudo-random block of a prime length (so that a copy off by any number
// of pages does not match), repeated.
func fill(b []byte, seed uint64) {
	const block = 65521
	x := uint32(seed*2654435761 + 1)
	n := min(len(b), block)
	for i := range n {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	for i := n; i < len(b); i *= 2 {
		copy(b[i:], b[:i])
	}
}

// check compares what a copy left with what it was given, by checksum.
func check(what string, k Kind, m Mode, n uint64, got, want []byte) error {
	if g, w := crc32.ChecksumIEEE(got), crc32.ChecksumIEEE(want); g != w || len(got) != len(want) {
		return fmt.Errorf("bench: %s %s %s of %d bytes: read back crc32 %08x, want %08x", what, k, m, n, g, w)
	}
	return nil
}
