package image

import (
	"archive/tar"
	"bytes"
	"debug/buildinfo"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sort"
	"strings"

	cdx "github.com/CycloneDX/cyclonedx-go"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/package-url/packageurl-go"
)

// SBOMPath is where the image keeps its SBOM: CycloneDX 1.6 JSON of the
// CLI's Go modules, as its build information records them, and of the
// Debian packages, with their licences where their copyright files name
// them. `make image` writes the same file beside the tar.
const SBOMPath = "/usr/share/aclwasm/sbom.cdx.json"

// sbom returns the image's SBOM. Its components: the CLI (the main
// module), the Go standard library, each module the CLI is built from
// (version and go.sum hash, a replacement's path), and each package (its
// .deb's SHA-256, source package, licences); the image depends on the
// CLI and the packages, the CLI on its modules.
func sbom(bin []byte, p Platform, o Options, pkgs []*debPackage, distro, distroVersion string) ([]byte, error) {
	bi, err := buildinfo.Read(bytes.NewReader(bin))
	if err != nil {
		return nil, fmt.Errorf("%s has no Go build information: %w", p.Binary, err)
	}
	version := bi.Main.Version
	if version == "" || version == "(devel)" {
		version = o.Version
	}
	goPURL := func(path, version string) string {
		ns, name := "", path
		if i := strings.LastIndex(path, "/"); i >= 0 {
			ns, name = path[:i], path[i+1:]
		}
		return packageurl.NewPackageURL(packageurl.TypeGolang, ns, name, version, nil, "").ToString()
	}
	var props []cdx.Property
	for _, s := range bi.Settings {
		switch s.Key {
		case "GOOS", "GOARCH", "CGO_ENABLED", "-trimpath", "-tags", "vcs.revision", "vcs.time", "vcs.modified":
			props = append(props, cdx.Property{Name: "go:build:" + s.Key, Value: s.Value})
		}
	}
	props = append(props, cdx.Property{Name: "go:package", Value: bi.Path}, cdx.Property{Name: "go:version", Value: bi.GoVersion})
	cli := cdx.Component{
		BOMRef: goPURL(bi.Main.Path, version), Type: cdx.ComponentTypeApplication, Name: bi.Main.Path, Version: version,
		PackageURL: goPURL(bi.Main.Path, version), Licenses: &cdx.Licenses{{Expression: o.Licenses}}, Properties: &props,
	}
	std := cdx.Component{
		BOMRef: goPURL("stdlib", strings.TrimPrefix(bi.GoVersion, "go")), Type: cdx.ComponentTypeLibrary,
		Name: "stdlib", Version: bi.GoVersion, PackageURL: goPURL("stdlib", strings.TrimPrefix(bi.GoVersion, "go")),
		Licenses: &cdx.Licenses{{License: &cdx.License{ID: "BSD-3-Clause"}}},
	}
	comps := []cdx.Component{cli, std}
	cliDeps := []string{std.BOMRef}
	for _, m := range bi.Deps {
		c, err := moduleComponent(m, goPURL)
		if err != nil {
			return nil, err
		}
		comps = append(comps, c)
		cliDeps = append(cliDeps, c.BOMRef)
	}
	imgDeps := []string{cli.BOMRef}
	for _, pk := range pkgs {
		q := packageurl.QualifiersFromMap(map[string]string{"arch": pk.arch, "distro": distro + "-" + distroVersion})
		if pk.source != pk.name || pk.sourceVersion != pk.version {
			up := pk.source
			if pk.sourceVersion != pk.version {
				up += "@" + pk.sourceVersion
			}
			q = packageurl.QualifiersFromMap(map[string]string{"arch": pk.arch, "distro": distro + "-" + distroVersion, "upstream": up})
		}
		purl := packageurl.NewPackageURL(packageurl.TypeDebian, distro, pk.name, pk.version, q, "").ToString()
		c := cdx.Component{
			BOMRef: purl, Type: cdx.ComponentTypeLibrary, Name: pk.name, Version: pk.version, PackageURL: purl,
			Hashes: &[]cdx.Hash{{Algorithm: cdx.HashAlgoSHA256, Value: pk.sha256}},
			Properties: &[]cdx.Property{
				{Name: "debian:source", Value: pk.source + " " + pk.sourceVersion},
				{Name: "debian:architecture", Value: pk.arch},
				{Name: "debian:copyright", Value: "/usr/share/doc/" + pk.name + "/copyright"},
			},
		}
		if len(pk.licenses) > 0 {
			ls := cdx.Licenses{}
			for _, l := range pk.licenses {
				ls = append(ls, cdx.LicenseChoice{License: &cdx.License{Name: l}})
			}
			c.Licenses = &ls
		}
		comps = append(comps, c)
		imgDeps = append(imgDeps, purl)
	}
	sort.SliceStable(comps[2:], func(i, j int) bool { return comps[2+i].BOMRef < comps[2+j].BOMRef })
	bom := cdx.NewBOM()
	bom.Metadata = &cdx.Metadata{
		Timestamp: o.Created.UTC().Format("2006-01-02T15:04:05Z"),
		Tools: &cdx.ToolsChoice{Components: &[]cdx.Component{{
			Type: cdx.ComponentTypeApplication, Name: "aclwasm deploy/cmd/mkimage", Version: o.Version,
		}}},
		Component: &cdx.Component{
			BOMRef: "aclwasm-image", Type: cdx.ComponentTypeContainer, Name: "aclwasm", Version: o.Version,
			Licenses: &cdx.Licenses{{Expression: o.Licenses}},
			Properties: &[]cdx.Property{
				{Name: "oci:platform", Value: p.String()},
				{Name: "oci:revision", Value: o.Revision},
				{Name: "oci:source", Value: o.Source},
			},
		},
	}
	bom.Components = &comps
	bom.Dependencies = &[]cdx.Dependency{
		{Ref: "aclwasm-image", Dependencies: &imgDeps},
		{Ref: cli.BOMRef, Dependencies: &cliDeps},
	}
	var buf bytes.Buffer
	enc := cdx.NewBOMEncoder(&buf, cdx.BOMFileFormatJSON)
	enc.SetPretty(true)
	if err := enc.EncodeVersion(bom, cdx.SpecVersion1_6); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// moduleComponent is one module of the build information: a replaced
// one as the replacement that was built, the replaced path kept.
func moduleComponent(m *debug.Module, purl func(path, version string) string) (cdx.Component, error) {
	built := m
	if m.Replace != nil {
		built = m.Replace
	}
	version := built.Version
	if version == "" {
		version = m.Version // a directory replacement has none
	}
	c := cdx.Component{BOMRef: purl(m.Path, version), Type: cdx.ComponentTypeLibrary, Name: m.Path, Version: version, PackageURL: purl(m.Path, version)}
	var props []cdx.Property
	if m.Replace != nil {
		props = append(props, cdx.Property{Name: "go:replace", Value: strings.TrimSpace(m.Replace.Path + " " + m.Replace.Version)})
	}
	if built.Sum != "" {
		// The go.sum hash: SHA-256 of the module's file hashes ("h1:").
		b64, ok := strings.CutPrefix(built.Sum, "h1:")
		sum, err := base64.StdEncoding.DecodeString(b64)
		if !ok || err != nil || len(sum) != 32 {
			return c, fmt.Errorf("module %s: go.sum hash %q is not h1: and a SHA-256", m.Path, built.Sum)
		}
		c.Hashes = &[]cdx.Hash{{Algorithm: cdx.HashAlgoSHA256, Value: hex.EncodeToString(sum)}}
		props = append(props, cdx.Property{Name: "go:sum", Value: built.Sum})
	}
	if len(props) > 0 {
		c.Properties = &props
	}
	return c, nil
}

// ReadSBOM returns the SBOM an image built by Build keeps at SBOMPath.
func ReadSBOM(img v1.Image) ([]byte, error) {
	layers, err := img.Layers()
	if err != nil {
		return nil, err
	}
	for _, l := range layers {
		rc, err := l.Uncompressed()
		if err != nil {
			return nil, err
		}
		tr := tar.NewReader(rc)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				rc.Close()
				return nil, err
			}
			if h.Name == strings.TrimPrefix(SBOMPath, "/") {
				b, err := io.ReadAll(tr)
				rc.Close()
				return b, err
			}
		}
		rc.Close()
	}
	return nil, errors.New("image: no " + SBOMPath + " in the image")
}
