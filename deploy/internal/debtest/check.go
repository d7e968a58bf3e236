package debtest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Installation is a package of an image's dpkg database, as dpkg-query
// reads it.
type Installation struct {
	Package, Version, Architecture, Status, Source string
}

// Packages returns the packages of the dpkg database under root, as
// `dpkg-query --admindir=ROOT/var/lib/dpkg -W` lists them.
func Packages(root string) (map[string]Installation, error) {
	out, err := exec.Command("dpkg-query", "--admindir="+filepath.Join(root, "var/lib/dpkg"), "-W",
		"-f", "${Package}\t${Version}\t${Architecture}\t${db:Status-Abbrev}\t${source:Package}\n").Output()
	if err != nil {
		return nil, fmt.Errorf("dpkg-query -W: %w (%s)", err, stderrOf(err))
	}
	pkgs := map[string]Installation{}
	for _, l := range strings.Split(string(out), "\n") {
		if l == "" {
			continue
		}
		f := strings.Split(l, "\t")
		if len(f) != 5 {
			return nil, fmt.Errorf("dpkg-query -W: line %q", l)
		}
		pkgs[f[0]] = Installation{Package: f[0], Version: f[1], Architecture: f[2], Status: strings.TrimSpace(f[3]), Source: f[4]}
	}
	return pkgs, nil
}

// Problems checks an extracted image at root against its dpkg database,
// with dpkg's own tools as the judge, and returns what is wrong:
//   - a file or link that is neither one of own (the image's own paths,
//     relative to root) nor listed by a package (`dpkg-query -S`): a
//     package file without its metadata;
//   - a package not "ii" (installed), or without a copyright file;
//   - what `dpkg --verify` reports: a listed file missing or changed.
func Problems(root string, own []string) ([]string, error) {
	pkgs, err := Packages(root)
	if err != nil {
		return nil, err
	}
	var problems []string
	if len(pkgs) == 0 {
		problems = append(problems, "no package in the dpkg database")
	}
	for _, p := range pkgs {
		if p.Status != "ii" {
			problems = append(problems, fmt.Sprintf("package %s: status %q, not ii", p.Package, p.Status))
		}
		if _, err := os.Stat(filepath.Join(root, "usr/share/doc", p.Package, "copyright")); err != nil {
			problems = append(problems, fmt.Sprintf("package %s: no copyright file: %v", p.Package, err))
		}
	}
	isOwn := map[string]bool{}
	for _, o := range own {
		isOwn[strings.Trim(o, "/")] = true
	}
	var files []string
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if d.IsDir() || isOwn[rel] || strings.HasPrefix(rel, "var/lib/dpkg/") {
			return nil
		}
		files = append(files, "/"+rel)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	owned := map[string]bool{}
	// dpkg-query -S takes many paths at once; it exits 1 when one is not
	// found and names it on stderr.
	for len(files) > 0 {
		n := min(len(files), 200)
		c := exec.Command("dpkg-query", append([]string{"--admindir=" + filepath.Join(root, "var/lib/dpkg"), "-S"}, files[:n]...)...)
		var stderr bytes.Buffer
		c.Stderr = &stderr
		out, err := c.Output()
		var exit *exec.ExitError
		if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
			return nil, fmt.Errorf("dpkg-query -S: %w (%s)", err, stderr.String())
		}
		for _, l := range strings.Split(string(out), "\n") {
			if _, p, ok := strings.Cut(l, ": "); ok {
				owned[p] = true
			}
		}
		for _, f := range files[:n] {
			if !owned[f] {
				problems = append(problems, fmt.Sprintf("%s is in no package's file list", f))
			}
		}
		files = files[n:]
	}
	out, err := exec.Command("dpkg", "--root="+root, "--verify").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("dpkg --verify: %w (%s)", err, out)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" {
			problems = append(problems, "dpkg --verify: "+l)
		}
	}
	sort.Strings(problems)
	return problems, nil
}

func stderrOf(err error) string {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(exit.Stderr)
	}
	return ""
}
