package image

import (
	"archive/tar"
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"

	"pault.ag/go/debian/control"
	"pault.ag/go/debian/deb"
)

// The Debian packages of the image, and where dpkg and the scanners that
// read its database (syft, trivy, grype) find them.
const (
	// DpkgStatus is dpkg's database of installed packages.
	DpkgStatus = "/var/lib/dpkg/status"
	// DpkgInfo holds each package's file list (NAME.list, or
	// NAME:ARCH.list for a Multi-Arch: same package) and md5sums.
	DpkgInfo = "/var/lib/dpkg/info"
	// caDir is where the ca-certificates package puts the certificates
	// that update-ca-certificates gathers into CACertsPath.
	caDir = "usr/share/ca-certificates"
)

// Packages are the Debian 12 packages an image of the CLI is made of:
// the C library and the C++ runtime that libascendcl.so needs (libc6,
// libgcc-s1, libstdc++6, and gcc-12-base, their common base, which holds
// the copyright of the two GCC ones), the CA certificates, and base-files,
// whose os-release names the distribution to scanners. `make image`
// downloads them (its IMAGE_DEBS, kept equal to this by a test).
var Packages = []string{"base-files", "ca-certificates", "gcc-12-base", "libc6", "libgcc-s1", "libstdc++6"}

// debPackage is one Debian binary package the image carries whole.
type debPackage struct {
	name, version, arch, multiArch string
	// source and sourceVersion are the source package it was built from.
	source, sourceVersion string
	// fields are the package's control fields, in the .deb's order.
	fields control.Paragraph
	// files are the package's paths as dpkg lists them: "/." and then
	// each entry of the data archive, in its order.
	files []string
	// md5sums is the control archive's md5sums, kept as dpkg keeps it.
	md5sums []byte
	// conffiles are the package's configuration files.
	conffiles []string
	// sha256 is the hex SHA-256 of the .deb file.
	sha256 string
	// licenses are the licence names its copyright file gives.
	licenses []string
}

// infoName is the package's name in DpkgInfo: dpkg qualifies a
// Multi-Arch: same package with its architecture.
func (p *debPackage) infoName() string {
	if p.multiArch == "same" {
		return p.name + ":" + p.arch
	}
	return p.name
}

// sourceField parses a Source field, "NAME" or "NAME (VERSION)".
var sourceField = regexp.MustCompile(`^([^ ]+)(?: \(([^)]+)\))?$`)

// addDeb adds the files of the .deb at file to the tree, as dpkg would
// unpack them, and returns the package. arch is the image's Debian
// architecture: the package's must be it or "all".
func (t *tree) addDeb(file, arch string) (*debPackage, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	d, err := deb.Load(f, file)
	if err != nil {
		return nil, fmt.Errorf("%s: not a Debian package: %w", file, err)
	}
	defer d.Close()
	c := d.Control
	p := &debPackage{
		name: c.Package, version: c.Version.String(), arch: c.Architecture.String(), multiArch: c.MultiArch,
		fields: c.Paragraph, sha256: hex.EncodeToString(h.Sum(nil)),
	}
	if p.arch != "all" && p.arch != arch {
		return nil, fmt.Errorf("%s: package %s is for %s, not %s", file, p.name, p.arch, arch)
	}
	if old, dup := t.packages[p.name]; dup {
		return nil, fmt.Errorf("package %s is given twice (%s and %s)", p.name, old, p.version)
	}
	t.packages[p.name] = p.version
	p.source, p.sourceVersion = p.name, p.version
	if c.Source != "" {
		m := sourceField.FindStringSubmatch(c.Source)
		if m == nil {
			return nil, fmt.Errorf("%s: Source %q: want NAME or NAME (VERSION)", file, c.Source)
		}
		p.source = m[1]
		if m[2] != "" {
			p.sourceVersion = m[2]
		}
	}
	if err := p.readControl(d); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	p.files = []string{"/."}
	for n := 0; ; n++ {
		hdr, err := d.Data.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: data: %w", file, err)
		}
		name := strings.Trim(path.Clean("/"+hdr.Name), "/")
		if name == "" {
			continue // the root, "./"
		}
		if err := t.addEntry(name, hdr, d.Data, p.name); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		p.files = append(p.files, "/"+name)
	}
	return p, nil
}

