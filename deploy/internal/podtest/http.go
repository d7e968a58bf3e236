package podtest

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Do sends one request and returns the status and body; token, when not
// empty, goes as a bearer token.
func Do(t testing.TB, c *http.Client, method, url, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	require.NoError(t, err, "%s %s", method, url)
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// WaitReady asks url (a readiness probe's) until it answers 200, as the
// kubelet does; a server still compiling its plugins answers 503. It
// gives up after many seconds (a hang, not a slow machine).
func WaitReady(t testing.TB, c *http.Client, url string) {
	t.Helper()
	status, body := 0, ""
	for i := 0; i < 600; i++ {
		status, body = Do(t, c, http.MethodGet, url, "", "")
		if status == http.StatusOK {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("GET %s: %d %s, never 200", url, status, body)
}
