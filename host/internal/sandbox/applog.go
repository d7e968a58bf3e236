package sandbox

import (
	"bytes"
	"context"
	"log/slog"

	"github.com/aclwasm/aclwasm/acl"
)

// maxGuestString bounds a NUL-terminated string the host reads from guest
// memory (aclInit's configPath, aclAppLog's strings): at most this many
// bytes, the NUL included.
const maxGuestString = 4096

// cstring reads the NUL-terminated string at the gptr ptr named name: at
// most maxGuestString bytes with its NUL, all inside guest memory.
// Anything else gives 100000 with a message that says which and where.
func (c *Call) cstring(name string, ptr uint32) (string, error) {
	if ptr == 0 {
		return "", acl.Errorf(acl.ErrInvalidParam, "%s is NULL", name)
	}
	size := uint64(len(c.mem))
	if uint64(ptr) >= size {
		return "", acl.Errorf(acl.ErrInvalidParam, "%s %#x is outside guest memory (%d bytes)", name, ptr, size)
	}
	b := c.mem[ptr:min(uint64(ptr)+maxGuestString, size)]
	n := bytes.IndexByte(b, 0)
	switch {
	case n >= 0:
		return string(b[:n]), nil
	case len(b) < maxGuestString:
		return "", acl.Errorf(acl.ErrInvalidParam, "%s at %#x has no NUL before the end of guest memory (%d bytes)", name, ptr, size)
	default:
		return "", acl.Errorf(acl.ErrInvalidParam, "%s at %#x is longer than %d bytes: no NUL within %d bytes", name, ptr, maxGuestString-1, maxGuestString)
	}
}

// The native aclLogLevel values.
const (
	appLogDebug   = 0 // ACL_DEBUG
	appLogInfo    = 1 // ACL_INFO
	appLogWarning = 2 // ACL_WARNING
	appLogError   = 3 // ACL_ERROR
)

// appLogLevels maps aclLogLevel onto slog's levels.
var appLogLevels = [...]slog.Level{
	appLogDebug:   slog.LevelDebug,
	appLogInfo:    slog.LevelInfo,
	appLogWarning: slog.LevelWarn,
	appLogError:   slog.LevelError,
}

// appLog is aclAppLog(level, func, file, line, msg): the guest's SDK
// formats the message (ACL_APP_LOG), the host logs it as the plugin's own
// through Config.Logger, with its level (ACL_DEBUG, INFO, WARNING, ERROR:
// slog's Debug, Info, Warn, Error) and the attributes plugin, session,
// func, file and line. func and file may be NULL (empty); msg may not.
// Without Config.Logger the record goes nowhere, as the guest's stdout
// does without a writer. Natively aclAppLog returns nothing; the import
// returns 0, or 100000 for a bad level or string, and logs nothing then.
func appLog(c *Call) error {
	level := c.i32(0)
	if level < appLogDebug || level > appLogError {
		return acl.Errorf(acl.ErrInvalidParam, "level %d is not an aclLogLevel: want ACL_DEBUG (0), ACL_INFO (1), ACL_WARNING (2) or ACL_ERROR (3)", level)
	}
	var strs [2]string // func, file
	for i, name := range [...]string{"func", "file"} {
		if c.u32(1+i) == 0 {
			continue
		}
		v, err := c.cstring(name, c.u32(1+i))
		if err != nil {
			return err
		}
		strs[i] = v
	}
	msg, err := c.cstring("msg", c.u32(4))
	if err != nil {
		return err
	}
	if l := c.s.appLogger(); l != nil {
		l.LogAttrs(context.Background(), appLogLevels[level], msg,
			slog.String("func", strs[0]), slog.String("file", strs[1]), slog.Uint64("line", uint64(c.u32(3))))
	}
	return nil
}
