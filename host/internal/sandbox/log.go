package sandbox

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"sync"

	"github.com/aclwasm/aclwasm/host/internal/engine"
)

// maxLogLine bounds a buffered guest output line: a longer one is logged
// in pieces of this size, so a guest cannot make the host hold more.
const maxLogLine = 64 << 10

// logWriter turns a guest's output stream into slog records, one per
// line, with the plugin's name, the session and the stream.
type logWriter struct {
	mu    sync.Mutex
	l     *slog.Logger
	level slog.Level
	buf   []byte
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			room := maxLogLine - len(w.buf)
			if len(p) < room {
				w.buf = append(w.buf, p...)
				break
			}
			w.buf = append(w.buf, p[:room]...)
			p = p[room:]
			w.emit()
			continue
		}
		w.buf = append(w.buf, p[:i]...)
		p = p[i+1:]
		w.emit()
	}
	return n, nil
}

func (w *logWriter) emit() {
	w.l.Log(context.Background(), w.level, string(bytes.TrimSuffix(w.buf, []byte{'\r'})))
	w.buf = w.buf[:0]
}

// flush logs a last line that had no newline.
func (w *logWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.emit()
	}
}

// Late is the guest's stdin, stdout and stderr of a session whose
// streams are bound late (Config.Late): the engine is given them when its
// instance is made, and they reach what Bind gave, or read as the end of
// input and drop the output before.
type Late struct {
	in       engine.InRoute
	out, err engine.OutRoute
}

// Stdin is the guest's stdin, for the engine.
func (l *Late) Stdin() io.Reader { return &l.in }

// Bind gives a session made with Config.Late l the streams and logger
// its Config left out, as New would have taken them; before the guest
// runs, once. Where stdout or stderr is nil and logger is not, that
// stream goes to the log.
func (s *Session) Bind(l *Late, stdin io.Reader, stdout, stderr io.Writer, logger *slog.Logger) {
	if s.stdout != &l.out {
		panic("sandbox: Bind with a Late the session was not made with")
	}
	s.stdout, s.stderr = stdout, stderr
	s.setupLog(logger, s.logName)
	l.in.R, l.out.W, l.err.W = stdin, s.stdout, s.stderr
	s.stdout, s.stderr = &l.out, &l.err
}

// setupLog routes the guest's stdout (level Info) and stderr (level
// Warn), where the Config left them nil, to logger, with the attributes
// plugin (name), session and stream; aclAppLog's records go to it with
// plugin and session (applog.go). A nil logger changes nothing.
func (s *Session) setupLog(logger *slog.Logger, name string) {
	if logger == nil {
		return
	}
	s.logBase, s.logName = logger, name
	if s.stdout == nil {
		w := &logWriter{l: s.appLogger().With("stream", "stdout"), level: slog.LevelInfo}
		s.stdout = w
		s.logs = append(s.logs, w)
	}
	if s.stderr == nil {
		w := &logWriter{l: s.appLogger().With("stream", "stderr"), level: slog.LevelWarn}
		s.stderr = w
		s.logs = append(s.logs, w)
	}
}

// appLogger returns Config.Logger with the attributes plugin and session
// (nil without a Logger), made at its first use: a handler formats a
// logger's attributes when it is made, which a session that logs nothing
// (a command run per request, its output captured) need not pay for. The
// session's host calls, its only other users, do not overlap.
func (s *Session) appLogger() *slog.Logger {
	if s.appLog == nil && s.logBase != nil {
		s.appLog = s.logBase.With("plugin", s.logName, "session", s.id)
	}
	return s.appLog
}

// Output returns the writers of the guest's stdout and stderr: the
// Config's, or where it left one nil and gave a Logger, the session's
// writer to the log.
func (s *Session) Output() (stdout, stderr io.Writer) { return s.stdout, s.stderr }

// flushLogs logs the last unterminated lines of the guest's output.
func (s *Session) flushLogs() {
	for _, w := range s.logs {
		w.flush()
	}
}
