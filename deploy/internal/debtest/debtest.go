// Package debtest makes Debian packages (.deb files) for the image
// builder's tests with dpkg-deb, so that no test downloads one: small
// packages described by the test, and the machine's installed packages
// packed again from dpkg's database and files (as dpkg-repack does),
// for an image that runs.
package debtest

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/md5"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// File is one entry of a package: a file (Data, Mode), a symbolic link
// (Link), or a directory (Dir).
type File struct {
	Data []byte
	Mode os.FileMode
	Link string
	Dir  bool
}

// Package describes a small package.
type Package struct {
	Name, Version, Arch string
	// Source is the Source field ("NAME" or "NAME (VERSION)"), if any.
	Source string
	// MultiArch is the Multi-Arch field, if any.
	MultiArch string
	// Files by absolute path.
	Files map[string]File
	// Conffiles are configuration files among Files.
	Conffiles []string
	// Compression is dpkg-deb's -Z: xz (its default), gzip or none.
	Compression string
}

// Build makes the .deb of p in dir and returns its path.
func Build(t testing.TB, dir string, p Package) string {
	t.Helper()
	root, err := os.MkdirTemp(dir, "pkg-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(root, 0o755))
	var md5s bytes.Buffer
	names := make([]string, 0, len(p.Files))
	for n := range p.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		f := p.Files[n]
		at := filepath.Join(root, n)
		require.NoError(t, os.MkdirAll(filepath.Dir(at), 0o755))
		switch {
		case f.Dir:
			require.NoError(t, os.MkdirAll(at, 0o755))
		case f.Link != "":
			require.NoError(t, os.Symlink(f.Link, at))
		default:
			mode := f.Mode
			if mode == 0 {
				mode = 0o644
			}
			require.NoError(t, os.WriteFile(at, f.Data, mode))
			require.NoError(t, os.Chmod(at, mode))
			if !contains(p.Conffiles, n) {
				fmt.Fprintf(&md5s, "%x  %s\n", md5.Sum(f.Data), strings.TrimPrefix(n, "/"))
			}
		}
	}
	ctl := fmt.Sprintf("Package: %s\nVersion: %s\nArchitecture: %s\nMaintainer: Test <test@example.com>\n", p.Name, p.Version, p.Arch)
	if p.Source != "" {
		ctl += "Source: " + p.Source + "\n"
	}
	if p.MultiArch != "" {
		ctl += "Multi-Arch: " + p.MultiArch + "\n"
	}
	ctl += "Description: " + p.Name + " for a test\n A package made by debtest.\n .\n Its second paragraph.\n"
	control := map[string]string{"control": ctl, "md5sums": md5s.String()}
	if len(p.Conffiles) > 0 {
		control["conffiles"] = strings.Join(p.Conffiles, "\n") + "\n"
	}
	return pack(t, dir, root, p.Name+"_"+p.Version+"_"+p.Arch+".deb", control, p.Compression)
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// pack writes the control files into root/DEBIAN and builds the .deb.
func pack(t testing.TB, dir, root, name string, control map[string]string, compression string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "DEBIAN"), 0o755))
	for n, c := range control {
		if c != "" {
			require.NoError(t, os.WriteFile(filepath.Join(root, "DEBIAN", n), []byte(c), 0o644))
		}
	}
	if compression == "" {
		compression = "xz"
	}
	out := filepath.Join(dir, strings.ReplaceAll(name, ":", "%3a"))
	args := []string{"--root-owner-group", "-Z" + compression}
	if compression != "none" {
		args = append(args, "-z1")
	}
	b, err := exec.Command("dpkg-deb", append(args, "--build", root, out)...).CombinedOutput()
	require.NoError(t, err, "dpkg-deb --build: %s", b)
	require.NoError(t, os.RemoveAll(root))
	return out
}

