//go:build unix

package wazero

import (
	"fmt"
	"os"
	"syscall"
)

// ownedByMe fails when fi is not owned by the current user.
func ownedByMe(fi os.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := os.Getuid(); int(st.Uid) != uid {
		return fmt.Errorf("owned by uid %d, not the current user (uid %d)", st.Uid, uid)
	}
	return nil
}
