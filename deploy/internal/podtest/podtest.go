// Package podtest runs the real aclwasm CLI the way a container runtime
// runs it from the image, for the deploy module's contract tests: the
// image's entrypoint, command and environment, overridden by a
// container's command, args and environment as Kubernetes does, from the
// image's extracted filesystem through the image's own program
// interpreter and C library. There is no chroot: every absolute path of
// the arguments and the environment is mapped to the directory that
// stands for it (a volume mount's, else the image's root), and the
// listen address is rewritten to a free port of ::1. A chart or an
// image whose command the server refuses, or whose paths lead nowhere,
// fails here as the pod would.
//
// The listen address is [::1%lo]:0, IPv6's loopback with the interface
// as its zone: the server takes only plain loopback addresses and
// "localhost" for loopback, so it judges the address as it judges the
// container's ":8080" (refused without TLS and access rules, or
// --insecure), while the socket is bound on ::1 alone.
package podtest

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	securejoin "github.com/cyphar/filepath-securejoin"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/deploy/image"
	"github.com/aclwasm/aclwasm/deploy/internal/debtest"
)

// Image is an image as a container runtime sees it: its extracted root
// filesystem and its configuration's entrypoint, command and environment.
type Image struct {
	Root                 string
	Entrypoint, Cmd, Env []string
}

// Container is what a pod's container says on top of its image, with
// Kubernetes' meaning: a nil Command keeps the image's entrypoint, and
// then nil Args keep the image's command.
type Container struct {
	Command, Args []string
	// Env are KEY=VALUE, after the image's (a key given twice: the last
	// one wins, as in a container).
	Env []string
	// Mounts maps a mount path of the container to the directory that
	// holds its files here.
	Mounts map[string]string
}

// BuildCLI builds the CLI as `make image` does (no cgo, Linux, the
// machine's architecture, so that it runs here) into dir.
func BuildCLI(repoRoot, dir string) (string, error) {
	out := filepath.Join(dir, "aclwasm")
	c := exec.Command("go", "build", "-trimpath", "-o", out, "./cmd/aclwasm")
	c.Dir = repoRoot
	c.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	if b, err := c.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/aclwasm: %w\n%s", err, b)
	}
	return out, nil
}

// BuildImage builds the image of bin with package image (as mkimage does,
// from this machine's installed packages, packed again by debtest) and
// extracts it into dir.
func BuildImage(t testing.TB, bin, dir string) Image {
	t.Helper()
	debs := debtest.Installed(t, t.TempDir(), image.Packages...)
	img, err := image.Build(image.Platform{OS: "linux", Architecture: runtime.GOARCH, Binary: bin, Debs: debs}, image.Options{
		Version: "v0.0.0-contract", Revision: "contract", Source: "https://github.com/aclwasm/aclwasm", Licenses: "Apache-2.0",
		Created: time.Unix(1700000000, 0), Port: 8080,
	})
	require.NoError(t, err)
	return FromImage(t, img, dir)
}

// FromImage extracts img's only layer into dir and returns it with its
// configuration.
func FromImage(t testing.TB, img v1.Image, dir string) Image {
	t.Helper()
	cf, err := img.ConfigFile()
	require.NoError(t, err)
	layers, err := img.Layers()
	require.NoError(t, err)
	require.Len(t, layers, 1)
	rc, err := layers[0].Uncompressed()
	require.NoError(t, err)
	defer rc.Close()
	require.NoError(t, Extract(rc, dir))
	return Image{Root: dir, Entrypoint: cf.Config.Entrypoint, Cmd: cf.Config.Cmd, Env: cf.Config.Env}
}

// Argv is the process's arguments as a container runtime puts them
// together from the image and the container.
func Argv(img Image, c Container) []string {
	if c.Command != nil {
		return append(append([]string{}, c.Command...), c.Args...)
	}
	args := img.Cmd
	if c.Args != nil {
		args = c.Args
	}
	return append(append([]string{}, img.Entrypoint...), args...)
}

// mapper maps the container's absolute paths to this machine's.
type mapper struct {
	root   string
	mounts []string // longest first
	dirs   map[string]string
}

func newMapper(root string, mounts map[string]string) *mapper {
	m := &mapper{root: root, dirs: mounts}
	for p := range mounts {
		m.mounts = append(m.mounts, p)
	}
	sort.Slice(m.mounts, func(i, j int) bool { return len(m.mounts[i]) > len(m.mounts[j]) })
	return m
}

