//go:build linux

package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	cdx "github.com/CycloneDX/cyclonedx-go"
	securejoin "github.com/cyphar/filepath-securejoin"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/validate"
	"github.com/package-url/packageurl-go"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/deploy/image"
	"github.com/aclwasm/aclwasm/deploy/internal/debtest"
	"github.com/aclwasm/aclwasm/deploy/internal/podtest"
	"github.com/aclwasm/aclwasm/deploy/internal/sbomtest"
)

// repoRoot is the main module's root, from this package's directory.
const repoRoot = "../../.."

// buildCLI builds the CLI as `make image` does (no cgo, for Linux on the
// machine's architecture, so that the test can run it).
func buildCLI(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "aclwasm")
	c := exec.Command("go", "build", "-trimpath", "-o", out, "./cmd/aclwasm")
	c.Dir = repoRoot
	c.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	b, err := c.CombinedOutput()
	require.NoError(t, err, "go build ./cmd/aclwasm: %s", b)
	return out
}

// TestImage builds the image from the real CLI, reads the tar back both as
// an OCI layout and as a docker-archive, checks its configuration and its
// files, and runs the CLI from the extracted layer.
func TestImage(t *testing.T) {
	bin := buildCLI(t)
	dir := t.TempDir()
	// The machine's own packages, packed again (make image downloads
	// the same packages' current .deb files).
	debs := filepath.Join(dir, "debs")
	require.NoError(t, os.Mkdir(debs, 0o755))
	debtest.Installed(t, debs, image.Packages...)
	tarPath := filepath.Join(dir, "aclwasm.tar")
	sbomPath := filepath.Join(dir, "aclwasm.cdx.json")
	var stdout, stderr bytes.Buffer
	platform := "linux/" + runtime.GOARCH
	err := run(context.Background(), []string{
		"-binary", platform + "=" + bin, "-debs", platform + "=" + debs, "-out", tarPath, "-sbom", sbomPath, "-version", "v1.2.3-test",
		"-revision", "0123456789abcdef", "-created", "1700000000", "-tag", "example.com/acl/aclwasm:v1.2.3-test",
	}, &stdout, &stderr)
	require.NoError(t, err, "stderr: %s", stderr.String())
	require.Contains(t, stdout.String(), platform+" sha256:")
	require.Contains(t, stdout.String(), sbomPath+": the SBOM of "+platform)

	// The OCI layout half: index.json names the image with its tag.
	layoutDir := filepath.Join(dir, "layout")
	untar(t, tarPath, layoutDir)
	idx, err := layout.ImageIndexFromPath(layoutDir)
	require.NoError(t, err)
	im, err := idx.IndexManifest()
	require.NoError(t, err)
	require.Len(t, im.Manifests, 1)
	desc := im.Manifests[0]
	require.Equal(t, "v1.2.3-test", desc.Annotations["org.opencontainers.image.ref.name"])
	require.Equal(t, "example.com/acl/aclwasm:v1.2.3-test", desc.Annotations["io.containerd.image.name"])
	require.Equal(t, runtime.GOARCH, desc.Platform.Architecture)
	require.Contains(t, stdout.String(), desc.Digest.String())
	img, err := idx.Image(desc.Digest)
	require.NoError(t, err)
	require.NoError(t, validate.Image(img), "the layout's image: digests, sizes, diff ids")

	// The docker-archive half: manifest.json names the same config and
	// layer, under the tag.
	dimg, err := tarball.ImageFromPath(tarPath, nil)
	require.NoError(t, err)
	require.NoError(t, validate.Image(dimg), "the docker-archive's image")
	cfgName, err := img.ConfigName()
	require.NoError(t, err)
	dcfgName, err := dimg.ConfigName()
	require.NoError(t, err)
	require.Equal(t, cfgName, dcfgName)
	dm, err := tarball.LoadManifest(func() (io.ReadCloser, error) { return os.Open(tarPath) })
	require.NoError(t, err)
	require.Equal(t, []string{"example.com/acl/aclwasm:v1.2.3-test"}, dm[0].RepoTags)

	cf, err := img.ConfigFile()
	require.NoError(t, err)
	require.Equal(t, "linux", cf.OS)
	require.Equal(t, runtime.GOARCH, cf.Architecture)
	require.Equal(t, []string{"/aclwasm"}, cf.Config.Entrypoint)
	require.Equal(t, []string{"serve", "--listen=:8080", "--insecure", "/plugins"}, cf.Config.Cmd)
	require.Equal(t, "65532:65532", cf.Config.User)
	require.Equal(t, map[string]struct{}{"8080/tcp": {}}, cf.Config.ExposedPorts)
	require.Equal(t, time.Unix(1700000000, 0).UTC(), cf.Created.UTC())
	for k, v := range map[string]string{
		"org.opencontainers.image.source":   "https://github.com/aclwasm/aclwasm",
		"org.opencontainers.image.version":  "v1.2.3-test",
		"org.opencontainers.image.revision": "0123456789abcdef",
		"org.opencontainers.image.licenses": "Apache-2.0",
		"org.opencontainers.image.title":    "aclwasm",
	} {
		require.Equal(t, v, cf.Config.Labels[k], k)
	}

	layers, err := img.Layers()
	require.NoError(t, err)
	require.Len(t, layers, 1)
	rc, err := layers[0].Uncompressed()
	require.NoError(t, err)
	root := filepath.Join(dir, "root")
	files := extractLayer(t, rc, root)
	require.NoError(t, rc.Close())
	checkFiles(t, files, root, bin)
	checkPackages(t, root, img, sbomPath, bin)
	checkRuns(t, root)
	checkDefaultCommand(t, img, filepath.Join(dir, "contract"))
}

