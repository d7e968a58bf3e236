package tests

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// TestSoak runs SOAK_SESSIONS workers (default 256, 64 under the race
// detector) for SOAK_DURATION (default 3s; `make soak` runs minutes), each starting one session after
// another on one runtime: well-behaved plugins whose data is checked by
// checksum, next to hostile ones that spin, trap, exit in a start section,
// block, and flood queues and batches. At the end, with every session
// closed, the backend's accounting, the goroutines and the host's memory
// (RSS, after a GC) must be back near where they started.
func TestSoak(t *testing.T) {
	dur := envDuration(t, "SOAK_DURATION", 3*time.Second)
	workers := 256
	if testsupport.Race {
		workers = 64
	}
	workers = envInt(t, "SOAK_SESSIONS", workers)
	sb := sharedSandbox(t)
	for _, m := range soakModes {
		m.pl = m.load(t, sb)
	}
	ctx := context.Background()
	// One round of every mode first: compiled code, caches and pools are
	// part of the baseline, not growth.
	for i, m := range soakModes {
		require.NoError(t, m.check(ctx, m.pl, uint32(8*i+1)), m.name)
	}
	base := sb.freeMem(t)
	rss0 := settledRSS(t)
	ignore := goleak.IgnoreCurrent()
	g0 := runtime.NumGoroutine()

	var (
		counts   = make([]atomic.Int64, len(soakModes))
		failures = make(chan error, workers)
		wg       sync.WaitGroup
		deadline = time.Now().Add(dur)
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; time.Now().Before(deadline); i += workers {
				k := i % len(soakModes)
				m := soakModes[k]
				err := m.check(ctx, m.pl, uint32(i))
				if errors.Is(err, errNotNow) {
					continue
				}
				if err != nil {
					failures <- fmt.Errorf("worker %d, session %d, %s: %w", w, i, m.name, err)
					return
				}
				counts[k].Add(1)
			}
		}()
	}
	wg.Wait()
	close(failures)
	for err := range failures {
		t.Error(err)
	}
	elapsed := time.Since(deadline.Add(-dur))

	require.Equal(t, base, sb.freeMem(t), "the backend's accounting is back at its baseline")
	goleak.VerifyNone(t, ignore)
	rss1 := settledRSS(t)
	var total int64
	var per []string
	for k, m := range soakModes {
		n := counts[k].Load()
		total += n
		per = append(per, fmt.Sprintf("%s=%d", m.name, n))
	}
	t.Logf("soak: %d sessions by %d workers in %v (asked %v); RSS %d MiB before, %d MiB after; goroutines %d before, %d after",
		total, workers, elapsed.Round(time.Millisecond), dur, rss0>>20, rss1>>20, g0, runtime.NumGoroutine())
	t.Logf("soak: sessions per mode: %s", strings.Join(per, " "))
	// Generous: the heap of 256 concurrent sessions is gone after a GC;
	// what stays is the allocator's and the engine's slack.
	require.Less(t, rss1, rss0+max(rss0, 512<<20), "host RSS grew from %d to %d bytes", rss0, rss1)
	require.Positive(t, total)
}

// soakMode is one kind of session of the soak.
type soakMode struct {
	name string
	load func(t *testing.T, sb *sandbox) *host.Plugin
	// check runs one session and says what was wrong with it.
	check func(ctx context.Context, pl *host.Plugin, seed uint32) error
	pl    *host.Plugin // what load returned
}

// quotaPolicy is hostilePolicy with a queue of one: the quota mode queues
// 64-byte copies until one is refused, and a stream worker that keeps up
// with them (it may, they are tiny) makes that take up to 100000 calls,
// over a minute with 256 busy sessions on two cores.
var quotaPolicy = func() host.Policy {
	p := hostilePolicy
	p.MaxQueued = 1
	return p
}()

// soakTimeout stops the spinning and blocking sessions: short, and nothing
// measures it.
const soakTimeout = 300 * time.Millisecond

// hostileMode is the hostile sample in mode, under p, ending as want says.
func hostileMode(mode string, p host.Policy, want func(o outcome) error) *soakMode {
	return &soakMode{
		name: "hostile-" + mode,
		load: func(t *testing.T, sb *sandbox) *host.Plugin { return sb.load(t, "hostile", p) },
		check: func(ctx context.Context, pl *host.Plugin, _ uint32) error {
			return want(run(ctx, pl, "hostile", mode))
		},
	}
}

var contained = regexp.MustCompile(`(?m)^hostile \S+: contained \(`)

