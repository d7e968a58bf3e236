package wazero

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"sync"
	"syscall"
	"time"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/experimental/sysfs"
	"github.com/tetratelabs/wazero/sys"

	"github.com/aclwasm/aclwasm/host/internal/engine"
)

// Mounts on wazero. Each mount is a rootFS: wazero's experimental sys.FS
// over an os.Root, which confines every path to the host directory (".."
// and symbolic links that lead out, absolute ones included, fail there;
// rootErrno makes that ENOENT: outside the mount nothing exists). wazero's
// own DirFS follows symbolic links out of its directory, so it is not
// used. The files count their bytes, the open ones and a writable mount's
// size against the instance's engine.Files; a call over a limit fails
// before it moves a byte (see calls for how a call is known).

// rootFS is one mount.
type rootFS struct {
	experimentalsys.UnimplementedFS
	root     *os.Root
	writable bool
	files    *engine.Files
	calls    *calls
	size     *mountSize // nil without MaxMountBytes or for a read-only mount
}

// mountSize is the size of a writable mount's regular files, summed over
// their paths (a hard link counts again), against MaxMountBytes.
type mountSize struct {
	mu        sync.Mutex
	used, max uint64
}

// grow adds d bytes (d < 0: frees), or returns WASI's ENOSPC if that
// would pass the bound.
func (m *mountSize) grow(d int64) uint16 {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if d > 0 && uint64(d) > m.max-min(m.used, m.max) {
		return engine.ErrnoNOSPC
	}
	if d < 0 && uint64(-d) > m.used {
		m.used = 0
	} else {
		m.used = uint64(int64(m.used) + d)
	}
	return 0
}

// newRootFS opens mount m for an instance.
func newRootFS(m engine.Mount, files *engine.Files, c *calls) (*rootFS, error) {
	root, err := os.OpenRoot(m.HostDir)
	if err != nil {
		return nil, err
	}
	r := &rootFS{root: root, writable: m.Writable, files: files, calls: c}
	if lim := files.Limits().MaxMountBytes; lim > 0 && m.Writable {
		r.size = &mountSize{max: lim}
		// What the mount holds now counts: the bound is on the mount, not
		// on what one run adds.
		err := fs.WalkDir(root.FS(), ".", func(_ string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() {
				fi, err := d.Info()
				if err != nil {
					return err
				}
				r.size.used += uint64(fi.Size())
			}
			return nil
		})
		if err != nil {
			return nil, errors.Join(err, root.Close())
		}
	}
	return r, nil
}

// rootErrno is the errno of an error of the root: a refusal to leave the
// mount (an error that is no system error) is ENOENT.
func rootErrno(err error) experimentalsys.Errno {
	if err == nil {
		return 0
	}
	var en syscall.Errno
	if !errors.As(err, &en) && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrExist) && !errors.Is(err, fs.ErrClosed) {
		return experimentalsys.ENOENT
	}
	return experimentalsys.UnwrapOSError(err)
}

// name is the root-relative name of a path wazero passes ("" is the mount).
func name(path string) string {
	if path == "" {
		return "."
	}
	return path
}

