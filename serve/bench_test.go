package serve

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// The serve benchmarks measure serve against a floor run side by side in
// the same benchmark, as host's goal benchmarks do (scripts/serve-bench.sh
// prints them as a table with the goals). Each floor is a bare net/http +
// wazero server doing the work serve does for that kind of plugin, and no
// more:
//   - the echo command (testdata/echo.wat) through Server.Handler, against
//     a bare handler that instantiates the same guest for every request
//     (newCommandFloor: the same memory limit, stdin the body, stdout and
//     stderr captured, the host's clocks and random source, the policy's
//     timeout), runs _start and answers its stdout;
//   - the same echo as a reactor whose instances serve keeps
//     (testdata/echo-reactor.wat, serve.reuse_instances), against a bare
//     handler that calls _start on pre-instantiated modules of echo.wat
//     (newFloorHandler): kept instances on both sides;
//   - the heap of idle pooled instances against bare wazero instances.
//
// Ratios are metrics whose unit starts with "x-".

// benchBody is every request's body: small, so that the figure is the
// cost of a request, not of moving bytes.
var benchBody = bytes.Repeat([]byte("0123456789abcdef"), 4)

// BenchmarkServeEcho: requests per second and p50/p99 latency of the
// echo command through serve (a new instance per request) and through the
// bare server that instantiates per request too (newCommandFloor), at 1,
// 16 and 64 keep-alive clients, over HTTP and HTTPS (httptest's TLS for
// both), and, where getrusage exists (unix), the CPU time per request of
// each (cpu-ns, floor-cpu-ns, x-floor-cpu: the server process's and the
// clients', over real connections). Each server runs in a process of its
// own (benchproc_test.go), the clients in the benchmark's. An operation
// is one request of each.
func BenchmarkServeEcho(b *testing.B) {
	benchEcho(b, wat2wasm(b, "echo", ""), "", "command-floor")
}

// BenchmarkServeEchoReactor is BenchmarkServeEcho with the echo reactor
// (testdata/echo-reactor.wat: the same copies, bytes in and out through
// module aclwasm) served with serve.reuse_instances: each request runs on
// a kept instance, as the floor's do (newFloorHandler: echo.wat's _start
// called on pre-instantiated modules, the same work, the same answers).
func BenchmarkServeEchoReactor(b *testing.B) {
	benchEcho(b, wat2wasm(b, "echo-reactor", ""), reusedManifest, "reactor-floor")
}

// reusedManifest is the manifest of the benchmarks' plugin echo served
// with kept instances.
const reusedManifest = "name: echo\nmodule: {path: echo.wasm}\nserve: {reuse_instances: true}\n"

// floorFunc makes a floor: a handler serving echo.wat (wasm) to clients
// clients at once under policy p (the policy serve gives its plugin).
type floorFunc func(tb testing.TB, wasm []byte, p host.Policy, clients int) *floor

// floor is a bare server's handler, and how many wazero instances it
// made: TestFloorAnswersAsServe tells with it that the command floor
// instantiates per request and the reactor floor does not.
type floor struct {
	http.Handler
	made atomic.Int64
}

// benchPolicy returns the policy s gives its plugin echo, with its
// defaults filled in: the command floor's memory limit and timeout.
func benchPolicy(tb testing.TB, s *Server) host.Policy {
	tb.Helper()
	s.mu.RLock()
	v := s.plugins["echo"]
	s.mu.RUnlock()
	require.NotNil(tb, v)
	require.Nil(tb, v.fail)
	return v.pl.Policy()
}

