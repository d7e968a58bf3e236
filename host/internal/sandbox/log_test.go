package sandbox

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

func TestLogWriterBoundsLines(t *testing.T) {
	var c testsupport.Logs
	w := &logWriter{l: slog.New(slog.NewJSONHandler(&c, nil)), level: slog.LevelInfo}
	_, err := w.Write(bytes.Repeat([]byte("x"), maxLogLine+10))
	require.NoError(t, err)
	require.Len(t, c.Records(t), 1, "a full buffer is logged")
	require.LessOrEqual(t, len(w.buf), 10)
	w.flush()
	got := c.Records(t)
	require.Len(t, got, 2)
	require.Equal(t, strings.Repeat("x", 10), got[1]["msg"])
}
