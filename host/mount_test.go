package host

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// fsWAT is a guest that re-exports the WASI file functions, so that tests
// drive them from Go with any arguments, exactly as a guest would.
const fsWAT = `(module
  (import "wasi_snapshot_preview1" "path_open" (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_pread" (func $fd_pread (param i32 i32 i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_pwrite" (func $fd_pwrite (param i32 i32 i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_close" (func $fd_close (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_readdir" (func $fd_readdir (param i32 i32 i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_filestat_set_size" (func $fd_filestat_set_size (param i32 i64) (result i32)))
  (import "wasi_snapshot_preview1" "fd_prestat_dir_name" (func $fd_prestat_dir_name (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_unlink_file" (func $path_unlink_file (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_create_directory" (func $path_create_directory (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_symlink" (func $path_symlink (param i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_filestat_get" (func $path_filestat_get (param i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_rename" (func $path_rename (param i32 i32 i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 4)
  (func (export "path_open") (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)
    local.get 0 local.get 1 local.get 2 local.get 3 local.get 4 local.get 5 local.get 6 local.get 7 local.get 8 call $path_open)
  (func (export "fd_read") (param i32 i32 i32 i32) (result i32) local.get 0 local.get 1 local.get 2 local.get 3 call $fd_read)
  (func (export "fd_write") (param i32 i32 i32 i32) (result i32) local.get 0 local.get 1 local.get 2 local.get 3 call $fd_write)
  (func (export "fd_pread") (param i32 i32 i32 i64 i32) (result i32) local.get 0 local.get 1 local.get 2 local.get 3 local.get 4 call $fd_pread)
  (func (export "fd_pwrite") (param i32 i32 i32 i64 i32) (result i32) local.get 0 local.get 1 local.get 2 local.get 3 local.get 4 call $fd_pwrite)
  (func (export "fd_close") (param i32) (result i32) local.get 0 call $fd_close)
  (func (export "fd_readdir") (param i32 i32 i32 i64 i32) (result i32) local.get 0 local.get 1 local.get 2 local.get 3 local.get 4 call $fd_readdir)
  (func (export "fd_filestat_set_size") (param i32 i64) (result i32) local.get 0 local.get 1 call $fd_filestat_set_size)
  (func (export "fd_prestat_dir_name") (param i32 i32 i32) (result i32) local.get 0 local.get 1 local.get 2 call $fd_prestat_dir_name)
  (func (export "path_unlink_file") (param i32 i32 i32) (result i32) local.get 0 local.get 1 local.get 2 call $path_unlink_file)
  (func (export "path_create_directory") (param i32 i32 i32) (result i32) local.get 0 local.get 1 local.get 2 call $path_create_directory)
  (func (export "path_symlink") (param i32 i32 i32 i32 i32) (result i32) local.get 0 local.get 1 local.get 2 local.get 3 local.get 4 call $path_symlink)
  (func (export "path_filestat_get") (param i32 i32 i32 i32 i32) (result i32) local.get 0 local.get 1 local.get 2 local.get 3 local.get 4 call $path_filestat_get)
  (func (export "path_rename") (param i32 i32 i32 i32 i32 i32) (result i32) local.get 0 local.get 1 local.get 2 local.get 3 local.get 4 local.get 5 call $path_rename)
)`

// WASI values the tests use.
const (
	wasiOK         = 0
	wasiEBADF      = 8
	wasiEFBIG      = 22
	wasiEMFILE     = 33
	wasiELOOP      = 32
	wasiENOENT     = 44
	wasiENOSPC     = 51
	wasiEROFS      = 69
	oCreat         = 1
	oDirectory     = 2
	oTrunc         = 8
	fdAppend       = 1
	lookupFollow   = 1
	rightsRead     = 0x2 | 0x4 | 0x20 | 0x4000 | 0x200000 // read, seek, tell, readdir, filestat_get
	rightsWrite    = rightsRead | 0x40 | 0x400000         // and write, filestat_set_size
	fsPath         = 0x100                                // where paths go
	fsPath2        = 0x400
	fsResult       = 0x80
	fsIovs         = 0x200
	fsData         = 0x1000
	firstMountFd   = 3
	maxTestPayload = 0x8000
)

// fsGuest drives fsWAT's instance.
type fsGuest struct {
	t  *testing.T
	in *Instance
}

