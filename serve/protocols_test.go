package serve

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// protoCase is one request of TestProtocols and its documented answer.
type protoCase struct {
	name, method, path, token string
	size                      int // of the request body
	status                    int
	code                      string // "" for 200
}

const (
	smallBody = 2
	largeBody = 1 << 20
)

// protoCases are every status of the package doc's table that a client
// sees while its request is whole (not 400: a body cut short; not 503
// shutting_down or canceled), each with a small body and, where the
// status allows one, a large one that the server mostly does not read.
func protoCases() []protoCase {
	var cs []protoCase
	both := func(name, method, path, token string, status int, code string) {
		cs = append(cs, protoCase{name + ", small", method, path, token, smallBody, status, code},
			protoCase{name + ", large", method, path, token, largeBody, status, code})
	}
	cs = append(cs, protoCase{"command", "POST", "/v1/plugins/echo", tokenAll, smallBody, 200, ""})
	both("reactor", "POST", "/v1/plugins/upper", tokenAll, 200, "")
	both("no token", "POST", "/v1/plugins/echo", "", 401, "unauthorized")
	both("wrong token", "POST", "/v1/plugins/echo", "wrong", 401, "unauthorized")
	both("plugin not granted", "POST", "/v1/plugins/upper", tokenA, 403, "forbidden")
	both("admin action not granted", "POST", "/v1/admin/reload", tokenA, 403, "forbidden")
	both("no plugin", "POST", "/v1/plugins/nope", tokenAll, 404, "not_found")
	both("no endpoint", "POST", "/v2/x", tokenA, 404, "not_found")
	both("not a clean path", "POST", "/v1//plugins/echo", tokenA, 404, "not_found")
	both("method", "GET", "/v1/plugins/echo", tokenA, 405, "method_not_allowed")
	cs = append(cs, protoCase{"body too large", "POST", "/v1/plugins/echo", tokenAll, 3 << 20, 413, "body_too_large"})
	both("refused at load", "POST", "/v1/plugins/badimport", tokenAll, 422, "load_refused")
	both("not servable", "POST", "/v1/plugins/reactor", tokenAll, 422, "not_servable")
	both("overloaded", "POST", "/v1/plugins/busy", tokenAll, 429, "overloaded")
	both("plugin invalid", "POST", "/v1/plugins/bad", tokenAll, 500, "plugin_invalid")
	both("trap", "POST", "/v1/plugins/trap", tokenAll, 502, "trap")
	cs = append(cs, protoCase{"output too large", "POST", "/v1/plugins/echo", tokenAll, largeBody, 502, "output_too_large"})
	both("loading", "POST", "/v1/plugins/late", tokenAll, 503, "loading")
	both("timeout", "POST", "/v1/plugins/spin", tokenAll, 504, "timeout")
	return cs
}

// protoBody is the request body of size n: lower-case letters, so that
// upper's answer differs from it.
func protoBody(n int) []byte {
	return bytes.Repeat([]byte("abcdefghijklmnop"), n/16+1)[:n]
}