func (r *rootFS) OpenFile(path string, flag experimentalsys.Oflag, perm fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	write := flag&(experimentalsys.O_WRONLY|experimentalsys.O_RDWR) != 0
	if !r.writable && (write || flag&(experimentalsys.O_CREAT|experimentalsys.O_TRUNC) != 0) {
		return nil, experimentalsys.EROFS
	}
	if flag&experimentalsys.O_DIRECTORY != 0 && write {
		return nil, experimentalsys.EISDIR
	}
	p := name(path)
	if p == "." && flag == experimentalsys.O_RDONLY && perm == 0 {
		// wazero opening the mount itself (its preopen, on first use; the
		// guest's path_open passes a mode): not the guest's file to count,
		// and wazero panics at any error but ENOENT.
		f, err := r.root.Open(".")
		if err != nil {
			return nil, experimentalsys.ENOENT
		}
		inner, errno := (&sysfs.AdaptFS{FS: &opener{f: f, root: r.root}}).OpenFile(p, flag, 0)
		if errno != 0 {
			_ = f.Close()
			return nil, experimentalsys.ENOENT
		}
		return &rootFile{File: inner, fs: r, f: f, name: p, dir: true, mount: true}, 0
	}
	if flag&experimentalsys.O_NOFOLLOW != 0 {
		if fi, err := r.root.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, experimentalsys.ELOOP
		}
	}
	if errno := r.files.Open(); errno != 0 {
		return nil, r.calls.limit(errno)
	}
	var truncated int64 // bytes O_TRUNC frees
	if flag&experimentalsys.O_TRUNC != 0 && r.size != nil {
		if fi, err := r.root.Lstat(p); err == nil && fi.Mode().IsRegular() {
			truncated = fi.Size()
		}
	}
	f, err := r.root.OpenFile(p, osFlag(flag), perm)
	if err != nil {
		r.files.Closed()
		return nil, rootErrno(err)
	}
	fi, err := f.Stat()
	if err == nil && flag&experimentalsys.O_DIRECTORY != 0 && !fi.IsDir() {
		err = syscall.ENOTDIR
	}
	if err != nil {
		r.files.Closed()
		_ = f.Close()
		return nil, rootErrno(err)
	}
	_ = r.size.grow(-truncated)
	inner, errno := (&sysfs.AdaptFS{FS: &opener{f: f, root: r.root}}).OpenFile(p, experimentalsys.O_RDONLY, 0)
	if errno != 0 {
		r.files.Closed()
		_ = f.Close()
		return nil, errno
	}
	return &rootFile{File: inner, fs: r, f: f, name: p, dir: fi.IsDir(), append: flag&experimentalsys.O_APPEND != 0}, 0
}

// osFlag converts wazero's open flags to the os package's.
func osFlag(flag experimentalsys.Oflag) int {
	var o int
	switch {
	case flag&experimentalsys.O_RDWR != 0:
		o = os.O_RDWR
	case flag&experimentalsys.O_WRONLY != 0:
		o = os.O_WRONLY
	}
	for _, m := range [...]struct {
		w experimentalsys.Oflag
		o int
	}{
		{experimentalsys.O_APPEND, os.O_APPEND}, {experimentalsys.O_CREAT, os.O_CREATE},
		{experimentalsys.O_EXCL, os.O_EXCL}, {experimentalsys.O_TRUNC, os.O_TRUNC},
		{experimentalsys.O_SYNC, os.O_SYNC},
	} {
		if flag&m.w != 0 {
			o |= m.o
		}
	}
	return o
}

func (r *rootFS) Lstat(path string) (sys.Stat_t, experimentalsys.Errno) {
	fi, err := r.root.Lstat(name(path))
	if err != nil {
		return sys.Stat_t{}, rootErrno(err)
	}
	return sys.NewStat_t(fi), 0
}

func (r *rootFS) Stat(path string) (sys.Stat_t, experimentalsys.Errno) {
	fi, err := r.root.Stat(name(path))
	if err != nil {
		return sys.Stat_t{}, rootErrno(err)
	}
	return sys.NewStat_t(fi), 0
}

func (r *rootFS) Readlink(path string) (string, experimentalsys.Errno) {
	s, err := r.root.Readlink(name(path))
	return s, rootErrno(err)
}

func (r *rootFS) Mkdir(path string, perm fs.FileMode) experimentalsys.Errno {
	if !r.writable {
		return experimentalsys.EROFS
	}
	return rootErrno(r.root.Mkdir(name(path), perm))
}

func (r *rootFS) Chmod(path string, perm fs.FileMode) experimentalsys.Errno {
	if !r.writable {
		return experimentalsys.EROFS
	}
	return rootErrno(r.root.Chmod(name(path), perm))
}

// sizeOf returns the size of the regular file at p, 0 if it is none.
func (r *rootFS) sizeOf(p string) int64 {
	if fi, err := r.root.Lstat(p); err == nil && fi.Mode().IsRegular() {
		return fi.Size()
	}
	return 0
}

func (r *rootFS) Rename(from, to string) experimentalsys.Errno {
	if !r.writable {
		return experimentalsys.EROFS
	}
	replaced := r.sizeOf(name(to)) // a file renamed over goes
	if errno := rootErrno(r.root.Rename(name(from), name(to))); errno != 0 {
		return errno
	}
	_ = r.size.grow(-replaced)
	return 0
}

