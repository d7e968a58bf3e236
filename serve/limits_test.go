package serve

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// watchdog bounds each wait on the server in these tests: far below the
// server's read timeout (a minute), so that a connection held until that
// timeout fails the test, and far above what a prompt answer takes on a
// loaded machine.
const watchdog = 20 * time.Second

// floodReactor's export handle offers 1 GiB of output, 64 KiB per
// output_write, ignoring every refusal, and returns 0.
const floodReactor = `(module
  (import "aclwasm" "output_write" (func $write (param i32 i32) (result i32)))
  (memory (export "memory") 2)
  (func (export "handle") (local $i i32)
    (loop $l
      (drop (call $write (i32.const 0x10) (i32.const 0x10000)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 16384))))))`

// floodCommand writes 1 GiB to stdout, 64 KiB per fd_write, ignoring every
// error.
const floodCommand = `(module
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 2)
  (func (export "_start") (local $i i32)
    (i32.store (i32.const 0) (i32.const 0x100))
    (i32.store (i32.const 4) (i32.const 0x10000))
    (loop $l
      (drop (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 16384))))))`

// TestOutputCappedAsWritten: a reactor and a command that each write 1 GiB
// against --max-output 64 KiB get 502 output_too_large, and the server's
// allocations during the request stay far below what the guests offered:
// the writes over the cap were refused as they were made. (Before the
// cap reached the reactor's output_write, the host collected up to the
// memory limit, 256 MiB, and serve dropped it afterwards.)
func TestOutputCappedAsWritten(t *testing.T) {
	dir := plugins(t, map[string][]byte{"flood": wat2wasm(t, "", floodReactor), "flood-cmd": wat2wasm(t, "", floodCommand)}, nil)
	f := start(t, Config{Dir: dir, MaxOutput: 64 << 10})
	for _, name := range []string{"flood", "flood-cmd"} {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			r := f.do("POST", "/v1/plugins/"+name, "", nil)
			runtime.ReadMemStats(&after)
			require.Equal(t, 502, r.status, "%v", r)
			e := r.err(t)
			require.Equal(t, "output_too_large", e.Code)
			require.Contains(t, e.Message, "more than 65536 bytes")
			grew := after.TotalAlloc - before.TotalAlloc
			t.Logf("allocated during the request: %d KiB", grew>>10)
			require.Less(t, grew, uint64(64<<20), "the server collected the guest's output beyond the cap")
		})
	}
}

// rawConn opens a connection to the fixture and sends head, a request's
// line and headers (each line ending in \r\n) and the blank line after
// them; the body, if any, is the caller's to send.
func rawConn(t *testing.T, f *fixture, head string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(f.url, "http://"))
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	require.NoError(t, c.SetDeadline(time.Now().Add(watchdog)))
	_, err = io.WriteString(c, head+"\r\n")
	require.NoError(t, err)
	return c, bufio.NewReader(c)
}

// answer reads one response from br, within the watchdog.
func answer(t *testing.T, br *bufio.Reader) reply {
	t.Helper()
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err, "no answer within %v", watchdog)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return reply{resp.StatusCode, resp.Header, b, resp.Close}
}

// closedByServer checks that the server closes c (EOF or a reset) within
// the watchdog rather than holding it.
func closedByServer(t *testing.T, c net.Conn, br *bufio.Reader) {
	t.Helper()
	_, err := io.Copy(io.Discard, br)
	var ne net.Error
	require.False(t, errors.As(err, &ne) && ne.Timeout(), "the server held the connection for %v: %v", watchdog, err)
}

// TestRefusedBeforeBody: 24 uploads to a plugin at its concurrency limit,
// whose declared 1 MiB bodies never come, are each refused (429) at once
// and their connections closed, while the server holds no byte of them; a
// Content-Length over MaxBody gets 413 before any body byte is sent.
func TestRefusedBeforeBody(t *testing.T) {
	dir := plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", "")}, map[string]string{"echo": `{"max_concurrent": 1}`})
	f := start(t, Config{Dir: dir, MaxBody: 2 << 20})
	entered, proceed := make(chan struct{}), make(chan struct{})
	release := sync.OnceFunc(func() { close(proceed) })
	t.Cleanup(release)
	var once sync.Once
	f.s.testHookRun = func(string) { once.Do(func() { close(entered); <-proceed }) }
	held := make(chan reply, 1)
	go func() { r, _ := try("POST", f.url+"/v1/plugins/echo", "", []byte("held")); held <- r }()
	<-entered

	const uploads = 24
	conns := make([]net.Conn, uploads)
	readers := make([]*bufio.Reader, uploads)
	for i := range uploads {
		conns[i], readers[i] = rawConn(t, f, "POST /v1/plugins/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n")
	}
	for i := range uploads {
		r := answer(t, readers[i])
		require.Equal(t, 429, r.status, "%v", r)
		require.Equal(t, "overloaded", r.err(t).Code)
		require.Equal(t, "1", r.header.Get("Retry-After"))
		require.True(t, r.close, "Connection: close")
		closedByServer(t, conns[i], readers[i])
	}
	require.Equal(t, int64(len("held")), f.s.buf.used.Load(), "bytes of bodies held: only the running request's")
	require.Equal(t, float64(len("held")), scrape(t, f.url+"/metrics").sum("aclwasm_http_buffered_bytes"))

	c, br := rawConn(t, f, "POST /v1/plugins/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1099511627776\r\n")
	r := answer(t, br)
	require.Equal(t, 413, r.status, "%v", r)
	require.Equal(t, "body_too_large", r.err(t).Code)
	require.True(t, r.close, "Connection: close")
	closedByServer(t, c, br)

	release()
	r = <-held
	require.Equal(t, 200, r.status, "%v", r)
	require.Equal(t, "echo:held", string(r.body))
	released(t, f)
}

