package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestJSONLogDurations: serve's JSON log writes durations as Go writes
// them ("2.02s"), at the top level and in groups, not as nanoseconds.
func TestJSONLogDurations(t *testing.T) {
	var buf bytes.Buffer
	log, err := newLogger(&buf, "json", "info")
	require.NoError(t, err)
	log.Info("request", "duration", 2020*time.Millisecond, slog.Group("run", "took", 1500*time.Microsecond), "n", 3)
	var rec map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &rec), "%s", buf.String())
	require.Equal(t, "2.02s", rec["duration"])
	require.Equal(t, map[string]any{"took": "1.5ms"}, rec["run"])
	require.Equal(t, 3.0, rec["n"], "other values keep their JSON type")

	buf.Reset()
	log, err = newLogger(&buf, "text", "info")
	require.NoError(t, err)
	log.Info("request", "duration", 2020*time.Millisecond)
	require.Contains(t, buf.String(), "duration=2.02s")
}
