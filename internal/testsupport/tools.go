package testsupport

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// WAT compiles WebAssembly text with wabt's wat2wasm, which the project's
// toolchain script installs; a missing tool fails the test with what to
// run. The import tests need none: their guest is [Proxy].
func WAT(t testing.TB, src string) []byte {
	t.Helper()
	in := filepath.Join(t.TempDir(), "m.wat")
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return WATFile(t, in)
}

var watCache sync.Map // WAT source -> wasm

// CachedWAT is WAT compiling src once per test binary: for benchmarks,
// which run their function several times.
func CachedWAT(t testing.TB, src string) []byte {
	t.Helper()
	if w, ok := watCache.Load(src); ok {
		return w.([]byte)
	}
	w := WAT(t, src)
	watCache.Store(src, w)
	return w
}

// WATFile compiles the WebAssembly text file path, as [WAT] does.
func WATFile(t testing.TB, path string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "m.wasm")
	CompileWAT(t, path, out)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// CompileWAT runs wat2wasm on the text file in, writing the module to out,
// with the further flags (such as --debug-names); a missing tool or a
// failed compile fails the test, showing what wat2wasm said.
func CompileWAT(t testing.TB, in, out string, flags ...string) {
	t.Helper()
	tool, err := exec.LookPath("wat2wasm")
	if err != nil {
		t.Fatalf("wat2wasm (wabt) is required: run scripts/install-toolchains.sh: %v", err)
	}
	args := append(append([]string{}, flags...), in, "-o", out)
	if b, err := exec.Command(tool, args...).CombinedOutput(); err != nil {
		src, _ := os.ReadFile(in)
		t.Fatalf("wat2wasm %s: %v\n%s\n%s", in, err, b, src)
	}
}

// Logs collects the records of a JSON slog handler (slog.NewJSONHandler
// writing to it), for tests of what the host logs.
type Logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write implements io.Writer.
func (l *Logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// Records returns every record written so far, decoded, without its time
// (none before the first).
func (l *Logs) Records(t testing.TB) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.buf.String()), "\n") {
		if line == "" { // nothing written yet
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("a log record that is not JSON: %v: %q", err, line)
		}
		delete(m, "time")
		out = append(out, m)
	}
	return out
}

// Reset forgets the records written so far.
func (l *Logs) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Reset()
}

// String returns what was written so far, as written.
func (l *Logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
