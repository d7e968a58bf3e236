//go:build wasmtime && cgo

package wasmtime

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
	"unsafe"

	"github.com/bytecodealliance/wasmtime-go/v39"

	"github.com/aclwasm/aclwasm/host/internal/engine"
)

// Mounts on wasmtime. Each mount is a preopened directory of wasmtime's
// WASI (cap-std: every path resolves inside it, symbolic links included),
// read-only unless writable (its directory and file permissions). The
// limits need the adapter: instances with mounts are linked with shadows
// of WASI's data, open and path functions, which check the call, then run
// wasmtime's function of the same name (through the trampoline, see
// defineOriginals), then count what it did. Instances without mounts are
// linked as before, with no shadow. What wasmtime's WASI cannot report, a
// file's size after a write, is what the host refuses here
// (MaxMountBytes).

// fileFuncs are the shadowed WASI functions besides fd_read and fd_write,
// with their parameter types and the parameter indexes of their paths
// (directory fd, pointer, length), whose EPERM becomes ENOENT for a path
// that leaves its mount, or EROFS in a read-only mount, as on wazero.
var fileFuncs = [...]struct {
	name   string
	params []wasmtime.ValKind
	paths  [][3]int
}{
	{"fd_pread", kinds("iiiIi"), nil},
	{"fd_pwrite", kinds("iiiIi"), nil},
	{"fd_close", kinds("i"), nil},
	{"fd_renumber", kinds("ii"), nil},
	{"path_open", kinds("iiiiiIIii"), [][3]int{{0, 2, 3}}},
	{"path_filestat_get", kinds("iiiii"), [][3]int{{0, 2, 3}}},
	{"path_filestat_set_times", kinds("iiiiIIi"), [][3]int{{0, 2, 3}}},
	{"path_create_directory", kinds("iii"), [][3]int{{0, 1, 2}}},
	{"path_remove_directory", kinds("iii"), [][3]int{{0, 1, 2}}},
	{"path_unlink_file", kinds("iii"), [][3]int{{0, 1, 2}}},
	{"path_readlink", kinds("iiiiii"), [][3]int{{0, 1, 2}}},
	{"path_rename", kinds("iiiiii"), [][3]int{{0, 1, 2}, {3, 4, 5}}},
	{"path_link", kinds("iiiiiii"), [][3]int{{0, 2, 3}, {4, 5, 6}}},
	{"path_symlink", kinds("iiiii"), [][3]int{{2, 3, 4}}},
}

// Indexes in fileFuncs of the functions with more to do than a call.
const (
	fileFdPread = iota
	fileFdPwrite
	fileFdClose
	fileFdRenumber
	filePathOpen
)

// The originals of fd_read and fd_write follow fileFuncs' in
// wasmtimeInstance.orig.
const (
	origFdRead  = len(fileFuncs)
	origFdWrite = len(fileFuncs) + 1
	origCount   = len(fileFuncs) + 2
)

// envFile is the env of fileFuncs[0], the others follow.
const envFile uintptr = 1<<31 + 64

func kinds(s string) []wasmtime.ValKind {
	out := make([]wasmtime.ValKind, len(s))
	for i, c := range s {
		out[i] = wasmtime.KindI32
		if c == 'I' {
			out[i] = wasmtime.KindI64
		}
	}
	return out
}

// WASI errno values of the mounts.
const (
	wasiEPERM = 63
	wasiEROFS = 69
)

// dirRef is where an fd the guest holds is: its mount and its path there.
type dirRef struct {
	mount int
	rel   string
}

// defineFiles puts the shadows of fileFuncs in l.
func defineFiles(l *wasmtime.Linker) error {
	i32 := wasmtime.NewValType(wasmtime.KindI32)
	for k, f := range fileFuncs {
		params := make([]*wasmtime.ValType, len(f.params))
		for i, p := range f.params {
			params[i] = wasmtime.NewValType(p)
		}
		if err := defineFunc(l, "wasi_snapshot_preview1", f.name, wasmtime.NewFuncType(params, []*wasmtime.ValType{i32}), envFile+uintptr(k)); err != nil {
			return err
		}
	}
	return nil
}

// origName returns the name of wasmtime's function k of orig, and its
// parameters.
func origName(k int) (string, []wasmtime.ValKind) {
	switch k {
	case origFdRead:
		return "fd_read", kinds("iiii")
	case origFdWrite:
		return "fd_write", kinds("iiii")
	}
	return fileFuncs[k].name, fileFuncs[k].params
}

