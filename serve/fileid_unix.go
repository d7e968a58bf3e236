//go:build unix

package serve

import (
	"os"
	"syscall"
)

// fileID returns fi's inode number.
func fileID(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
