package wazero

import (
	"context"
	"encoding/binary"
	"io/fs"
	"path"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"

	"github.com/aclwasm/aclwasm/host/internal/engine"
)

// A limit must fail a WASI call before it has any effect, but wazero's
// fd_read and fd_write call a file once per iovec and give up at the first
// error, after the earlier iovecs moved their bytes; and wazero refuses a
// path that leaves its directory lexically ("../x", "/x") with EPERM
// before a mount sees it. So a function listener on WASI's data and path
// functions tells the instance's mounts what the call is: its total bytes
// (checked whole at its first read or write, see calls) and its paths
// (an EPERM for a path that leaves the mount becomes ENOENT, as for a
// symbolic link that leads out: outside the mounts nothing exists).
// Listeners see the caller's module and the call's stack, whose results
// After may still change. Instances without mounts are not in the
// Engine's table and cost one lookup per listened call.

// mountFuncs are the WASI functions listened to, with the parameter
// indexes of their (pointer, length) paths.
var mountFuncs = map[string][][2]int{
	"fd_read": nil, "fd_pread": nil, "fd_write": nil, "fd_pwrite": nil, "fd_filestat_set_size": nil,
	"path_open":               {{2, 3}},
	"path_filestat_get":       {{2, 3}},
	"path_filestat_set_times": {{2, 3}},
	"path_create_directory":   {{1, 2}},
	"path_remove_directory":   {{1, 2}},
	"path_unlink_file":        {{1, 2}},
	"path_readlink":           {{1, 2}},
	"path_rename":             {{1, 2}, {4, 5}},
	"path_link":               {{2, 3}, {5, 6}},
	"path_symlink":            {{3, 4}},
}

// calls is the WASI call in progress of one instance with mounts. The
// instance's calls never overlap and its files are used only within them,
// on the caller's goroutine.
type calls struct {
	active  bool
	write   bool
	total   uint64 // the call's bytes, over its iovecs
	left    uint64 // a read's bytes still allowed
	checked bool   // the call's limits were checked (at its first read or write)
	errno   experimentalsys.Errno
	escapes bool   // a path of the call leaves its directory lexically
	over    uint16 // the WASI errno of a limit the call is over (see limit)
}

// limit returns the sys.Errno a file gives for a call over a limit whose
// WASI errno is errno: wazero's sys.Errno has no EFBIG, ENOSPC or EMFILE,
// so the file fails with EIO, which After turns into errno.
func (c *calls) limit(errno uint16) experimentalsys.Errno {
	c.over = errno
	return experimentalsys.EIO
}

// listenerFactory makes the listener of the functions of mountFuncs.
type listenerFactory struct{ e *Engine }

func (l listenerFactory) NewFunctionListener(def api.FunctionDefinition) experimental.FunctionListener {
	paths, ok := mountFuncs[def.Name()]
	if !ok {
		return nil
	}
	n := def.Name()
	return &mountListener{e: l.e, paths: paths, data: n == "fd_read" || n == "fd_pread" || n == "fd_write" || n == "fd_pwrite", write: n == "fd_write" || n == "fd_pwrite"}
}

type mountListener struct {
	e           *Engine
	paths       [][2]int
	data, write bool
}

func (l *mountListener) state(mod api.Module) *calls {
	if l.e.nmounted.Load() == 0 { // the instance's own entry is made before its first call
		return nil
	}
	c, _ := l.e.mounted.Load(mod)
	st, _ := c.(*calls)
	return st
}

func (l *mountListener) Before(_ context.Context, mod api.Module, _ api.FunctionDefinition, params []uint64, _ experimental.StackIterator) {
	c := l.state(mod)
	if c == nil {
		return
	}
	*c = calls{active: true, write: l.write}
	mem := mod.Memory()
	if mem == nil {
		return
	}
	if l.data {
		// fd, iovs, iovs_len, ...: wazero checks the iovecs itself and
		// fails the call with EFAULT before any I/O if one is out of range.
		iovs, n := uint32(params[1]), uint32(params[2])
		b, ok := mem.Read(iovs, n*8)
		if !ok || uint64(n)*8 > uint64(len(b)) {
			return
		}
		for i := uint32(0); i < n; i++ {
			c.total += uint64(binary.LittleEndian.Uint32(b[i*8+4:]))
		}
		return
	}
	for _, p := range l.paths {
		if b, ok := mem.Read(uint32(params[p[0]]), uint32(params[p[1]])); ok && escapes(string(b)) {
			c.escapes = true
		}
	}
}

func (l *mountListener) After(_ context.Context, mod api.Module, _ api.FunctionDefinition, results []uint64) {
	c := l.state(mod)
	if c == nil {
		return
	}
	switch r := uint32(results[0]); {
	case c.escapes && r == wasiEPERM:
		results[0] = engine.ErrnoNOENT
	case c.over != 0 && r == wasiEIO:
		results[0] = uint64(c.over)
	}
	*c = calls{}
}

func (l *mountListener) Abort(_ context.Context, mod api.Module, _ api.FunctionDefinition, _ error) {
	if c := l.state(mod); c != nil {
		*c = calls{}
	}
}

// WASI's EPERM, which wazero gives a path that leaves its directory
// lexically, and EIO.
const (
	wasiEPERM = 63
	wasiEIO   = 29
)

// escapes reports whether p leaves the directory it is resolved in
// lexically, as wazero's check finds it ("..", an absolute path).
func escapes(p string) bool { return !fs.ValidPath(path.Clean(p)) }

// readAllowance returns how many of n bytes a file's read may read now:
// the call's first read checks the call's total against the budget; a
// read with nothing left of its call's allowance reads nothing (a short
// read ends wazero's loop over the iovecs).
func (c *calls) readAllowance(files *engine.Files, n uint64) (uint64, experimentalsys.Errno) {
	if !c.active { // not through a listened call: the read alone counts
		a, errno := files.ReadAllowance(n)
		if errno != 0 {
			return 0, c.limit(errno)
		}
		return a, 0
	}
	if !c.checked {
		c.checked = true
		a, errno := files.ReadAllowance(c.total)
		c.left = a
		if errno != 0 {
			c.errno = c.limit(errno)
		}
	}
	if c.errno != 0 {
		return 0, c.errno
	}
	return min(n, c.left), 0
}

// checkWrite checks a file's write of n bytes at off (-1: its position):
// the call's first write checks the call's total against the write budget
// and the mount's size bound, so that a call over either writes nothing.
func (c *calls) checkWrite(f *rootFile, n uint64, off int64) experimentalsys.Errno {
	total := n
	if c.active {
		if c.checked {
			return c.errno
		}
		c.checked = true
		total = c.total
	}
	over := f.fs.files.CheckWrite(total)
	if over == 0 && f.fs.size != nil {
		g, errno := f.growth(total, off)
		if errno != 0 {
			c.errno = errno
			return errno
		}
		over = f.fs.size.grow(g)
	}
	c.errno = 0
	if over != 0 {
		c.errno = c.limit(over)
	}
	return c.errno
}

// moved records n bytes read or written by a file.
func (c *calls) moved(files *engine.Files, n uint64, write bool) {
	files.Moved(n, write)
	if c.active && !write {
		c.left -= min(n, c.left)
	}
}