// readControl reads the control archive's md5sums and conffiles.
func (p *debPackage) readControl(d *deb.Deb) error {
	m, ok := d.ArContent["control."+d.ControlExt]
	if !ok {
		return fmt.Errorf("no control archive")
	}
	if _, err := m.Data.Seek(0, io.SeekStart); err != nil {
		return err
	}
	tr, closer, err := m.Tarfile()
	if err != nil {
		return err
	}
	defer closer.Close()
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("control archive: %w", err)
		}
		switch path.Clean(h.Name) {
		case "md5sums":
			if p.md5sums, err = io.ReadAll(tr); err != nil {
				return err
			}
		case "conffiles":
			b, err := io.ReadAll(tr)
			if err != nil {
				return err
			}
			for _, l := range strings.Split(string(b), "\n") {
				// "remove-on-upgrade /etc/x" marks one that is not shipped.
				if l = strings.TrimSpace(l); strings.HasPrefix(l, "/") {
					p.conffiles = append(p.conffiles, l)
				}
			}
		}
	}
}

// addEntry adds one entry of pkg's data archive. Directories are shared
// between packages, as dpkg shares them; any other path is one package's.
func (t *tree) addEntry(name string, h *tar.Header, r io.Reader, pkg string) error {
	if old, ok := t.entries[name]; ok && (old.Typeflag != tar.TypeDir || h.Typeflag != tar.TypeDir) {
		return fmt.Errorf("/%s is in package %s and already in the image (%s)", name, pkg, t.owner[name])
	}
	switch h.Typeflag {
	case tar.TypeDir:
		if _, ok := t.entries[name]; !ok {
			t.dir(name, h.Mode&0o7777, 0)
			t.entries[name].Uid, t.entries[name].Gid = h.Uid, h.Gid
		}
		return nil
	case tar.TypeReg:
		data, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		t.file(name, data, h.Mode&0o7777)
	case tar.TypeSymlink:
		t.symlink(name, h.Linkname)
	case tar.TypeLink:
		// A hard link: the same bytes again, as a file of its own.
		target := strings.Trim(path.Clean("/"+h.Linkname), "/")
		data, ok := t.data[target]
		if !ok {
			return fmt.Errorf("/%s: hard link to /%s, which is not a file before it", name, target)
		}
		t.file(name, data, t.entries[target].Mode)
	default:
		return fmt.Errorf("/%s: entry type %q is not a file, directory or link", name, h.Typeflag)
	}
	t.entries[name].Uid, t.entries[name].Gid = h.Uid, h.Gid
	t.owner[name] = pkg
	return nil
}

// copyrightRe finds the licences a copyright file names: a
// machine-readable one's License fields, and the common licence texts
// any one refers to (as syft reads them).
var (
	dep5License  = regexp.MustCompile(`(?m)^License: *([^ \n][^\n]*)$`)
	commonLicRef = regexp.MustCompile(`/usr/share/common-licenses/([A-Za-z0-9][A-Za-z0-9.+-]*[A-Za-z0-9+])`)
)

// readCopyright finds each package's copyright file, through the
// tree's links (libgcc-s1's documentation is gcc-12-base's), and the
// licences it names. A package without one is refused: the image must
// carry the licence of everything it carries.
func (t *tree) readCopyright(pkgs []*debPackage) error {
	for _, p := range pkgs {
		at, err := t.resolve("usr/share/doc/" + p.name + "/copyright")
		if err != nil {
			return fmt.Errorf("package %s carries no copyright file: %w", p.name, err)
		}
		text := t.data[at]
		seen := map[string]bool{}
		var res []*regexp.Regexp
		if bytes.HasPrefix(text, []byte("Format:")) {
			res = append(res, dep5License)
		}
		for _, re := range append(res, commonLicRef) {
			for _, m := range re.FindAllSubmatch(text, -1) {
				name := strings.TrimSpace(string(m[1]))
				if !seen[name] {
					seen[name] = true
					p.licenses = append(p.licenses, name)
				}
			}
		}
		sort.Strings(p.licenses)
	}
	return nil
}

