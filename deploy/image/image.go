// Package image builds the container image of aclwasm without a Docker
// daemon and without a base image: one layer holding the CLI, a passwd
// and group naming the non-root user 65532, and whole Debian packages
// (Packages: the C library, the C++ runtime, the CA certificates,
// base-files), unpacked from their .deb files as dpkg would unpack them,
// with dpkg's database (DpkgStatus, DpkgInfo) and their copyright files,
// so that scanners (syft, trivy, grype) and `dpkg-query --admindir` see
// every package and own every file they carry. The CA bundle is made from
// the ca-certificates package as update-ca-certificates makes it. A
// CycloneDX SBOM at SBOMPath lists the CLI's Go modules (its embedded
// build information) and the packages. It writes the image as a tarball
// that both `docker load` and `podman load` read, and pushes it, or an
// index of several platforms, to a registry.
//
// Why a C library at all: the native backend (acl/cann) loads
// libascendcl.so with purego, whose dynamic imports make even a
// CGO_ENABLED=0 build of the CLI a dynamically linked executable
// (PT_INTERP /lib64/ld-linux-x86-64.so.2, NEEDED libc.so.6). Without the
// loader and libc in the image it would not start, and libascendcl.so,
// a C++ library, needs libstdc++ and libgcc_s besides. The build checks
// that they all resolve in the packages' files. No shell or other
// program is added, and no maintainer script is run.
package image

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's fixed shape, which the Helm chart relies on.
const (
	// Entrypoint is the CLI's path in the image.
	Entrypoint = "/aclwasm"
	// PluginDir is the directory the default command serves; the chart
	// mounts the plugins there.
	PluginDir = "/plugins"
	// UID and GID are the non-root user and group the image runs as.
	UID, GID = 65532, 65532
	// UserName is the passwd name of UID, with home HomeDir.
	UserName = "nonroot"
	// HomeDir is UserName's home directory.
	HomeDir = "/home/nonroot"
	// CACertsPath is where Go's crypto/x509 looks first on Linux.
	CACertsPath = "/etc/ssl/certs/ca-certificates.crt"
)

// DefaultDlopenLibs are the libraries the packages must hold for a
// dynamically linked CLI besides its own dependencies: those libascendcl.so, a C++ library that
// the native backend opens at run time, needs from the system.
var DefaultDlopenLibs = []string{"libstdc++.so.6", "libgcc_s.so.1", "libm.so.6", "librt.so.1"}

// Platform is one image of the build: the CLI for one OS and architecture.
type Platform struct {
	// OS and Architecture as Go names them (linux, amd64 or arm64).
	OS, Architecture string
	// Binary is the path of the CLI built for the platform.
	Binary string
	// Debs are the .deb files of the Debian packages the image carries
	// (Packages, for the platform's architecture or "all").
	Debs []string
}

// String is the platform as docker's --platform writes it.
func (p Platform) String() string { return p.OS + "/" + p.Architecture }

// Options says what goes into the image besides the binary.
type Options struct {
	// Version, Revision, Source and Licenses become the OCI labels
	// org.opencontainers.image.version, .revision, .source, .licenses.
	Version, Revision, Source, Licenses string
	// Created is the image's creation time and every file's mtime, so that
	// the same inputs give the same digest (SOURCE_DATE_EPOCH).
	Created time.Time
	// Port is the TCP port the default command listens on, and exposes.
	Port int
	// DlopenLibs must be in the packages, with their dependencies, for a
	// dynamically linked binary (DefaultDlopenLibs when nil).
	DlopenLibs []string
}

// Cmd is the image's default command for port: serve the plugins of
// PluginDir on every interface (serve's default, 127.0.0.1, would be
// unreachable from outside the container), with --insecure: plain HTTP
// and no access rules, which a server refuses on a non-loopback address
// without it. An image cannot ship a certificate or tokens of its own;
// `docker run -p 127.0.0.1:8080:8080` keeps the port on the machine, and
// a deployment gives TLS and --config (the Helm chart's tls and config).
func Cmd(port int) []string {
	return []string{"serve", "--listen=:" + strconv.Itoa(port), "--insecure", PluginDir}
}

