// Package sbomtest checks the image's SBOM against the executable it
// describes, for the deploy module's tests.
package sbomtest

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"os/exec"
	"path"
	"strings"
	"testing"

	cdx "github.com/CycloneDX/cyclonedx-go"
	"github.com/stretchr/testify/require"
)

// CheckModules compares the SBOM's Go components with what
// `go version -m bin` prints: every dep (a replaced one as its
// replacement), with its version and go.sum hash, the main module, and
// the standard library of the Go version.
func CheckModules(t testing.TB, bom *cdx.BOM, bin string) {
	t.Helper()
	out, err := exec.Command("go", "version", "-m", bin).Output()
	require.NoError(t, err)
	comps := map[string]cdx.Component{}
	for _, c := range *bom.Components {
		if strings.HasPrefix(c.PackageURL, "pkg:golang/") {
			comps[c.Name] = c
		}
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	goVersion := strings.TrimSpace(lines[0][strings.LastIndex(lines[0], " ")+1:])
	require.Equal(t, goVersion, comps["stdlib"].Version)
	deps := 0
	for i, l := range lines[1:] {
		f := strings.Split(strings.TrimSpace(l), "\t")
		switch f[0] {
		case "mod":
			require.Contains(t, comps, f[1], "the main module")
			require.Equal(t, cdx.ComponentTypeApplication, comps[f[1]].Type)
			require.Equal(t, "Apache-2.0", (*comps[f[1]].Licenses)[0].Expression)
		case "dep":
			deps++
			c, ok := comps[f[1]]
			require.True(t, ok, "module %s is not in the SBOM", f[1])
			version, sum := f[2], ""
			if len(f) > 3 {
				sum = f[3]
			}
			if next := lines[1:]; i+1 < len(next) && strings.HasPrefix(strings.TrimSpace(next[i+1]), "=>") {
				r := strings.Split(strings.TrimSpace(next[i+1]), "\t")
				if len(r) > 2 && r[2] != "" {
					version = r[2]
				}
				sum = ""
				if len(r) > 3 {
					sum = r[3]
				}
			}
			require.Equal(t, version, c.Version, f[1])
			purl, err := url.PathUnescape(c.PackageURL)
			require.NoError(t, err)
			require.True(t, strings.HasSuffix(purl, "/"+path.Base(f[1])+"@"+version), "%s: %s", f[1], c.PackageURL)
			if sum != "" {
				raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(sum, "h1:"))
				require.NoError(t, err)
				require.Equal(t, []cdx.Hash{{Algorithm: cdx.HashAlgoSHA256, Value: hex.EncodeToString(raw)}}, *c.Hashes, f[1])
			}
		}
	}
	require.Positive(t, deps)
	require.Len(t, comps, deps+2, "the modules, the main module and the standard library, nothing else")
}
