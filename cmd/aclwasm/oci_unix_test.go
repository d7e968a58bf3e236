//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/opencontainers/go-digest"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/ociplugin/ocitest"
)

// TestPullCacheFIFO: a FIFO in place of a cached blob does not hang
// aclwasm pull (cliEnv fails a run of more than a minute): the blob is
// fetched again, and the FIFO replaced by the blob's file.
func TestPullCacheFIFO(t *testing.T) {
	reg := ocitest.New(t)
	env := noCreds(t)
	ref := "oci://" + reg.Host + "/plugins/exit7:v1"
	g := wat(t, "exit7", watExit7)
	r := cliEnv(t, env, "push", g, ref)
	require.Zero(t, r.code, r.stderr)
	wasm, err := os.ReadFile(g)
	require.NoError(t, err)
	cache := t.TempDir()
	r = cliEnv(t, env, "pull", "--cache-dir", cache, ref)
	require.Zero(t, r.code, r.stderr)
	blob := filepath.Join(cache, "oci", "blobs", "sha256", digest.SHA256.FromBytes(wasm).Encoded())
	require.NoError(t, os.Remove(blob))
	require.NoError(t, syscall.Mkfifo(blob, 0o600))
	t.Cleanup(func() { // a pull stuck opening it gets end of file
		if f, err := os.OpenFile(blob, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})

	out := filepath.Join(t.TempDir(), "m.wasm")
	r = cliEnv(t, env, "pull", "--cache-dir", cache, "-o", out, ref)
	require.Zero(t, r.code, r.stderr)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, wasm, got)
	require.Equal(t, 2, reg.BlobGets(digest.SHA256.FromBytes(wasm).String()))
	fi, err := os.Lstat(blob)
	require.NoError(t, err)
	require.True(t, fi.Mode().IsRegular(), "%v", fi.Mode())
}