// benchEcho measures serve's plugin echo, the module wasm with the
// manifest manifest ("" for none), against the floor named floor
// (benchFloors) serving echo.wat (its figures prefixed "floor-", serve's
// over them "x-floor-"), each in a server process of its own.
func benchEcho(b *testing.B, wasm []byte, manifest, floor string) {
	floorWasm := wat2wasm(b, "echo", "")
	for _, tlsOn := range []bool{false, true} {
		for _, clients := range []int{1, 16, 64} {
			b.Run(fmt.Sprintf("tls=%v/clients=%d", tlsOn, clients), func(b *testing.B) {
				fp := startBenchProc(b, floor, wasm, floorWasm, manifest, tlsOn, clients)
				sp := startBenchProc(b, "serve", wasm, floorWasm, manifest, tlsOn, clients)
				fl, sl := fp.load(b, clients), sp.load(b, clients)
				// Warm both up: connections open, code paged in.
				fl.run(b, 2*clients)
				sl.run(b, 2*clients)
				fl.lat, sl.lat = fl.lat[:0], sl.lat[:0]
				fcpu0, _ := fp.stats(b)
				scpu0, _ := sp.stats(b)
				b.ResetTimer()
				// Rounds alternate, so that a load on the machine weighs on
				// both alike, and so does which side goes first in a round,
				// so that neither always runs in the other's wake (its
				// collector, its threads winding down).
				round := max(64, 4*clients)
				var tf, ts time.Duration
				var cf, cs int64 // the clients' CPU time in each side's rounds
				side := func(l *loadGen, t *time.Duration, c *int64, k int) {
					c0 := testsupport.CPUTime(b)
					*t += l.run(b, k)
					*c += testsupport.CPUTime(b) - c0
				}
				for r, done := 0, 0; done < b.N; r, done = r+1, done+round {
					k := min(round, b.N-done)
					if r%2 == 0 {
						side(fl, &tf, &cf, k)
						side(sl, &ts, &cs, k)
					} else {
						side(sl, &ts, &cs, k)
						side(fl, &tf, &cf, k)
					}
				}
				b.StopTimer()
				fcpu, fconns := fp.stats(b)
				scpu, sconns := sp.stats(b)
				// Keep-alive holds: about one connection per client.
				b.ReportMetric(float64(fconns), "floor-conns")
				b.ReportMetric(float64(sconns), "conns")
				report(b, "floor-", fl.lat, tf)
				report(b, "", sl.lat, ts)
				fp50, fp99 := quantiles(fl.lat)
				sp50, sp99 := quantiles(sl.lat)
				b.ReportMetric(float64(tf)/float64(ts), "x-floor-req/s") // serve's throughput / the floor's
				b.ReportMetric(float64(sp50)/float64(fp50), "x-floor-p50")
				b.ReportMetric(float64(sp99)/float64(fp99), "x-floor-p99")
				if testsupport.HaveCPUTime {
					// CPU per request, the server process's (idle outside its
					// rounds) and its clients': on a loaded machine it swings
					// far less than the wall-clock figures.
					cf, cs = cf+fcpu-fcpu0, cs+scpu-scpu0
					b.ReportMetric(float64(cf)/float64(b.N), "floor-cpu-ns")
					b.ReportMetric(float64(cs)/float64(b.N), "cpu-ns")
					b.ReportMetric(float64(cs)/float64(cf), "x-floor-cpu")
				}
			})
		}
	}
}

// report adds the throughput and latency quantiles of requests that took
// lat each and elapsed together, each metric's unit prefixed.
func report(b *testing.B, prefix string, lat []time.Duration, elapsed time.Duration) {
	p50, p99 := quantiles(lat)
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), prefix+"req/s")
	b.ReportMetric(float64(p50.Nanoseconds()), prefix+"p50-ns")
	b.ReportMetric(float64(p99.Nanoseconds()), prefix+"p99-ns")
}

// quantiles returns the median and 99th percentile of lat (sorted in place).
func quantiles(lat []time.Duration) (p50, p99 time.Duration) {
	if len(lat) == 0 {
		return 0, 0
	}
	slices.Sort(lat)
	return lat[len(lat)/2], lat[min(len(lat)-1, len(lat)*99/100)]
}

// startBenchServer serves mods with room for clients requests at once,
// logging nothing (a log record per request is not what is measured);
// manifest, if not "", is echo.yaml.
func startBenchServer(tb testing.TB, mods map[string][]byte, manifest string, clients int) *Server {
	tb.Helper()
	return startBenchServerWith(tb, mods, manifest, clients, nil)
}