// checkDefaultCommand runs the image's default command (entrypoint, cmd
// and environment, nothing overridden) from the image's own filesystem,
// as `docker run -v PLUGINS:/plugins IMAGE` would, with one plugin in
// /plugins: the server must start, answer /healthz and /readyz, run the
// plugin and exit 0 on SIGTERM.
func checkDefaultCommand(t *testing.T, img v1.Image, dir string) {
	t.Helper()
	ci := podtest.FromImage(t, img, filepath.Join(dir, "root"))
	plugins := filepath.Join(dir, "plugins")
	require.NoError(t, os.MkdirAll(plugins, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(plugins, "upper.wasm"), podtest.Plugin(t), 0o644))
	srv := podtest.Start(t, ci, podtest.Container{Mounts: map[string]string{image.PluginDir: plugins}})
	require.Equal(t, "8080", srv.Port)
	c := &http.Client{Timeout: 30 * time.Second}
	defer c.CloseIdleConnections()
	base := "http://" + srv.Addr
	status, body := podtest.Do(t, c, http.MethodGet, base+"/healthz", "", "")
	require.Equal(t, http.StatusOK, status, body)
	podtest.WaitReady(t, c, base+"/readyz")
	status, body = podtest.Do(t, c, http.MethodPost, base+"/v1/plugins/upper", "", podtest.UpperIn)
	require.Equal(t, http.StatusOK, status, "%s\n%s", body, srv.Logs())
	require.Equal(t, podtest.UpperOut, body)
	srv.Stop(t)
}

// checkPackages checks the image's Debian packages with dpkg's own
// tools: the packages of image.Packages, each installed, with a
// copyright file, owning every file the image carries but its own, each
// file as its package shipped it; and the SBOM beside the tar: the
// image's, listing the CLI's modules as `go version -m` does and each
// package.
func checkPackages(t *testing.T, root string, img v1.Image, sbomPath, bin string) {
	t.Helper()
	pkgs, err := debtest.Packages(root)
	require.NoError(t, err)
	var names []string
	for n, p := range pkgs {
		names = append(names, n)
		require.Equal(t, "ii", p.Status, n)
	}
	sort.Strings(names)
	require.Equal(t, image.Packages, names)
	problems, err := debtest.Problems(root, []string{image.Entrypoint, "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", image.CACertsPath, image.SBOMPath})
	require.NoError(t, err)
	require.Empty(t, problems)

	beside, err := os.ReadFile(sbomPath)
	require.NoError(t, err)
	inside, err := os.ReadFile(filepath.Join(root, image.SBOMPath))
	require.NoError(t, err)
	require.Equal(t, string(inside), string(beside), "the SBOM beside the tar is the image's")
	bom := new(cdx.BOM)
	require.NoError(t, cdx.NewBOMDecoder(bytes.NewReader(beside), cdx.BOMFileFormatJSON).Decode(bom))
	sbomtest.CheckModules(t, bom, bin)
	purls := map[string]bool{}
	for _, c := range *bom.Components {
		purls[c.PackageURL] = true
	}
	for n, p := range pkgs {
		purl := packageurl.NewPackageURL(packageurl.TypeDebian, "debian", n, p.Version, packageurl.QualifiersFromMap(map[string]string{"arch": p.Architecture, "distro": "debian-12"}), "").ToString()
		found := false
		for u := range purls {
			found = found || strings.HasPrefix(u, purl)
		}
		require.True(t, found, "%s is not in the SBOM", purl)
	}
}

