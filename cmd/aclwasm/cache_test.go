package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDefaultCache: run keeps compiled modules in the user's cache
// directory's aclwasm by default (authenticated entries, a 0600 key),
// an empty --cache-dir turns that off, and a default cache that cannot be used
// is left out with a warning, never an error.
func TestDefaultCache(t *testing.T) {
	hello := filepath.Join("..", "..", "host", "testdata", "hello.wasm")
	dir := filepath.Join(cacheHome, "aclwasm")
	r := cli(t, "run", hello)
	require.Zero(t, r.code, r.stderr)
	key, err := os.Stat(filepath.Join(dir, "key"))
	require.NoError(t, err, "the default cache holds its key")
	require.Equal(t, os.FileMode(0o600), key.Mode().Perm())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Greater(t, len(entries), 1, "an entry beside the key")

	// Off: nothing is written where the cache would be.
	off := t.TempDir()
	r = cliEnv(t, []string{"XDG_CACHE_HOME=" + off}, "run", "--cache-dir", "", hello)
	require.Zero(t, r.code, r.stderr)
	_, err = os.Stat(filepath.Join(off, "aclwasm"))
	require.True(t, os.IsNotExist(err), "--cache-dir '' writes no cache")

	// Unusable (world-writable): the run goes on without it and says so.
	bad := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(bad, "aclwasm"), 0o777))
	require.NoError(t, os.Chmod(filepath.Join(bad, "aclwasm"), 0o777))
	r = cliEnv(t, []string{"XDG_CACHE_HOME=" + bad}, "run", hello)
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stderr, "the default compilation cache is not used")
	// Asked for, the same directory is an error.
	r = cliEnv(t, []string{"XDG_CACHE_HOME=" + bad}, "run", "--cache-dir", filepath.Join(bad, "aclwasm"), hello)
	require.Equal(t, exitHost, r.code, r.stderr)
}
