package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl/cann"
	"github.com/aclwasm/aclwasm/host"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// TestRun runs the example on the engine ACLWASM_TEST_ENGINE names and the
// backend ACLWASM_TEST_ACL_LIB names (the simulated device without it).
func TestRun(t *testing.T) {
	engine := os.Getenv("ACLWASM_TEST_ENGINE")
	if engine == "" {
		engine = "wazero"
	}
	opts := []host.Option{host.WithEngine(engine)}
	if lib := os.Getenv("ACLWASM_TEST_ACL_LIB"); lib != "" {
		b, err := cann.Open(lib)
		require.NoError(t, err)
		defer b.Close()
		opts = append(opts, host.WithBackend(b))
	}
	var logs syncBuf
	n, err := run(context.Background(), "preprocess.yaml", slog.New(slog.NewTextHandler(&logs, nil)), 64, opts...)
	require.NoError(t, err)
	require.Equal(t, 64, n)
	lines := strings.Split(strings.TrimSpace(logs.b.String()), "\n")
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
	wat2wasm, err := exec.LookPath("wat2wasm")
	require.NoError(t, err, "wat2wasm (Debian package wabt) is needed: make tools installs it")
	out := filepath.Join(t.TempDir(), "preprocess.wasm")
	b, err := exec.Command(wat2wasm, "preprocess.wat", "-o", out).CombinedOutput()
	require.NoError(t, err, "%s", b)
	want, err := os.ReadFile(out)
	require.NoError(t, err)
	got, err := os.ReadFile("preprocess.wasm")
	require.NoError(t, err)
	require.True(t, bytes.Equal(want, got), "preprocess.wasm is stale: wat2wasm preprocess.wat -o preprocess.wasm, then update the sha256 in preprocess.yaml")
}