// TestTricklingBodyRefused: a refused request whose body trickles in, a
// byte at a time, does not hold the server until its read timeout: the
// answer comes at once and the server closes the connection, with a
// declared length below net/http's 256 KiB drain and with a chunked body,
// for each kind of answer given without reading the body.
func TestTricklingBodyRefused(t *testing.T) {
	t.Parallel() // it waits (on its server, its clients, a timeout) more than it computes
	dir := plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", ""), "bad": wat2wasm(t, "echo", "")},
		map[string]string{"echo": `{"max_concurrent": 1}`, "bad": `{"max_streams": 0}`})
	f := start(t, Config{Dir: dir})
	entered, proceed := make(chan struct{}), make(chan struct{})
	release := sync.OnceFunc(func() { close(proceed) })
	t.Cleanup(release)
	var once sync.Once
	f.s.testHookRun = func(string) { once.Do(func() { close(entered); <-proceed }) }
	held := make(chan reply, 1)
	go func() { r, _ := try("POST", f.url+"/v1/plugins/echo", "", nil); held <- r }()
	<-entered

	var trickling sync.WaitGroup
	defer trickling.Wait()
	for _, tc := range []struct {
		name, line string
		status     int
	}{
		{"at its limit", "POST /v1/plugins/echo", 429},
		{"no such plugin", "POST /v1/plugins/nope", 404},
		{"invalid plugin", "POST /v1/plugins/bad", 500},
		{"wrong method", "PUT /v1/plugins/echo", 405},
		{"no endpoint", "POST /v2/x", 404},
		{"an endpoint without a body", "GET /healthz", 200},
	} {
		for _, framing := range []string{"Content-Length: 100000", "Transfer-Encoding: chunked"} {
			t.Run(tc.name+", "+framing, func(t *testing.T) {
				c, br := rawConn(t, f, tc.line+" HTTP/1.1\r\nHost: x\r\n"+framing+"\r\n")
				trickling.Add(1)
				go func() { // until the server closes, the watchdog ends, or 6000 bytes
					defer trickling.Done()
					b := []byte("x")
					if strings.HasPrefix(framing, "Transfer") {
						b = []byte("1\r\nx\r\n")
					}
					for range 6000 {
						if _, err := c.Write(b); err != nil {
							return
						}
						time.Sleep(10 * time.Millisecond)
					}
				}()
				r := answer(t, br)
				require.Equal(t, tc.status, r.status, "%v", r)
				require.True(t, r.close, "Connection: close")
				closedByServer(t, c, br)
				c.Close() // ends the trickle now rather than at its next write
			})
		}
	}
	release()
	require.Equal(t, 200, (<-held).status)
}