// startBenchServerWith is startBenchServer with its Config changed by
// edit first (nil: none).
func startBenchServerWith(tb testing.TB, mods map[string][]byte, manifest string, clients int, edit func(*Config)) *Server {
	tb.Helper()
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, host.WithEngine(engine))
	require.NoError(tb, err)
	tb.Cleanup(func() { rt.Close(ctx) })
	dir := plugins(tb, mods, nil)
	if manifest != "" {
		require.NoError(tb, os.WriteFile(filepath.Join(dir, "echo.yaml"), []byte(manifest), 0o644))
	}
	cfg := Config{Dir: dir, Runtime: rt, MaxConcurrent: 2 * clients, Logger: slog.New(slog.DiscardHandler)}
	if edit != nil {
		edit(&cfg)
	}
	s, err := New(ctx, cfg)
	require.NoError(tb, err)
	tb.Cleanup(func() { require.NoError(tb, s.Shutdown(ctx)) })
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	require.NoError(tb, s.WaitLoaded(wctx))
	return s
}

// newHTTPServer serves h on 127.0.0.1, over TLS (HTTP/1.1) when tlsOn,
// counting the connections it accepts in conns (nil: not counted).
func newHTTPServer(h http.Handler, tlsOn bool, conns *atomic.Int64) *httptest.Server {
	return startHTTPServer(httptest.NewUnstartedServer(h), tlsOn, conns)
}

// newServeHTTPServer is newHTTPServer for s's Handler, its connections'
// contexts based on s's as Serve bases them (baseContext: Shutdown
// cancels runs through them), so that a request costs what it costs
// under aclwasm serve.
func newServeHTTPServer(s *Server, tlsOn bool, conns *atomic.Int64) *httptest.Server {
	srv := httptest.NewUnstartedServer(s.Handler())
	srv.Config.BaseContext = s.baseContext
	return startHTTPServer(srv, tlsOn, conns)
}

// startHTTPServer starts srv as newHTTPServer describes.
func startHTTPServer(srv *httptest.Server, tlsOn bool, conns *atomic.Int64) *httptest.Server {
	if conns != nil {
		srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
			if st == http.StateNew {
				conns.Add(1)
			}
		}
	}
	// A handshake cut short by Close at the end is no finding.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	if tlsOn {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	return srv
}

// loadGen sends echo requests to one server from a fixed set of keep-alive
// clients, and keeps each request's latency.
type loadGen struct {
	url     string
	client  *http.Client
	clients int
	lat     []time.Duration
	mu      sync.Mutex
}

func newLoad(tb testing.TB, srv *httptest.Server, clients int) *loadGen {
	tr := srv.Client().Transport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost, tr.MaxConnsPerHost = clients, clients, clients
	if tr.TLSClientConfig != nil {
		tr.TLSClientConfig.ClientSessionCache = tls.NewLRUClientSessionCache(clients)
	}
	tb.Cleanup(tr.CloseIdleConnections)
	return &loadGen{url: srv.URL + "/v1/plugins/echo", client: &http.Client{Transport: tr, Timeout: time.Minute}, clients: clients}
}

// run sends n requests from l.clients goroutines and returns how long
// they took together. A failed request fails the benchmark.
func (l *loadGen) run(tb testing.TB, n int) time.Duration {
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	start := time.Now()
	for range l.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat := make([]time.Duration, 0, n/l.clients+1)
			defer func() { l.mu.Lock(); l.lat = append(l.lat, lat...); l.mu.Unlock() }()
			buf := bytes.NewBuffer(make([]byte, 0, 256))
			for next.Add(1) <= int64(n) {
				t := time.Now()
				resp, err := l.client.Post(l.url, "application/octet-stream", bytes.NewReader(benchBody))
				if err == nil {
					buf.Reset()
					_, err = buf.ReadFrom(resp.Body)
					resp.Body.Close()
					if err == nil && (resp.StatusCode != http.StatusOK || !bytes.Equal(buf.Bytes(), echoWant)) {
						err = fmt.Errorf("status %d, body %q", resp.StatusCode, buf.Bytes())
					}
				}
				if err != nil {
					failed.CompareAndSwap(nil, err)
					return
				}
				lat = append(lat, time.Since(t))
			}
		}()
	}
	wg.Wait()
	d := time.Since(start)
	if err, _ := failed.Load().(error); err != nil {
		tb.Fatalf("%s: %v", l.url, err)
	}
	return d
}

