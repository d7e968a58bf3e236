package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// sandboxDir is the package whose imports_gen.go this command writes.
var sandboxDir = filepath.Join("..", "..")

// TestFresh fails when imports_gen.go differs from what importgen writes
// now: a function added to abi.Funcs, an implementation added or renamed,
// without go generate.
func TestFresh(t *testing.T) {
	want, err := generate(sandboxDir)
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(sandboxDir, out))
	require.NoError(t, err, "run: go generate ./host/internal/sandbox")
	require.Equal(t, string(want), string(got), "host/internal/sandbox/imports_gen.go is stale: run go generate ./host/internal/sandbox")
}

func TestImplName(t *testing.T) {
	for name, want := range map[string]string{
		"aclrtQueryEventWaitStatus": "queryEventWaitStatus",
		"aclrtMalloc":               "malloc",
		"aclGetRecentErrMsg":        "getRecentErrMsg",
		"aclmdlGetDesc":             "getDesc",
		"aclprofCreateStamp":        "createStamp",
		"aclrtGetNotifyId":          "getNotifyID",
		"aclrtStreamGetId":          "streamGetID",
		"aclInit":                   "init", // not a function name Go allows: listed in irregular
	} {
		require.Equal(t, want, implName(name), name)
	}
}

func TestIsImportFn(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.go"), []byte(`package sandbox
type Call struct{}
type importFn func(c *Call) error
func good(c *Call) error { return nil }
func unnamed(*Call) error { return nil }
func factory(b bool) importFn { return nil }
func twoResults(c *Call) (int, error) { return 0, nil }
func value(c Call) error { return nil }
func (c *Call) method(d *Call) error { return nil }
`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a_test.go"), []byte("package sandbox\nfunc inTest(c *Call) error { return nil }\n"), 0o644))
	fns, err := importFns(dir)
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"good": true, "unnamed": true}, fns)
}