func newFSGuest(t *testing.T, p Policy) *fsGuest {
	t.Helper()
	rt := newRuntime(t)
	pl := load(t, rt, testsupport.WAT(t, fsWAT), p)
	in, err := pl.Instantiate(context.Background(), Config{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, in.Close(context.Background())) })
	return &fsGuest{t: t, in: in}
}

func (g *fsGuest) call(name string, args ...uint64) uint32 {
	g.t.Helper()
	r, err := g.in.Call(context.Background(), name, args...)
	require.NoError(g.t, err, name)
	return uint32(r[0])
}

func (g *fsGuest) put(off uint32, b []byte) {
	g.t.Helper()
	require.NoError(g.t, g.in.WriteMemory(off, b))
}

func (g *fsGuest) get(off, n uint32) []byte {
	g.t.Helper()
	b, err := g.in.ReadMemory(off, n)
	require.NoError(g.t, err)
	return b
}

func (g *fsGuest) u32(off uint32) uint32 { return binary.LittleEndian.Uint32(g.get(off, 4)) }

// open opens path in directory fd with the given flags, rights and
// fdflags, following symbolic links.
func (g *fsGuest) open(dir uint32, path string, oflags uint32, rights uint64, fdflags uint32) (uint32, uint32) {
	g.t.Helper()
	g.put(fsPath, []byte(path))
	errno := g.call("path_open", uint64(dir), lookupFollow, fsPath, uint64(len(path)), uint64(oflags), rights, rights, uint64(fdflags), fsResult)
	if errno != 0 {
		return 0, errno
	}
	return g.u32(fsResult), 0
}

// iovecs writes iovecs over fsData of the given sizes and returns their
// count.
func (g *fsGuest) iovecs(sizes ...uint32) uint64 {
	off := uint32(fsData)
	for i, n := range sizes {
		var e [8]byte
		binary.LittleEndian.PutUint32(e[:], off)
		binary.LittleEndian.PutUint32(e[4:], n)
		g.put(fsIovs+uint32(8*i), e[:])
		off += n
	}
	return uint64(len(sizes))
}

// read reads into iovecs of the given sizes (one of n by default).
func (g *fsGuest) read(fd uint32, sizes ...uint32) ([]byte, uint32) {
	g.t.Helper()
	g.put(fsResult, []byte{0xff, 0xff, 0xff, 0xff})
	errno := g.call("fd_read", uint64(fd), fsIovs, g.iovecs(sizes...), fsResult)
	if errno != 0 {
		return nil, errno
	}
	return g.get(fsData, g.u32(fsResult)), 0
}

// write writes data split into iovecs of the given sizes (one by default).
func (g *fsGuest) write(fd uint32, data []byte, sizes ...uint32) (uint32, uint32) {
	g.t.Helper()
	if len(sizes) == 0 {
		sizes = []uint32{uint32(len(data))}
	}
	g.put(fsData, data)
	errno := g.call("fd_write", uint64(fd), fsIovs, g.iovecs(sizes...), fsResult)
	if errno != 0 {
		return 0, errno
	}
	return g.u32(fsResult), 0
}

// readAll reads until the end of the file with iovecs of the given sizes:
// wasmtime fills only the first of a call's iovecs, wazero all it can.
func (g *fsGuest) readAll(fd uint32, sizes ...uint32) []byte {
	g.t.Helper()
	var out []byte
	for range 1000 {
		b, errno := g.read(fd, sizes...)
		require.Equal(g.t, uint32(wasiOK), errno)
		if len(b) == 0 {
			return out
		}
		out = append(out, b...)
	}
	g.t.Fatal("no end of file after 1000 reads")
	return nil
}

// writeAll writes data with iovecs of the given sizes, then what a short
// write left in one: wasmtime writes only the first of a call's iovecs.
func (g *fsGuest) writeAll(fd uint32, data []byte, sizes ...uint32) {
	g.t.Helper()
	n, errno := g.write(fd, data, sizes...)
	for range 1000 {
		require.Equal(g.t, uint32(wasiOK), errno)
		if data = data[n:]; len(data) == 0 {
			return
		}
		n, errno = g.write(fd, data)
	}
	g.t.Fatal("not written after 1000 writes")
}

func (g *fsGuest) close(fd uint32) uint32 { return g.call("fd_close", uint64(fd)) }

// pathCall calls a function of (fd, path, len).
func (g *fsGuest) pathCall(name string, dir uint32, path string) uint32 {
	g.put(fsPath, []byte(path))
	return g.call(name, uint64(dir), fsPath, uint64(len(path)))
}