// wantContained: the mode ended by itself, every attempt refused.
func wantContained(o outcome) error {
	if o.err != nil || o.res.ExitCode != 0 || !contained.MatchString(o.stdout) {
		return fmt.Errorf("not contained: %v", o)
	}
	return nil
}

// wantErr: the run ended with target (ErrTimeout, ErrTrap).
func wantErr(target error) func(o outcome) error {
	return func(o outcome) error {
		if !errors.Is(o.err, target) {
			return fmt.Errorf("want %v: %v", target, o)
		}
		return nil
	}
}

// watMode is a WAT command module under p, ending as want says.
func watMode(name, wat string, p host.Policy, cfg func() host.Config, want func(res host.Result, err error) error) *soakMode {
	return &soakMode{
		name: name,
		load: func(t *testing.T, sb *sandbox) *host.Plugin { return loadWAT(t, sb, wat, p) },
		check: func(ctx context.Context, pl *host.Plugin, _ uint32) error {
			c := cfg()
			res, err := pl.Run(ctx, c)
			if cl, ok := c.Stdin.(io.Closer); ok {
				cl.Close()
			}
			return want(res, err)
		},
	}
}

func noConfig() host.Config { return host.Config{} }

// soakModes is the table of every kind of session; good-wat stands twice,
// so that well-behaved sessions run among the hostile ones all along.
var soakModes = []*soakMode{
	{name: "good-wat", load: loadGood, check: checkGoodWAT},
	{name: "good-roundtrip", load: func(t *testing.T, sb *sandbox) *host.Plugin { return sb.plugin(t, "roundtrip") }, check: checkRoundtrip},
	hostileMode("forged-addr", hostilePolicy, wantContained),
	hostileMode("stale-handle", hostilePolicy, wantContained),
	hostileMode("desc-tamper", hostilePolicy, wantContained),
	hostileMode("quota", quotaPolicy, wantContained), // every quota, a queue to its limit
	hostileMode("spin", host.Policy{Timeout: soakTimeout}, wantErr(host.ErrTimeout)),
	hostileMode("hang", host.Policy{Timeout: soakTimeout}, wantErr(host.ErrTimeout)),
	hostileMode("trap", host.Policy{}, wantErr(host.ErrTrap)),
	{name: "good-wat", load: loadGood, check: checkGoodWAT},
	watMode("start-exit", startExitWAT, host.Policy{}, noConfig, func(res host.Result, err error) error {
		var ee *host.ExitError
		if (err == nil && res.ExitCode == 3) || (errors.As(err, &ee) && ee.Code == 3) {
			return nil
		}
		return fmt.Errorf("want exit code 3: %d, %v", res.ExitCode, err)
	}),
	watMode("stdin-block", stdinBlockWAT, host.Policy{Timeout: soakTimeout}, func() host.Config {
		r, _ := io.Pipe() // never written: fd_read blocks until the timeout
		return host.Config{Stdin: r}
	}, func(_ host.Result, err error) error {
		if !errors.Is(err, host.ErrTimeout) {
			return fmt.Errorf("want a timeout: %v", err)
		}
		return nil
	}),
	watMode("flood-queue", floodWAT, host.Policy{MaxQueued: 64, MaxBatchEntries: 4096}, noConfig, func(res host.Result, err error) error {
		if err != nil || res.ExitCode != 0 {
			return fmt.Errorf("want exit code 0 (both floods refused with 207012): %d, %v", res.ExitCode, err)
		}
		return nil
	}),
	watMode("flood-batch", batchLoopWAT, host.Policy{Timeout: soakTimeout}, noConfig, func(_ host.Result, err error) error {
		if !errors.Is(err, host.ErrTimeout) {
			return fmt.Errorf("want a timeout: %v", err)
		}
		return nil
	}),
}

func loadGood(t *testing.T, sb *sandbox) *host.Plugin { return loadWAT(t, sb, goodWAT, host.Policy{}) }

// loadWAT compiles a WAT module with policy p; the test closes it.
func loadWAT(t *testing.T, sb *sandbox, wat string, p host.Policy) *host.Plugin {
	t.Helper()
	pl, err := sb.rt.Load(context.Background(), testsupport.WAT(t, wat), testCompile(p))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pl.Close(context.Background())) })
	return pl
}