// checkFiles checks the layer's entries: the CLI and the user's files
// with their modes, no shell, nothing executable but the CLI, shared
// libraries and the packages' files, none of the image's own entries
// writable by others but /tmp.
func checkFiles(t *testing.T, files map[string]*tar.Header, root, bin string) {
	t.Helper()
	cli := files["aclwasm"]
	require.NotNil(t, cli, "/aclwasm")
	require.EqualValues(t, 0o755, cli.Mode&0o7777)
	require.Zero(t, cli.Uid)
	st, err := os.Stat(bin)
	require.NoError(t, err)
	require.Equal(t, st.Size(), cli.Size)
	for _, f := range []string{"etc/passwd", "etc/group", "etc/ssl/certs/ca-certificates.crt"} {
		require.NotNil(t, files[f], f)
		require.EqualValues(t, 0o644, files[f].Mode&0o7777, f)
	}
	home := files["home/nonroot"]
	require.NotNil(t, home)
	require.Equal(t, 65532, home.Uid)
	require.Equal(t, 65532, home.Gid)
	require.EqualValues(t, 0o1777, files["tmp"].Mode&0o7777)
	// The packages' files, as their lists in the image name them.
	listed := map[string]bool{}
	for name := range files {
		if strings.HasPrefix(name, "var/lib/dpkg/info/") && strings.HasSuffix(name, ".list") {
			b, err := os.ReadFile(filepath.Join(root, name))
			require.NoError(t, err)
			for _, l := range strings.Split(string(b), "\n") {
				listed[strings.TrimPrefix(l, "/")] = true
			}
		}
	}
	for name, h := range files {
		base := path.Base(name)
		for _, sh := range []string{"sh", "bash", "dash", "ash", "zsh", "busybox", "env"} {
			require.NotEqual(t, sh, base, "%s: the image has no shell", name)
		}
		if h.Typeflag == tar.TypeReg && h.Mode&0o111 != 0 && name != "aclwasm" && !strings.Contains(base, ".so") {
			require.True(t, listed[name], "%s: only the CLI, shared libraries and the packages' files are executable", name)
		}
		// A package's entries have the modes Debian gives them
		// (/var/local is root:staff 2775); the image's own, none
		// writable by others but /tmp.
		if h.Typeflag != tar.TypeSymlink && !listed[name] && name != "tmp" {
			require.Zero(t, h.Mode&0o022, "%s: mode %o is writable by group or others", name, h.Mode)
		}
	}
}