// path maps one absolute path: under a mount to the mount's directory,
// else into the image's root.
func (m *mapper) path(p string) string {
	p = path.Clean(p)
	for _, mp := range m.mounts {
		if p == mp || strings.HasPrefix(p, mp+"/") {
			return filepath.Join(m.dirs[mp], strings.TrimPrefix(p, mp))
		}
	}
	return filepath.Join(m.root, p)
}

// value maps the absolute paths of a value: the value itself or each
// element of a colon-separated list (a search path), never a URL's
// "//host".
func (m *mapper) value(v string) string {
	parts := strings.Split(v, ":")
	for i, p := range parts {
		if strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "//") {
			parts[i] = m.path(p)
		}
	}
	return strings.Join(parts, ":")
}

// arg maps an argument: --flag=VALUE's value, or a bare value.
func (m *mapper) arg(a string) string {
	if strings.HasPrefix(a, "-") {
		if k, v, ok := strings.Cut(a, "="); ok {
			return k + "=" + m.value(v)
		}
		return a
	}
	return m.value(a)
}

// Server is a running aclwasm serve.
type Server struct {
	// Addr is the address it listens on ([::1]:PORT).
	Addr string
	// Port is the port the container asked for (its --listen).
	Port string
	// Argv and Env are what it was started with, mapped.
	Argv, Env []string

	cmd    *exec.Cmd
	logs   *logWriter
	exited chan struct{}
	err    error
}

// Logs returns what the server wrote to stdout and stderr so far.
func (s *Server) Logs() string { return s.logs.String() }

// ListenAddr replaces the container's --listen: a free port of the
// loopback address, written so that the server does not know it for one
// (see the package doc).
const ListenAddr = "[::1%lo]:0"

// listenFlag is serve's --listen=HOST:PORT.
var listenFlag = regexp.MustCompile(`^--listen=(.*):([0-9]+)$`)

// Start starts the process of img and c as its container would: argv
// and environment mapped, --listen rewritten to ListenAddr, through the
// image's program interpreter with the image's libraries (after the
// container's LD_LIBRARY_PATH, as the loader searches). It waits until
// the server logs the address it listens on, and fails the test if it
// exits first. The server is killed at the end of the test unless Stop
// stopped it.
func Start(t testing.TB, img Image, c Container) *Server {
	t.Helper()
	m := newMapper(img.Root, c.Mounts)
	argv := Argv(img, c)
	require.NotEmpty(t, argv, "no command: neither the container nor the image gives one")
	require.True(t, path.IsAbs(argv[0]), "the command %q is not an absolute path in the image", argv[0])
	s := &Server{logs: newLogWriter(), exited: make(chan struct{})}
	for i, a := range argv {
		if i == 0 {
			s.Argv = append(s.Argv, m.path(a))
			continue
		}
		if g := listenFlag.FindStringSubmatch(a); g != nil {
			require.Empty(t, s.Port, "--listen given twice: %q", argv)
			s.Port = g[2]
			s.Argv = append(s.Argv, "--listen="+ListenAddr)
			continue
		}
		require.NotEqual(t, "--listen", a, "--listen without '=' (the mapping rewrites --listen=HOST:PORT)")
		s.Argv = append(s.Argv, m.arg(a))
	}
	require.NotEmpty(t, s.Port, "%q has no --listen=HOST:PORT: the server would listen on 127.0.0.1:8080 only, unreachable from outside its container", argv)
	env := map[string]string{}
	var keys []string
	for _, kv := range append(append([]string{}, img.Env...), c.Env...) {
		k, v, ok := strings.Cut(kv, "=")
		require.True(t, ok, "environment %q", kv)
		if _, seen := env[k]; !seen {
			keys = append(keys, k)
		}
		env[k] = m.value(v)
	}
	for _, k := range keys {
		s.Env = append(s.Env, k+"="+env[k])
	}

	bin := s.Argv[0]
	f, err := elf.Open(bin)
	require.NoError(t, err, "the command %s is not an executable of the image", argv[0])
	interp := ""
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			b, err := io.ReadAll(p.Open())
			require.NoError(t, err)
			interp = strings.TrimRight(string(b), "\x00")
		}
	}
	require.NoError(t, f.Close())
	name, args := bin, s.Argv[1:]
	if interp != "" {
		var libPath []string
		if v := env["LD_LIBRARY_PATH"]; v != "" {
			libPath = strings.Split(v, ":")
		}
		for _, d := range []string{"lib/" + multiarch(), "usr/lib/" + multiarch(), "lib64", "usr/lib64", "lib", "usr/lib"} {
			if st, err := os.Stat(filepath.Join(img.Root, d)); err == nil && st.IsDir() {
				libPath = append(libPath, filepath.Join(img.Root, d))
			}
		}
		// The loader as the image resolves it: its links (lib64's is
		// absolute) followed inside the image's root, not on this machine.
		if name, err = securejoin.SecureJoin(img.Root, interp); err != nil {
			t.Fatalf("%s: %v", interp, err)
		}
		args = append([]string{"--inhibit-cache", "--library-path", strings.Join(libPath, ":"), bin}, args...)
	}
	s.cmd = exec.Command(name, args...)
	s.cmd.Env = s.Env
	s.cmd.Dir = img.Root
	s.cmd.Stdout, s.cmd.Stderr = s.logs, s.logs
	require.NoError(t, s.cmd.Start(), "start %s", name)
	go func() {
		s.err = s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-s.exited:
		default:
			_ = s.cmd.Process.Kill()
			<-s.exited
		}
	})
	select {
	case addr := <-s.logs.addr:
		s.Addr = addr
		host, _, err := net.SplitHostPort(addr)
		require.NoError(t, err)
		ip := net.ParseIP(host)
		require.True(t, ip != nil && ip.IsLoopback(), "the server listens on %s, not a loopback address", addr)
	case <-s.exited:
		t.Fatalf("%q exited before listening: %v\n%s", argv, s.err, s.Logs())
	case <-time.After(60 * time.Second):
		t.Fatalf("%q did not log its address within 60s:\n%s", argv, s.Logs())
	}
	return s
}

