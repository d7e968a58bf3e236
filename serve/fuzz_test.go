package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// statusOf is the package doc's table: each failure code and its status.
var statusOf = map[string]int{
	"bad_request": 400, "unauthorized": 401, "not_found": 404, "method_not_allowed": 405, "body_too_large": 413,
	"load_refused": 422, "not_servable": 422, "overloaded": 429, "plugin_invalid": 500, "host_error": 500,
	"trap": 502, "plugin_failed": 502, "output_too_large": 502, "buffers_full": 503, "shutting_down": 503, "canceled": 503, "timeout": 504,
}

// FuzzServeRequest sends any request (method, path, header lines, body)
// that net/http would hand a handler to a server with a command (echo), a
// reactor (upper) and a trapping plugin. The server never panics, answers
// 200 or a failure of its documented table with a JSON body whose code
// matches the status, holds no body bytes once it has answered, and keeps
// every plugin loaded. The seed corpus is testdata/fuzz/FuzzServeRequest.
func FuzzServeRequest(f *testing.F) {
	dir := plugins(f, map[string][]byte{"echo": wat2wasm(f, "echo", ""), "upper": wat2wasm(f, "upper", ""), "trap": wat2wasm(f, "trap", "")}, nil)
	fx := start(f, Config{Dir: dir, MaxBody: 64 << 10, MaxBuffered: 64 << 10, MaxOutput: 16 << 10, AdminToken: "tok"})
	h := fx.s.Handler()
	f.Fuzz(func(t *testing.T, method, path, headers string, body []byte) {
		var raw bytes.Buffer
		raw.WriteString(method + " " + path + " HTTP/1.1\r\nHost: x\r\n")
		framed := false
		for _, l := range strings.Split(headers, "\n") {
			if l = strings.TrimRight(l, "\r"); l == "" {
				continue
			}
			k, _, _ := strings.Cut(strings.ToLower(l), ":")
			framed = framed || k == "content-length" || k == "transfer-encoding"
			raw.WriteString(l + "\r\n")
		}
		if !framed {
			raw.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n")
		}
		raw.WriteString("\r\n")
		raw.Write(body)
		req, err := http.ReadRequest(bufio.NewReader(&raw))
		if err != nil {
			return // net/http answers it itself (400) and never calls the handler
		}
		req.RemoteAddr = "127.0.0.1:1"
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)

		status := rec.Code
		if status != http.StatusOK {
			require.Equal(t, "application/json", rec.Header().Get("Content-Type"), "%d %q", status, rec.Body.Bytes())
			var e apiError
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &e), "%d %q", status, rec.Body.Bytes())
			want, ok := statusOf[e.Code]
			require.True(t, ok, "undocumented code %q", e.Code)
			require.Equal(t, want, status, "code %s", e.Code)
			require.NotContains(t, rec.Body.String(), dir)
		}
		require.LessOrEqual(t, rec.Body.Len(), 64<<10, "an answer beyond the output limit")
		require.Zero(t, fx.s.buf.used.Load(), "body bytes held after the answer")
		require.Equal(t, 3, fx.s.OpenPlugins())
	})
}

// identities are FuzzAccessRoute's clients: the bearer token each sends
// ("" none) and what accessRules grants it, written out here rather than
// asked of the server, so that the fuzz target judges the server's
// decisions against the rules themselves.
var identities = []struct {
	token   string
	plugins []string // "*": every plugin
	admin   []string
}{
	{token: ""},
	{token: "not-a-token"},
	{token: tokenA, plugins: []string{"echo"}},
	{token: tokenOps, admin: []string{AdminReload, AdminList, AdminMetrics}},
	{token: tokenAll, plugins: []string{"*"}},
	{token: adminToken, admin: []string{AdminReload}},
}

// percentEncode writes path with its byte i percent-encoded where bit i
// of mask is set (upper-case hex digits at even i, lower-case at odd).
func percentEncode(path string, mask uint64) string {
	var b strings.Builder
	for i := 0; i < len(path); i++ {
		switch {
		case i >= 64 || mask>>i&1 == 0:
			b.WriteByte(path[i])
		case i%2 == 0:
			fmt.Fprintf(&b, "%%%02X", path[i])
		default:
			fmt.Fprintf(&b, "%%%02x", path[i])
		}
	}
	return b.String()
}