// readdir lists directory fd.
func (g *fsGuest) readdir(fd uint32) ([]string, uint32) {
	g.t.Helper()
	const size = 0x4000
	errno := g.call("fd_readdir", uint64(fd), fsData, size, 0, fsResult)
	if errno != 0 {
		return nil, errno
	}
	n := g.u32(fsResult)
	require.Less(g.t, n, uint32(size), "the listing fits")
	b := g.get(fsData, n)
	var names []string
	for len(b) >= 24 {
		l := binary.LittleEndian.Uint32(b[16:])
		names = append(names, string(b[24:24+l]))
		b = b[24+l:]
	}
	slices.Sort(names)
	return names, 0
}

// hostileTree makes a directory "in" to mount, beside a "secret" file it
// must never reach: symbolic links out (relative, absolute, through ".."
// chains), a loop, and a link that stays inside.
func hostileTree(t *testing.T) (in, secret string) {
	t.Helper()
	top := t.TempDir()
	in = filepath.Join(top, "in")
	secret = filepath.Join(top, "secret")
	require.NoError(t, os.MkdirAll(filepath.Join(in, "sub"), 0o755))
	require.NoError(t, os.WriteFile(secret, []byte("secret"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(in, "sub", "file"), []byte("inside"), 0o644))
	for link, target := range map[string]string{
		"abs":      secret,
		"etc":      "/etc",
		"up":       "../secret",
		"updir":    "..",
		"chain":    "sub/../../secret",
		"deep":     "sub/../sub/../../in/../secret",
		"loop":     "loop",
		"loop2":    "loop3",
		"loop3":    "loop2",
		"ok":       "sub/file",
		"sub/back": "../sub/file",
		"sub/out":  "../../secret",
	} {
		require.NoError(t, os.Symlink(target, filepath.Join(in, link)))
	}
	return in, secret
}

func TestMountConfinesPaths(t *testing.T) {
	in, secret := hostileTree(t)
	g := newFSGuest(t, Policy{Mounts: []Mount{{HostDir: in, GuestDir: "/data", Writable: true}}})

	g.put(fsPath, make([]byte, 5))
	require.Equal(t, uint32(wasiOK), g.call("fd_prestat_dir_name", firstMountFd, fsPath, 5))
	require.Equal(t, "/data", string(g.get(fsPath, 5)), "the mount is the first preopen")

	for _, p := range []string{"ok", "sub/back", "sub/file", "sub/../sub/file", "./ok"} {
		fd, errno := g.open(firstMountFd, p, 0, rightsRead, 0)
		require.Equal(t, uint32(wasiOK), errno, p)
		b, errno := g.read(fd, 64)
		require.Equal(t, uint32(wasiOK), errno, p)
		require.Equal(t, "inside", string(b), p)
		require.Equal(t, uint32(wasiOK), g.close(fd))
	}
	for _, p := range []string{
		"abs", "etc", "etc/hostname", "up", "updir/secret", "chain", "deep", "sub/out",
		"../secret", "sub/../../secret", "../in/../secret", "/etc/hostname", secret, "updir", "../../../../../../etc/hostname",
	} {
		_, errno := g.open(firstMountFd, p, 0, rightsRead, 0)
		require.Equal(t, uint32(wasiENOENT), errno, "%s: outside the mount nothing exists", p)
		g.put(fsPath, []byte(p))
		require.Equal(t, uint32(wasiENOENT), g.call("path_filestat_get", firstMountFd, lookupFollow, fsPath, uint64(len(p)), fsData), p)
		// Writes through the same paths reach nothing either.
		_, errno = g.open(firstMountFd, p, oCreat|oTrunc, rightsWrite, 0)
		require.Contains(t, []uint32{wasiENOENT, 20 /* EEXIST: the link itself */}, errno, p)
	}
	for _, p := range []string{"loop", "loop2"} {
		_, errno := g.open(firstMountFd, p, 0, rightsRead, 0)
		require.Equal(t, uint32(wasiELOOP), errno, p)
	}
	// A link the guest makes is as confined as the tree's.
	target := "../secret"
	g.put(fsPath2, []byte(target))
	g.put(fsPath, []byte("made"))
	require.Equal(t, uint32(wasiOK), g.call("path_symlink", fsPath2, uint64(len(target)), firstMountFd, fsPath, 4))
	_, errno := g.open(firstMountFd, "made", 0, rightsRead, 0)
	require.Equal(t, uint32(wasiENOENT), errno)
	require.Equal(t, uint32(wasiENOENT), g.pathCall("path_create_directory", firstMountFd, "../made"))
	require.Equal(t, uint32(wasiENOENT), g.pathCall("path_unlink_file", firstMountFd, "../secret"))
	require.Equal(t, uint32(wasiENOENT), g.pathCall("path_unlink_file", firstMountFd, "updir/secret"))

	b, err := os.ReadFile(secret)
	require.NoError(t, err)
	require.Equal(t, "secret", string(b), "the file outside is untouched")
	_, err = os.Lstat(filepath.Join(filepath.Dir(in), "made"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestMountReadWriteList(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "in.txt"), []byte("hello, mount"), 0o644))
	g := newFSGuest(t, Policy{Mounts: []Mount{{HostDir: dir, GuestDir: "/work", Writable: true}}})

	fd, errno := g.open(firstMountFd, "in.txt", 0, rightsRead, 0)
	require.Equal(t, uint32(wasiOK), errno)
	require.Equal(t, "hello, mount", string(g.readAll(fd, 5, 100)))
	require.Equal(t, uint32(wasiOK), g.close(fd))

	require.Equal(t, uint32(wasiOK), g.pathCall("path_create_directory", firstMountFd, "out"))
	fd, errno = g.open(firstMountFd, "out/result.txt", oCreat|oTrunc, rightsWrite, 0)
	require.Equal(t, uint32(wasiOK), errno)
	g.writeAll(fd, []byte("written by the guest"), 7, 13)
	require.Equal(t, uint32(wasiOK), g.close(fd))
	got, err := os.ReadFile(filepath.Join(dir, "out", "result.txt"))
	require.NoError(t, err)
	require.Equal(t, "written by the guest", string(got))

	fd, errno = g.open(firstMountFd, ".", oDirectory, rightsRead, 0)
	require.Equal(t, uint32(wasiOK), errno)
	names, errno := g.readdir(fd)
	require.Equal(t, uint32(wasiOK), errno)
	require.Equal(t, []string{".", "..", "in.txt", "out"}, names)
	require.Equal(t, uint32(wasiOK), g.close(fd))
}

func TestMountReadOnlyByDefault(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "in.txt"), []byte("keep"), 0o644))
	g := newFSGuest(t, Policy{Mounts: []Mount{{HostDir: dir, GuestDir: "/ro"}}})

	for _, oflags := range []uint32{0, oTrunc, oCreat} {
		_, errno := g.open(firstMountFd, "in.txt", oflags, rightsWrite, 0)
		require.Equal(t, uint32(wasiEROFS), errno, "open for writing, oflags %d", oflags)
	}
	_, errno := g.open(firstMountFd, "new.txt", oCreat, rightsWrite, 0)
	require.Equal(t, uint32(wasiEROFS), errno)
	require.Equal(t, uint32(wasiEROFS), g.pathCall("path_create_directory", firstMountFd, "d"))
	require.Equal(t, uint32(wasiEROFS), g.pathCall("path_unlink_file", firstMountFd, "in.txt"))
	fd, errno := g.open(firstMountFd, "in.txt", 0, rightsRead, 0)
	require.Equal(t, uint32(wasiOK), errno)
	_, errno = g.write(fd, []byte("x"))
	require.Equal(t, uint32(wasiEBADF), errno, "a file opened for reading takes no write")

	b, err := os.ReadFile(filepath.Join(dir, "in.txt"))
	require.NoError(t, err)
	require.Equal(t, "keep", string(b))
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, ents, 1, "nothing was made")
}