// floorDevice is the floor's stand-in for the device: what the four acl
// imports of echo.wat need, in Go maps, with no checks, no session and no
// statistics.
type floorDevice struct {
	next  uint64
	alloc map[uint64][]byte
}

type floorKey struct{}

// floorRuntime is a bare wazero runtime as the floors use it: closing
// modules when a call's context ends (serve's timeouts need it), guest
// memory limited to p's, WASI preview1 and the host module "acl"; and
// the compiled wasm.
func floorRuntime(tb testing.TB, wasm []byte, p host.Policy) (wazero.Runtime, wazero.CompiledModule) {
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCloseOnContextDone(true).WithMemoryLimitPages(p.MemoryPages))
	tb.Cleanup(func() { r.Close(ctx) })
	wasi_snapshot_preview1.MustInstantiate(ctx, r)
	require.NoError(tb, floorACL(ctx, r))
	cm, err := r.CompileModule(ctx, wasm)
	require.NoError(tb, err)
	return r, cm
}

// newCommandFloor is the command's floor: a net/http handler that does
// for every request what serve must do for a command, on the plain
// wazero API: a new instance of the compiled module within the policy's
// timeout (argv the plugin's name; stdin the request body, stdout and
// stderr captured; the host's clocks and random source, as the host
// gives a guest), its _start run, the instance closed, its stdout the
// answer. A guest that exits with 0 ends well, as in serve. Its guest
// memory is configured as serve's: one reservation of the policy's limit
// per instance, reused by later instances once cleared (floorMems).
func newCommandFloor(tb testing.TB, wasm []byte, p host.Policy, _ int) *floor {
	mems := newFloorMems(tb, uint64(p.MemoryPages)<<16)
	r, cm := floorRuntime(tb, wasm, p)
	mc := wazero.NewModuleConfig().WithName("").WithStartFunctions().WithArgs("echo").
		WithSysWalltime().WithSysNanotime().WithRandSource(rand.Reader)
	f := &floor{}
	f.Handler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ctx := req.Context()
		if p.Timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, p.Timeout)
			defer cancel()
		}
		var stdout, stderr bytes.Buffer
		mod, err := r.InstantiateModule(experimental.WithMemoryAllocator(ctx, mems), cm, mc.WithStdin(bytes.NewReader(body)).WithStdout(&stdout).WithStderr(&stderr))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		f.made.Add(1)
		defer mod.Close(context.Background())
		_, err = mod.ExportedFunction("_start").Call(context.WithValue(ctx, floorKey{}, &floorDevice{alloc: map[uint64][]byte{}}))
		if ee := (*sys.ExitError)(nil); errors.As(err, &ee) && ee.ExitCode() == 0 {
			err = nil
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(stdout.Bytes())
	})
	return f
}

// newFloorHandler is the floor of kept instances: a net/http handler that
// runs echo.wat's _start on one of clients pre-instantiated wazero
// modules (plain wazero API: WASI preview1 and a Go host module "acl")
// with the request body as its stdin, and answers its stdout.
func newFloorHandler(tb testing.TB, wasm []byte, p host.Policy, clients int) *floor {
	ctx := context.Background()
	r, cm := floorRuntime(tb, wasm, p)
	type inst struct {
		mod    api.Module
		start  api.Function
		stdin  *swapReader
		stdout *bytes.Buffer
		dev    *floorDevice
	}
	f := &floor{}
	pool := make(chan *inst, clients)
	for i := range clients {
		in := &inst{stdin: &swapReader{}, stdout: &bytes.Buffer{}, dev: &floorDevice{alloc: map[uint64][]byte{}}}
		// No start function: _start is called per request.
		var err error
		in.mod, err = r.InstantiateModule(ctx, cm, wazero.NewModuleConfig().WithName(fmt.Sprint("echo", i)).
			WithStartFunctions().WithStdin(in.stdin).WithStdout(in.stdout))
		require.NoError(tb, err)
		f.made.Add(1)
		in.start = in.mod.ExportedFunction("_start")
		pool <- in
	}
	f.Handler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		in := <-pool
		defer func() { pool <- in }()
		in.stdin.r.Reset(body)
		in.stdout.Reset()
		if _, err := in.start.Call(context.WithValue(req.Context(), floorKey{}, in.dev)); err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(in.stdout.Bytes())
	})
	return f
}

