package wazero

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/semaphore"
)

// The on-disk compilation cache (WithCacheDir) holds native code that the
// host maps executable: wazero's own file cache trusts its files (only
// the code, not the function count or offsets, is checksummed), so a
// forged file ends in a fatal out-of-memory, a SIGSEGV or code that is
// not the module's. Here wazero reads only a private staging directory
// (made by os.MkdirTemp, removed on Close) that the host fills with entries
// it verified; the user's directory holds the entries authenticated with
// HMAC-SHA256 under a secret of its own (the key file), each bound to the
// module it was compiled from. An entry that fails verification is
// ignored: the module is compiled again and the entry replaced.
//
// An entry, all integers little-endian:
//
//	magic     8 bytes, "ACLWZC" and the format version (0, 1)
//	key       32 bytes, the entry's lookup key (lookupKey)
//	dir       u16 length, then the name of wazero's versioned directory
//	          (wazero-<version>-<GOARCH>-<GOOS>)
//	name      u16 length, then wazero's file name in it (64 hex digits)
//	content   u64 length, then wazero's file
//	mac       32 bytes, HMAC-SHA256 under the secret of all the above
var entryMagic = []byte("ACLWZC\x00\x01")

const (
	keyFile      = "key"    // the secret, in the cache directory
	entrySuffix  = ".entry" // the entries: the hex lookup key, then this
	secretBytes  = 32
	maxEntrySize = 1 << 30 // far above the code of a MaxModuleBytes module
)

// CacheStats counts what the on-disk cache did, for tests and
// diagnostics.
type CacheStats struct {
	Hits     int64 // entries verified and handed to wazero
	Misses   int64 // modules compiled because no valid entry was there
	Rejected int64 // entries present that failed verification (among Misses)
	Stores   int64 // entries written
}

// diskCache is the authenticated on-disk cache of one engine.
type diskCache struct {
	dir     string // the user's: the entries and the key file
	secret  []byte
	staging string // the private directory wazero's file cache reads
	wzDir   string // wazero's versioned directory in staging (its name)

	// gate lets compilations that may only read staged files run
	// together, and a miss (which attributes the one file wazero adds)
	// run alone: no other module's file can appear during it.
	gate *semaphore.Weighted

	mu     sync.Mutex
	staged map[[32]byte]bool // lookup keys whose wazero file is in staging

	hits, misses, rejected, stores atomic.Int64
}

// gateAll is the weight a miss takes of the gate: all of it.
const gateAll = 1 << 30

// openDiskCache checks dir (made 0700 if absent) and its key file (made
// 0600 if absent or garbled), and makes the staging directory. A
// directory or key file that others could write (or read, for the key),
// or that another user owns, is an error: its entries could be forged.
func openDiskCache(dir string) (*diskCache, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	if err := ownedByMe(fi); err != nil {
		return nil, fmt.Errorf("%s: %w: a cache directory must be the current user's", dir, err)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return nil, fmt.Errorf("%s is writable by group or others (mode %04o): they could plant compiled code; chmod go-w it, or use a directory of your own", dir, fi.Mode().Perm())
	}
	secret, err := loadSecret(filepath.Join(dir, keyFile))
	if err != nil {
		return nil, err
	}
	staging, err := os.MkdirTemp("", "aclwasm-wazero-cache-")
	if err != nil {
		return nil, err
	}
	return &diskCache{dir: dir, secret: secret, staging: staging, gate: semaphore.NewWeighted(gateAll), staged: map[[32]byte]bool{}}, nil
}