func TestMountNoneMeansNoFilesystem(t *testing.T) {
	g := newFSGuest(t, Policy{})
	_, errno := g.open(firstMountFd, "x", 0, rightsRead, 0)
	require.Equal(t, uint32(wasiEBADF), errno)
}

func TestMountReadLimit(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f"), []byte(strings.Repeat("abcdefghij", 10)), 0o644))
	g := newFSGuest(t, Policy{Mounts: []Mount{{HostDir: dir, GuestDir: "/d"}}, MaxFileReadBytes: 60})
	fd, errno := g.open(firstMountFd, "f", 0, rightsRead, 0)
	require.Equal(t, uint32(wasiOK), errno)
	b, errno := g.read(fd, 40)
	require.Equal(t, uint32(wasiOK), errno)
	require.Len(t, b, 40)
	b, errno = g.read(fd, 100)
	require.Equal(t, uint32(wasiOK), errno)
	require.Equal(t, "abcdefghijabcdefghij", string(b), "a short read of what remains")
	_, errno = g.read(fd, 10)
	require.Equal(t, uint32(wasiEFBIG), errno)
	_, errno = g.read(fd, 0)
	require.Equal(t, uint32(wasiOK), errno, "an empty read moves nothing")
	// The failed read moved nothing: the position is where the budget ended.
	g.put(fsData, make([]byte, 8))
	require.Equal(t, uint32(wasiEFBIG), g.call("fd_pread", uint64(fd), fsIovs, g.iovecs(8), 60, fsResult))
}

