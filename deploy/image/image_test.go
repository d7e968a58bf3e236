package image

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"debug/elf"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	cdx "github.com/CycloneDX/cyclonedx-go"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/validate"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/aclwasm/aclwasm/deploy/internal/debtest"
	"github.com/aclwasm/aclwasm/deploy/internal/sbomtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// staticBinary builds a small pure-Go program (statically linked, no
// cgo) for linux/arch: an image of it needs no C library.
func staticBinary(t *testing.T, arch string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/hello\n\ngo 1.26\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() { println(\"hello\") }\n"), 0o644))
	out := filepath.Join(dir, "hello-"+arch)
	c := exec.Command("go", "build", "-trimpath", "-o", out, ".")
	c.Dir = dir
	c.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch, "GOFLAGS=")
	b, err := c.CombinedOutput()
	require.NoError(t, err, "%s", b)
	return out
}

func testOptions() Options {
	return Options{Version: "v0.0.1", Revision: "abc", Source: "https://example.com/aclwasm", Licenses: "Apache-2.0",
		Created: time.Unix(1700000000, 0), Port: 9090}
}

// testDebs are debtest.Minimal's packages for arch.
func testDebs(t *testing.T, arch string) []string {
	t.Helper()
	return debtest.Minimal(t, t.TempDir(), arch)
}

// layerFiles returns the names of the image's only layer's entries.
func layerFiles(t *testing.T, img v1.Image) map[string]*tar.Header {
	t.Helper()
	layers, err := img.Layers()
	require.NoError(t, err)
	require.Len(t, layers, 1)
	rc, err := layers[0].Uncompressed()
	require.NoError(t, err)
	defer rc.Close()
	files := map[string]*tar.Header{}
	tr := tar.NewReader(rc)
	for n := 0; n < 10000; n++ {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		require.NoError(t, err)
		files[strings.TrimSuffix(h.Name, "/")] = h
	}
	t.Fatal("too many entries")
	return nil
}

// TestStaticIndex builds an index of two platforms from static binaries:
// no C library goes in, each image says its platform, the port is the
// one asked for, and the same inputs give the same digest.
func TestStaticIndex(t *testing.T) {
	ps := []Platform{
		{OS: "linux", Architecture: "amd64", Binary: staticBinary(t, "amd64"), Debs: testDebs(t, "amd64")},
		{OS: "linux", Architecture: "arm64", Binary: staticBinary(t, "arm64"), Debs: testDebs(t, "arm64")},
	}
	o := testOptions()
	idx, err := BuildIndex(ps, o)
	require.NoError(t, err)
	// Validated as written (an OCI layout), as a registry or a loader
	// reads it: the in-memory manifest of a tarball layer differs from its
	// bytes in an empty annotations map, which validate reports.
	lp, err := layout.Write(filepath.Join(t.TempDir(), "layout"), idx)
	require.NoError(t, err)
	written, err := lp.ImageIndex()
	require.NoError(t, err)
	require.NoError(t, validate.Index(written))
	im, err := idx.IndexManifest()
	require.NoError(t, err)
	require.Len(t, im.Manifests, 2)
	for i, d := range im.Manifests {
		require.Equal(t, ps[i].Architecture, d.Platform.Architecture)
		img, err := idx.Image(d.Digest)
		require.NoError(t, err)
		cf, err := img.ConfigFile()
		require.NoError(t, err)
		require.Equal(t, ps[i].Architecture, cf.Architecture)
		require.Equal(t, []string{"serve", "--listen=:9090", "--insecure", "/plugins"}, cf.Config.Cmd)
		require.Contains(t, cf.Config.ExposedPorts, "9090/tcp")
		files := layerFiles(t, img)
		for _, f := range []string{"aclwasm", "var/lib/dpkg/status", "etc/ssl/certs/ca-certificates.crt", "usr/share/aclwasm/sbom.cdx.json"} {
			require.Contains(t, files, f)
		}
		for f := range files {
			require.NotContains(t, f, ".so", "a static binary gets no C library")
		}
	}
	again, err := BuildIndex(ps, o)
	require.NoError(t, err)
	d1, err := idx.Digest()
	require.NoError(t, err)
	d2, err := again.Digest()
	require.NoError(t, err)
	require.Equal(t, d1, d2, "the same inputs give the same index")
	o.Created = o.Created.Add(time.Second)
	later, err := BuildIndex(ps, o)
	require.NoError(t, err)
	d3, err := later.Digest()
	require.NoError(t, err)
	require.NotEqual(t, d1, d3)
}

