package sandbox

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// capture collects JSON log records.
type capture struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Write(p)
}

func (c *capture) records(t *testing.T) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(c.buf.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m))
		delete(m, "time")
		out = append(out, m)
	}
	return out
}

func TestLogWriterBoundsLines(t *testing.T) {
	var c capture
	w := &logWriter{l: slog.New(slog.NewJSONHandler(&c, nil)), level: slog.LevelInfo}
	_, err := w.Write(bytes.Repeat([]byte("x"), maxLogLine+10))
	require.NoError(t, err)
	require.Len(t, c.records(t), 1, "a full buffer is logged")
	require.LessOrEqual(t, len(w.buf), 10)
	w.flush()
	got := c.records(t)
	require.Len(t, got, 2)
	require.Equal(t, strings.Repeat("x", 10), got[1]["msg"])
}