// Labels are the image's OCI annotations as config labels.
func (o Options) Labels() map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":       "aclwasm",
		"org.opencontainers.image.description": "Runs untrusted WebAssembly plugins that move accelerator data through the ACL memcpy API",
		"org.opencontainers.image.source":      o.Source,
		"org.opencontainers.image.version":     o.Version,
		"org.opencontainers.image.revision":    o.Revision,
		"org.opencontainers.image.licenses":    o.Licenses,
		"org.opencontainers.image.created":     o.Created.UTC().Format(time.RFC3339),
	}
}

// check refuses options an image cannot be built from.
func (o Options) check() error {
	var missing []string
	for name, v := range map[string]string{"version": o.Version, "revision": o.Revision, "source": o.Source, "licenses": o.Licenses} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("image: no %s given", strings.Join(missing, ", "))
	}
	if o.Port < 1 || o.Port > 65535 {
		return fmt.Errorf("image: port %d is not a TCP port", o.Port)
	}
	return nil
}

// Build returns the image of one platform.
func Build(p Platform, o Options) (v1.Image, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if o.DlopenLibs == nil {
		o.DlopenLibs = DefaultDlopenLibs
	}
	layer, err := buildLayer(p, o)
	if err != nil {
		return nil, err
	}
	created := v1.Time{Time: o.Created.UTC()}
	img, err := mutate.Append(empty.Image, mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCILayer,
		History:   v1.History{Created: created, CreatedBy: "aclwasm deploy/cmd/mkimage", Comment: "aclwasm " + o.Version},
	})
	if err != nil {
		return nil, err
	}
	img = mutate.MediaType(img, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Created = p.OS, p.Architecture, created
	port := strconv.Itoa(o.Port) + "/tcp"
	cf.Config = v1.Config{
		Entrypoint:   []string{Entrypoint},
		Cmd:          Cmd(o.Port),
		User:         strconv.Itoa(UID) + ":" + strconv.Itoa(GID),
		WorkingDir:   "/",
		ExposedPorts: map[string]struct{}{port: {}},
		Env:          []string{"HOME=" + HomeDir, "SSL_CERT_FILE=" + CACertsPath},
		Labels:       o.Labels(),
		StopSignal:   "SIGTERM",
	}
	return mutate.ConfigFile(img, cf)
}

// BuildIndex returns an OCI image index of one image per platform.
func BuildIndex(ps []Platform, o Options) (v1.ImageIndex, error) {
	if len(ps) == 0 {
		return nil, errors.New("image: no platform given")
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range ps {
		img, err := Build(p, o)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: p.OS, Architecture: p.Architecture}},
		})
	}
	return idx, nil
}

// machines are the ELF machines of the architectures an image can hold,
// and the multiarch directories their libraries live in.
var machines = map[string]struct {
	machine   elf.Machine
	multiarch string
}{
	"amd64": {elf.EM_X86_64, "x86_64-linux-gnu"},
	"arm64": {elf.EM_AARCH64, "aarch64-linux-gnu"},
}