func (r *rootFS) Rmdir(path string) experimentalsys.Errno {
	if !r.writable {
		return experimentalsys.EROFS
	}
	p := name(path)
	fi, err := r.root.Lstat(p)
	if err != nil {
		return rootErrno(err)
	}
	if !fi.IsDir() {
		return experimentalsys.ENOTDIR
	}
	return rootErrno(r.root.Remove(p))
}

func (r *rootFS) Unlink(path string) experimentalsys.Errno {
	if !r.writable {
		return experimentalsys.EROFS
	}
	p := name(path)
	fi, err := r.root.Lstat(p)
	if err != nil {
		return rootErrno(err)
	}
	if fi.IsDir() {
		return experimentalsys.EISDIR
	}
	if errno := rootErrno(r.root.Remove(p)); errno != 0 {
		return errno
	}
	if fi.Mode().IsRegular() {
		_ = r.size.grow(-fi.Size())
	}
	return 0
}

func (r *rootFS) Link(oldPath, newPath string) experimentalsys.Errno {
	if !r.writable {
		return experimentalsys.EROFS
	}
	n := r.sizeOf(name(oldPath))
	if errno := r.size.grow(n); errno != 0 {
		return r.calls.limit(errno)
	}
	if errno := rootErrno(r.root.Link(name(oldPath), name(newPath))); errno != 0 {
		_ = r.size.grow(-n)
		return errno
	}
	return 0
}

// Symlink makes a link with any target: following it stays confined.
func (r *rootFS) Symlink(oldPath, linkName string) experimentalsys.Errno {
	if !r.writable {
		return experimentalsys.EROFS
	}
	return rootErrno(r.root.Symlink(oldPath, name(linkName)))
}

func (r *rootFS) Utimens(path string, atim, mtim int64) experimentalsys.Errno {
	if !r.writable {
		return experimentalsys.EROFS
	}
	a, m, errno := times(r.root.Stat, name(path), atim, mtim)
	if errno != 0 {
		return errno
	}
	return rootErrno(r.root.Chtimes(name(path), a, m))
}

// times resolves wazero's UTIME_OMIT for a path's Chtimes.
func times(stat func(string) (fs.FileInfo, error), p string, atim, mtim int64) (a, m time.Time, errno experimentalsys.Errno) {
	conv := func(t int64, old func(sys.Stat_t) int64) (time.Time, experimentalsys.Errno) {
		if t == experimentalsys.UTIME_OMIT {
			fi, err := stat(p)
			if err != nil {
				return time.Time{}, rootErrno(err)
			}
			return time.Unix(0, old(sys.NewStat_t(fi))), 0
		}
		return time.Unix(0, t), 0
	}
	if a, errno = conv(atim, func(s sys.Stat_t) int64 { return s.Atim }); errno != 0 {
		return
	}
	m, errno = conv(mtim, func(s sys.Stat_t) int64 { return s.Mtim })
	return
}

// rootFile is a file or directory open in a mount: wazero's adapter of
// an fs.File (sysfs.AdaptFS) over the *os.File, which gives what needs no
// limit (stat, seek, directory listing, a directory's rewind through
// opener), with the methods that move bytes or change the mount here.
type rootFile struct {
	experimentalsys.File
	fs     *rootFS
	f      *os.File
	name   string // in the root, for Utimens
	dir    bool
	append bool
	mount  bool // the mount itself, which Files does not count
	closed bool
}

// opener is the fs.FS of one open file's adapter: the file opened
// already, then the root (a directory's rewind opens it again).
type opener struct {
	f    *os.File
	root *os.Root
}

func (o *opener) Open(name string) (fs.File, error) {
	if f := o.f; f != nil {
		o.f = nil
		return f, nil
	}
	return o.root.Open(name)
}

func (f *rootFile) IsAppend() bool { return f.append }

// SetAppend is refused: the os package cannot change O_APPEND of an open
// file, and reopening by name could reach another file.
func (f *rootFile) SetAppend(enable bool) experimentalsys.Errno {
	if enable == f.append {
		return 0
	}
	return experimentalsys.ENOSYS
}

func (f *rootFile) Read(buf []byte) (int, experimentalsys.Errno) {
	return f.read(buf, func(b []byte) (int, error) { return f.f.Read(b) })
}