// addDpkgDatabase writes dpkg's database for pkgs: the status file with
// each package's control fields and "install ok installed", and each
// package's file list and md5sums in DpkgInfo. `dpkg-query --admindir`
// and `dpkg --verify` read it as they read a Debian system's.
func (t *tree) addDpkgDatabase(pkgs []*debPackage) error {
	var status bytes.Buffer
	info := strings.TrimPrefix(DpkgInfo, "/")
	for i, p := range pkgs {
		if i > 0 {
			status.WriteByte('\n')
		}
		para := control.Paragraph{Values: map[string]string{}}
		para.Set("Package", p.name)
		para.Set("Status", "install ok installed")
		for _, k := range p.fields.Order {
			if k != "Package" && k != "Status" && k != "Conffiles" {
				para.Set(k, p.fields.Values[k])
			}
		}
		if len(p.conffiles) > 0 {
			var cf strings.Builder
			for _, c := range p.conffiles {
				data, ok := t.data[strings.TrimPrefix(c, "/")]
				if !ok {
					return fmt.Errorf("package %s: conffile %s is not a file of it", p.name, c)
				}
				fmt.Fprintf(&cf, "\n%s %x", c, md5.Sum(data))
			}
			para.Set("Conffiles", cf.String())
		}
		writeParagraph(&status, para)
		if err := t.own(info+"/"+p.infoName()+".list", []byte(strings.Join(p.files, "\n")+"\n"), 0o644); err != nil {
			return err
		}
		if p.md5sums != nil {
			if err := t.own(info+"/"+p.infoName()+".md5sums", p.md5sums, 0o644); err != nil {
				return err
			}
		}
	}
	if err := t.own(strings.TrimPrefix(DpkgStatus, "/"), status.Bytes(), 0o644); err != nil {
		return err
	}
	// The database's layout: 1 names a Multi-Arch: same package's files
	// NAME:ARCH (without it dpkg looks for NAME.list).
	return t.own(info+"/format", []byte("1\n"), 0o644)
}

// writeParagraph writes a deb822 paragraph: a multi-line value's lines
// after the first indented by one space, an empty one as " .".
func writeParagraph(w *bytes.Buffer, p control.Paragraph) {
	for _, k := range p.Order {
		lines := strings.Split(strings.TrimRight(p.Values[k], "\n"), "\n")
		w.WriteString(k + ":")
		if lines[0] != "" {
			w.WriteString(" " + lines[0])
		}
		w.WriteByte('\n')
		for _, l := range lines[1:] {
			if l == "" {
				l = "."
			}
			w.WriteString(" " + l + "\n")
		}
	}
}

// caBundle is what update-ca-certificates makes of the ca-certificates
// package with every certificate enabled (its default): the PEM files
// under /usr/share/ca-certificates, in order, one after the other.
func (t *tree) caBundle() ([]byte, error) {
	var names []string
	for n, h := range t.entries {
		if h.Typeflag == tar.TypeReg && strings.HasPrefix(n, caDir+"/") && strings.HasSuffix(n, ".crt") {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no certificate in /%s: the image needs the ca-certificates package", caDir)
	}
	sort.Strings(names)
	var b bytes.Buffer
	for _, n := range names {
		d := t.data[n]
		if !bytes.Contains(d, []byte("-----BEGIN CERTIFICATE-----")) {
			return nil, fmt.Errorf("/%s holds no PEM certificate", n)
		}
		b.Write(d)
		if !bytes.HasSuffix(d, []byte("\n")) {
			b.WriteByte('\n')
		}
	}
	return b.Bytes(), nil
}

// osRelease reads the distribution's ID and VERSION_ID from the tree's
// /etc/os-release (base-files'), which scanners read to know which
// distribution's advisories apply.
func (t *tree) osRelease() (id, version string, err error) {
	at, err := t.resolve("etc/os-release")
	if err != nil {
		return "", "", fmt.Errorf("no /etc/os-release (the base-files package): scanners would not know the distribution: %w", err)
	}
	for _, l := range strings.Split(string(t.data[at]), "\n") {
		k, v, _ := strings.Cut(l, "=")
		v = strings.Trim(v, `"`)
		switch k {
		case "ID":
			id = v
		case "VERSION_ID":
			version = v
		}
	}
	if id == "" {
		return "", "", fmt.Errorf("/etc/os-release has no ID")
	}
	return id, version, nil
}
