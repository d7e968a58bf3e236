package podtest

import (
	_ "embed"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

//go:embed testdata/upper.wat
var upperWAT []byte

// UpperIn and UpperOut are a call of the plugin Plugin builds: its
// input and the output it answers.
const UpperIn, UpperOut = "hello, fleet", "HELLO, FLEET"

// Plugin compiles testdata/upper.wat, a reactor that moves its input
// through device memory and answers it in upper case, with wat2wasm
// (wabt; make tools installs it).
func Plugin(t testing.TB) []byte {
	t.Helper()
	tool, err := exec.LookPath("wat2wasm")
	require.NoError(t, err, "wat2wasm (wabt) is required: run scripts/install-toolchains.sh")
	dir := t.TempDir()
	in, out := filepath.Join(dir, "upper.wat"), filepath.Join(dir, "upper.wasm")
	require.NoError(t, os.WriteFile(in, upperWAT, 0o644))
	b, err := exec.Command(tool, in, "-o", out).CombinedOutput()
	require.NoError(t, err, "wat2wasm: %s", b)
	wasm, err := os.ReadFile(out)
	require.NoError(t, err)
	return wasm
}

// StandIn builds the stand-in of libascendcl.so (acl/cann/testdata/standin,
// a C library of the native API over host memory) into dir, for the
// native backend on a machine without an NPU.
func StandIn(t testing.TB, repoRoot, dir string) string {
	t.Helper()
	out := filepath.Join(dir, "libascendcl.so")
	src := filepath.Join(repoRoot, "acl", "cann", "testdata", "standin", "standin.c")
	b, err := exec.Command("gcc", "-shared", "-fPIC", "-O2", "-fvisibility=hidden", "-o", out, src, "-lpthread").CombinedOutput()
	require.NoError(t, err, "gcc %s: %s", src, b)
	return out
}