// checkGoodWAT instantiates the good reactor and has it move two patterns
// host to device, device to device and back; each checksum must be the
// pattern's.
func checkGoodWAT(ctx context.Context, pl *host.Plugin, seed uint32) error {
	inst, err := pl.Instantiate(ctx, host.Config{})
	if err != nil {
		return err
	}
	defer inst.Close(ctx)
	for k := range uint32(2) {
		s := seed*2 + k
		n := 4096 * (1 + s%48)
		res, err := inst.Call(ctx, "roundtrip", uint64(s), uint64(n))
		if err != nil {
			return fmt.Errorf("roundtrip(%d, %d): %w", s, n, err)
		}
		if want := fnv1a64(pattern(s, int(n))); res[0] != want {
			return fmt.Errorf("roundtrip(%d, %d): checksum %#x, want %#x", s, n, res[0], want)
		}
	}
	return inst.Close(ctx)
}

// errNotNow is what a mode's check returns when it skips its turn.
var errNotNow = errors.New("not this time")

// checkRoundtrip runs the roundtrip sample (a Go plugin) every eighth time
// its turn comes: it is big, and the race detector makes it slow.
func checkRoundtrip(ctx context.Context, pl *host.Plugin, seed uint32) error {
	if seed%8 != 1 {
		return errNotNow
	}
	o := run(ctx, pl, "roundtrip", "-size", "65536", "-seed", strconv.FormatUint(uint64(seed), 10))
	if o.err != nil || o.res.ExitCode != 0 || lastLine(o.stdout) != "roundtrip: OK" {
		return fmt.Errorf("%v", o)
	}
	if want := fmt.Sprintf("received  fnv1a64 %#016x", fnv1a64(pattern(seed, 65536))); !strings.Contains(o.stdout, want) {
		return fmt.Errorf("no %q: %v", want, o)
	}
	return nil
}