// loadSecret reads the key file at path, or writes a new one when it is
// absent or not a secret's size (a crash while it was written, or a
// garbled file: only its owner can write it, so replacing it is safe; the
// entries under the old secret then fail verification and are replaced).
func loadSecret(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return newSecret(path, false)
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("cache key %s is not a regular file", path)
	}
	if err := ownedByMe(fi); err != nil {
		return nil, fmt.Errorf("cache key %s: %w", path, err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("cache key %s is readable or writable by group or others (mode %04o): chmod 600 it", path, fi.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) != secretBytes {
		return newSecret(path, true)
	}
	return b, nil
}

// newSecret writes a new random secret at path, 0600: in place of the
// file there when replace, else only if there still is none (two
// processes may start on a new directory at once: one secret wins, and
// both use it).
func newSecret(path string, replace bool) ([]byte, error) {
	secret := make([]byte, secretBytes)
	if _, err := rand.Read(secret); err != nil {
		return nil, err
	}
	tmp, err := writeTemp(filepath.Dir(path), secret)
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp)
	if replace {
		if err := os.Rename(tmp, path); err != nil {
			return nil, err
		}
		return secret, nil
	}
	if err := os.Link(tmp, path); errors.Is(err, fs.ErrExist) {
		return loadSecret(path)
	} else if err != nil {
		return nil, err
	}
	return secret, nil
}

// writeTemp writes b to a new file of mode 0600 in dir and returns its
// path.
func writeTemp(dir string, b []byte) (string, error) {
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return "", err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// writeAtomic replaces path with b, never showing a partial file. No
// fsync: a file torn by a crash fails verification and is replaced.
func writeAtomic(path string, b []byte) error {
	tmp, err := writeTemp(filepath.Dir(path), b)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// setWazeroDir records the versioned directory wazero made in staging
// (wazero-<version>-<GOARCH>-<GOOS>): its name says everything besides
// the module that changes wazero's code, so it is part of every key.
func (c *diskCache) setWazeroDir() error {
	ents, err := os.ReadDir(c.staging)
	if err != nil {
		return err
	}
	if len(ents) != 1 || !ents[0].IsDir() || !strings.HasPrefix(ents[0].Name(), "wazero-") {
		return fmt.Errorf("compilation cache: unexpected layout of wazero's directory %s", c.staging)
	}
	c.wzDir = ents[0].Name()
	return nil
}

// lookupKey is the key of the entry of a module: its bytes and what else
// changes its compilation (wazero's version, GOARCH and GOOS in wzDir;
// the engine's fixed configuration: close on context done).
func (c *diskCache) lookupKey(wasm []byte) [32]byte {
	h := sha256.New()
	fmt.Fprintf(h, "aclwasm compilation cache\x00%s\x00close-on-context-done\x00", c.wzDir)
	sum := sha256.Sum256(wasm)
	h.Write(sum[:])
	var k [32]byte
	h.Sum(k[:0])
	return k
}

func (c *diskCache) entryPath(k [32]byte) string {
	return filepath.Join(c.dir, hex.EncodeToString(k[:])+entrySuffix)
}

func (c *diskCache) mac(b []byte) []byte {
	m := hmac.New(sha256.New, c.secret)
	m.Write(b)
	return m.Sum(nil)
}

// encode returns the entry of wazero's file name with content for key k.
func (c *diskCache) encode(k [32]byte, name string, content []byte) []byte {
	b := append([]byte(nil), entryMagic...)
	b = append(b, k[:]...)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(c.wzDir)))
	b = append(b, c.wzDir...)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(name)))
	b = append(b, name...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(content)))
	b = append(b, content...)
	return append(b, c.mac(b)...)
}

// decode verifies entry b for key k and returns wazero's file name and
// content in it, or false. The MAC is checked first, so that nothing of a
// forged entry is read; the fields after it still are checked in bounds.
func (c *diskCache) decode(k [32]byte, b []byte) (name string, content []byte, ok bool) {
	if len(b) < len(entryMagic)+32+sha256.Size {
		return "", nil, false
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if !hmac.Equal(c.mac(body), sum) || !bytes.HasPrefix(body, entryMagic) {
		return "", nil, false
	}
	r := body[len(entryMagic):]
	if !bytes.Equal(r[:32], k[:]) { // another module's entry under this name
		return "", nil, false
	}
	r = r[32:]
	field := func() (string, bool) {
		if len(r) < 2 {
			return "", false
		}
		n := int(binary.LittleEndian.Uint16(r))
		if len(r)-2 < n {
			return "", false
		}
		s := string(r[2 : 2+n])
		r = r[2+n:]
		return s, true
	}
	dir, ok1 := field()
	name, ok2 := field()
	if !ok1 || !ok2 || dir != c.wzDir || !wazeroName(name) || len(r) < 8 || binary.LittleEndian.Uint64(r) != uint64(len(r)-8) {
		return "", nil, false
	}
	return name, r[8:], true
}

// wazeroName reports whether name is a file name wazero's cache uses: the
// hex of a 32-byte key (so it cannot leave the staging directory).
func wazeroName(name string) bool {
	if len(name) != 64 {
		return false
	}
	_, err := hex.DecodeString(name)
	return err == nil
}

// read returns the verified entry of key k, or false (counted as a
// rejection when a file was there). Only regular files of a bounded size
// are read.
func (c *diskCache) read(k [32]byte) (name string, content []byte, ok bool) {
	path := c.entryPath(k)
	fi, err := os.Lstat(path)
	if err != nil {
		return "", nil, false
	}
	ok = false
	defer func() {
		if !ok {
			c.rejected.Add(1)
		}
	}()
	if !fi.Mode().IsRegular() || fi.Size() > maxEntrySize {
		return "", nil, false
	}
	f, err := os.Open(path)
	if err != nil {
		return "", nil, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxEntrySize+1))
	if err != nil || len(b) > maxEntrySize {
		return "", nil, false
	}
	return c.decode(k, b)
}