// FuzzAccessRoute pairs the access decision with the handler that the
// router reaches: a request (method, path with the bytes of mask
// percent-encoded, body) from one of the identities is served by a server
// with access rules, and what it reached is read off its effects: the
// plugin whose version answered (X-Aclwasm-Plugin-Version) or that ran,
// the plugin invoke looked up (404 "no plugin"), the listing, the metrics,
// the reload report. Each must be one its identity's rules grant, whatever
// the spelling (percent-encodings, dot segments, double and escaped
// slashes, case); a client the rules do not know reaches nothing but the
// probes. The seeds are the spellings of TestAccessSpellings, from every
// identity.
func FuzzAccessRoute(f *testing.F) {
	dir := plugins(f, map[string][]byte{"echo": wat2wasm(f, "echo", ""), "upper": wat2wasm(f, "upper", ""), "trap": wat2wasm(f, "trap", "")}, nil)
	fx := start(f, Config{Dir: dir, MaxBody: 64 << 10, MaxBuffered: 64 << 10, MaxOutput: 16 << 10, AdminToken: adminToken,
		ConfigFile: rulesFile(f, accessRules(""))})
	var mu sync.Mutex
	var ran []string // the plugins that ran for a request
	fx.s.testHookRun = func(name string) { mu.Lock(); ran = append(ran, name); mu.Unlock() }
	byVersion := map[string]string{}
	for _, n := range []string{"echo", "upper", "trap"} {
		v := fx.do("POST", "/v1/plugins/"+n, tokenAll, nil).header.Get("X-Aclwasm-Plugin-Version")
		require.NotEmpty(f, v)
		byVersion[v] = n
	}
	require.Len(f, byVersion, 3, "the plugins' versions tell them apart")
	h := fx.s.Handler()

	for _, p := range []string{"/v1/plugin%73/upper", "/v%31/plugins/upper", "/v1/plugins/%75pper", "/V1/plugins/upper",
		"/v1//plugins/upper", "/v1/plugins/echo/../upper", "/v1/plugins/echo/%2e%2e/upper", "/v1/plugins/echo%2Fupper",
		"/v1/plugins/trap", "/v1/plugins/echo", "/v1/plugins", "/metrics", "/v1/admin/reload", "/healthz"} {
		for who := range identities {
			f.Add("POST", p, uint64(0), uint8(who), []byte("x"))
		}
	}
	f.Add("GET", "/v1/plugins", uint64(1<<4|1<<10), uint8(2), []byte(nil))
	f.Add("POST", "/v1/admin/reload", uint64(1<<3|1<<14), uint8(2), []byte(nil))
	f.Add("POST", "/v1/plugins/upper", uint64(1<<1|1<<5|1<<12), uint8(2), []byte("x"))

	f.Fuzz(func(t *testing.T, method, path string, mask uint64, who uint8, body []byte) {
		id := identities[int(who)%len(identities)]
		target := percentEncode(path, mask)
		var raw bytes.Buffer
		raw.WriteString(method + " " + target + " HTTP/1.1\r\nHost: x\r\n")
		if id.token != "" {
			raw.WriteString("Authorization: Bearer " + id.token + "\r\n")
		}
		raw.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n")
		raw.Write(body)
		req, err := http.ReadRequest(bufio.NewReader(&raw))
		if err != nil {
			return // net/http answers it itself (400) and never calls the handler
		}
		req.RemoteAddr = "127.0.0.1:1"
		mu.Lock()
		ran = ran[:0]
		mu.Unlock()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)

		granted := func(what, name string) bool {
			list := id.plugins
			if what == "admin" {
				list = id.admin
			}
			return slices.Contains(list, name) || what == "plugin" && slices.Contains(list, "*")
		}
		out := rec.Body.String()
		where := fmt.Sprintf("%s %q (sent %q) by %q: %d %q", method, path, target, id.token, rec.Code, out)
		var reached []string // "plugin NAME", "admin ACTION"
		if v := rec.Header().Get("X-Aclwasm-Plugin-Version"); v != "" {
			n, ok := byVersion[v]
			require.True(t, ok, "an unknown version %q: %s", v, where)
			reached = append(reached, "plugin "+n)
		}
		mu.Lock()
		for _, n := range ran {
			reached = append(reached, "plugin "+n)
		}
		mu.Unlock()
		var e apiError
		if rec.Code == http.StatusNotFound && json.Unmarshal(rec.Body.Bytes(), &e) == nil {
			if n, ok := strings.CutPrefix(e.Message, "no plugin "); ok {
				name, err := strconv.Unquote(n)
				require.NoError(t, err, where)
				reached = append(reached, "plugin "+name)
			}
		}
		if rec.Code == http.StatusOK {
			switch {
			case strings.HasPrefix(out, `{"plugins":`):
				reached = append(reached, "admin "+AdminList)
			case strings.Contains(out, "# HELP "):
				reached = append(reached, "admin "+AdminMetrics)
			case strings.HasPrefix(out, `{"added":`):
				reached = append(reached, "admin "+AdminReload)
			}
		}
		for _, r := range reached {
			what, name, _ := strings.Cut(r, " ")
			require.True(t, granted(what, name), "reached %s, not granted: %s", r, where)
		}
		if id.plugins == nil && id.admin == nil { // unknown to the rules: the probes, 401, or guard's 404
			probe := out == "{\"status\":\"ok\"}\n" || out == "{\"status\":\"ready\"}\n" ||
				rec.Code == http.StatusMethodNotAllowed && strings.Contains(out, "use GET, HEAD")
			refused := rec.Code == http.StatusUnauthorized ||
				rec.Code == http.StatusNotFound && (strings.Contains(out, "absolute and clean") || strings.Contains(out, "escaped slash"))
			require.True(t, probe || refused, "an unknown client got an answer: %s", where)
		}
		require.Zero(t, fx.s.buf.used.Load(), "body bytes held after the answer")
	})
}