// swapReader is an instance's stdin, reset to each request's body.
type swapReader struct{ r bytes.Reader }

func (s *swapReader) Read(p []byte) (int, error) { return s.r.Read(p) }

// floorACL instantiates the floor's host module "acl": aclrtSetDevice,
// aclrtMalloc, aclrtMemcpy and aclrtFree over the floorDevice of the
// call's context, doing the copies and nothing else.
func floorACL(ctx context.Context, r wazero.Runtime) error {
	i32, i64 := api.ValueTypeI32, api.ValueTypeI64
	dev := func(ctx context.Context) *floorDevice { return ctx.Value(floorKey{}).(*floorDevice) }
	fn := func(f func(ctx context.Context, m api.Module, stack []uint64)) api.GoModuleFunc { return f }
	_, err := r.NewHostModuleBuilder("acl").
		NewFunctionBuilder().WithGoModuleFunction(fn(func(_ context.Context, _ api.Module, stack []uint64) { stack[0] = 0 }),
		[]api.ValueType{i32}, []api.ValueType{i32}).Export("aclrtSetDevice").
		NewFunctionBuilder().WithGoModuleFunction(fn(func(ctx context.Context, m api.Module, stack []uint64) {
		d := dev(ctx)
		d.next += 1 << 32
		d.alloc[d.next] = make([]byte, stack[1])
		m.Memory().WriteUint64Le(uint32(stack[0]), d.next)
		stack[0] = 0
	}), []api.ValueType{i32, i64, i32}, []api.ValueType{i32}).Export("aclrtMalloc").
		NewFunctionBuilder().WithGoModuleFunction(fn(func(ctx context.Context, m api.Module, stack []uint64) {
		d := dev(ctx)
		dst, src, n := stack[0], stack[2], uint32(stack[3])
		switch stack[4] { // kind: 1 H2D, 2 D2H, 3 D2D
		case 1:
			b, _ := m.Memory().Read(uint32(src), n)
			copy(d.alloc[dst], b)
		case 2:
			m.Memory().Write(uint32(dst), d.alloc[src][:n])
		case 3:
			copy(d.alloc[dst], d.alloc[src][:n])
		}
		stack[0] = 0
	}), []api.ValueType{i64, i64, i64, i64, i32}, []api.ValueType{i32}).Export("aclrtMemcpy").
		NewFunctionBuilder().WithGoModuleFunction(fn(func(ctx context.Context, _ api.Module, stack []uint64) {
		delete(dev(ctx).alloc, stack[0])
		stack[0] = 0
	}), []api.ValueType{i64}, []api.ValueType{i32}).Export("aclrtFree").
		Instantiate(ctx)
	return err
}

// smallReactor is the plugin of the memory benchmark: one page of memory
// and an export that makes a host call.
const smallReactor = `(module
  (import "acl" "aclrtSetDevice" (func $set (param i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "handle") (result i32) (call $set (i32.const 0))))`

// idleInstances is how many instances the memory benchmark holds.
const idleInstances = 64

