package acl

import (
	"fmt"
	"runtime"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/aclwasm/aclwasm/guest-sdk/go/acl/raw"
)

// LogLevel is the level of an aclAppLog record (aclLogLevel); the host logs
// it with slog's Debug, Info, Warn or Error.
type LogLevel int32

// The native aclLogLevel values.
const (
	LogDebug   LogLevel = 0 // ACL_DEBUG
	LogInfo    LogLevel = 1 // ACL_INFO
	LogWarning LogLevel = 2 // ACL_WARNING
	LogError   LogLevel = 3 // ACL_ERROR
)

// MaxLogString is the longest string aclAppLog takes, in bytes, without
// its NUL.
const MaxLogString = 4095

// AppLog logs a message formatted as by fmt.Sprintf as the plugin's own
// record at level (aclAppLog), naming the calling function, file and line
// as the C SDK's ACL_APP_LOG does; the host hands it to the embedder's
// slog logger with the plugin's name and session. Strings longer than
// MaxLogString bytes are cut, and a NUL ends a string.
func AppLog(level LogLevel, format string, args ...any) error {
	fn, file, line := "", "", 0
	if pc, f, l, ok := runtime.Caller(1); ok {
		file, line = f, l
		if rf := runtime.FuncForPC(pc); rf != nil {
			fn = rf.Name()
		}
	}
	return AppLogAt(level, fn, file, line, fmt.Sprintf(format, args...))
}

// AppLogAt logs msg at level (aclAppLog) naming fn, file and line.
func AppLogAt(level LogLevel, fn, file string, line int, msg string) error {
	f, p, m := cstring(fn), cstring(file), cstring(msg)
	return check("aclAppLog", raw.AppLog(int32(level), unsafe.Pointer(&f[0]), unsafe.Pointer(&p[0]), uint32(line), unsafe.Pointer(&m[0])))
}

// cstring returns s cut to MaxLogString bytes (at a character boundary)
// and at its first NUL, NUL-terminated.
func cstring(s string) []byte {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	if n := MaxLogString; len(s) > n {
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n]
	}
	return append([]byte(s), 0)
}
