package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRunPrintsAppLog: a guest's aclAppLog records reach stderr as log
// lines at or above --log-level; its stdout stays stdout.
func TestRunPrintsAppLog(t *testing.T) {
	hello := filepath.Join("..", "..", "host", "testdata", "hello.wasm")
	r := cli(t, "run", hello)
	require.Zero(t, r.code, r.stderr)
	require.Equal(t, "hello from the plugin\n", r.stdout)
	require.Regexp(t, `level=WARN msg="tile cache is full" plugin=\S+hello.wasm session=\d+ func=resize file=resize.c line=42\n`, r.stderr)

	r = cli(t, "run", "--log-level", "error", hello)
	require.Zero(t, r.code, r.stderr)
	require.NotContains(t, r.stderr, "tile cache")

	r = cli(t, "run", "--log-level", "loud", hello)
	require.NotZero(t, r.code)
	require.Contains(t, r.stderr, `--log-level "loud": want debug, info, warn or error`)
}
