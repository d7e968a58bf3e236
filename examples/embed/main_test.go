package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// TestMain: the example, which embedders copy, leaves no goroutine of
// the runtime's behind once it has closed it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRun runs the example on the engine ACLWASM_TEST_ENGINE names and the
// backend ACLWASM_TEST_ACL_LIB names (the simulated device without it).
func TestRun(t *testing.T) {
	opts := []host.Option{host.WithEngine(testsupport.Engine())}
	if b := testsupport.Native(t); b != nil { // closed when the test ends
		opts = append(opts, host.WithBackend(b))
	}
	var logs testsupport.Logs
	n, err := run(context.Background(), "preprocess.yaml", slog.New(slog.NewTextHandler(&logs, nil)), 64, opts...)
	require.NoError(t, err)
	require.Equal(t, 64, n)
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	require.Len(t, lines, 64, "one log line per request")
	for _, l := range lines {
		require.Contains(t, l, `level=INFO msg="preprocessed a lent buffer" plugin=preprocess session=`)
		require.Contains(t, l, "stream=stdout")
	}
}

// TestModuleMatchesSource keeps the committed preprocess.wasm (checked in so
// that `go run ./examples/embed` needs only Go) equal to what wat2wasm makes
// of preprocess.wat; the manifest pins its sha256.
func TestModuleMatchesSource(t *testing.T) {
	want := testsupport.WATFile(t, "preprocess.wat")
	got, err := os.ReadFile("preprocess.wasm")
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, got), "preprocess.wasm is stale: wat2wasm preprocess.wat -o preprocess.wasm, then update the sha256 in preprocess.yaml")
}