func (f *rootFile) Pread(buf []byte, off int64) (int, experimentalsys.Errno) {
	return f.read(buf, func(b []byte) (int, error) { return f.f.ReadAt(b, off) })
}

// read reads up to what the call may still read (calls.readAllowance).
func (f *rootFile) read(buf []byte, rd func([]byte) (int, error)) (int, experimentalsys.Errno) {
	if f.dir {
		return 0, experimentalsys.EISDIR
	}
	n, errno := f.fs.calls.readAllowance(f.fs.files, uint64(len(buf)))
	if errno != 0 || n == 0 {
		return 0, errno
	}
	got, err := rd(buf[:n])
	f.fs.calls.moved(f.fs.files, uint64(got), false)
	if err != nil && !errors.Is(err, io.EOF) {
		return got, experimentalsys.UnwrapOSError(err)
	}
	return got, 0
}

func (f *rootFile) Write(buf []byte) (int, experimentalsys.Errno) {
	return f.write(buf, -1)
}

func (f *rootFile) Pwrite(buf []byte, off int64) (int, experimentalsys.Errno) {
	return f.write(buf, off)
}

// write writes buf at off (-1: the file's position, or its end in append
// mode) after the call's checks (calls.checkWrite).
func (f *rootFile) write(buf []byte, off int64) (int, experimentalsys.Errno) {
	if f.dir {
		return 0, experimentalsys.EISDIR
	}
	if !f.fs.writable {
		return 0, experimentalsys.EBADF
	}
	if errno := f.fs.calls.checkWrite(f, uint64(len(buf)), off); errno != 0 {
		return 0, errno
	}
	var n int
	var err error
	if off < 0 {
		n, err = f.f.Write(buf)
	} else {
		n, err = f.f.WriteAt(buf, off)
	}
	f.fs.calls.moved(f.fs.files, uint64(n), true)
	return n, experimentalsys.UnwrapOSError(err)
}

// growth returns by how much writing n bytes at off (-1: the position)
// grows the file.
func (f *rootFile) growth(n uint64, off int64) (int64, experimentalsys.Errno) {
	fi, err := f.f.Stat()
	if err != nil {
		return 0, experimentalsys.UnwrapOSError(err)
	}
	at := off
	switch {
	case f.append:
		at = fi.Size()
	case off < 0:
		if at, err = f.f.Seek(0, io.SeekCurrent); err != nil {
			return 0, experimentalsys.UnwrapOSError(err)
		}
	}
	return max(0, at+int64(n)-fi.Size()), 0
}

func (f *rootFile) Truncate(size int64) experimentalsys.Errno {
	if f.dir {
		return experimentalsys.EISDIR
	}
	if !f.fs.writable {
		return experimentalsys.EBADF
	}
	if size < 0 {
		return experimentalsys.EINVAL
	}
	var d int64
	if f.fs.size != nil {
		fi, err := f.f.Stat()
		if err != nil {
			return experimentalsys.UnwrapOSError(err)
		}
		d = size - fi.Size()
		if errno := f.fs.size.grow(d); errno != 0 {
			return f.fs.calls.limit(errno)
		}
	}
	if err := f.f.Truncate(size); err != nil {
		_ = f.fs.size.grow(-d)
		return experimentalsys.UnwrapOSError(err)
	}
	return 0
}

func (f *rootFile) Sync() experimentalsys.Errno { return experimentalsys.UnwrapOSError(f.f.Sync()) }

func (f *rootFile) Datasync() experimentalsys.Errno { return f.Sync() }

func (f *rootFile) Utimens(atim, mtim int64) experimentalsys.Errno {
	if !f.fs.writable {
		return experimentalsys.EROFS
	}
	a, m, errno := times(func(string) (fs.FileInfo, error) { return f.f.Stat() }, "", atim, mtim)
	if errno != 0 {
		return errno
	}
	return rootErrno(f.fs.root.Chtimes(f.name, a, m))
}

func (f *rootFile) Close() experimentalsys.Errno {
	if f.closed {
		return 0
	}
	f.closed = true
	if !f.mount {
		f.fs.files.Closed()
	}
	return f.File.Close()
}
