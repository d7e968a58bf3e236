package host

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host/internal/engine/wazero"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// The on-disk compilation cache (WithCacheDir, wazero): every entry is
// authenticated, so that a forged, corrupted, truncated or misplaced one
// is compiled again (and replaced) instead of crashing the host or running
// code that is not the module's. TestCacheDir (lifecycle_test.go) checks
// that wasmtime still refuses a cache directory.

// exitWAT is a command that exits with code %d: the code a run returns
// says which module's code ran.
const exitWAT = `(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (func (export "_start") (call $exit (i32.const %d))))`

func skipUnlessWazero(t testing.TB) {
	t.Helper()
	if testEngine != "wazero" {
		t.Skip("the on-disk compilation cache is wazero's (TestCacheDir checks wasmtime refuses it)")
	}
}

// cachedRun makes a runtime over cache directory dir, loads and runs wasm
// and checks it exits with code want, and returns what the cache did.
func cachedRun(t testing.TB, dir string, wasm []byte, want uint32) wazero.CacheStats {
	t.Helper()
	ctx := context.Background()
	rt, err := NewRuntime(ctx, append(testBackend(t), WithCacheDir(dir))...)
	require.NoError(t, err)
	defer func() { require.NoError(t, rt.Close(ctx)) }()
	pl, err := rt.Load(ctx, wasm, Policy{})
	require.NoError(t, err)
	defer func() { require.NoError(t, pl.Close(ctx)) }()
	res, err := pl.Run(ctx, Config{})
	require.NoError(t, err)
	require.Equal(t, want, res.ExitCode, "the module's own code ran")
	return rt.engine.(*wazero.Engine).CacheStats()
}

// entryFiles returns the cache's entries.
func entryFiles(t testing.TB, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.entry"))
	require.NoError(t, err)
	return m
}

// onlyEntry returns the path and bytes of the one entry in dir.
func onlyEntry(t testing.TB, dir string) (string, []byte) {
	t.Helper()
	m := entryFiles(t, dir)
	require.Len(t, m, 1)
	b, err := os.ReadFile(m[0])
	require.NoError(t, err)
	return m[0], b
}

// entryContent returns where wazero's file lies in an entry (the format
// of host/internal/engine/wazero/cache.go).
func entryContent(t testing.TB, b []byte) (from, to int) {
	t.Helper()
	off := 8 + 32
	for range 2 { // the wazero directory, the file name
		off += 2 + int(binary.LittleEndian.Uint16(b[off:]))
	}
	n := int(binary.LittleEndian.Uint64(b[off:]))
	require.Equal(t, len(b), off+8+n+32, "the entry's layout")
	return off + 8, off + 8 + n
}

// primed returns a cache directory holding the entry of wasm, made by a
// first run (a miss, stored).
func primed(t testing.TB, wasm []byte, code uint32) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "cache")
	st := cachedRun(t, dir, wasm, code)
	require.Equal(t, wazero.CacheStats{Misses: 1, Stores: 1}, st)
	return dir
}