// defineOriginals puts WASI alone in e.wasi and compiles the trampoline:
// wasmtime's WASI functions find the guest's memory as their caller's
// export "memory", so the host cannot call them itself; the trampoline,
// instantiated in each store with mounts, imports the guest's memory and
// exports it as its own, and its export k calls WASI's function k of
// orig. A shadow calls that export.
func (e *wasmtimeEngine) defineOriginals() error {
	if err := e.wasi.DefineWasi(); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("(module\n  (import \"guest\" \"memory\" (memory 0))\n")
	for k := range origCount {
		name, params := origName(k)
		fmt.Fprintf(&b, "  (import \"wasi_snapshot_preview1\" %q (func $f%d (param", name, k)
		for _, p := range params {
			b.WriteString(" " + p.String())
		}
		b.WriteString(") (result i32)))\n")
	}
	b.WriteString("  (export \"memory\" (memory 0))\n")
	for k := range origCount {
		_, params := origName(k)
		fmt.Fprintf(&b, "  (func (export \"f%d\") (param", k)
		for _, p := range params {
			b.WriteString(" " + p.String())
		}
		b.WriteString(") (result i32)")
		for i := range params {
			fmt.Fprintf(&b, " local.get %d", i)
		}
		fmt.Fprintf(&b, " call $f%d)\n", k)
	}
	b.WriteString(")\n")
	wasm, err := wasmtime.Wat2Wasm(b.String())
	if err != nil {
		return fmt.Errorf("mount trampoline: %w", err)
	}
	if e.tramp, err = wasmtime.NewModule(e.eng, wasm); err != nil {
		return fmt.Errorf("mount trampoline: %w", err)
	}
	return nil
}

// mountState readies w's mounts, before any guest code runs: the fds of
// the preopens (wasmtime numbers them from 3, in order), the roots that
// permErrno resolves paths in, the originals of the shadows.
func (w *wasmtimeInstance) mountState(mounts []engine.Mount, files *engine.Files) error {
	w.files, w.open, w.mounts, w.dirs = files, map[uint32]bool{}, mounts, map[uint32]dirRef{}
	for i, m := range mounts {
		root, err := os.OpenRoot(m.HostDir)
		if err != nil {
			return err
		}
		w.roots = append(w.roots, root)
		w.dirs[uint32(3+i)] = dirRef{mount: i, rel: "."}
	}
	return w.originals()
}

// originals instantiates the trampoline in w's store, over the guest's
// memory.
func (w *wasmtimeInstance) originals() error {
	if w.mem == nil {
		return nil // no memory, no I/O: the shadows find no original and give EBADF
	}
	imports := []wasmtime.AsExtern{w.mem}
	for k := range origCount {
		name, _ := origName(k)
		ext := w.e.wasi.Get(w.store, "wasi_snapshot_preview1", name)
		if ext == nil {
			return fmt.Errorf("wasmtime's WASI has no %s", name)
		}
		imports = append(imports, ext)
	}
	inst, err := wasmtime.NewInstance(w.store, w.e.tramp, imports)
	if err != nil {
		return err
	}
	for k := range origCount {
		if w.orig[k] = inst.GetFunc(w.store, fmt.Sprintf("f%d", k)); w.orig[k] == nil {
			return fmt.Errorf("mount trampoline: no export f%d", k)
		}
	}
	return nil
}

// preopen adds the mounts to wc.
func preopen(wc *wasmtime.WasiConfig, mounts []engine.Mount) error {
	for _, m := range mounts {
		dp, fp := wasmtime.DIR_READ, wasmtime.FILE_READ
		if m.Writable {
			dp, fp = dp|wasmtime.DIR_WRITE, fp|wasmtime.FILE_WRITE
		}
		if err := wc.PreopenDir(m.HostDir, m.GuestDir, dp, fp); err != nil {
			return err
		}
	}
	return nil
}

// callOrig runs wasmtime's function k with the host call's raw values and
// returns its errno. An error of the call (none is expected of these
// functions) ends the guest's run like a trap of a callback.
func (w *wasmtimeInstance) callOrig(caller unsafe.Pointer, k int, args unsafe.Pointer, n int) int32 {
	f := w.orig[k]
	if f == nil { // a store without WASI: no file exists
		return wasiEBADF
	}
	if err := callRawIn(caller, f, unsafe.Slice((*rawVal)(args), n)); err != nil {
		panic(err)
	}
	return int32(rawI32(args, 0))
}