// BenchmarkServeIdleMemory: the memory per idle instance of a small
// reactor in a host.Pool after one call of its export (what a pooled
// plugin holds between requests) against a bare wazero instance of the
// same module after one call (its api.Function looked up, called and
// dropped), idleInstances of each: the Go heap in use, and the process's resident memory, which also
// counts what is mapped off the heap (the host reserves guest memory with
// mmap; wazero's own is on the heap). x-bare-mem is the ratio of resident
// memory where /proc/self/statm exists (Linux), else of the heap. An
// operation is one measurement of both.
func BenchmarkServeIdleMemory(b *testing.B) {
	if engine != "wazero" {
		b.Skipf("the bare instances are wazero's: ACLWASM_TEST_ENGINE=%s has no floor here", engine)
	}
	ctx := context.Background()
	wasm := wat2wasm(b, "", smallReactor)
	rt, err := host.NewRuntime(ctx, host.WithEngine(engine))
	require.NoError(b, err)
	defer rt.Close(ctx)
	pl, err := rt.Load(ctx, wasm, host.Policy{})
	require.NoError(b, err)
	defer pl.Close(ctx)
	bare := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCloseOnContextDone(true))
	defer bare.Close(ctx)
	require.NoError(b, floorACL(ctx, bare))
	cm, err := bare.CompileModule(ctx, wasm)
	require.NoError(b, err)

	var pooled, plain memUse
	b.ResetTimer()
	for range b.N {
		pooled.add(memPer(b, func() func() {
			p, err := pl.NewPool(host.PoolConfig{Size: idleInstances})
			require.NoError(b, err)
			fillPool(b, p, idleInstances)
			return func() { require.NoError(b, p.Close(ctx)) }
		}))
		plain.add(memPer(b, func() func() {
			mods := make([]api.Module, idleInstances)
			for i := range mods {
				mods[i], err = bare.InstantiateModule(ctx, cm, wazero.NewModuleConfig().WithName(fmt.Sprint("small", i)))
				require.NoError(b, err)
				res, err := mods[i].ExportedFunction("handle").Call(context.WithValue(ctx, floorKey{}, &floorDevice{}))
				require.NoError(b, err)
				require.Equal(b, []uint64{0}, res)
			}
			return func() {
				for _, m := range mods {
					require.NoError(b, m.Close(ctx))
				}
			}
		}))
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(pooled.heap/n, "pooled-heap-B/inst")
	b.ReportMetric(plain.heap/n, "bare-heap-B/inst")
	b.ReportMetric(pooled.heap/plain.heap, "x-bare-heap")
	if pooled.rss > 0 && plain.rss > 0 {
		b.ReportMetric(pooled.rss/n, "pooled-rss-B/inst")
		b.ReportMetric(plain.rss/n, "bare-rss-B/inst")
		b.ReportMetric(pooled.rss/plain.rss, "x-bare-mem")
	} else {
		b.ReportMetric(pooled.heap/plain.heap, "x-bare-mem")
	}
}

// fillPool has n instances made in p, each called once (export handle),
// and returned to it idle: n calls at once, each holding its instance
// until all n have one.
func fillPool(b *testing.B, p *host.Pool, n int) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var all sync.WaitGroup
	all.Add(n)
	errs := make(chan error, n)
	for range n {
		go func() {
			errs <- p.Do(ctx, func(i *host.Instance) error {
				res, err := i.Call(ctx, "handle")
				if err == nil && (len(res) != 1 || res[0] != 0) {
					err = fmt.Errorf("handle returned %v", res)
				}
				all.Done()
				all.Wait() // every call has its own instance: n exist
				return err
			})
		}()
	}
	for range n {
		require.NoError(b, <-errs)
	}
}

// memUse is memory per instance: Go heap in use, and resident (0 where
// it cannot be read).
type memUse struct{ heap, rss float64 }

func (m *memUse) add(o memUse) { m.heap += o.heap; m.rss += o.rss }

// memPer returns the memory that hold's result holds, per instance:
// measured after hold, before the function it returns releases it.
func memPer(b *testing.B, hold func() (release func())) memUse {
	h0, r0 := memNow()
	release := hold()
	h1, r1 := memNow()
	release()
	if h1 < h0 {
		b.Fatalf("heap in use fell from %d to %d", h0, h1)
	}
	u := memUse{heap: float64(h1-h0) / idleInstances}
	if r0 > 0 && r1 > r0 {
		u.rss = float64(r1-r0) / idleInstances
	}
	return u
}

// memNow returns the heap in use and the resident memory (0 where
// /proc/self/statm cannot be read) after a collection that returns what
// it can to the system, so that the next figure counts new pages only.
func memNow() (heap, rss uint64) {
	runtime.GC()
	debug.FreeOSMemory()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 1 {
			if pages, err := strconv.ParseUint(f[1], 10, 64); err == nil {
				rss = pages * uint64(os.Getpagesize())
			}
		}
	}
	return m.HeapInuse, rss
}