// buildLayer returns the image's only layer.
func buildLayer(p Platform, o Options) (v1.Layer, error) {
	if p.OS != "linux" {
		return nil, fmt.Errorf("image: OS %q: only linux images are built", p.OS)
	}
	m, ok := machines[p.Architecture]
	if !ok {
		return nil, fmt.Errorf("image: architecture %q: want amd64 or arm64", p.Architecture)
	}
	bin, err := os.ReadFile(p.Binary)
	if err != nil {
		return nil, err
	}
	f, err := elf.NewFile(bytes.NewReader(bin))
	if err != nil {
		return nil, fmt.Errorf("image: %s is not an ELF executable: %w", p.Binary, err)
	}
	if f.Machine != m.machine {
		return nil, fmt.Errorf("image: %s is for %s, not %s", p.Binary, f.Machine, p)
	}
	if len(p.Debs) == 0 {
		return nil, fmt.Errorf("image: no Debian packages given for %s (%s)", p, strings.Join(Packages, ", "))
	}
	fs := newTree(o.Created)
	var pkgs []*debPackage
	for _, d := range p.Debs {
		pk, err := fs.addDeb(d, p.Architecture)
		if err != nil {
			return nil, fmt.Errorf("image: %w", err)
		}
		pkgs = append(pkgs, pk)
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].name < pkgs[j].name })
	if err := fs.readCopyright(pkgs); err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	distro, distroVersion, err := fs.osRelease()
	if err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	if err := checkLibraries(fs, f, p, m.machine, m.multiarch, o.DlopenLibs, pkgs); err != nil {
		return nil, err
	}
	certs, err := fs.caBundle()
	if err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	bom, err := sbom(bin, p, o, pkgs, distro, distroVersion)
	if err != nil {
		return nil, fmt.Errorf("image: SBOM: %w", err)
	}
	// The image's own files: no package may hold one of them.
	for _, f := range []struct {
		name string
		data []byte
		mode int64
	}{
		{Entrypoint, bin, 0o755},
		{"/etc/passwd", fmt.Appendf(nil, "root:x:0:0:root:/root:/sbin/nologin\n%s:x:%d:%d:%s:%s:/sbin/nologin\n", UserName, UID, GID, UserName, HomeDir), 0o644},
		{"/etc/group", fmt.Appendf(nil, "root:x:0:\n%s:x:%d:\n", UserName, GID), 0o644},
		// Go's resolver reads it for the order of /etc/hosts and DNS.
		{"/etc/nsswitch.conf", []byte("hosts: files dns\n"), 0o644},
		{CACertsPath, certs, 0o644},
		{SBOMPath, bom, 0o644},
	} {
		if err := fs.own(strings.TrimPrefix(f.name, "/"), f.data, f.mode); err != nil {
			return nil, err
		}
	}
	if err := fs.addDpkgDatabase(pkgs); err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	// Directories the image needs, where no package made them.
	for _, d := range []struct {
		path string
		mode int64
		uid  int
	}{{"home", 0o755, 0}, {strings.TrimPrefix(HomeDir, "/"), 0o700, UID}, {strings.TrimPrefix(PluginDir, "/"), 0o755, 0}, {"tmp", 0o1777, 0}} {
		if h, ok := fs.entries[d.path]; ok && h.Typeflag != tar.TypeDir {
			return nil, fmt.Errorf("image: /%s is not a directory in package %s", d.path, fs.owner[d.path])
		}
		fs.dir(d.path, d.mode, d.uid)
	}
	data, err := fs.tar()
	if err != nil {
		return nil, err
	}
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.OCILayer))
}

// checkLibraries checks that the program interpreter of a dynamically
// linked executable, and the closure of its NEEDED libraries and of
// extra, resolve in the tree, which holds the packages' files: the
// image carries no library that is not a package's.
func checkLibraries(fs *tree, f *elf.File, p Platform, machine elf.Machine, multiarch string, extra []string, pkgs []*debPackage) error {
	var interp string
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			b, err := io.ReadAll(prog.Open())
			if err != nil {
				return err
			}
			interp = strings.TrimRight(string(b), "\x00")
		}
	}
	if interp == "" {
		return nil // static: nothing to check
	}
	var names []string
	for _, pk := range pkgs {
		names = append(names, pk.name)
	}
	if _, err := fs.resolve(interp); err != nil {
		return fmt.Errorf("image: %s is dynamically linked and its program interpreter %s is in none of the packages given for %s (%s): %w", p.Binary, interp, p, strings.Join(names, ", "), err)
	}
	dirs := []string{"/lib/" + multiarch, "/usr/lib/" + multiarch, "/lib64", "/usr/lib64", "/lib", "/usr/lib"}
	needed, err := f.ImportedLibraries()
	if err != nil {
		return err
	}
	queue := append(needed, extra...)
	seen := map[string]bool{}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		found := false
		for _, d := range dirs {
			at, err := fs.resolve(path.Join(d, name))
			if err != nil {
				continue
			}
			lf, err := elf.NewFile(bytes.NewReader(fs.data[at]))
			if err != nil || lf.Machine != machine {
				continue
			}
			more, err := lf.ImportedLibraries()
			if err != nil {
				continue
			}
			found = true
			queue = append(queue, more...)
			break
		}
		if !found {
			return fmt.Errorf("image: %s (for %s) is in none of %s in the packages given (%s)", name, p, strings.Join(dirs, ", "), strings.Join(names, ", "))
		}
	}
	return nil
}

