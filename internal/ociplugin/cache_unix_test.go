//go:build unix

package ociplugin

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/ociplugin/ocitest"
)

// openWriter opens the FIFO at p for writing and closes it: a reader stuck
// opening it then gets end of file.
func openWriter(p string) func() {
	return func() {
		if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
	}
}

// TestCacheFIFO: a FIFO in a blob's place (the module's, the image
// manifest's), or a symbolic link to one outside the cache, is not
// opened for reading: the pull fetches the blob again and replaces it
// with a regular file.
func TestCacheFIFO(t *testing.T) {
	for _, tc := range []struct {
		name string
		blob func(mod, man string) string // the path to replace
		link bool                         // a symbolic link to a FIFO elsewhere
	}{
		{"module", func(mod, _ string) string { return mod }, false},
		{"manifest", func(_, man string) string { return man }, false},
		{"link", func(mod, _ string) string { return mod }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := ocitest.New(t)
			dir := t.TempDir()
			c, r, mod, modPath, manPath := cachedPlugin(t, reg, dir)
			p := tc.blob(modPath, manPath)
			require.NoError(t, os.Remove(p))
			fifo := p
			if tc.link {
				fifo = filepath.Join(t.TempDir(), "fifo")
				require.NoError(t, os.Symlink(fifo, p))
			}
			require.NoError(t, syscall.Mkfifo(fifo, 0o600))
			gets := reg.AllBlobGets() + reg.ManifestRequests()

			a, err := pullWatched(t, c, r, openWriter(fifo))
			require.NoError(t, err)
			require.Equal(t, mod, a.Module)
			require.Equal(t, gets+1, reg.AllBlobGets()+reg.ManifestRequests(), "the blob was not fetched again")
			fi, err := os.Lstat(p)
			require.NoError(t, err)
			require.True(t, fi.Mode().IsRegular(), "the FIFO was not replaced: %v", fi.Mode())
		})
	}
}