// TestFloorAnswersAsServe: each floor gives the body serve gives for the
// same requests, over HTTP and HTTPS, from concurrent keep-alive clients,
// and does what its serve side does: the command floor
// (BenchmarkServeEcho) makes an instance per request, as serve does for
// the echo command; the kept-instance floor (BenchmarkServeEchoReactor)
// makes one per client and no more, as serve keeps the echo reactor's
// instances (a pool).
func TestFloorAnswersAsServe(t *testing.T) {
	wasm := wat2wasm(t, "echo", "")
	reactor := wat2wasm(t, "echo-reactor", "")
	const clients, requests = 2, 8
	for _, tlsOn := range []bool{false, true} {
		cs := startBenchServer(t, map[string][]byte{"echo": wasm}, "", clients)
		srv := newHTTPServer(cs.Handler(), tlsOn, nil)
		defer srv.Close()
		cf := newCommandFloor(t, wasm, benchPolicy(t, cs), clients)
		cfsrv := newHTTPServer(cf, tlsOn, nil)
		defer cfsrv.Close()
		rs := startBenchServer(t, map[string][]byte{"echo": reactor}, reusedManifest, clients)
		rsrv := newHTTPServer(rs.Handler(), tlsOn, nil)
		defer rsrv.Close()
		rf := newFloorHandler(t, wasm, benchPolicy(t, rs), clients)
		rfsrv := newHTTPServer(rf, tlsOn, nil)
		defer rfsrv.Close()
		for _, srv := range []*httptest.Server{srv, cfsrv, rsrv, rfsrv} {
			l := newLoad(t, srv, clients)
			l.run(t, requests) // fails unless every answer is 200 "echo:" and the body
			require.Len(t, l.lat, requests, l.url)
		}
		require.EqualValues(t, requests, cf.made.Load(), "the command floor instantiates per request")
		require.EqualValues(t, clients, rf.made.Load(), "the kept-instance floor instantiates per client")
		require.EqualValues(t, host.DefaultMemoryPages, benchPolicy(t, cs).MemoryPages, "the floor's memory limit is serve's")
		rs.mu.RLock()
		v := rs.plugins["echo"]
		rs.mu.RUnlock()
		require.NotNil(t, v.pool, "the reactor's instances are kept")
	}
}

// TestQuantiles: the median and 99th percentile of a known set.
func TestQuantiles(t *testing.T) {
	lat := make([]time.Duration, 200)
	for i := range lat {
		lat[i] = time.Duration(200-i) * time.Millisecond
	}
	p50, p99 := quantiles(lat)
	require.Equal(t, 101*time.Millisecond, p50)
	require.Equal(t, 199*time.Millisecond, p99)
	p50, p99 = quantiles([]time.Duration{time.Second})
	require.Equal(t, time.Second, p50)
	require.Equal(t, time.Second, p99)
}