// tree is the layer's files, by path without the leading slash.
type tree struct {
	at      time.Time
	entries map[string]*tar.Header
	data    map[string][]byte
	// owner is the package each path that is not a directory comes from.
	owner map[string]string
	// packages are the versions of the packages added, by name.
	packages map[string]string
}

func newTree(at time.Time) *tree {
	return &tree{at: at.UTC(), entries: map[string]*tar.Header{}, data: map[string][]byte{}, owner: map[string]string{}, packages: map[string]string{}}
}

func (t *tree) header(name string, typ byte, mode int64, uid int) *tar.Header {
	return &tar.Header{Typeflag: typ, Name: name, Mode: mode, Uid: uid, Gid: uid, ModTime: t.at, Format: tar.FormatPAX}
}

// dir adds a directory, and its parents as root's 0755 directories.
func (t *tree) dir(name string, mode int64, uid int) {
	if parent := path.Dir(name); parent != "." {
		if _, ok := t.entries[parent]; !ok {
			t.dir(parent, 0o755, 0)
		}
	}
	if _, ok := t.entries[name]; !ok {
		t.entries[name] = t.header(name, tar.TypeDir, mode, uid)
	}
}

// file adds a regular file owned by root.
func (t *tree) file(name string, data []byte, mode int64) {
	if parent := path.Dir(name); parent != "." {
		t.dir(parent, 0o755, 0)
	}
	h := t.header(name, tar.TypeReg, mode, 0)
	h.Size = int64(len(data))
	t.entries[name], t.data[name] = h, data
}

// symlink adds a symbolic link to target.
func (t *tree) symlink(name, target string) {
	if parent := path.Dir(name); parent != "." {
		t.dir(parent, 0o755, 0)
	}
	h := t.header(name, tar.TypeSymlink, 0o777, 0)
	h.Linkname = target
	t.entries[name] = h
}

// own adds a file of the image's own (its dpkg database too), which no
// package may hold.
func (t *tree) own(name string, data []byte, mode int64) error {
	if _, ok := t.entries[name]; ok {
		return fmt.Errorf("image: /%s is the image's own and also in package %s", name, t.owner[name])
	}
	t.file(name, data, mode)
	return nil
}

// resolve follows the absolute or root-relative path p through the
// tree's directories and symbolic links, as the container's kernel
// would, to a regular file, and returns that file's name.
func (t *tree) resolve(p string) (string, error) {
	orig := p
	for hops := 0; hops <= 40; hops++ {
		parts := strings.Split(strings.Trim(path.Clean("/"+p), "/"), "/")
		next := ""
	walk:
		for i := range parts {
			cur := path.Join(parts[:i+1]...)
			h, ok := t.entries[cur]
			switch {
			case !ok:
				return "", fmt.Errorf("%s: /%s is not in the image", orig, cur)
			case h.Typeflag == tar.TypeSymlink:
				target := h.Linkname
				if !path.IsAbs(target) {
					target = path.Join("/", path.Dir(cur), target)
				}
				next = path.Join(append([]string{target}, parts[i+1:]...)...)
				break walk
			case i == len(parts)-1 && h.Typeflag == tar.TypeReg:
				return cur, nil
			case i == len(parts)-1 || h.Typeflag != tar.TypeDir:
				return "", fmt.Errorf("%s: /%s is not a regular file or directory", orig, cur)
			}
		}
		p = next
	}
	return "", fmt.Errorf("%s: too many symbolic links", orig)
}

// tar returns the layer's tar, entries sorted so that a directory comes
// before what it holds and the same files give the same bytes.
func (t *tree) tar() ([]byte, error) {
	names := make([]string, 0, len(t.entries))
	for n := range t.entries {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, n := range names {
		h := *t.entries[n]
		if h.Typeflag == tar.TypeDir {
			h.Name += "/"
		}
		if err := tw.WriteHeader(&h); err != nil {
			return nil, err
		}
		if d, ok := t.data[n]; ok {
			if _, err := tw.Write(d); err != nil {
				return nil, err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
