package serve

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// serve and its floor each run in a process of their own in the
// benchmarks (a child of the test binary, benchServerMain), the clients in
// the benchmark's: in one process both servers' garbage went to one heap
// and its collections fell in either side's rounds, so that a side paid
// for the other's garbage, and the floor makes about twice serve's bytes
// per request. Each side's CPU per request is its server process's CPU
// (which the child reports) and the benchmark process's during its
// rounds (its clients').

// benchServerEnv names, in a child's environment, the server it runs:
// "serve" or a floor (benchFloors' keys). The other settings follow in
// variables of their own (benchChild).
const benchServerEnv = "ACLWASM_BENCH_SERVER"

// benchFloors are the floors a child can run, by name.
var benchFloors = map[string]floorFunc{"command-floor": newCommandFloor, "reactor-floor": newFloorHandler}

// benchProc is a child server process.
type benchProc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	url string
	tls *tls.Config // trusting the child's certificate; nil without TLS
}

// startBenchProc starts a child of the test binary serving side ("serve",
// or a floor of benchFloors serving floorWasm, echo.wat) over TLS when
// tlsOn, with room for clients requests at once. wasm is serve's plugin
// echo and manifest its echo.yaml ("" for none); a floor takes its
// policy from it. The child ends with tb.
func startBenchProc(tb testing.TB, side string, wasm, floorWasm []byte, manifest string, tlsOn bool, clients int) *benchProc {
	tb.Helper()
	exe, err := os.Executable()
	require.NoError(tb, err)
	dir := tb.TempDir()
	mod := filepath.Join(dir, "echo.wasm")
	require.NoError(tb, os.WriteFile(mod, wasm, 0o644))
	floor := filepath.Join(dir, "floor.wasm")
	require.NoError(tb, os.WriteFile(floor, floorWasm, 0o644))
	cmd := exec.Command(exe, "-test.run", "^$")
	cmd.Env = append(os.Environ(), benchServerEnv+"="+side,
		"ACLWASM_BENCH_WASM="+mod, "ACLWASM_BENCH_FLOOR_WASM="+floor,
		"ACLWASM_BENCH_MANIFEST="+manifest,
		"ACLWASM_BENCH_TLS="+strconv.FormatBool(tlsOn),
		"ACLWASM_BENCH_CLIENTS="+strconv.Itoa(clients))
	cmd.Stderr = os.Stderr
	p := &benchProc{cmd: cmd}
	p.in, err = cmd.StdinPipe()
	require.NoError(tb, err)
	out, err := cmd.StdoutPipe()
	require.NoError(tb, err)
	p.out = bufio.NewReader(out)
	require.NoError(tb, cmd.Start())
	tb.Cleanup(func() {
		p.in.Close() // the child's signal to end
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				tb.Errorf("%s server: %v", side, err)
			}
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			<-done
			tb.Errorf("%s server did not end", side)
		}
	})
	// Its first line: its URL and certificate (base64 DER, "-" without TLS).
	line, err := p.out.ReadString('\n')
	require.NoError(tb, err, "%s server did not start", side)
	f := strings.Fields(line)
	require.Len(tb, f, 2, "%s server: %q", side, line)
	p.url = f[0]
	if f[1] != "-" {
		der, err := base64.StdEncoding.DecodeString(f[1])
		require.NoError(tb, err)
		cert, err := x509.ParseCertificate(der)
		require.NoError(tb, err)
		pool := x509.NewCertPool()
		pool.AddCert(cert)
		p.tls = &tls.Config{RootCAs: pool, ClientSessionCache: tls.NewLRUClientSessionCache(clients)}
	}
	return p
}

// stats returns the child's CPU time so far (user and system, ns; 0
// where the system has no getrusage) and the connections it accepted.
func (p *benchProc) stats(tb testing.TB) (cpu, conns int64) {
	tb.Helper()
	_, err := io.WriteString(p.in, "stats\n")
	require.NoError(tb, err)
	line, err := p.out.ReadString('\n')
	require.NoError(tb, err)
	_, err = fmt.Sscan(line, &cpu, &conns)
	require.NoError(tb, err, "stats %q", line)
	return cpu, conns
}

// load returns a load generator of clients keep-alive clients for p.
func (p *benchProc) load(tb testing.TB, clients int) *loadGen {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost, tr.MaxConnsPerHost = clients, clients, clients
	tr.TLSClientConfig = p.tls
	tr.ForceAttemptHTTP2 = false // as httptest's own client: HTTP/1.1
	tb.Cleanup(tr.CloseIdleConnections)
	return &loadGen{url: p.url + "/v1/plugins/echo", client: &http.Client{Transport: tr, Timeout: time.Minute}, clients: clients}
}