// settledRSS is the process's resident memory after a GC that returned
// what it could to the system.
func settledRSS(t *testing.T) uint64 {
	t.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	b, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^VmRSS:\s+(\d+) kB`).FindSubmatch(b)
	require.NotNil(t, m, "no VmRSS in /proc/self/status")
	kb, err := strconv.ParseUint(string(m[1]), 10, 64)
	require.NoError(t, err)
	return kb << 10
}

func envDuration(t *testing.T, name string, def time.Duration) time.Duration {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	require.NoError(t, err, name)
	return d
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, name)
	require.Positive(t, n, name)
	return n
}

// The acl imports the soak's WAT modules use.
const soakImports = `
  (import "acl" "aclrtSetDevice" (func $setDevice (param i32) (result i32)))
  (import "acl" "aclrtMalloc" (func $malloc (param i32 i64 i32) (result i32)))
  (import "acl" "aclrtFree" (func $free (param i64) (result i32)))
  (import "acl" "aclrtMemcpy" (func $memcpy (param i64 i64 i64 i64 i32) (result i32)))
  (import "acl" "aclrtMemcpyAsync" (func $memcpyAsync (param i64 i64 i64 i64 i32 i32) (result i32)))
  (import "acl" "aclrtMemcpyBatch" (func $batch (param i32 i32 i32 i32 i64 i32 i32 i64 i32) (result i32)))
  (import "acl" "aclrtMemcpyBatchAsync" (func $batchAsync (param i32 i32 i32 i32 i64 i32 i32 i64 i32 i32) (result i32)))
  (import "acl" "aclrtHostRegister" (func $register (param i64 i64 i32 i32) (result i32)))
  (import "acl" "aclrtHostUnregister" (func $unregister (param i64) (result i32)))
  (import "acl" "aclrtCreateStream" (func $createStream (param i32) (result i32)))
  (import "acl" "aclrtDestroyStream" (func $destroyStream (param i32) (result i32)))
  (import "acl" "aclrtSynchronizeStream" (func $sync (param i32) (result i32)))
  (import "acl" "aclrtCreateEvent" (func $createEvent (param i32) (result i32)))
  (import "acl" "aclrtStreamWaitEvent" (func $waitEvent (param i32 i32) (result i32)))
  (import "acl" "aclrtRecordEvent" (func $recordEvent (param i32 i32) (result i32)))
  (import "acl" "aclrtResetEvent" (func $resetEvent (param i32 i32) (result i32)))
  (func $check (param i32) (if (local.get 0) (then unreachable)))
`

// goodWAT is a well-behaved reactor: roundtrip(seed, n) writes the samples'
// test pattern at 0x10000, copies it to the device from registered memory
// on a stream, device to device, and back to 0x40000 on the stream, then
// releases everything and returns the fnv1a64 of what came back. Any
// failed call traps.
const goodWAT = `(module` + soakImports + `
  (memory (export "memory") 8)
  (func (export "roundtrip") (param $seed i32) (param $n i32) (result i64)
    (local $i i32) (local $a i64) (local $b i64) (local $s i32) (local $h i64) (local $n64 i64)
    (local.set $n64 (i64.extend_i32_u (local.get $n)))
    (loop $fill
      (i32.store8 (i32.add (i32.const 0x10000) (local.get $i))
        (i32.shr_u (i32.mul (i32.xor (local.get $i) (local.get $seed)) (i32.const 2654435761)) (i32.const 24)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $fill (i32.lt_u (local.get $i) (local.get $n))))
    (call $check (call $setDevice (i32.const 0)))
    (call $check (call $malloc (i32.const 0x100) (local.get $n64) (i32.const 0)))
    (local.set $a (i64.load (i32.const 0x100)))
    (call $check (call $malloc (i32.const 0x100) (local.get $n64) (i32.const 0)))
    (local.set $b (i64.load (i32.const 0x100)))
    (call $check (call $register (i64.const 0x10000) (i64.const 0x60000) (i32.const 0) (i32.const 0x108)))
    (call $check (call $createStream (i32.const 0x110)))
    (local.set $s (i32.load (i32.const 0x110)))
    (call $check (call $memcpyAsync (local.get $a) (local.get $n64) (i64.const 0x10000) (local.get $n64) (i32.const 1) (local.get $s)))
    (call $check (call $sync (local.get $s)))
    (call $check (call $memcpy (local.get $b) (local.get $n64) (local.get $a) (local.get $n64) (i32.const 3)))
    (call $check (call $memcpyAsync (i64.const 0x40000) (local.get $n64) (local.get $b) (local.get $n64) (i32.const 2) (local.get $s)))
    (call $check (call $sync (local.get $s)))
    (call $check (call $destroyStream (local.get $s)))
    (call $check (call $free (local.get $a)))
    (call $check (call $free (local.get $b)))
    (call $check (call $unregister (i64.const 0x10000)))
    (local.set $h (i64.const 0xcbf29ce484222325))
    (local.set $i (i32.const 0))
    (loop $sum
      (local.set $h (i64.mul (i64.xor (local.get $h) (i64.load8_u (i32.add (i32.const 0x40000) (local.get $i)))) (i64.const 0x100000001b3)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $sum (i32.lt_u (local.get $i) (local.get $n))))
    (local.get $h)))
`

// startExitWAT queues copies of registered memory from its start section,
// then exits with 3 there, before _start.
const startExitWAT = `(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))` + soakImports + `
  (memory (export "memory") 4)
  (func $init (local $i i32)
    (call $check (call $setDevice (i32.const 0)))
    (call $check (call $malloc (i32.const 16) (i64.const 0x20000) (i32.const 0)))
    (call $check (call $register (i64.const 0x10000) (i64.const 0x20000) (i32.const 0) (i32.const 32)))
    (call $check (call $createStream (i32.const 40)))
    (loop $l
      (call $check (call $memcpyAsync (i64.load (i32.const 16)) (i64.const 0x20000) (i64.const 0x10000) (i64.const 0x20000) (i32.const 1) (i32.load (i32.const 40))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 16))))
    (call $exit (i32.const 3)))
  (start $init)
  (func (export "_start")))