// protoServer starts a server with access rules for protoCases, over TLS
// when p is set: busy is held in its only run, late in its first
// compilation, until the test ends.
func protoServer(t *testing.T, p *pki) *fixture {
	t.Helper()
	dir := plugins(t, map[string][]byte{
		"echo": wat2wasm(t, "echo", ""), "upper": wat2wasm(t, "upper", ""), "trap": wat2wasm(t, "trap", ""),
		"badimport": wat2wasm(t, "badimport", ""), "reactor": wat2wasm(t, "reactor", ""), "bad": wat2wasm(t, "exit3", ""),
		"busy": wat2wasm(t, "echo", ""), "late": wat2wasm(t, "echo", ""),
		"spin": wat2wasm(t, "", `(module (func (export "_start") (loop $l (br $l))))`),
	}, map[string]string{"bad": `{"max_streams": 0}`, "busy": `{"max_concurrent": 1}`, "spin": `{"timeout": "100ms"}`})
	release := make(chan struct{})
	stop := sync.OnceFunc(func() { close(release) })
	cfg := Config{Dir: dir, ConfigFile: rulesFile(t, accessRules("")), MaxBody: 2 << 20, MaxOutput: largeBody + 4,
		testHookLoad: func(name string) {
			if name == "late" {
				<-release
			}
		}}
	if p != nil {
		cfg.TLS = &TLSConfig{CertFile: p.certFile, KeyFile: p.keyFile}
	}
	f := startAll(t, cfg, nil, false)
	t.Cleanup(stop) // before the fixture's shutdown, which waits for late's load: cleanups run last first
	entered := make(chan struct{})
	once := sync.Once{}
	f.s.testHookRun = func(name string) {
		if name == "busy" {
			once.Do(func() { close(entered) })
			<-release
		}
	}
	c := &http.Client{Timeout: time.Minute}
	if p != nil {
		f.url = "https" + strings.TrimPrefix(f.url, "http")
		c = tlsClient(t, p.serverPool, nil, true)
	}
	held := *c
	held.Timeout = 0 // busy's request lasts as long as the test; the cleanup's watchdog bounds it
	// Every plugin but late is loaded (refused ones included) before the
	// cases run.
	for deadline := time.Now().Add(watchdog); ; time.Sleep(10 * time.Millisecond) {
		r, _, err := call(c, "GET", f.url+"/v1/plugins", tokenOps, nil)
		require.NoError(t, err)
		var l struct{ Plugins []PluginInfo }
		require.NoError(t, json.Unmarshal(r.body, &l), "%v", r)
		if len(l.Plugins) == 8 {
			break
		}
		require.True(t, time.Now().Before(deadline), "the plugins did not load: %v", r)
	}
	done := make(chan reply, 1)
	go func() {
		r, _, err := call(&held, "POST", f.url+"/v1/plugins/busy", tokenAll, []byte("x"))
		if err != nil {
			r = reply{body: []byte(err.Error())}
		}
		done <- r
	}()
	t.Cleanup(func() {
		stop()
		select {
		case r := <-done:
			require.Equal(t, 200, r.status, "the held request: %v", r)
		case <-time.After(watchdog):
			t.Error("the held request did not end")
		}
	})
	select {
	case <-entered:
	case <-time.After(watchdog):
		t.Fatal("the held request did not start its run")
	}
	return f
}

// checkAnswer checks an answer to tc: its status, its whole body (as
// long as Content-Length says), a JSON failure of the documented code, or
// the plugin's output for input in.
func checkAnswer(t *testing.T, tc protoCase, in []byte, status int, header http.Header, body []byte) {
	t.Helper()
	require.Equal(t, tc.status, status, "%s", body)
	if n := header.Get("Content-Length"); n != "" {
		require.Equal(t, n, strconv.Itoa(len(body)), "a partial body: %q", body)
	}
	switch {
	case tc.status == 200 && strings.HasSuffix(tc.path, "/echo"):
		require.Equal(t, "echo:"+string(in), string(body))
	case tc.status == 200:
		require.Equal(t, strings.ToUpper(string(in)), string(body))
	default:
		require.Equal(t, "application/json", header.Get("Content-Type"))
		var e apiError
		require.NoError(t, json.Unmarshal(body, &e), "%q", body)
		require.Equal(t, tc.code, e.Code, "%q", body)
		require.NotEmpty(t, e.Message)
	}
}

