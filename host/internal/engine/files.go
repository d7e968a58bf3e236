package engine

import "sync"

// Mount is a host directory the guest sees at GuestDir (a WASI preopen).
// The host validated both paths (host.Policy); the adapters confine every
// path the guest names to HostDir, symbolic links included.
type Mount struct {
	HostDir  string
	GuestDir string
	Writable bool
}

// FileLimits bound an instance's file I/O over its mounts. Reads and
// writes of stdio are not counted.
type FileLimits struct {
	MaxRead  uint64 // bytes read from mounted files
	MaxWrite uint64 // bytes written to mounted files
	MaxOpen  int    // files and directories open at once, the mounts themselves aside
	// MaxMountBytes bounds the size of the regular files of each writable
	// mount, summed over their paths; 0: no bound. Only the wazero
	// adapter enforces it: the wasmtime one refuses an instance with it.
	MaxMountBytes uint64
}

// WASI errno values of the file limits, and of a path outside every mount.
const (
	ErrnoFBIG       = 22 // MaxRead or MaxWrite spent
	ErrnoMFILE      = 33 // MaxOpen files open
	ErrnoNOENT      = 44 // outside every mount
	ErrnoNOSPC      = 51 // MaxMountBytes reached
	ErrnoNOTCAPABLE = 76
)

// Files counts an instance's file I/O against its FileLimits. An adapter
// asks before it moves bytes or opens a file and records what happened
// after: a call over a limit fails before any effect.
type Files struct {
	lim FileLimits

	mu            sync.Mutex // files are closed by the engine too (at instance close)
	read, written uint64
	open          int
}

// NewFiles returns the accounting of one instance under lim.
func NewFiles(lim FileLimits) *Files { return &Files{lim: lim} }

// Limits returns the limits f counts against.
func (f *Files) Limits() FileLimits { return f.lim }

// ReadAllowance returns how many of n requested bytes a read may return:
// all, or what remains of MaxRead (the read is then short, as reads may
// be). With nothing left and n > 0 the read fails with ErrnoFBIG.
func (f *Files) ReadAllowance(n uint64) (uint64, uint16) {
	f.mu.Lock()
	defer f.mu.Unlock()
	left := f.lim.MaxRead - f.read
	if n == 0 {
		return 0, 0
	}
	if left == 0 {
		return 0, ErrnoFBIG
	}
	return min(n, left), 0
}

// CheckWrite returns ErrnoFBIG if writing n more bytes would pass
// MaxWrite: the write must then write nothing.
func (f *Files) CheckWrite(n uint64) uint16 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n > f.lim.MaxWrite-f.written {
		return ErrnoFBIG
	}
	return 0
}

// Moved records n bytes read (write false) or written.
func (f *Files) Moved(n uint64, write bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if write {
		f.written += n
	} else {
		f.read += n
	}
}

// Open reserves one open file, or returns ErrnoMFILE at MaxOpen. The
// caller gives it back with Closed when the open fails or the file closes.
func (f *Files) Open() uint16 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.open >= f.lim.MaxOpen {
		return ErrnoMFILE
	}
	f.open++
	return 0
}

// Closed gives back a file reserved with Open.
func (f *Files) Closed() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.open--
}

// Usage returns the bytes read and written so far and the files open now.
func (f *Files) Usage() (read, written uint64, open int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.read, f.written, f.open
}