func TestMountWriteLimit(t *testing.T) {
	dir := t.TempDir()
	g := newFSGuest(t, Policy{Mounts: []Mount{{HostDir: dir, GuestDir: "/d", Writable: true}}, MaxFileWriteBytes: 50})
	fd, errno := g.open(firstMountFd, "f", oCreat, rightsWrite, 0)
	require.Equal(t, uint32(wasiOK), errno)
	n, errno := g.write(fd, []byte(strings.Repeat("a", 30)))
	require.Equal(t, uint32(wasiOK), errno)
	require.Equal(t, uint32(30), n)
	// 10 + 20 would pass the limit: the call fails whole, its first iovec
	// included.
	_, errno = g.write(fd, []byte(strings.Repeat("b", 30)), 10, 20)
	require.Equal(t, uint32(wasiEFBIG), errno)
	size := func() int64 {
		fi, err := os.Stat(filepath.Join(dir, "f"))
		require.NoError(t, err)
		return fi.Size()
	}
	require.Equal(t, int64(30), size(), "the failed write wrote nothing")
	g.put(fsData, []byte("cc"))
	require.Equal(t, uint32(wasiEFBIG), g.call("fd_pwrite", uint64(fd), fsIovs, g.iovecs(2, 20), 0, fsResult))
	g.writeAll(fd, []byte(strings.Repeat("c", 20)), 5, 15)
	_, errno = g.write(fd, []byte("d"))
	require.Equal(t, uint32(wasiEFBIG), errno)
	require.Equal(t, int64(50), size())
	b, err := os.ReadFile(filepath.Join(dir, "f"))
	require.NoError(t, err)
	require.Equal(t, strings.Repeat("a", 30)+strings.Repeat("c", 20), string(b))
}

func TestMountOpenFilesLimit(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644))
	g := newFSGuest(t, Policy{Mounts: []Mount{{HostDir: dir, GuestDir: "/d"}}, MaxOpenFiles: 2})
	a, errno := g.open(firstMountFd, "f", 0, rightsRead, 0)
	require.Equal(t, uint32(wasiOK), errno)
	_, errno = g.open(firstMountFd, ".", oDirectory, rightsRead, 0)
	require.Equal(t, uint32(wasiOK), errno)
	_, errno = g.open(firstMountFd, "f", 0, rightsRead, 0)
	require.Equal(t, uint32(wasiEMFILE), errno)
	require.Equal(t, uint32(wasiOK), g.close(a))
	_, errno = g.open(firstMountFd, "f", 0, rightsRead, 0)
	require.Equal(t, uint32(wasiOK), errno, "closing gave the file back")
	_, errno = g.open(firstMountFd, "missing", 0, rightsRead, 0)
	require.Equal(t, uint32(wasiEMFILE), errno)
}