// benchServerMain is a child's life (TestMain runs it where benchServerEnv
// is set): it serves as its environment says on 127.0.0.1, prints its URL
// and certificate, answers each "stats" line on stdin with its CPU time
// and connections accepted, and ends at the end of stdin.
func benchServerMain(side string) int {
	tb := &procTB{}
	defer tb.cleanup()
	if err := tb.run(func() { serveBench(tb, side) }); err != nil {
		fmt.Fprintf(os.Stderr, "bench server %s: %v\n", side, err)
		return 1
	}
	return 0
}

// serveBench is benchServerMain's work, failing through tb.
func serveBench(tb *procTB, side string) {
	read := func(env string) []byte {
		b, err := os.ReadFile(os.Getenv(env))
		require.NoError(tb, err)
		return b
	}
	tlsOn := os.Getenv("ACLWASM_BENCH_TLS") == "true"
	clients, err := strconv.Atoi(os.Getenv("ACLWASM_BENCH_CLIENTS"))
	require.NoError(tb, err)
	var conns atomic.Int64
	s := startBenchServer(tb, map[string][]byte{"echo": read("ACLWASM_BENCH_WASM")}, os.Getenv("ACLWASM_BENCH_MANIFEST"), clients)
	var srv *httptest.Server
	if side == "serve" {
		srv = newServeHTTPServer(s, tlsOn, &conns)
	} else {
		// The floor's memory limit and timeout are those serve gives its
		// plugin; the server that tells them stays, idle.
		floor, ok := benchFloors[side]
		require.True(tb, ok, "no floor %q", side)
		srv = newHTTPServer(floor(tb, read("ACLWASM_BENCH_FLOOR_WASM"), benchPolicy(tb, s), clients), tlsOn, &conns)
	}
	cert := "-"
	if c := srv.Certificate(); c != nil && tlsOn {
		cert = base64.StdEncoding.EncodeToString(c.Raw)
	}
	url := srv.URL
	defer srv.Close()
	fmt.Printf("%s %s\n", url, cert)
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		var cpu int64
		if testsupport.HaveCPUTime {
			cpu = testsupport.CPUTime(tb)
		}
		fmt.Printf("%d %d\n", cpu, conns.Load())
	}
}

// procTB is the testing.TB of a child server: the benchmark's helpers
// take one. Its failures end the work it runs (run); the methods the
// helpers do not call are the embedded nil TB's, and panic.
type procTB struct {
	testing.TB
	cleanups []func()
	failed   bool
	msgs     []string
}

// procFailed is the panic that ends a procTB's work at a failure.
type procFailed struct{}

func (t *procTB) Helper()          {}
func (t *procTB) Cleanup(f func()) { t.cleanups = append(t.cleanups, f) }
func (t *procTB) Errorf(f string, args ...any) {
	t.failed = true
	t.msgs = append(t.msgs, fmt.Sprintf(f, args...))
}
func (t *procTB) Error(args ...any)            { t.Errorf("%s", fmt.Sprint(args...)) }
func (t *procTB) Fatalf(f string, args ...any) { t.Errorf(f, args...); t.FailNow() }
func (t *procTB) Fatal(args ...any)            { t.Error(args...); t.FailNow() }
func (t *procTB) FailNow()                     { panic(procFailed{}) }
func (t *procTB) Failed() bool                 { return t.failed }
func (t *procTB) Logf(f string, args ...any)   { fmt.Fprintf(os.Stderr, f+"\n", args...) }
func (t *procTB) Log(args ...any)              { fmt.Fprintln(os.Stderr, args...) }
func (t *procTB) Name() string                 { return "bench-server" }
func (t *procTB) TempDir() string {
	dir, err := os.MkdirTemp("", "aclwasm-bench-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// run runs f, returning the failures it reported.
func (t *procTB) run(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(procFailed); !ok {
				panic(r)
			}
		}
		if t.failed {
			err = fmt.Errorf("%s", strings.Join(t.msgs, "; "))
		}
	}()
	f()
	return nil
}

// cleanup runs the cleanups, the last registered first.
func (t *procTB) cleanup() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}

// TestBenchProc: the benchmarks' server processes serve echo (serve's
// and each floor, over HTTP and HTTPS) and report their CPU time and
// connections.
func TestBenchProc(t *testing.T) {
	wasm := wat2wasm(t, "echo", "")
	for _, side := range []string{"serve", "command-floor", "reactor-floor"} {
		for _, tlsOn := range []bool{false, true} {
			p := startBenchProc(t, side, wasm, wasm, "", tlsOn, 2)
			l := p.load(t, 2)
			l.run(t, 8) // fails on a wrong answer
			require.Len(t, l.lat, 8)
			cpu, conns := p.stats(t)
			require.Equal(t, int64(2), conns, "%s tls=%v: connections", side, tlsOn)
			if testsupport.HaveCPUTime {
				require.Positive(t, cpu, "%s: CPU time", side)
			}
		}
	}
}