// stage writes a verified wazero file into staging, where wazero's file
// cache finds it.
func (c *diskCache) stage(name string, content []byte) error {
	return writeAtomic(filepath.Join(c.staging, c.wzDir, name), content)
}

// stagedFiles lists the names of the files in wazero's directory.
func (c *diskCache) stagedFiles() (map[string]bool, error) {
	ents, err := os.ReadDir(filepath.Join(c.staging, c.wzDir))
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(ents))
	for _, e := range ents {
		if e.Type().IsRegular() {
			out[e.Name()] = true
		}
	}
	return out, nil
}

// compile compiles wasm with fn, through the cache: a module staged
// before compiles at once (wazero finds its file, or has it in memory); a
// verified entry is staged first; otherwise fn compiles it alone and the
// one file wazero added is stored as the module's entry. Waiting for the
// gate ends with ctx. A failure to store is not the module's: it is
// compiled all the same.
func (c *diskCache) compile(ctx context.Context, wasm []byte, fn func() error) error {
	k := c.lookupKey(wasm)
	if err := c.gate.Acquire(ctx, 1); err != nil {
		return err
	}
	if c.isStaged(k) {
		defer c.gate.Release(1)
		return fn()
	}
	// Staged under the gate: a miss running alone sees no file appear
	// but its own.
	if name, content, ok := c.read(k); ok && c.stage(name, content) == nil {
		defer c.gate.Release(1)
		c.hits.Add(1)
		c.markStaged(k)
		return fn()
	}
	c.gate.Release(1)
	if err := c.gate.Acquire(ctx, gateAll); err != nil {
		return err
	}
	defer c.gate.Release(gateAll)
	if c.isStaged(k) { // a miss of the same module ran meanwhile
		return fn()
	}
	c.misses.Add(1)
	before, lerr := c.stagedFiles()
	if err := fn(); err != nil {
		return err
	}
	after, err := c.stagedFiles()
	if lerr != nil || err != nil {
		return nil
	}
	var added []string
	for n := range after {
		if !before[n] {
			added = append(added, n)
		}
	}
	if len(added) != 1 || !wazeroName(added[0]) {
		return nil // nothing to attribute
	}
	content, err := os.ReadFile(filepath.Join(c.staging, c.wzDir, added[0]))
	if err != nil {
		return nil
	}
	c.markStaged(k)
	if writeAtomic(c.entryPath(k), c.encode(k, added[0], content)) == nil {
		c.stores.Add(1)
	}
	return nil
}

func (c *diskCache) isStaged(k [32]byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.staged[k]
}

func (c *diskCache) markStaged(k [32]byte) {
	c.mu.Lock()
	c.staged[k] = true
	c.mu.Unlock()
}

// stats returns the counts so far.
func (c *diskCache) stats() CacheStats {
	return CacheStats{Hits: c.hits.Load(), Misses: c.misses.Load(), Rejected: c.rejected.Load(), Stores: c.stores.Load()}
}

// close removes the staging directory.
func (c *diskCache) close() error { return os.RemoveAll(c.staging) }
