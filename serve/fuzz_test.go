package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// statusOf is the package doc's table: each failure code and its status.
var statusOf = map[string]int{
	"bad_request": 400, "unauthorized": 401, "not_found": 404, "method_not_allowed": 405, "body_too_large": 413,
	"load_refused": 422, "not_servable": 422, "overloaded": 429, "plugin_invalid": 500, "host_error": 500,
	"trap": 502, "output_too_large": 502, "buffers_full": 503, "shutting_down": 503, "canceled": 503, "timeout": 504,
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