// TestPush pushes an index and a single image to a registry on 127.0.0.1
// and reads them back.
func TestPush(t *testing.T) {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)
	ps := []Platform{
		{OS: "linux", Architecture: "amd64", Binary: staticBinary(t, "amd64"), Debs: testDebs(t, "amd64")},
		{OS: "linux", Architecture: "arm64", Binary: staticBinary(t, "arm64"), Debs: testDebs(t, "arm64")},
	}
	idx, err := BuildIndex(ps, testOptions())
	require.NoError(t, err)
	ctx := context.Background()
	ref, err := name.ParseReference(u.Host+"/acl/aclwasm:multi", name.Insecure)
	require.NoError(t, err)
	require.NoError(t, Push(ctx, ref, nil, idx))
	got, err := remote.Index(ref, remote.WithContext(ctx))
	require.NoError(t, err)
	want, err := idx.Digest()
	require.NoError(t, err)
	gotD, err := got.Digest()
	require.NoError(t, err)
	require.Equal(t, want, gotD)
	require.NoError(t, validate.Index(got))

	img, err := Build(ps[0], testOptions())
	require.NoError(t, err)
	ref, err = name.ParseReference(u.Host+"/acl/aclwasm:amd64", name.Insecure)
	require.NoError(t, err)
	require.NoError(t, Push(ctx, ref, img, nil))
	back, err := remote.Image(ref, remote.WithContext(ctx))
	require.NoError(t, err)
	require.NoError(t, validate.Image(back))
	cf, err := back.ConfigFile()
	require.NoError(t, err)
	require.Equal(t, "65532:65532", cf.Config.User)
}

// TestWriteTarStatic checks the tar of one image: both halves name the
// same blobs, which are all in it.
func TestWriteTarStatic(t *testing.T) {
	img, err := Build(Platform{OS: "linux", Architecture: "arm64", Binary: staticBinary(t, "arm64"), Debs: testDebs(t, "arm64")}, testOptions())
	require.NoError(t, err)
	ref, err := name.NewTag("aclwasm:v0.0.1")
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, WriteTar(&buf, img, ref, time.Unix(0, 0)))
	entries := map[string][]byte{}
	tr := tar.NewReader(&buf)
	for n := 0; n < 100; n++ {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		b, err := io.ReadAll(tr)
		require.NoError(t, err)
		entries[h.Name] = b
	}
	for _, f := range []string{"oci-layout", "index.json", "manifest.json"} {
		require.Contains(t, entries, f)
	}
	require.Contains(t, string(entries["index.json"]), `"io.containerd.image.name":"docker.io/library/aclwasm:v0.0.1"`)
	require.Contains(t, string(entries["manifest.json"]), `"RepoTags":["aclwasm:v0.0.1"]`)
	d, err := img.Digest()
	require.NoError(t, err)
	raw, err := img.RawManifest()
	require.NoError(t, err)
	require.Equal(t, raw, entries["blobs/sha256/"+d.Hex])
	m, err := img.Manifest()
	require.NoError(t, err)
	for _, b := range append([]v1.Descriptor{m.Config}, m.Layers...) {
		data, ok := entries["blobs/sha256/"+b.Digest.Hex]
		require.True(t, ok, "blob %s", b.Digest)
		h, _, err := v1.SHA256(bytes.NewReader(data))
		require.NoError(t, err)
		require.Equal(t, b.Digest, h)
	}
}

