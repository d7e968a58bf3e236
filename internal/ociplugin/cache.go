package ociplugin

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/opencontainers/go-digest"
)

// The cache (Options.CacheDir) keeps each blob at blobs/sha256/HEX. Its
// files are not trusted, as the host's compilation cache trusts none of
// its own: whoever else can write the directory, or a crash, may have
// left anything there. So
//
//   - only a regular file is read, opened without blocking (a FIFO in a
//     blob's place would hang the open) and checked again through the
//     open file, so that nothing swapped in after the check is read;
//   - its size is checked before any byte is read: a blob's against its
//     descriptor, an image manifest's against MaxImageManifestBytes (a
//     sparse file of a gigabyte is not read whole);
//   - its bytes must match their digest; a file that does not is removed;
//   - everything is opened through an [os.Root] of the cache directory,
//     and blobs and blobs/sha256 must be directories, not symbolic links:
//     nothing is read or written outside the cache, nor through a link
//     inside it.
//
// A blob is written to a new file of its own (0600) and renamed into
// place, so that a reader never sees part of one.

// blobDirs are the directories under the cache's root, outermost first.
var blobDirs = []string{"blobs", filepath.Join("blobs", "sha256")}

// blobName is the path of digest d under the cache's root.
func blobName(d digest.Digest) string { return filepath.Join("blobs", "sha256", d.Encoded()) }

// cacheable says whether d can name a cache file: a valid sha256 digest,
// whose hex is a plain file name.
func cacheable(d digest.Digest) bool { return d.Validate() == nil && d.Algorithm() == digest.SHA256 }

// realDirs checks that each of blobDirs under root is a directory and no
// symbolic link; with create, a missing one is made (0700).
func realDirs(root *os.Root, create bool) bool {
	for _, p := range blobDirs {
		fi, err := root.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) && create {
			if err := root.Mkdir(p, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return false
			}
			fi, err = root.Lstat(p)
		}
		if err != nil || !fi.IsDir() { // a symbolic link's Lstat is not a directory
			return false
		}
	}
	return true
}

// cached returns the cache's bytes of d when they are there and match it:
// exactly size bytes when exact (a blob's descriptor), else at most size
// (an image manifest fetched by its digest alone). A regular file that
// does not match is removed, to be fetched again and rewritten.
func (c *Client) cached(d digest.Digest, size int64, exact bool) ([]byte, bool) {
	if c.opts.CacheDir == "" || !cacheable(d) || size < 0 {
		return nil, false
	}
	root, err := os.OpenRoot(c.opts.CacheDir)
	if err != nil {
		return nil, false
	}
	defer root.Close()
	if !realDirs(root, false) {
		return nil, false
	}
	name := blobName(d)
	fits := func(fi fs.FileInfo) bool {
		return fi.Mode().IsRegular() && (fi.Size() == size || !exact && fi.Size() <= size)
	}
	fi, err := root.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, false // absent, or no file of ours: replaced by the next store
	}
	if !fits(fi) {
		_ = root.Remove(name)
		return nil, false
	}
	f, err := root.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil || !fits(fi) { // swapped since the Lstat
		return nil, false
	}
	b, err := io.ReadAll(io.LimitReader(f, size+1))
	if err != nil || int64(len(b)) > size || exact && int64(len(b)) != size {
		return nil, false
	}
	if d.Algorithm().FromBytes(b) != d {
		_ = root.Remove(name) // corrupt: fetched again and rewritten
		return nil, false
	}
	return b, true
}

// store writes b, whose digest is d, into the cache; a cache that cannot
// be written (or whose directories are symbolic links) is only a lost
// speed-up.
func (c *Client) store(d digest.Digest, b []byte) {
	if c.opts.CacheDir == "" || !cacheable(d) {
		return
	}
	if err := os.MkdirAll(c.opts.CacheDir, 0o700); err != nil {
		return
	}
	root, err := os.OpenRoot(c.opts.CacheDir)
	if err != nil {
		return
	}
	defer root.Close()
	if !realDirs(root, true) {
		return
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(blobDirs[1], ".tmp-"+hex.EncodeToString(rnd[:]))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if werr != nil || cerr != nil || root.Rename(tmp, blobName(d)) != nil {
		_ = root.Remove(tmp)
	}
}