// TestBufferedBound: the bodies held by all requests together stay within
// MaxBuffered: a body that would go beyond it is refused at once with 503
// buffers_full and Retry-After, counted in the metrics, and the bytes held
// return to 0 once the requests end; bodies of unknown length (chunked)
// are held against the bound as they grow.
func TestBufferedBound(t *testing.T) {
	t.Parallel() // it waits (on its server, its clients, a timeout) more than it computes
	dir := plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", "")}, nil)
	f := start(t, Config{Dir: dir, MaxBody: 1 << 20, MaxBuffered: 1 << 20})

	// A 1 MiB upload, half sent: its whole declared length is held.
	c, br := rawConn(t, f, "POST /v1/plugins/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n")
	half := strings.Repeat("a", 1<<19)
	_, err := io.WriteString(c, half)
	require.NoError(t, err)
	for deadline := time.Now().Add(watchdog); f.s.buf.used.Load() != 1<<20 && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
	}
	require.Equal(t, int64(1<<20), f.s.buf.used.Load())

	r := f.do("POST", "/v1/plugins/echo", "", []byte("small"))
	require.Equal(t, 503, r.status, "%v", r)
	require.Equal(t, "buffers_full", r.err(t).Code)
	require.Equal(t, "1", r.header.Get("Retry-After"))
	m := scrape(t, f.url+"/metrics")
	require.Equal(t, float64(1), m.sum("aclwasm_http_buffer_refusals_total"))
	require.Equal(t, float64(1<<20), m.sum("aclwasm_http_buffered_bytes"))

	_, err = io.WriteString(c, half)
	require.NoError(t, err)
	r = answer(t, br)
	require.Equal(t, 200, r.status, "%v", r)
	require.Equal(t, "echo:"+half+half, string(r.body))
	released(t, f)

	// Chunked: 200 KiB in, echoed; over MaxBody, 413.
	for _, tc := range []struct {
		n      int
		status int
	}{{200 << 10, 200}, {1<<20 + 1, 413}} {
		c, br := rawConn(t, f, "POST /v1/plugins/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n")
		go func() { _, _ = fmt.Fprintf(c, "%x\r\n%s\r\n0\r\n\r\n", tc.n, strings.Repeat("b", tc.n)) }()
		r := answer(t, br)
		require.Equal(t, tc.status, r.status, "%v", r)
		if tc.status == 200 {
			require.Equal(t, tc.n+len("echo:"), len(r.body))
		} else {
			require.Equal(t, "body_too_large", r.err(t).Code)
		}
		c.Close()
		released(t, f)
	}
	require.Zero(t, scrape(t, f.url+"/metrics").sum("aclwasm_http_buffered_bytes"))

	_, err = New(t.Context(), Config{Dir: dir, Runtime: f.rt, MaxBody: 2 << 20, MaxBuffered: 1 << 20})
	require.ErrorContains(t, err, "MaxBuffered (1048576) is below MaxBody (2097152)")
}

// released waits until f's server holds no request body: a handler
// releases its body when it returns, and an answer over net/http's
// buffer reaches the client before that, so a check right after the
// answer races with the release.
func released(t *testing.T, f *fixture) {
	t.Helper()
	waitFor(t, "the bodies' bytes released", func() bool { return f.s.buf.used.Load() == 0 })
}

// TestNoDirectoryInAnswers: no answer of any endpoint shows the server's
// plugin directory, neither for plugins whose files cannot be read nor
// when the directory itself cannot; the log keeps the paths.
func TestNoDirectoryInAnswers(t *testing.T) {
	dir := plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", ""), "unreadable": wat2wasm(t, "echo", ""),
		"typo": wat2wasm(t, "echo", ""), "badimport": wat2wasm(t, "badimport", "")}, map[string]string{"typo": `{"max_stream": 1}`})
	require.NoError(t, os.Mkdir(dir+"/unreadable.json", 0o755)) // reading it fails, with its path
	var logs testsupport.Logs
	f := start(t, Config{Dir: dir, AdminToken: "tok", Logger: newTestLogger(&logs)})
	var bodies []string
	for _, q := range []struct{ method, path, token string }{
		{"GET", "/v1/plugins", ""}, {"POST", "/v1/plugins/echo", ""}, {"POST", "/v1/plugins/unreadable", ""},
		{"POST", "/v1/plugins/typo", ""}, {"POST", "/v1/plugins/badimport", ""}, {"POST", "/v1/plugins/nope", ""},
		{"GET", "/healthz", ""}, {"GET", "/readyz", ""}, {"GET", "/metrics", ""}, {"POST", "/v1/admin/reload", "tok"},
		{"POST", "/v1/admin/reload", ""}, {"GET", "/nowhere", ""},
	} {
		r := f.do(q.method, q.path, q.token, nil)
		bodies = append(bodies, q.method+" "+q.path+": "+string(r.body))
	}
	require.Contains(t, bodies[2], `"code":"plugin_invalid"`)
	require.Contains(t, bodies[2], "read unreadable.json: read: is a directory")
	// The directory gone: the admin reload fails, without saying where.
	require.NoError(t, os.Rename(dir, dir+".gone"))
	r := f.do("POST", "/v1/admin/reload", "tok", nil)
	require.Equal(t, 500, r.status, "%v", r)
	require.Contains(t, string(r.body), "the plugin directory cannot be read: open: no such file or directory")
	bodies = append(bodies, "reload of a missing directory: "+string(r.body))
	for _, b := range bodies {
		require.NotContains(t, b, dir, "an answer shows the plugin directory")
	}
	require.Contains(t, logs.String(), dir+"/unreadable.json", "the log keeps the path")
}

// newTestLogger is a server logger in text at level Debug writing to l.
func newTestLogger(l *testsupport.Logs) *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