// checkRuns runs the extracted CLI with --version: through the image's
// own program interpreter and libraries (nothing from the machine's), and,
// where user namespaces are allowed, chrooted into the layer as 65532.
func checkRuns(t *testing.T, root string) {
	t.Helper()
	var loader, libdir string
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasPrefix(d.Name(), "ld-linux") {
			loader, libdir = p, filepath.Dir(p)
		}
		return err
	}))
	require.NotEmpty(t, loader, "the image has the CLI's program interpreter (the CLI is dynamically linked through purego)")
	// The loader's system search path: /lib/MULTIARCH, /usr/lib/MULTIARCH.
	libPath := libdir + ":" + filepath.Join(root, "usr/lib", filepath.Base(libdir))
	out, err := exec.Command(loader, "--inhibit-cache", "--library-path", libPath, filepath.Join(root, "aclwasm"), "--version").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.True(t, strings.HasPrefix(string(out), "aclwasm "), "%s", out)
	// The libraries the native backend's libascendcl.so needs resolve in
	// the image alone.
	for _, lib := range image.DefaultDlopenLibs {
		at, err := securejoin.SecureJoin(root, "/lib/"+filepath.Base(libdir)+"/"+lib)
		require.NoError(t, err)
		if _, err := os.Stat(at); err != nil {
			at, err = securejoin.SecureJoin(root, "/usr/lib/"+filepath.Base(libdir)+"/"+lib)
			require.NoError(t, err)
		}
		out, err := exec.Command(loader, "--inhibit-cache", "--library-path", libPath, "--list", at).CombinedOutput()
		require.NoError(t, err, "%s: %s", lib, out)
		require.NotContains(t, string(out), "not found", lib)
		for _, line := range strings.Split(string(out), "\n") {
			if _, p, ok := strings.Cut(line, "=> "); ok {
				require.True(t, strings.HasPrefix(p, root), "%s resolves %q outside the image", lib, line)
			}
		}
	}

	c := exec.Command("/aclwasm", "--version")
	c.Env = []string{}
	c.SysProcAttr = &syscall.SysProcAttr{
		Chroot:                     root,
		Cloneflags:                 syscall.CLONE_NEWUSER,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: 65532, HostID: os.Getuid(), Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: 65532, HostID: os.Getgid(), Size: 1}},
		GidMappingsEnableSetgroups: false,
		Credential:                 &syscall.Credential{Uid: 65532, Gid: 65532, NoSetGroups: true},
	}
	out, err = c.CombinedOutput()
	var errno syscall.Errno
	if errors.As(err, &errno) && (errno == syscall.EPERM || errno == syscall.EINVAL || errno == syscall.ENOSPC || errno == syscall.EACCES) {
		t.Logf("no user namespace here (%v): the chrooted run is left out; the run through the image's loader above passed", err)
		return
	}
	require.NoError(t, err, "chrooted into the layer as 65532: %s", out)
	require.True(t, strings.HasPrefix(string(out), "aclwasm "), "%s", out)
	checkServes(t, c.SysProcAttr)
}

// listening is serve's log line with the address it listens on.
var listening = regexp.MustCompile(`msg=listening addr=(127\.0\.0\.1:[0-9]+)`)

// checkServes runs serve chrooted into the layer as 65532, on 127.0.0.1,
// asks /readyz and /v1/plugins, and stops it with SIGTERM: it must exit 0.
func checkServes(t *testing.T, attr *syscall.SysProcAttr) {
	t.Helper()
	c := exec.Command("/aclwasm", "serve", "--listen=127.0.0.1:0", "--backend=sim", "--poll=0", "/plugins")
	c.Env = []string{"HOME=/home/nonroot"}
	c.SysProcAttr = attr
	pr, pw := io.Pipe()
	c.Stderr = pw
	require.NoError(t, c.Start())
	exited := make(chan error, 1)
	go func() { exited <- c.Wait(); pw.Close() }()
	var logs bytes.Buffer
	addr := make(chan string, 1)
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			logs.WriteString(sc.Text() + "\n")
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
	}()
	stopped := false
	defer func() {
		if !stopped {
			_ = c.Process.Kill()
			<-exited
		}
		<-read
	}()
	var at string
	select {
	case at = <-addr:
	case err := <-exited:
		stopped = true
		<-read
		t.Fatalf("serve exited before listening: %v\n%s", err, logs.String())
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not log its address within 30s")
	}
	client := &http.Client{Timeout: 5 * time.Second}
	ready := false
	for i := 0; i < 100 && !ready; i++ {
		resp, err := client.Get("http://" + at + "/readyz")
		if err == nil {
			ready = resp.StatusCode == http.StatusOK
			resp.Body.Close()
		}
		if !ready {
			time.Sleep(100 * time.Millisecond)
		}
	}
	require.True(t, ready, "/readyz never answered 200")
	resp, err := client.Get("http://" + at + "/v1/plugins")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	require.NoError(t, c.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-exited:
		stopped = true
		require.NoError(t, err, "serve exits 0 on SIGTERM")
		t.Logf("serve, chrooted into the layer as 65532, answered on %s and exited 0 on SIGTERM", at)
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not exit within 30s of SIGTERM")
	}
}

