package host

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// What this package's internal tests share. The tests that drive the
// proxy guest are external (package host_test) and share its harness,
// host/internal/proxytest, with package sandbox's; these are its
// counterparts for the tests that need what the API keeps inside.

// testEngine is the engine the guest tests run on: wazero, or the one
// named by ACLWASM_TEST_ENGINE (CI runs the suite once per engine).
var testEngine = testsupport.Engine()

// testBackend returns the backend options of the guest tests
// (proxytest.Backend).
func testBackend(t testing.TB) []Option {
	if b := testsupport.Native(t); b != nil {
		return []Option{WithBackend(b)}
	}
	return nil
}

// newRuntime is a runtime on the test engine and backend, closed at the
// test's end (proxytest.Runtime).
func newRuntime(t *testing.T, opts ...Option) *Runtime {
	t.Helper()
	rt, err := NewRuntime(context.Background(), append(append(testBackend(t), WithEngine(testEngine)), opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(context.Background())) })
	return rt
}

// load loads wasm under p, closed at the test's end (proxytest.Load).
func load(t *testing.T, rt *Runtime, wasm []byte, p Policy) *Plugin {
	t.Helper()
	pl, err := rt.Load(context.Background(), wasm, p)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pl.Close(context.Background())) })
	return pl
}

var le = binary.LittleEndian