`

// stdinBlockWAT reads stdin, which never delivers.
const stdinBlockWAT = `(module
  (import "wasi_snapshot_preview1" "fd_read" (func $read (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "_start")
    (i32.store (i32.const 16) (i32.const 1024))
    (i32.store (i32.const 20) (i32.const 64))
    (drop (call $read (i32.const 0) (i32.const 16) (i32.const 1) (i32.const 32)))))
`

// floodWAT makes two streams wait for the next record of an event it
// recorded and reset (a wait for an event never recorded is refused, as
// natively), a record that never comes, floods
// one with 1 MiB copies until the queue limit refuses one (207012), the
// other with asynchronous batches until the batch entry limit does, and
// exits 0 with all that queued: the session's release destroys the event,
// which lets the streams drain. Exit code 1 or 2: a flood was never
// refused.
const floodWAT = `(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))` + soakImports + `
  (memory (export "memory") 40)
  (func (export "_start") (local $i i32) (local $r i32) (local $dev i64) (local $s i32) (local $e i32)
    (call $check (call $setDevice (i32.const 0)))
    (call $check (call $malloc (i32.const 16) (i64.const 0x100000) (i32.const 0)))
    (local.set $dev (i64.load (i32.const 16)))
    (call $check (call $register (i64.const 0x100000) (i64.const 0x100000) (i32.const 0) (i32.const 32)))
    (call $check (call $createEvent (i32.const 44)))
    (local.set $e (i32.load (i32.const 44)))
    (call $check (call $recordEvent (local.get $e) (i32.const 0)))
    (call $check (call $resetEvent (local.get $e) (i32.const 0)))
    (call $check (call $sync (i32.const 0)))
    (call $check (call $createStream (i32.const 40)))
    (local.set $s (i32.load (i32.const 40)))
    (call $check (call $waitEvent (local.get $s) (local.get $e)))
    (loop $q
      (local.set $r (call $memcpyAsync (local.get $dev) (i64.const 0x100000) (i64.const 0x100000) (i64.const 0x100000) (i32.const 1) (local.get $s)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $q (i32.and (i32.eqz (local.get $r)) (i32.lt_u (local.get $i) (i32.const 10000)))))
    (if (i32.ne (local.get $r) (i32.const 207012)) (then (call $exit (i32.const 1))))
    (call $check (call $createStream (i32.const 40)))
    (local.set $s (i32.load (i32.const 40)))
    (call $check (call $waitEvent (local.get $s) (local.get $e)))
    ;; a batch of 1024 entries of 1 KiB, registered guest memory to the
    ;; device: dsts at 0x10000, destMaxs and sizes at 0x12000, srcs at 0x14000
    (local.set $i (i32.const 0))
    (loop $fill
      (i64.store (i32.add (i32.const 0x10000) (i32.shl (local.get $i) (i32.const 3))) (i64.add (local.get $dev) (i64.extend_i32_u (i32.shl (local.get $i) (i32.const 10)))))
      (i64.store (i32.add (i32.const 0x12000) (i32.shl (local.get $i) (i32.const 3))) (i64.const 1024))
      (i64.store (i32.add (i32.const 0x14000) (i32.shl (local.get $i) (i32.const 3))) (i64.add (i64.const 0x100000) (i64.extend_i32_u (i32.shl (local.get $i) (i32.const 10)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $fill (i32.lt_u (local.get $i) (i32.const 1024))))
    ;; attribute: device 0 (type 1) <- registered host memory (type 0), at
    ;; 0x16000; index 0 at 0x16020
    (i32.store (i32.const 0x16000) (i32.const 0)) (i32.store (i32.const 0x16004) (i32.const 1))
    (local.set $i (i32.const 0))
    (loop $b
      (local.set $r (call $batchAsync (i32.const 0x10000) (i32.const 0x12000) (i32.const 0x14000) (i32.const 0x12000) (i64.const 1024)
        (i32.const 0x16000) (i32.const 0x16020) (i64.const 1) (i32.const 0x16030) (local.get $s)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $b (i32.and (i32.eqz (local.get $r)) (i32.lt_u (local.get $i) (i32.const 10000)))))
    (if (i32.ne (local.get $r) (i32.const 207012)) (then (call $exit (i32.const 2))))))
`

// batchLoopWAT copies 1 MiB of guest memory to the device in synchronous
// batches of 1024 entries, forever: only the timeout ends it.
const batchLoopWAT = `(module` + soakImports + `
  (memory (export "memory") 20)
  (func (export "_start") (local $i i32) (local $a i64)
    (call $check (call $setDevice (i32.const 0)))
    (call $check (call $malloc (i32.const 16) (i64.const 0x100000) (i32.const 0)))
    (local.set $a (i64.load (i32.const 16)))
    (loop $fill
      (i64.store (i32.add (i32.const 0x1000) (i32.shl (local.get $i) (i32.const 3))) (i64.add (local.get $a) (i64.extend_i32_u (i32.shl (local.get $i) (i32.const 10)))))
      (i64.store (i32.add (i32.const 0x3000) (i32.shl (local.get $i) (i32.const 3))) (i64.const 0x400))
      (i64.store (i32.add (i32.const 0x5000) (i32.shl (local.get $i) (i32.const 3))) (i64.extend_i32_u (i32.add (i32.const 0x20000) (i32.shl (local.get $i) (i32.const 10)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $fill (i32.lt_u (local.get $i) (i32.const 1024))))
    ;; attribute: device 0 (type 1) <- host memory (type 0), at 0x7000;
    ;; index 0 at 0x7020
    (i32.store (i32.const 0x7000) (i32.const 0)) (i32.store (i32.const 0x7004) (i32.const 1))
    (loop $l
      (call $check (call $batch (i32.const 0x1000) (i32.const 0x3000) (i32.const 0x5000) (i32.const 0x3000) (i64.const 1024)
        (i32.const 0x7000) (i32.const 0x7020) (i64.const 1) (i32.const 0x7030)))
      (br $l))))
`