// untar extracts a tar of plain files and directories into dir.
func untar(t *testing.T, file, dir string) {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	extractLayer(t, f, dir)
}

// extractLayer extracts a tar into dir (files, directories, symbolic
// links; names checked to stay inside dir) and returns its headers by
// name without a trailing slash.
func extractLayer(t *testing.T, r io.Reader, dir string) map[string]*tar.Header {
	t.Helper()
	files := map[string]*tar.Header{}
	tr := tar.NewReader(r)
	for n := 0; ; n++ {
		require.Less(t, n, 10000, "too many entries")
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		name := strings.TrimSuffix(h.Name, "/")
		require.True(t, filepath.IsLocal(name), "%q leaves the root", h.Name)
		require.NotContains(t, files, name, "%s twice", name)
		files[name] = h
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		switch h.Typeflag {
		case tar.TypeDir:
			require.NoError(t, os.MkdirAll(p, 0o755))
		case tar.TypeSymlink:
			require.NoError(t, os.Symlink(h.Linkname, p))
		case tar.TypeReg:
			f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_EXCL, os.FileMode(h.Mode&0o755)|0o200)
			require.NoError(t, err)
			_, err = io.Copy(f, tr)
			require.NoError(t, err)
			require.NoError(t, f.Close())
		default:
			t.Fatalf("%s: unexpected entry type %c", name, h.Typeflag)
		}
	}
	return files
}

// staticHello builds a small static Go program for the machine.
func staticHello(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/hello\n\ngo 1.26\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() { println(\"hello\") }\n"), 0o644))
	out := filepath.Join(dir, "hello")
	c := exec.Command("go", "build", "-trimpath", "-o", out, ".")
	c.Dir = dir
	c.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	b, err := c.CombinedOutput()
	require.NoError(t, err, "%s", b)
	return out
}

// TestRunRefuses: mkimage's usage errors, and a platform that cannot be
// built failing the command even with no push, leaving no tar behind.
func TestRunRefuses(t *testing.T) {
	self, err := os.Executable()
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "aclwasm.tar")
	base := []string{"-version", "v1", "-revision", "r", "-out", out}
	debs := t.TempDir()
	debtest.Minimal(t, debs, runtime.GOARCH)
	own := "linux/" + runtime.GOARCH
	other := map[string]string{"amd64": "linux/arm64", "arm64": "linux/amd64"}[runtime.GOARCH]
	hello := staticHello(t)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no binary", nil, "no -binary given"},
		{"binary without platform", []string{"-binary", self}, "want OS/ARCH=VALUE"},
		{"binary twice", []string{"-binary", "linux/amd64=" + self, "-binary", "linux/amd64=" + self}, "linux/amd64 is given twice"},
		{"debs without binary", []string{"-binary", own + "=" + self, "-debs", own + "=" + debs, "-debs", "linux/riscv64=" + debs}, "-debs linux/riscv64: no -binary"},
		{"no debs", []string{"-binary", own + "=" + self}, "no -debs for " + own + ": the directory of its Debian packages (base-files, "},
		{"no deb in debs", []string{"-binary", own + "=" + self, "-debs", own + "=" + t.TempDir()}, "no .deb file in"},
		{"created", []string{"-binary", own + "=" + self, "-debs", own + "=" + debs, "-created", "yesterday"}, "want Unix seconds"},
		{"argument", []string{"-binary", own + "=" + self, "extra"}, "unexpected arguments"},
		// The first platform builds; the second, whose binary is for the
		// first's architecture, does not.
		{"a platform that cannot be built", []string{"-binary", own + "=" + hello, "-binary", other + "=" + hello, "-debs", own + "=" + debs, "-debs", other + "=" + debs}, "is for EM_"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), append(append([]string{}, base...), tc.args...), &stdout, &stderr)
			require.ErrorContains(t, err, tc.want)
			require.NoFileExists(t, out)
		})
	}
}