// Installed packs the machine's installed packages names (for its own
// architecture, or "all") again into .deb files in dir, as dpkg-repack
// does: the control fields of dpkg's status without the installed
// state, the files dpkg lists for it as they are on disk (those a dpkg
// path-exclude left out are left out), their md5sums and conffiles.
func Installed(t testing.TB, dir string, names ...string) []string {
	t.Helper()
	var debs []string
	for _, name := range names {
		q, err := exec.Command("dpkg-query", "-W", "-f", "${binary:Package}", name).Output()
		require.NoError(t, err, "dpkg-query -W %s: the package must be installed", name)
		qual := strings.TrimSpace(string(q))
		status, err := exec.Command("dpkg-query", "-s", qual).Output()
		require.NoError(t, err, "dpkg-query -s %s", qual)
		list, err := exec.Command("dpkg-query", "-L", qual).Output()
		require.NoError(t, err, "dpkg-query -L %s", qual)
		root, err := os.MkdirTemp(dir, "repack-")
		require.NoError(t, err)
		require.NoError(t, os.Chmod(root, 0o755))
		var paths []string
		sc := bufio.NewScanner(bytes.NewReader(list))
		for sc.Scan() {
			if p := sc.Text(); strings.HasPrefix(p, "/") && p != "/." { // not "diverted by ..." nor the root
				paths = append(paths, p)
			}
		}
		present := map[string]bool{}
		for _, p := range paths {
			fi, err := os.Lstat(p)
			if os.IsNotExist(err) {
				continue
			}
			require.NoError(t, err)
			if mergedUsr[p] && fi.Mode()&os.ModeSymlink != 0 {
				// A directory of the package that a merged /usr made a
				// link (/lib -> usr/lib): the package has it as a directory.
				fi, err = os.Stat(p)
				require.NoError(t, err)
			}
			at := filepath.Join(root, p)
			switch {
			case fi.IsDir():
				require.NoError(t, os.MkdirAll(at, 0o755))
				require.NoError(t, os.Chmod(at, fi.Mode().Perm()|fi.Mode()&os.ModeSticky))
			case fi.Mode()&os.ModeSymlink != 0:
				l, err := os.Readlink(p)
				require.NoError(t, err)
				require.NoError(t, os.MkdirAll(filepath.Dir(at), 0o755))
				require.NoError(t, os.Symlink(l, at))
			case fi.Mode().IsRegular():
				require.NoError(t, os.MkdirAll(filepath.Dir(at), 0o755))
				copyFile(t, p, at, fi.Mode().Perm())
			default:
				continue
			}
			present[strings.TrimPrefix(p, "/")] = true
		}
		info := func(ext string) string {
			for _, n := range []string{qual, name} {
				if b, err := os.ReadFile(path.Join("/var/lib/dpkg/info", n+"."+ext)); err == nil {
					return string(b)
				}
			}
			return ""
		}
		keep := func(text string, file func(line string) string) string {
			var b strings.Builder
			for _, l := range strings.SplitAfter(text, "\n") {
				if f := file(l); f != "" && present[f] {
					b.WriteString(l)
				}
			}
			return b.String()
		}
		md5s := keep(info("md5sums"), func(l string) string {
			_, f, _ := strings.Cut(strings.TrimRight(l, "\n"), "  ")
			return f
		})
		conffiles := keep(info("conffiles"), func(l string) string {
			return strings.TrimPrefix(strings.TrimSpace(l), "/")
		})
		debs = append(debs, pack(t, dir, root, qual+".deb", map[string]string{
			"control": controlOf(string(status)), "md5sums": md5s, "conffiles": conffiles,
		}, "gzip"))
	}
	return debs
}

// mergedUsr are the directories that Debian's merged /usr turns into
// links into /usr on the machine, while packages still ship them.
var mergedUsr = map[string]bool{"/bin": true, "/sbin": true, "/lib": true, "/lib32": true, "/lib64": true, "/libx32": true}

// controlOf is a status paragraph without what only an installed
// package has (Status, Conffiles, Config-Version).
func controlOf(status string) string {
	var b strings.Builder
	skip := false
	for _, l := range strings.SplitAfter(status, "\n") {
		if l == "" || l == "\n" {
			continue
		}
		if l[0] != ' ' && l[0] != '\t' {
			k, _, _ := strings.Cut(l, ":")
			skip = k == "Status" || k == "Conffiles" || k == "Config-Version"
		}
		if !skip {
			b.WriteString(l)
		}
	}
	return b.String()
}

func copyFile(t testing.TB, from, to string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(from)
	require.NoError(t, err)
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
	require.NoError(t, err)
	_, err = io.Copy(out, in)
	require.NoError(t, err)
	require.NoError(t, out.Close())
	require.NoError(t, os.Chmod(to, mode))
}

// testCert is a self-signed certificate in PEM.
func testCert(t testing.TB) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "debtest root"},
		NotBefore: time.Unix(1700000000, 0), NotAfter: time.Unix(1900000000, 0), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// osRelease is Debian 12's /usr/lib/os-release, in part.
const osRelease = "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\nID=debian\n"

// Minimal makes, in dir, the two packages every image needs, small:
// base-files (Debian 12's os-release) and ca-certificates (one
// certificate), for arch, and returns their paths.
func Minimal(t testing.TB, dir, arch string) []string {
	t.Helper()
	return []string{
		Build(t, dir, Package{Name: "base-files", Version: "12.4+deb12u11", Arch: arch, Files: map[string]File{
			"/etc/os-release":                     {Link: "../usr/lib/os-release"},
			"/usr/lib/os-release":                 {Data: []byte(osRelease)},
			"/etc/debian_version":                 {Data: []byte("12.11\n")},
			"/usr/share/doc/base-files/copyright": {Data: []byte("This is Debian's base system.\nSee /usr/share/common-licenses/GPL-2.\n")},
		}, Conffiles: []string{"/etc/debian_version"}}),
		Build(t, dir, Package{Name: "ca-certificates", Version: "20230311+deb12u1", Arch: "all", Compression: "gzip", Files: map[string]File{
			"/usr/share/ca-certificates/mozilla/Test_Root.crt": {Data: testCert(t)},
			"/usr/share/doc/ca-certificates/copyright":         {Data: []byte("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\nFiles: *\nLicense: GPL-2+\n\nFiles: mozilla/*\nLicense: MPL-2.0\n")},
		}}),
	}
}