// Stop sends SIGTERM, as the kubelet does, and requires a clean exit.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-s.exited:
		require.NoError(t, s.err, "serve exits 0 on SIGTERM:\n%s", s.Logs())
	case <-time.After(60 * time.Second):
		t.Fatalf("serve did not exit within 60s of SIGTERM:\n%s", s.Logs())
	}
}

func multiarch() string {
	if runtime.GOARCH == "arm64" {
		return "aarch64-linux-gnu"
	}
	return "x86_64-linux-gnu"
}

// logWriter keeps the server's output and hands over the address of its
// "listening" record, in the text or the JSON log format.
type logWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	line []byte
	addr chan string
}

func newLogWriter() *logWriter { return &logWriter{addr: make(chan string, 1)} }

var textListening = regexp.MustCompile(`\bmsg=listening addr=(\S+)`)

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	w.line = append(w.line, p...)
	for {
		i := bytes.IndexByte(w.line, '\n')
		if i < 0 {
			break
		}
		if a := listeningAddr(w.line[:i]); a != "" {
			select {
			case w.addr <- a:
			default:
			}
		}
		w.line = w.line[i+1:]
	}
	return len(p), nil
}

func (w *logWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func listeningAddr(line []byte) string {
	if g := textListening.FindSubmatch(line); g != nil {
		return string(g[1])
	}
	var rec struct{ Msg, Addr string }
	if json.Unmarshal(line, &rec) == nil && rec.Msg == "listening" {
		return rec.Addr
	}
	return ""
}

// Extract extracts a layer's tar of files, directories and symbolic
// links into dir, refusing a name that leaves it.
func Extract(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for n := 0; ; n++ {
		if n > 10000 {
			return errors.New("too many entries")
		}
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(h.Name, "/")
		if !filepath.IsLocal(name) {
			return fmt.Errorf("%q leaves the root", h.Name)
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(p, 0o755)
		case tar.TypeSymlink:
			err = os.Symlink(h.Linkname, p)
		case tar.TypeReg:
			err = writeFile(p, tr, os.FileMode(h.Mode&0o755)|0o200)
		default:
			err = fmt.Errorf("%s: unexpected entry type %c", name, h.Typeflag)
		}
		if err != nil {
			return err
		}
	}
}

func writeFile(p string, r io.Reader, mode os.FileMode) error {
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