func TestMountSizeLimit(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "old"), []byte(strings.Repeat("o", 40)), 0o644))
	p := Policy{Mounts: []Mount{{HostDir: dir, GuestDir: "/d", Writable: true}}, MaxMountBytes: 100}
	if testEngine == "wasmtime" {
		_, err := newRuntime(t).Load(context.Background(), testsupport.WAT(t, fsWAT), p)
		require.ErrorIs(t, err, ErrMount)
		require.ErrorContains(t, err, "MaxMountBytes needs the wazero engine")
		p.Mounts[0].Writable = false // a read-only mount cannot grow: nothing to enforce
		_, err = newRuntime(t).Load(context.Background(), testsupport.WAT(t, fsWAT), p)
		require.NoError(t, err)
		return
	}
	g := newFSGuest(t, p)
	size := func(name string) int64 {
		fi, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err)
		return fi.Size()
	}
	fd, errno := g.open(firstMountFd, "new", oCreat, rightsWrite, 0)
	require.Equal(t, uint32(wasiOK), errno)
	_, errno = g.write(fd, []byte(strings.Repeat("n", 61)), 30, 31)
	require.Equal(t, uint32(wasiENOSPC), errno, "40 held and 61 more pass 100")
	require.Equal(t, int64(0), size("new"), "the failed write wrote nothing")
	n, errno := g.write(fd, []byte(strings.Repeat("n", 60)))
	require.Equal(t, uint32(wasiOK), errno)
	require.Equal(t, uint32(60), n)
	require.Equal(t, uint32(wasiENOSPC), g.call("fd_filestat_set_size", uint64(fd), 61))
	require.Equal(t, int64(60), size("new"))
	// Rewriting bytes the file has does not grow it.
	g.put(fsData, []byte("NN"))
	require.Equal(t, uint32(wasiOK), g.call("fd_pwrite", uint64(fd), fsIovs, g.iovecs(2), 0, fsResult))
	require.Equal(t, uint32(wasiENOSPC), g.call("fd_pwrite", uint64(fd), fsIovs, g.iovecs(2), 59, fsResult))
	// Removing a file frees its bytes; truncating frees them too.
	require.Equal(t, uint32(wasiOK), g.pathCall("path_unlink_file", firstMountFd, "old"))
	n, errno = g.write(fd, []byte(strings.Repeat("m", 40)))
	require.Equal(t, uint32(wasiOK), errno)
	require.Equal(t, uint32(40), n)
	require.Equal(t, uint32(wasiOK), g.call("fd_filestat_set_size", uint64(fd), 10))
	other, errno := g.open(firstMountFd, "other", oCreat, rightsWrite, 0)
	require.Equal(t, uint32(wasiOK), errno)
	_, errno = g.write(other, []byte(strings.Repeat("x", 90)))
	require.Equal(t, uint32(wasiOK), errno)
	_, errno = g.write(other, []byte("y"))
	require.Equal(t, uint32(wasiENOSPC), errno)
	require.Equal(t, int64(10), size("new"))
	require.Equal(t, int64(90), size("other"))
}

func TestMountPolicyChecks(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	rt := newRuntime(t)
	wasm := testsupport.WAT(t, fsWAT)
	for _, c := range []struct {
		mounts []Mount
		want   string
	}{
		{[]Mount{{HostDir: filepath.Join(dir, "missing"), GuestDir: "/d"}}, "Mounts[0]: mount: host directory: stat"},
		{[]Mount{{HostDir: file, GuestDir: "/d"}}, "is not a directory"},
		{[]Mount{{GuestDir: "/d"}}, "no host directory"},
		{[]Mount{{HostDir: dir, GuestDir: "d"}}, `guest directory "d" must be an absolute, clean path`},
		{[]Mount{{HostDir: dir, GuestDir: "/d/../e"}}, `guest directory "/d/../e" must be an absolute, clean path`},
		{[]Mount{{HostDir: dir, GuestDir: "/d/"}}, `guest directory "/d/" must be an absolute, clean path`},
		{[]Mount{{HostDir: dir, GuestDir: ""}}, `guest directory "" must be an absolute, clean path`},
		{[]Mount{{HostDir: dir, GuestDir: "/d"}, {HostDir: dir, GuestDir: "/d"}}, "Mounts[1]: mount: guest directory /d is mounted twice"},
	} {
		_, err := rt.Load(context.Background(), wasm, Policy{Mounts: c.mounts})
		require.ErrorIs(t, err, ErrMount, c.want)
		require.ErrorContains(t, err, c.want)
	}
	_, err := rt.Load(context.Background(), wasm, Policy{MaxOpenFiles: -1})
	require.ErrorContains(t, err, "MaxOpenFiles -1 must not be negative")

	// A relative host directory is resolved once, at Load.
	t.Chdir(dir)
	require.NoError(t, os.Mkdir("rel", 0o755))
	require.NoError(t, os.WriteFile(filepath.Join("rel", "f"), []byte("rel"), 0o644))
	mounts := []Mount{{HostDir: "rel", GuestDir: "/r"}}
	pl, err := rt.Load(context.Background(), wasm, Policy{Mounts: mounts})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pl.Close(context.Background())) })
	require.Equal(t, "rel", mounts[0].HostDir, "the caller's policy is left as it is")
	require.Equal(t, filepath.Join(dir, "rel"), pl.Policy().Mounts[0].HostDir)
}

