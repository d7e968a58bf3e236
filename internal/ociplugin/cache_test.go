package ociplugin

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/ociplugin/ocitest"
)

// cachedPlugin pushes a module, pulls it once into a cache at dir, and
// returns the client, the reference by digest, the module and the cache
// paths of the module's and the image manifest's files.
func cachedPlugin(t *testing.T, reg *ocitest.Registry, dir string) (c *Client, r Ref, mod []byte, modPath, manPath string) {
	t.Helper()
	c = client(t, dir, 0)
	mod = module(4096, 9)
	d, err := c.Push(ctx(t), ref(t, "oci://"+reg.Host+"/p/echo:v1"), mod, nil)
	require.NoError(t, err)
	r = ref(t, "oci://"+reg.Host+"/p/echo@"+d.String())
	_, err = c.Pull(ctx(t), r)
	require.NoError(t, err)
	blobs := filepath.Join(dir, "blobs", "sha256")
	return c, r, mod, filepath.Join(blobs, digest.SHA256.FromBytes(mod).Encoded()), filepath.Join(blobs, d.Encoded())
}

// pullWatched pulls r, failing the test if the pull has not returned
// after a generous watchdog; unblock then frees what the pull is stuck
// on, so that the test ends.
func pullWatched(t *testing.T, c *Client, r Ref, unblock func()) (*Artifact, error) {
	t.Helper()
	type result struct {
		a   *Artifact
		err error
	}
	done := make(chan result, 1)
	go func() {
		a, err := c.Pull(context.Background(), r)
		done <- result{a, err}
	}()
	select {
	case res := <-done:
		return res.a, res.err
	case <-time.After(30 * time.Second):
		unblock()
		<-done
		t.Fatal("the pull hangs on a file of the cache")
		return nil, nil
	}
}

// TestCacheOversize: a cache file larger than its blob's descriptor says
// (a sparse file of 1 GiB in the module's place) is not read: the pull
// allocates far less than the file's size, fetches the blob again and
// replaces the file.
func TestCacheOversize(t *testing.T) {
	reg := ocitest.New(t)
	dir := t.TempDir()
	c, r, mod, modPath, _ := cachedPlugin(t, reg, dir)
	f, err := os.OpenFile(modPath, os.O_WRONLY, 0)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(1<<30)) // sparse: no disk space taken
	require.NoError(t, f.Close())
	gets := reg.AllBlobGets()

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	a, err := pullWatched(t, c, r, func() {})
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.Equal(t, mod, a.Module)
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(256<<20), "the oversized cache file was read")
	require.Equal(t, gets+1, reg.AllBlobGets(), "the blob was not fetched again")
	fi, err := os.Stat(modPath)
	require.NoError(t, err)
	require.Equal(t, int64(len(mod)), fi.Size())
}

// TestCacheSymlinkedDirs: a cache whose blobs or blobs/sha256 directory is
// a symbolic link (to a directory elsewhere) is neither read nor written
// through it: the pull fetches from the registry and the linked
// directory stays as it was.
func TestCacheSymlinkedDirs(t *testing.T) {
	for _, link := range []string{"blobs", filepath.Join("blobs", "sha256")} {
		t.Run(filepath.Base(link), func(t *testing.T) {
			reg := ocitest.New(t)
			// A valid cache elsewhere: its entries must not be read either.
			elsewhere := t.TempDir()
			_, r, mod, _, _ := cachedPlugin(t, reg, elsewhere)
			target := filepath.Join(elsewhere, link)
			before := listTree(t, elsewhere)

			dir := t.TempDir()
			require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, link)), 0o700))
			require.NoError(t, os.Symlink(target, filepath.Join(dir, link)))
			c := client(t, dir, 0)
			gets := reg.AllBlobGets()
			a, err := c.Pull(ctx(t), r)
			require.NoError(t, err)
			require.Equal(t, mod, a.Module)
			require.Equal(t, gets+1, reg.AllBlobGets(), "a blob was read through the symbolic link")
			require.Equal(t, before, listTree(t, elsewhere), "a file was written through the symbolic link")
		})
	}
}

// listTree lists the files under dir with their sizes.
func listTree(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	require.NoError(t, filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		out[p] = fi.Size()
		return nil
	}))
	return out
}

// TestCacheCorrupt: a cache file of the right size whose bytes are not
// its digest's (the module's, the image manifest's) is not used: the blob
// is fetched again and the file rewritten with the right bytes. With the
// registry down, the pull fails rather than hand out those bytes.
func TestCacheCorrupt(t *testing.T) {
	for _, which := range []string{"module", "manifest"} {
		t.Run(which, func(t *testing.T) {
			reg := ocitest.New(t)
			dir := t.TempDir()
			c, r, mod, modPath, manPath := cachedPlugin(t, reg, dir)
			p := modPath
			if which == "manifest" {
				p = manPath
			}
			good, err := os.ReadFile(p)
			require.NoError(t, err)
			bad := append([]byte(nil), good...)
			bad[len(bad)/2] ^= 0xff
			require.NoError(t, os.WriteFile(p, bad, 0o600))

			reg.SetDown(true)
			_, err = c.Pull(ctx(t), r)
			require.Error(t, err, "the corrupt cache file was used")
			require.False(t, errors.Is(err, ErrRefused), "%v", err)

			require.NoError(t, os.WriteFile(p, bad, 0o600))
			reg.SetDown(false)
			a, err := c.Pull(ctx(t), r)
			require.NoError(t, err)
			require.Equal(t, mod, a.Module)
			got, err := os.ReadFile(p)
			require.NoError(t, err)
			require.Equal(t, good, got, "the cache file was not rewritten")
		})
	}
}