// TestEchoAllocsOverFloor bounds what serve's handler allocates per
// request of the echo command beyond what the command floor allocates for
// the same request (newCommandFloor, in the same process, with the same
// request and recorder): serve's own layers (the request id and logger,
// the access check, the budgets, the run's context and its cancellation
// at Shutdown) and the host's (the session, its call context, the
// sandbox's records of echo's device calls). 51 allocations more per
// request (118 against 67) before a Run armed its call context once, the
// run's cancellation went through the registry of active requests, the
// request's logger was made lazily and a body of known length was read
// without a limit reader; 34 after; 30 once the call context made its
// done channel only when asked for and kept its first watchers in place,
// the engines' call watch waited on a WaitGroup instead of a channel and
// guard's record of the body was part of the request's context (97
// against 67-68: the floor's count moves by one from run to run); 28 once
// the policy's timer was a pooled one, not one per instance (95); 27 once
// wazero's instance held its instantiation's state. Under Serve, whose
// requests' contexts Shutdown cancels (baseContext), a run makes no
// context of its own: 22 more (95 against 73: the request's context is
// cancellable there, and the floor's timeout and the host's watch of it
// register with it); the Handler mounted elsewhere, as before. Since
// a run with NoStats makes no call counters and the sandbox and the
// simulator make a session's first context, allocation records and small
// buffers with fewer objects, 10 fewer: under Serve 3 fewer than the
// floor (70 against 73; 80 before), mounted elsewhere 2 more (69 against
// 67; 79 before).
func TestEchoAllocsOverFloor(t *testing.T) {
	if engine != "wazero" {
		t.Skipf("the floor is wazero's: ACLWASM_TEST_ENGINE=%s allocates as its engine does", engine)
	}
	wasm := wat2wasm(t, "echo", "")
	s := startBenchServer(t, map[string][]byte{"echo": wasm}, "", 1)
	floor := newCommandFloor(t, wasm, benchPolicy(t, s), 1)
	for _, c := range []struct {
		name       string
		base       context.Context
		most, race float64 // the race detector's pools drop records
	}{
		{"under Serve", s.base, -1, 5},
		{"mounted elsewhere", nil, 3, 9},
	} {
		f, got := echoAllocs(t, floor, c.base), echoAllocs(t, s.Handler(), c.base)
		most := c.most
		if testsupport.Race {
			most = c.race
		}
		require.LessOrEqual(t, got-f, most, "%s: serve's allocations per request (%v) over the floor's (%v)", c.name, got, f)
	}
}

// echoAllocs is what h allocates per request of the echo command
// (serveEcho), checking the answer.
func echoAllocs(t *testing.T, h http.Handler, base context.Context) float64 {
	return testing.AllocsPerRun(100, func() { serveEcho(t, h, base, true) })
}

// echoWant is the echo command's answer to benchBody.
var echoWant = append([]byte("echo:"), benchBody...)

// serveEcho sends h one request of the echo command (the benchmarks' body,
// a recorder) without a connection. With a base, the request's context is
// a new cancellable one derived from it, as net/http makes them for a
// connection whose base context base is (its allocations counted); without,
// the request's is httptest's Background. With check, an answer other than
// echoWant fails tb.
func serveEcho(tb testing.TB, h http.Handler, base context.Context, check bool) {
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, "/v1/plugins/echo", bytes.NewReader(benchBody))
	if base != nil {
		ctx, cancel := context.WithCancel(base)
		defer cancel()
		r = r.WithContext(ctx)
	}
	h.ServeHTTP(w, r)
	if check && (w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), echoWant)) {
		tb.Fatalf("status %d, body %q", w.Code, w.Body.Bytes())
	}
}

// TestEchoMetrics: a plugin's request series are looked up once per
// version: counting a successful request and its time in flight
// allocates nothing; and the server counts each request all the same.
func TestEchoMetrics(t *testing.T) {
	m, err := newServerMetrics(prometheus.NewRegistry(), false, nil)
	require.NoError(t, err)
	ps := m.forPlugin("echo")
	require.Zero(t, testing.AllocsPerRun(100, func() {
		ps.running(1)
		ps.running(-1)
		m.observe(ps, "echo", http.StatusOK, "ok", time.Millisecond)
	}))

	reg := prometheus.NewRegistry()
	s := startBenchServerWith(t, map[string][]byte{"echo": wat2wasm(t, "echo", "")}, "", 1, func(c *Config) { c.Registerer = reg })
	echoAllocs(t, s.Handler(), nil) // 101 requests: AllocsPerRun's warm-up and 100 runs
	require.Equal(t, 101.0, testutil.ToFloat64(s.metrics.requests.WithLabelValues("echo", "200", "ok")))
	require.Zero(t, testutil.ToFloat64(s.metrics.inFlight.WithLabelValues("echo")))
	mfs, err := reg.Gather()
	require.NoError(t, err)
	var timed uint64
	for _, mf := range mfs {
		if mf.GetName() == "aclwasm_http_request_duration_seconds" {
			require.Len(t, mf.GetMetric(), 1)
			timed = mf.GetMetric()[0].GetHistogram().GetSampleCount()
		}
	}
	require.EqualValues(t, 101, timed)
}