// TestRefusals: what an image cannot be built from.
func TestRefusals(t *testing.T) {
	amd := staticBinary(t, "amd64")
	debs := testDebs(t, "amd64")
	dir := t.TempDir()
	pkg := func(p debtest.Package) string {
		if p.Version == "" {
			p.Version = "1.0-1"
		}
		if p.Arch == "" {
			p.Arch = "amd64"
		}
		if _, ok := p.Files["/usr/share/doc/"+p.Name+"/copyright"]; !ok && p.Files != nil {
			p.Files["/usr/share/doc/"+p.Name+"/copyright"] = debtest.File{Data: []byte("See /usr/share/common-licenses/GPL-2.\n")}
		}
		return debtest.Build(t, dir, p)
	}
	with := func(extra ...string) []string { return append(append([]string{}, debs...), extra...) }
	o := testOptions()
	for _, tc := range []struct {
		name string
		p    Platform
		o    func(*Options)
		want string
	}{
		{"wrong architecture", Platform{OS: "linux", Architecture: "arm64", Binary: amd, Debs: debs}, nil, "is for EM_X86_64, not linux/arm64"},
		{"not ELF", Platform{OS: "linux", Architecture: "amd64", Binary: "image.go", Debs: debs}, nil, "is not an ELF executable"},
		{"not linux", Platform{OS: "windows", Architecture: "amd64", Binary: amd, Debs: debs}, nil, "only linux images"},
		{"unknown architecture", Platform{OS: "linux", Architecture: "riscv64", Binary: amd, Debs: debs}, nil, "want amd64 or arm64"},
		{"no revision", Platform{OS: "linux", Architecture: "amd64", Binary: amd, Debs: debs}, func(o *Options) { o.Revision = "" }, "no revision given"},
		{"bad port", Platform{OS: "linux", Architecture: "amd64", Binary: amd, Debs: debs}, func(o *Options) { o.Port = 70000 }, "not a TCP port"},
		{"no packages", Platform{OS: "linux", Architecture: "amd64", Binary: amd}, nil, "no Debian packages given for linux/amd64"},
		{"not a package", Platform{OS: "linux", Architecture: "amd64", Binary: amd, Debs: with(amd)}, nil, "not a Debian package"},
		{"no certificates", Platform{OS: "linux", Architecture: "amd64", Binary: amd, Debs: debs[:1]}, nil, "the image needs the ca-certificates package"},
		{"no os-release", Platform{OS: "linux", Architecture: "amd64", Binary: amd, Debs: debs[1:]}, nil, "no /etc/os-release (the base-files package)"},
		{"package for another architecture", Platform{OS: "linux", Architecture: "amd64", Binary: amd,
			Debs: with(pkg(debtest.Package{Name: "libfoo", Arch: "arm64", Files: map[string]debtest.File{"/usr/lib/foo": {Data: []byte("x")}}}))},
			nil, "package libfoo is for arm64, not amd64"},
		{"package twice", Platform{OS: "linux", Architecture: "amd64", Binary: amd,
			Debs: with(pkg(debtest.Package{Name: "ca-certificates", Version: "2", Arch: "all", Files: map[string]debtest.File{}}))},
			nil, "package ca-certificates is given twice"},
		{"no copyright", Platform{OS: "linux", Architecture: "amd64", Binary: amd,
			Debs: with(debtest.Build(t, dir, debtest.Package{Name: "nolicence", Version: "1", Arch: "amd64", Files: map[string]debtest.File{"/usr/lib/nolicence": {Data: []byte("x")}}}))},
			nil, "package nolicence carries no copyright file"},
		{"a file in two packages", Platform{OS: "linux", Architecture: "amd64", Binary: amd,
			Debs: with(pkg(debtest.Package{Name: "other", Files: map[string]debtest.File{"/usr/lib/os-release": {Data: []byte("ID=other\n")}}}))},
			nil, "/usr/lib/os-release is in package "},
		{"a package with the image's own file", Platform{OS: "linux", Architecture: "amd64", Binary: amd,
			Debs: with(pkg(debtest.Package{Name: "passwd", Files: map[string]debtest.File{"/etc/passwd": {Data: []byte("root:x:0:0::/:/bin/sh\n")}}}))},
			nil, "/etc/passwd is the image's own and also in package passwd"},
		{"a package with a dpkg database", Platform{OS: "linux", Architecture: "amd64", Binary: amd,
			Debs: with(pkg(debtest.Package{Name: "dpkg", Files: map[string]debtest.File{"/var/lib/dpkg/status": {Data: []byte("")}}}))},
			nil, "/var/lib/dpkg/status is the image's own and also in package dpkg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := o
			if tc.o != nil {
				tc.o(&o)
			}
			_, err := Build(tc.p, o)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// cgoBinary builds a Go program that calls the C library through cgo, a
// dynamically linked executable for the machine, with Go build
// information.
func cgoBinary(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/hello\n\ngo 1.26\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\n// #include <stdio.h>\nimport \"C\"\n\nfunc main() { C.puts(C.CString(\"hello\")); C.fflush(nil) }\n"), 0o644))
	out := filepath.Join(dir, "hello")
	c := exec.Command("go", "build", "-trimpath", "-o", out, ".")
	c.Dir = dir
	c.Env = append(os.Environ(), "CGO_ENABLED=1", "GOFLAGS=")
	b, err := c.CombinedOutput()
	require.NoError(t, err, "%s", b)
	return out
}

// ownFiles are the image's own files, which no package holds.
var ownFiles = []string{Entrypoint, "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", CACertsPath, SBOMPath}

// TestDynamicPackages: a dynamically linked executable gets its program
// interpreter and the closure of its libraries, and the native backend's,
// from the machine's own Debian packages (packed again by debtest), whole
// and with their metadata: dpkg-query lists each package with the
// machine's version, owns every file the image carries but its own, and
// `dpkg --verify` finds each file as its package shipped it. An
// executable that needs a library none of the packages has is refused.
func TestDynamicPackages(t *testing.T) {
	bin := cgoBinary(t)
	f, err := elf.Open(bin)
	require.NoError(t, err)
	var interp string
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			b, err := io.ReadAll(p.Open())
			require.NoError(t, err)
			interp = strings.TrimRight(string(b), "\x00")
		}
	}
	needed, err := f.ImportedLibraries()
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NotEmpty(t, interp, "%s is dynamically linked", bin)
	debs := debtest.Installed(t, t.TempDir(), Packages...)
	p := Platform{OS: "linux", Architecture: runtime.GOARCH, Binary: bin, Debs: debs}

	img, err := Build(p, testOptions())
	require.NoError(t, err)
	files := layerFiles(t, img)
	resolveIn(t, files, interp)
	for _, lib := range append(needed, DefaultDlopenLibs...) {
		// Where the loader looks, in its order (Debian's system search
		// path; the image has no ld.so.cache).
		at := "/lib/" + machines[runtime.GOARCH].multiarch + "/" + lib
		if _, ok := files[strings.TrimPrefix(at, "/")]; !ok {
			at = "/usr" + at
		}
		resolveIn(t, files, at)
	}
	root := extract(t, img)
	installed, err := debtest.Packages(root)
	require.NoError(t, err)
	require.Len(t, installed, len(Packages))
	for _, name := range Packages {
		v, err := exec.Command("dpkg-query", "-W", "-f", "${Version} ${Architecture}", name).Output()
		require.NoError(t, err)
		got := installed[name]
		require.Equal(t, string(v), got.Version+" "+got.Architecture, name)
		require.Equal(t, "ii", got.Status, name)
	}
	problems, err := debtest.Problems(root, ownFiles)
	require.NoError(t, err)
	require.Empty(t, problems)
	libdir := filepath.Join(root, "lib", machines[runtime.GOARCH].multiarch)
	out, err := exec.Command(filepath.Join(libdir, path.Base(interp)), "--inhibit-cache", "--library-path", libdir, filepath.Join(root, "aclwasm")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, "hello\n", string(out))

	ls, err := exec.LookPath("ls") // needs libselinux, which none of them has
	require.NoError(t, err)
	p.Binary = ls
	_, err = Build(p, testOptions())
	require.ErrorContains(t, err, "libselinux.so.1 (for linux/"+runtime.GOARCH+") is in none of")
	require.ErrorContains(t, err, "in the packages given (base-files, ca-certificates, gcc-12-base, libc6, libgcc-s1, libstdc++6)")
}

// extract extracts the image's only layer into a new directory.
func extract(t *testing.T, img v1.Image) string {
	t.Helper()
	layers, err := img.Layers()
	require.NoError(t, err)
	require.Len(t, layers, 1)
	rc, err := layers[0].Uncompressed()
	require.NoError(t, err)
	defer rc.Close()
	root := filepath.Join(t.TempDir(), "root")
	tr := tar.NewReader(rc)
	for n := 0; ; n++ {
		require.Less(t, n, 100000)
		h, err := tr.Next()
		if err == io.EOF {
			return root
		}
		require.NoError(t, err)
		p := filepath.Join(root, h.Name)
		require.True(t, filepath.IsLocal(h.Name), h.Name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		switch h.Typeflag {
		case tar.TypeDir:
			require.NoError(t, os.MkdirAll(p, 0o755))
		case tar.TypeSymlink:
			require.NoError(t, os.Symlink(h.Linkname, p))
		case tar.TypeReg:
			b, err := io.ReadAll(tr)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(p, b, os.FileMode(h.Mode&0o755)|0o200))
		default:
			t.Fatalf("%s: type %c", h.Name, h.Typeflag)
		}
	}
}

// resolveIn follows p through the layer's directories and links, as the
// container's kernel and loader would, to a regular file of the layer.
func resolveIn(t *testing.T, files map[string]*tar.Header, p string) {
	t.Helper()
	orig := p
	for hops := 0; hops < 40; hops++ {
		parts := strings.Split(strings.Trim(path.Clean(p), "/"), "/")
		next := ""
		for i := range parts {
			cur := path.Join(parts[:i+1]...)
			h, ok := files[cur]
			require.True(t, ok, "%s: %s is not in the layer", orig, cur)
			if h.Typeflag == tar.TypeSymlink {
				target := h.Linkname
				if !path.IsAbs(target) {
					target = path.Join("/", path.Dir(cur), target)
				}
				next = path.Join(append([]string{target}, parts[i+1:]...)...)
				break
			}
			if i == len(parts)-1 {
				require.Equal(t, byte(tar.TypeReg), h.Typeflag, "%s resolves to %s, not a file", orig, cur)
				return
			}
			require.Equal(t, byte(tar.TypeDir), h.Typeflag, "%s: %s", orig, cur)
		}
		p = next
	}
	t.Fatalf("%s: too many links", orig)
}

// TestPackageMetadata: the packages' dpkg metadata as dpkg reads it:
// name, version, architecture, source, status and conffiles of each, a
// Multi-Arch: same package's files under NAME:ARCH, a copyright file
// reached through a documentation link; the checker finds a file added
// without metadata and a package file gone; the SBOM names each package
// by purl with its .deb's SHA-256 and the licences of its copyright file.
func TestPackageMetadata(t *testing.T) {
	dir := t.TempDir()
	multiarch := machines[runtime.GOARCH].multiarch
	conf := []byte("answer = 42\n")
	libfoo := debtest.Build(t, dir, debtest.Package{Name: "libfoo1", Version: "1.0-1+b1", Arch: runtime.GOARCH, Source: "foo (1.0-1)", MultiArch: "same", Compression: "none",
		Files: map[string]debtest.File{
			"/usr/lib/" + multiarch + "/libfoo.so.1.0": {Data: []byte("not really ELF"), Mode: 0o644},
			"/usr/lib/" + multiarch + "/libfoo.so.1":   {Link: "libfoo.so.1.0"},
			"/etc/foo.conf":                            {Data: conf},
			"/usr/share/doc/libfoo1":                   {Link: "foo-base"},
		}, Conffiles: []string{"/etc/foo.conf"}})
	fooBase := debtest.Build(t, dir, debtest.Package{Name: "foo-base", Version: "1.0-1", Arch: "all", Source: "foo",
		Files: map[string]debtest.File{
			"/usr/share/doc/foo-base/copyright": {Data: []byte("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\nFiles: *\nCopyright: 2024 Foo\nLicense: BSD-3-Clause\n Redistribution and use...\n")},
		}})
	debs := append(testDebs(t, runtime.GOARCH), libfoo, fooBase)
	img, err := Build(Platform{OS: "linux", Architecture: runtime.GOARCH, Binary: staticBinary(t, runtime.GOARCH), Debs: debs}, testOptions())
	require.NoError(t, err)
	root := extract(t, img)

	pkgs, err := debtest.Packages(root)
	require.NoError(t, err)
	require.Equal(t, map[string]debtest.Installation{
		"base-files":      {Package: "base-files", Version: "12.4+deb12u11", Architecture: runtime.GOARCH, Status: "ii", Source: "base-files"},
		"ca-certificates": {Package: "ca-certificates", Version: "20230311+deb12u1", Architecture: "all", Status: "ii", Source: "ca-certificates"},
		"libfoo1":         {Package: "libfoo1", Version: "1.0-1+b1", Architecture: runtime.GOARCH, Status: "ii", Source: "foo"},
		"foo-base":        {Package: "foo-base", Version: "1.0-1", Architecture: "all", Status: "ii", Source: "foo"},
	}, pkgs)
	problems, err := debtest.Problems(root, ownFiles)
	require.NoError(t, err)
	require.Empty(t, problems)
	q := func(format, pkg string) string {
		out, err := exec.Command("dpkg-query", "--admindir="+filepath.Join(root, "var/lib/dpkg"), "-W", "-f", format, pkg).CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	require.Equal(t, fmt.Sprintf(" /etc/foo.conf %x\n", md5.Sum(conf)), strings.TrimPrefix(q("${Conffiles}\n", "libfoo1"), "\n"))
	require.Equal(t, "libfoo1 for a test\n A package made by debtest.\n .\n Its second paragraph.", q("${Description}", "libfoo1"))
	require.FileExists(t, filepath.Join(root, "var/lib/dpkg/info/libfoo1:"+runtime.GOARCH+".list"))
	require.FileExists(t, filepath.Join(root, "var/lib/dpkg/info/foo-base.list"))
	out, err := exec.Command("dpkg-query", "--admindir="+filepath.Join(root, "var/lib/dpkg"), "-S", "/usr/lib/"+multiarch+"/libfoo.so.1").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, "libfoo1:"+runtime.GOARCH+": /usr/lib/"+multiarch+"/libfoo.so.1\n", string(out))

	// What the checker finds: a library without its package's metadata
	// (what copying a C library from the build machine did), and a
	// package's file gone.
	require.NoError(t, os.WriteFile(filepath.Join(root, "usr/lib", multiarch, "libstray.so.1"), []byte("x"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(root, "usr/lib", multiarch, "libfoo.so.1.0")))
	problems, err = debtest.Problems(root, ownFiles)
	require.NoError(t, err)
	require.Contains(t, problems, "/usr/lib/"+multiarch+"/libstray.so.1 is in no package's file list")
	require.Contains(t, problems, "dpkg --verify: missing     /usr/lib/"+multiarch+"/libfoo.so.1.0")

	bom := readBOM(t, img)
	byName := map[string]cdx.Component{}
	for _, c := range *bom.Components {
		byName[c.Name] = c
	}
	sum, err := os.ReadFile(libfoo)
	require.NoError(t, err)
	c := byName["libfoo1"]
	require.Equal(t, "pkg:deb/debian/libfoo1@1.0-1%2Bb1?arch="+runtime.GOARCH+"&distro=debian-12&upstream=foo%401.0-1", c.PackageURL)
	require.Equal(t, []cdx.Hash{{Algorithm: cdx.HashAlgoSHA256, Value: fmt.Sprintf("%x", sha256.Sum256(sum))}}, *c.Hashes)
	require.Equal(t, []string{"BSD-3-Clause"}, licenceNames(c))
	require.Equal(t, []string{"GPL-2+", "MPL-2.0"}, licenceNames(byName["ca-certificates"]))
	require.Equal(t, []string{"GPL-2"}, licenceNames(byName["base-files"]))
	require.Equal(t, "pkg:deb/debian/ca-certificates@20230311%2Bdeb12u1?arch=all&distro=debian-12", byName["ca-certificates"].PackageURL)
	require.Equal(t, "pkg:deb/debian/foo-base@1.0-1?arch=all&distro=debian-12&upstream=foo", byName["foo-base"].PackageURL)
}

// readBOM decodes the image's SBOM, as a CycloneDX consumer would.
func readBOM(t *testing.T, img v1.Image) *cdx.BOM {
	t.Helper()
	b, err := ReadSBOM(img)
	require.NoError(t, err)
	bom := new(cdx.BOM)
	require.NoError(t, cdx.NewBOMDecoder(bytes.NewReader(b), cdx.BOMFileFormatJSON).Decode(bom))
	require.Equal(t, cdx.SpecVersion1_6, bom.SpecVersion)
	require.NotNil(t, bom.Components)
	return bom
}

func licenceNames(c cdx.Component) []string {
	var names []string
	if c.Licenses != nil {
		for _, l := range *c.Licenses {
			if l.License != nil {
				names = append(names, l.License.Name+l.License.ID)
			} else {
				names = append(names, l.Expression)
			}
		}
	}
	return names
}

// moduleBinary builds a static Go program of two modules: one from the
// module cache (this module's own dependency, so nothing is downloaded)
// and one replaced by a directory.
func moduleBinary(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/hello\n\ngo 1.26\n\nrequire (\n\tgithub.com/package-url/packageurl-go v0.1.7\n\texample.com/local v0.1.0\n)\n\nreplace example.com/local => ./local\n",
		"main.go": "package main\n\nimport (\n\t\"example.com/local\"\n\t\"github.com/package-url/packageurl-go\"\n)\n\n" +
			"func main() { println(packageurl.NewPackageURL(\"golang\", \"\", local.Name, \"\", nil, \"\").ToString()) }\n",
		"local/go.mod":   "module example.com/local\n\ngo 1.26\n",
		"local/local.go": "package local\n\nconst Name = \"local\"\n",
	}
	sum, err := os.ReadFile("../go.sum")
	require.NoError(t, err)
	var lines []string
	for _, l := range strings.Split(string(sum), "\n") {
		if strings.HasPrefix(l, "github.com/package-url/packageurl-go v0.1.7") {
			lines = append(lines, l)
		}
	}
	require.Len(t, lines, 2, "go.sum has packageurl-go v0.1.7")
	files["go.sum"] = strings.Join(lines, "\n") + "\n"
	for n, c := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, n)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte(c), 0o644))
	}
	out := filepath.Join(dir, "hello")
	c := exec.Command("go", "build", "-trimpath", "-o", out, ".")
	c.Dir = dir
	c.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	b, err := c.CombinedOutput()
	require.NoError(t, err, "%s", b)
	return out
}

// TestSBOM: the SBOM lists each module of the executable's build
// information as `go version -m` prints it (path, version, go.sum hash),
// the Go standard library and the executable's main module, whose
// licence is the image's.
func TestSBOM(t *testing.T) {
	bin := moduleBinary(t)
	img, err := Build(Platform{OS: "linux", Architecture: runtime.GOARCH, Binary: bin, Debs: testDebs(t, runtime.GOARCH)}, testOptions())
	require.NoError(t, err)
	bom := readBOM(t, img)
	sbomtest.CheckModules(t, bom, bin)
}

// TestPackagesMakefile: `make image` downloads the packages the builder
// and the tests name.
func TestPackagesMakefile(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^IMAGE_DEBS = (.*)$`).FindSubmatch(mk)
	require.NotNil(t, m, "the Makefile sets IMAGE_DEBS")
	require.Equal(t, Packages, strings.Fields(string(m[1])))
}