// filesGuest returns tests/conformance/files.c as built by
// scripts/build-guests.sh.
func filesGuest(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testsupport.GuestDir(), "files.wasm"))
	if err != nil {
		t.Fatalf("the C guest files.wasm: %v (build it: make guests)", err)
	}
	return b
}

// runFiles runs files.wasm with args over a read-only /in (an input
// beside a secret it must not reach) and a writable /out.
func runFiles(t *testing.T, p Policy, args ...string) (stdout, out string) {
	t.Helper()
	top := t.TempDir()
	in, outDir := filepath.Join(top, "in"), filepath.Join(top, "out")
	require.NoError(t, os.Mkdir(in, 0o755))
	require.NoError(t, os.Mkdir(outDir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(in, "input.txt"), []byte("mounted input\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(top, "secret.txt"), []byte("secret"), 0o644))
	require.NoError(t, os.Symlink("../secret.txt", filepath.Join(in, "escape")))
	require.NoError(t, os.Symlink("..", filepath.Join(in, "up")))
	p.Mounts = []Mount{{HostDir: in, GuestDir: "/in"}, {HostDir: outDir, GuestDir: "/out", Writable: true}}
	pl := load(t, newRuntime(t), filesGuest(t), p)
	var buf strings.Builder
	res, err := pl.Run(context.Background(), Config{Args: append([]string{"files"}, args...), Stdout: &buf, Stderr: &buf})
	require.NoError(t, err, buf.String())
	require.Equal(t, uint32(0), res.ExitCode, buf.String())
	b, err := os.ReadFile(filepath.Join(outDir, "result.txt"))
	if err == nil {
		out = string(b)
	}
	return buf.String(), out
}

func TestMountCGuest(t *testing.T) {
	// A path under no mount never reaches the host: wasi-libc answers it
	// itself, with ENOTCAPABLE in the release Debian ships (later ones
	// say ENOENT). Every path the host resolves outside its mount gives
	// ENOENT.
	stdout, out := runFiles(t, Policy{})
	require.Equal(t, "MOUNTED INPUT\n", out)
	require.Equal(t, `copied 14 bytes
/in: escape input.txt up
/in/input.txt r: ok
/in/input.txt w: EROFS
/in/new.txt w: EROFS
/in/../secret.txt r: ENOENT
/in/escape r: ENOENT
/in/up/secret.txt r: ENOENT
/secret.txt r: ENOTCAPABLE
/etc/passwd r: ENOTCAPABLE
/out/../in/input.txt r: ENOENT
`, stdout)
}

func TestMountCGuestLimits(t *testing.T) {
	stdout, _ := runFiles(t, Policy{MaxFileWriteBytes: 3500}, "write")
	require.Equal(t, "wrote 3000 bytes, then EFBIG\n", stdout)
	stdout, _ = runFiles(t, Policy{MaxOpenFiles: 3}, "open")
	require.Equal(t, "opened 3 files, then EMFILE\nafter closing: ok\n", stdout)
	if testEngine != "wasmtime" {
		stdout, _ = runFiles(t, Policy{MaxMountBytes: 2500}, "write")
		require.Equal(t, "wrote 2000 bytes, then ENOSPC\n", stdout)
	}
}

// TestMountIovecCountWraps: an iovec count whose byte size wraps 32 bits
// is the engine's to refuse (wazero reads nothing, wasmtime traps the
// guest for the pointer out of bounds), never a panic of the host's
// checks before it.
func TestMountIovecCountWraps(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f"), []byte("data"), 0o644))
	for _, name := range []string{"fd_read", "fd_write"} {
		g := newFSGuest(t, Policy{Mounts: []Mount{{HostDir: dir, GuestDir: "/d", Writable: true}}, MaxFileReadBytes: 2, MaxFileWriteBytes: 2})
		fd, errno := g.open(firstMountFd, "f", 0, rightsWrite, 0)
		require.Equal(t, uint32(wasiOK), errno)
		_, err := g.in.Call(context.Background(), name, uint64(fd), fsIovs, 0x20000000, fsResult)
		if err != nil {
			require.ErrorIs(t, err, ErrTrap, name)
			require.NotContains(t, err.Error(), "panicked", name)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "f"))
	require.NoError(t, err)
	require.Equal(t, "data", string(b))
}
