package image

import (
	"archive/tar"
	"bytes"
	"context"
	"debug/elf"
	"io"
	"log"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/validate"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
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
		Created: time.Unix(1700000000, 0), Port: 9090, CACerts: "/etc/ssl/certs/ca-certificates.crt"}
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
		{OS: "linux", Architecture: "amd64", Binary: staticBinary(t, "amd64")},
		{OS: "linux", Architecture: "arm64", Binary: staticBinary(t, "arm64")},
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
		require.Contains(t, files, "aclwasm")
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
		{OS: "linux", Architecture: "amd64", Binary: staticBinary(t, "amd64")},
		{OS: "linux", Architecture: "arm64", Binary: staticBinary(t, "arm64")},
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
	img, err := Build(Platform{OS: "linux", Architecture: "arm64", Binary: staticBinary(t, "arm64")}, testOptions())
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
	o := testOptions()
	for _, tc := range []struct {
		name string
		p    Platform
		o    func(*Options)
		want string
	}{
		{"wrong architecture", Platform{OS: "linux", Architecture: "arm64", Binary: amd}, nil, "is for EM_X86_64, not linux/arm64"},
		{"not ELF", Platform{OS: "linux", Architecture: "amd64", Binary: "image.go"}, nil, "is not an ELF executable"},
		{"not linux", Platform{OS: "windows", Architecture: "amd64", Binary: amd}, nil, "only linux images"},
		{"unknown architecture", Platform{OS: "linux", Architecture: "riscv64", Binary: amd}, nil, "want amd64 or arm64"},
		{"no revision", Platform{OS: "linux", Architecture: "amd64", Binary: amd}, func(o *Options) { o.Revision = "" }, "no revision given"},
		{"bad port", Platform{OS: "linux", Architecture: "amd64", Binary: amd}, func(o *Options) { o.Port = 70000 }, "not a TCP port"},
		{"no certificates", Platform{OS: "linux", Architecture: "amd64", Binary: amd}, func(o *Options) { o.CACerts = amd }, "holds no PEM certificate"},
		{"no certificate file", Platform{OS: "linux", Architecture: "amd64", Binary: amd}, func(o *Options) { o.CACerts = filepath.Join(t.TempDir(), "none.crt") }, "Debian package ca-certificates"},
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

// TestDynamicSysroot: a dynamically linked executable (the machine's ls,
// a C program) gets its program interpreter and the closure of its
// libraries from the sysroot, links kept; it is refused without a
// sysroot, and with one that lacks a library it needs.
func TestDynamicSysroot(t *testing.T) {
	bin, err := exec.LookPath("ls")
	require.NoError(t, err)
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
	p := Platform{OS: "linux", Architecture: runtime.GOARCH, Binary: bin}

	_, err = Build(p, testOptions())
	require.ErrorContains(t, err, "is dynamically linked ("+interp+") and no sysroot is given")

	p.Sysroot = "/"
	img, err := Build(p, testOptions())
	require.NoError(t, err)
	files := layerFiles(t, img)
	resolveIn(t, files, interp)
	for _, lib := range append(needed, DefaultDlopenLibs...) {
		resolveIn(t, files, "/lib/"+machines[runtime.GOARCH].multiarch+"/"+lib)
	}

	bare := t.TempDir()
	data, err := os.ReadFile(interp)
	require.NoError(t, err)
	at := filepath.Join(bare, interp)
	require.NoError(t, os.MkdirAll(filepath.Dir(at), 0o755))
	require.NoError(t, os.WriteFile(at, data, 0o755))
	p.Sysroot = bare
	_, err = Build(p, testOptions())
	require.ErrorContains(t, err, "(for linux/"+runtime.GOARCH+") is in none of")
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