// TestProtocols: every documented status arrives whole, with its JSON
// body, over HTTP/1.1, HTTP/2 over TLS (h2) and HTTP/2 in clear text with
// prior knowledge (h2c), with small bodies and with large ones the server
// refuses without reading: from Go's clients (net/http's HTTP/2), and
// from curl. Over HTTP/2 a refusal ends its stream only (RST_STREAM
// NO_ERROR after the whole answer, as net/http's server does for a body
// not read): the client's connection stays, every request of a Go
// client's run goes over one connection. An HTTP/1.1 refusal before the
// body is read closes its connection instead.
func TestProtocols(t *testing.T) {
	t.Parallel() // it waits (on its server, its clients, a timeout) more than it computes
	curl, err := exec.LookPath("curl")
	require.NoError(t, err, "curl is required: run scripts/install-toolchains.sh")
	p := newPKI(t)
	plain, secure := protoServer(t, nil), protoServer(t, p)
	roots := &tls.Config{RootCAs: p.serverPool, MinVersion: tls.VersionTLS12}
	in := map[int][]byte{}
	files := map[int]string{}
	for _, tc := range protoCases() {
		if _, ok := in[tc.size]; !ok {
			in[tc.size] = protoBody(tc.size)
			files[tc.size] = filepath.Join(t.TempDir(), "in")
			require.NoError(t, os.WriteFile(files[tc.size], in[tc.size], 0o644))
		}
	}

	for _, pc := range []struct {
		name   string
		f      *fixture
		proto  func(*http.Protocols)
		tls    bool
		major  int
		curl   []string
		curlHV string
	}{
		{"HTTP/1.1", plain, func(p *http.Protocols) { p.SetHTTP1(true) }, false, 1, []string{"--http1.1"}, "1.1"},
		{"h2c", plain, func(p *http.Protocols) { p.SetUnencryptedHTTP2(true) }, false, 2, []string{"--http2-prior-knowledge"}, "2"},
		{"HTTP/1.1 over TLS", secure, func(p *http.Protocols) { p.SetHTTP1(true) }, true, 1, nil, "1.1"}, // curl: the plain HTTP/1.1 run
		{"h2", secure, func(p *http.Protocols) { p.SetHTTP2(true) }, true, 2, []string{"--http2", "--cacert", p.caFile}, "2"},
	} {
		// The protocols at once: the server's state is the same for
		// every request (busy held, late loading), each protocol has its
		// own client, and an HTTP/2 refusal's wait overlaps the others.
		t.Run(pc.name, func(t *testing.T) {
			t.Parallel()
			ps := new(http.Protocols)
			pc.proto(ps)
			tr := &http.Transport{Protocols: ps}
			if pc.tls {
				// A copy each: the HTTP/2 transport adds "h2" to its
				// config's NextProtos.
				tr.TLSClientConfig = roots.Clone()
			}
			defer tr.CloseIdleConnections()
			c := &http.Client{Transport: tr, Timeout: time.Minute}
			conns := map[string]bool{}
			var mu sync.Mutex
			trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) {
				mu.Lock()
				conns[i.Conn.LocalAddr().String()] = true
				mu.Unlock()
			}}
			for _, tc := range protoCases() {
				t.Run("go/"+tc.name, func(t *testing.T) {
					req, err := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), tc.method, pc.f.url+tc.path, bytes.NewReader(in[tc.size]))
					require.NoError(t, err)
					if tc.token != "" {
						req.Header.Set("Authorization", "Bearer "+tc.token)
					}
					resp, err := c.Do(req)
					require.NoError(t, err)
					defer resp.Body.Close()
					require.Equal(t, pc.major, resp.ProtoMajor)
					body, err := io.ReadAll(resp.Body)
					require.NoError(t, err, "the body: %q", body)
					checkAnswer(t, tc, in[tc.size], resp.StatusCode, resp.Header, body)
				})
			}
			if pc.major == 2 {
				t.Run("one connection", func(t *testing.T) { require.Len(t, conns, 1, "a refusal ended the HTTP/2 connection") })
			}
			for _, tc := range protoCases() {
				if pc.curl == nil {
					break
				}
				t.Run("curl/"+tc.name, func(t *testing.T) {
					out := filepath.Join(t.TempDir(), "out")
					hdr := filepath.Join(t.TempDir(), "headers")
					args := append([]string{"-sS", "--max-time", "60", "-X", tc.method, "--data-binary", "@" + files[tc.size],
						"-H", "Content-Type: application/octet-stream", "-o", out, "-D", hdr, "-w", "%{http_code} %{http_version}"}, pc.curl...)
					if tc.token != "" {
						args = append(args, "-H", "Authorization: Bearer "+tc.token)
					}
					got, err := exec.Command(curl, append(args, pc.f.url+tc.path)...).CombinedOutput()
					require.NoError(t, err, "curl: %s", got)
					status, version, _ := strings.Cut(string(got), " ")
					require.Equal(t, pc.curlHV, version)
					body, err := os.ReadFile(out)
					require.NoError(t, err)
					raw, err := os.ReadFile(hdr)
					require.NoError(t, err)
					header := http.Header{}
					for _, l := range strings.Split(string(raw), "\n") {
						if k, v, ok := strings.Cut(strings.TrimSpace(l), ":"); ok {
							header.Add(k, strings.TrimSpace(v))
						}
					}
					n, err := strconv.Atoi(status)
					require.NoError(t, err, "%s", got)
					checkAnswer(t, tc, in[tc.size], n, header, body)
				})
			}
		})
	}
}