func TestCacheEntryUsed(t *testing.T) {
	skipUnlessWazero(t)
	t.Setenv("TMPDIR", t.TempDir()) // where the staging directories go
	wasm := testsupport.WAT(t, fmt.Sprintf(exitWAT, 7))
	dir := primed(t, wasm, 7)
	fi, err := os.Stat(dir)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), fi.Mode().Perm(), "the directory is made 0700")
	fi, err = os.Stat(filepath.Join(dir, "key"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the key is made 0600")
	// A second runtime uses the entry: a hit, nothing compiled or stored.
	require.Equal(t, wazero.CacheStats{Hits: 1}, cachedRun(t, dir, wasm, 7))
	left, err := os.ReadDir(os.Getenv("TMPDIR"))
	require.NoError(t, err)
	require.Empty(t, left, "Close removed the staging directories")
}

// TestCacheBadEntry: every kind of bad entry is ignored, the module
// compiled again, runs correctly, and its entry is replaced by a valid
// one (the next run hits).
func TestCacheBadEntry(t *testing.T) {
	skipUnlessWazero(t)
	wasm := testsupport.WAT(t, fmt.Sprintf(exitWAT, 7))
	other := testsupport.WAT(t, fmt.Sprintf(exitWAT, 9))
	for _, c := range []struct {
		name string
		bad  func(t *testing.T, dir, path string, b []byte)
	}{
		{"flipped bit", func(t *testing.T, _, path string, b []byte) {
			from, to := entryContent(t, b)
			b[(from+to)/2] ^= 0x10
			require.NoError(t, os.WriteFile(path, b, 0o600))
		}},
		{"flipped bit in the MAC", func(t *testing.T, _, path string, b []byte) {
			b[len(b)-1] ^= 1
			require.NoError(t, os.WriteFile(path, b, 0o600))
		}},
		{"truncated", func(t *testing.T, _, path string, b []byte) {
			require.NoError(t, os.WriteFile(path, b[:len(b)/2], 0o600))
		}},
		{"empty", func(t *testing.T, _, path string, _ []byte) {
			require.NoError(t, os.WriteFile(path, nil, 0o600))
		}},
		{"forged function count", func(t *testing.T, _, path string, b []byte) {
			// wazero's format (internal/engine/wazevo/engine_cache.go):
			// "WAZEVO", the version's length and the version, the
			// function count (u32), an offset per function (u64), the
			// code's length (u64), the code, its CRC-32C: the count and
			// offsets are outside the checksum, which stays valid. A count
			// of 2^32-1 makes wazero allocate 32 GiB.
			from, _ := entryContent(t, b)
			require.Equal(t, "WAZEVO", string(b[from:from+6]))
			at := from + 7 + int(b[from+6])
			binary.LittleEndian.PutUint32(b[at:], 0xffffffff)
			require.NoError(t, os.WriteFile(path, b, 0o600))
		}},
		{"forged offset", func(t *testing.T, _, path string, b []byte) {
			// The first function's code placed 1 TiB past the code: a
			// call would jump there.
			from, _ := entryContent(t, b)
			at := from + 7 + int(b[from+6])
			require.NotZero(t, binary.LittleEndian.Uint32(b[at:]), "the module has functions")
			binary.LittleEndian.PutUint64(b[at+4:], 1<<40)
			require.NoError(t, os.WriteFile(path, b, 0o600))
		}},
		{"another module's entry", func(t *testing.T, dir, path string, _ []byte) {
			// A valid entry (its MAC under this directory's key) of the
			// module that exits 9, renamed to this module's name.
			require.NoError(t, os.Remove(path))
			require.Equal(t, wazero.CacheStats{Misses: 1, Stores: 1}, cachedRun(t, dir, other, 9))
			m := entryFiles(t, dir)
			require.Len(t, m, 1)
			require.NoError(t, os.Rename(m[0], path))
		}},
		{"a directory", func(t *testing.T, _, path string, _ []byte) {
			require.NoError(t, os.Remove(path))
			require.NoError(t, os.Mkdir(path, 0o700))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := primed(t, wasm, 7)
			path, b := onlyEntry(t, dir)
			c.bad(t, dir, path, b)
			if c.name == "a directory" {
				// Not replaceable by a rename: compiled on every run, but
				// run correctly.
				require.Equal(t, wazero.CacheStats{Misses: 1, Rejected: 1}, cachedRun(t, dir, wasm, 7))
				return
			}
			require.Equal(t, wazero.CacheStats{Misses: 1, Rejected: 1, Stores: 1}, cachedRun(t, dir, wasm, 7))
			require.Equal(t, wazero.CacheStats{Hits: 1}, cachedRun(t, dir, wasm, 7), "the entry was replaced")
		})
	}
}

// TestCacheKeyFile: a missing or garbled key is replaced by a new one (its
// owner alone can write it); the entries made under the old key then fail
// verification and are replaced.
func TestCacheKeyFile(t *testing.T) {
	skipUnlessWazero(t)
	wasm := testsupport.WAT(t, fmt.Sprintf(exitWAT, 7))
	for name, bad := range map[string]func(path string) error{
		"missing": os.Remove,
		"garbled": func(path string) error { return os.WriteFile(path, []byte("short"), 0o600) },
		"empty":   func(path string) error { return os.WriteFile(path, nil, 0o600) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := primed(t, wasm, 7)
			key := filepath.Join(dir, "key")
			old, err := os.ReadFile(key)
			require.NoError(t, err)
			require.NoError(t, bad(key))
			require.Equal(t, wazero.CacheStats{Misses: 1, Rejected: 1, Stores: 1}, cachedRun(t, dir, wasm, 7))
			now, err := os.ReadFile(key)
			require.NoError(t, err)
			require.Len(t, now, 32)
			require.NotEqual(t, old, now)
			require.Equal(t, wazero.CacheStats{Hits: 1}, cachedRun(t, dir, wasm, 7))
		})
	}
}

