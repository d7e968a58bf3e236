// Package testsupport is what the project's tests share: the engine and
// backend they run on, chosen from the environment, the directory of the
// built guests, and the proxy guest, a module that re-exports every
// import of the ABI so that tests drive the imports from Go with any
// arguments, exactly as a guest would.
//
// The package exports Engine, NativeLib, OpLib, Native, GuestDir, Guest,
// GuestPath, Proxy, ProxyWAT, WATParams, RoundtripWAT, SmallWAT, SpinWAT, Stopped, CachedWAT, OutA to Data2 (scratch addresses),
// MemcpyLoopWAT,
// WAT, WATFile, CompileWAT, Python and Logs. It imports nothing of the
// host, so that package host's own tests can use it.
package testsupport

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Engine returns the engine the tests run on: wazero, or the one
// ACLWASM_TEST_ENGINE names (CI runs the suites once per engine;
// wasmtime needs -tags wasmtime).
func Engine() string {
	if e := os.Getenv("ACLWASM_TEST_ENGINE"); e != "" {
		return e
	}
	return "wazero"
}

// NativeLib returns the libascendcl.so that ACLWASM_TEST_ACL_LIB names,
// whose backend the tests delegate to instead of the simulator; "" when
// it names none.
func NativeLib() string { return os.Getenv("ACLWASM_TEST_ACL_LIB") }

// OpLib returns the operator library (libopapi.so) that
// ACLWASM_TEST_OPAPI_LIB names for that backend; "" leaves it to the
// backend's search, which looks beside the libascendcl.so first.
func OpLib() string { return os.Getenv("ACLWASM_TEST_OPAPI_LIB") }

// GuestDir returns the directory the built guests are in:
// $ACLWASM_GUEST_DIR when set, else build/wasm at the module root (where
// scripts/build-guests.sh writes them).
func GuestDir() string {
	if d := os.Getenv("ACLWASM_GUEST_DIR"); d != "" {
		return d
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "build", "wasm")
}

// Guest returns the built guest NAME.wasm of [GuestDir], or fails the
// test saying how to build it.
func Guest(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(GuestPath(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// GuestPath returns the absolute path of the built guest NAME.wasm of
// [GuestDir], or fails the test saying how to build it.
func GuestPath(t testing.TB, name string) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join(GuestDir(), name+".wasm"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s is missing: run make guests (scripts/build-guests.sh)", path)
	} else if err != nil {
		t.Fatal(err)
	}
	return path
}