// fileCall runs the shadow of fileFuncs[k].
func (w *wasmtimeInstance) fileCall(caller unsafe.Pointer, mem []byte, k int, args unsafe.Pointer) int32 {
	f := &fileFuncs[k]
	p := func(i int) uint32 { return rawI32(args, i) }
	switch k {
	case fileFdPread:
		return w.dataCall(caller, mem, k, args, len(f.params), false, p(0), p(1), p(2), p(4))
	case fileFdPwrite:
		return w.dataCall(caller, mem, k, args, len(f.params), true, p(0), p(1), p(2), p(4))
	case filePathOpen:
		if w.files != nil {
			if errno := w.files.Open(); errno != 0 {
				return int32(errno)
			}
		}
	}

	// Where the paths are, before the call changes the fds.
	var refs []pathRef
	for _, pp := range f.paths {
		if b, ok := span(mem, p(pp[1]), p(pp[2])); ok {
			refs = append(refs, pathRef{dir: p(pp[0]), path: string(b)})
		}
	}
	fd, to := p(0), p(1) // fd_close's fd, fd_renumber's from and to
	result := p(8)       // path_open's fd out
	r := w.callOrig(caller, k, args, len(f.params))
	if w.files == nil {
		return r
	}
	if r == wasiEPERM {
		r = w.permErrno(refs)
	}
	switch k {
	case filePathOpen:
		if b, ok := span(mem, result, 4); r == 0 && ok {
			nfd := le.Uint32(b)
			w.open[nfd] = true
			if d, ok := w.dirs[refs[0].dir]; ok {
				w.dirs[nfd] = dirRef{mount: d.mount, rel: path.Join(d.rel, refs[0].path)}
			}
		} else {
			w.files.Closed()
		}
	case fileFdClose:
		if r == 0 {
			delete(w.dirs, fd)
			if w.open[fd] {
				delete(w.open, fd)
				w.files.Closed()
			}
		}
	case fileFdRenumber:
		if r == 0 && fd != to {
			if w.open[to] {
				delete(w.open, to)
				w.files.Closed()
			}
			if w.open[fd] {
				delete(w.open, fd)
				w.open[to] = true
			}
			delete(w.dirs, to)
			if d, ok := w.dirs[fd]; ok {
				delete(w.dirs, fd)
				w.dirs[to] = d
			}
		}
	}
	return r
}

// pathRef is a path a call names and the fd of the directory it is in.
type pathRef struct {
	dir  uint32
	path string
}

// permErrno returns the errno of a path call to which wasmtime said EPERM:
// ENOENT if one of its paths leaves its mount (lexically or through a
// symbolic link: outside the mounts nothing exists), EROFS if its
// directory is in a read-only mount (as wazero says), else EPERM.
func (w *wasmtimeInstance) permErrno(refs []pathRef) int32 {
	readOnly := false
	for _, ref := range refs {
		if !fs.ValidPath(path.Clean(ref.path)) {
			return engine.ErrnoNOENT
		}
		d, ok := w.dirs[ref.dir]
		if !ok {
			continue
		}
		rel := path.Join(d.rel, ref.path)
		if !fs.ValidPath(rel) {
			return engine.ErrnoNOENT
		}
		root := w.roots[d.mount]
		for _, p := range []string{rel, path.Dir(rel)} {
			if _, err := root.Stat(p); err != nil && outside(err) {
				return engine.ErrnoNOENT
			}
		}
		readOnly = readOnly || !w.mounts[d.mount].Writable
	}
	if readOnly {
		return wasiEROFS
	}
	return wasiEPERM
}

// outside reports whether an error of an os.Root is its refusal to leave
// the root (an error that is no system error).
func outside(err error) bool {
	var en syscall.Errno
	return !errors.As(err, &en) && !errors.Is(err, fs.ErrNotExist)
}

// span returns mem[off:off+n], false if out of range.
func span(mem []byte, off, n uint32) ([]byte, bool) {
	if uint64(off)+uint64(n) > uint64(len(mem)) {
		return nil, false
	}
	return mem[off : off+n], true
}

// dataCall runs a read or write of a mounted file (fd_read, fd_pread,
// fd_write, fd_pwrite: the original k, with n parameters) within the
// limits. wasmtime reads into and writes from the first non-empty iovec
// only; the limits count what the call may move, all of its iovecs for a
// write (so that a call over the write limit moves nothing whatever
// wasmtime does with the others), and a read past what remains of the
// read limit is clipped to it by shortening that iovec for the call.
func (w *wasmtimeInstance) dataCall(caller unsafe.Pointer, mem []byte, k int, args unsafe.Pointer, n int, write bool, fd, iovs, count, out uint32) int32 {
	if w.files == nil || !w.open[fd] {
		return w.callOrig(caller, k, args, n)
	}
	// The iovecs: wasmtime checks them and fails with EFAULT before any
	// I/O if one is out of range, so a range error here is left to it.
	if uint64(count)*8 > uint64(len(mem)) {
		return w.callOrig(caller, k, args, n)
	}
	tab, ok := span(mem, iovs, 8*count)
	if !ok {
		return w.callOrig(caller, k, args, n)
	}
	var total uint64
	first := -1 // the first non-empty iovec
	for i := range count {
		l := le.Uint32(tab[8*i+4:])
		if l > 0 && first < 0 {
			first = int(i)
		}
		total += uint64(l)
	}
	if write {
		if errno := w.files.CheckWrite(total); errno != 0 {
			return int32(errno)
		}
	} else if first >= 0 {
		l := uint64(le.Uint32(tab[8*first+4:]))
		allowed, errno := w.files.ReadAllowance(l)
		if errno != 0 {
			return int32(errno)
		}
		if allowed < l {
			// The guest waits in this call: its iovec is shortened while
			// wasmtime reads, and restored before the guest resumes.
			at := tab[8*first+4:]
			le.PutUint32(at, uint32(allowed))
			defer le.PutUint32(at, uint32(l))
		}
	}
	r := w.callOrig(caller, k, args, n)
	if b, ok := span(mem, out, 4); r == 0 && ok {
		w.files.Moved(uint64(le.Uint32(b)), write)
	}
	return r
}