// TestCacheUnsafeDir: a cache that others could write (the directory) or
// read or write (the key) is refused by NewRuntime, with what to do: its
// entries could have been planted.
func TestCacheUnsafeDir(t *testing.T) {
	skipUnlessWazero(t)
	ctx := context.Background()
	wasm := testsupport.WAT(t, fmt.Sprintf(exitWAT, 7))
	for _, c := range []struct {
		name, want string
		chmod      func(dir string) error
	}{
		{"world-writable directory", "is writable by group or others (mode 0777)", func(dir string) error { return os.Chmod(dir, 0o777) }},
		{"group-writable directory", "is writable by group or others (mode 0770)", func(dir string) error { return os.Chmod(dir, 0o770) }},
		{"readable key", "is readable or writable by group or others (mode 0644)", func(dir string) error { return os.Chmod(filepath.Join(dir, "key"), 0o644) }},
		{"key is a symlink", "is not a regular file", func(dir string) error {
			key := filepath.Join(dir, "key")
			if err := os.Rename(key, key+".real"); err != nil {
				return err
			}
			return os.Symlink(key+".real", key)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := primed(t, wasm, 7)
			require.NoError(t, c.chmod(dir))
			_, err := NewRuntime(ctx, WithCacheDir(dir))
			require.ErrorContains(t, err, c.want)
			require.ErrorContains(t, err, dir)
		})
	}
	t.Run("a file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "f")
		require.NoError(t, os.WriteFile(path, nil, 0o600))
		_, err := NewRuntime(ctx, WithCacheDir(path))
		require.Error(t, err)
	})
}

// TestCacheConcurrentMisses: modules loaded at once into a new cache each
// get their own entry (no module's file is stored as another's): a new
// runtime hits every one and runs each module's code.
func TestCacheConcurrentMisses(t *testing.T) {
	skipUnlessWazero(t)
	ctx := context.Background()
	const n = 4
	mods := make([][]byte, n)
	for i := range mods {
		mods[i] = testsupport.WAT(t, fmt.Sprintf(exitWAT, 10+i))
	}
	dir := filepath.Join(t.TempDir(), "cache")
	rt, err := NewRuntime(ctx, WithCacheDir(dir))
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make([]error, 2*n)
	for g := range 2 * n { // two loads of each module
		wg.Add(1)
		go func() {
			defer wg.Done()
			pl, err := rt.Load(ctx, mods[g%n], Policy{})
			if err == nil {
				err = pl.Close(ctx)
			}
			errs[g] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	st := rt.engine.(*wazero.Engine).CacheStats()
	require.NoError(t, rt.Close(ctx))
	require.Equal(t, int64(n), st.Stores)
	require.Len(t, entryFiles(t, dir), n)
	for i, m := range mods {
		require.Equal(t, wazero.CacheStats{Hits: 1}, cachedRun(t, dir, m, uint32(10+i)))
	}
}

// FuzzCacheEntry mutates a real entry (writes patch at offset at, then
// cuts the entry at cut): Load never crashes, the plugin runs its own
// code, and only the unchanged entry is used.
func FuzzCacheEntry(f *testing.F) {
	skipUnlessWazero(f)
	wasm := testsupport.WAT(f, fmt.Sprintf(exitWAT, 7))
	dir := primed(f, wasm, 7)
	path, entry := onlyEntry(f, dir)
	key, err := os.ReadFile(filepath.Join(dir, "key"))
	require.NoError(f, err)
	f.Add(uint32(0), []byte{}, uint32(0xffffffff)) // unchanged: a hit
	f.Fuzz(func(t *testing.T, at uint32, patch []byte, cut uint32) {
		b := bytes.Clone(entry)
		if len(b) > 0 {
			off := int(at % uint32(len(b)))
			copy(b[off:], patch)
		}
		if int64(cut) < int64(len(b)) {
			b = b[:cut]
		}
		d := filepath.Join(t.TempDir(), "cache")
		require.NoError(t, os.Mkdir(d, 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(d, "key"), key, 0o600))
		require.NoError(t, os.WriteFile(filepath.Join(d, filepath.Base(path)), b, 0o600))
		st := cachedRun(t, d, wasm, 7)
		if bytes.Equal(b, entry) {
			require.Equal(t, wazero.CacheStats{Hits: 1}, st)
		} else {
			require.Equal(t, wazero.CacheStats{Misses: 1, Rejected: 1, Stores: 1}, st)
		}
	})
}
