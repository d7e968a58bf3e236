// Command mkimage builds aclwasm's container image (package image) from
// CLI binaries built beforehand, without a Docker daemon and without
// pulling a base image, writes it as a tar that `docker load` and
// `podman load` read, and optionally pushes it:
//
//	mkimage -binary linux/amd64=build/image/aclwasm-linux-amd64 -debs linux/amd64=build/image/debs/amd64 \
//	  -version v0.1.0 -revision $(git rev-parse HEAD) -out build/image/aclwasm.tar \
//	  [-sbom build/image/aclwasm.cdx.json] [-binary linux/arm64=PATH -debs linux/arm64=DIR] [-push registry/repo:tag]
//
// Each platform's -debs directory holds the .deb files of the Debian
// packages its image carries (image.Packages; `make image` downloads
// them with apt-get download). The tar holds the first -binary's
// platform, and -sbom gets that image's SBOM; -push pushes that image,
// or an OCI index of every platform when there are several. Credentials
// come from the Docker config, as for `docker push`. `make image` runs it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/aclwasm/aclwasm/deploy/image"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "mkimage:", err)
		}
		os.Exit(2)
	}
}

// platformValues is a repeatable PLATFORM=VALUE flag, in the given order.
type platformValues struct {
	keys   []string
	values map[string]string
}

func (p *platformValues) String() string {
	var s []string
	for _, k := range p.keys {
		s = append(s, k+"="+p.values[k])
	}
	return strings.Join(s, ",")
}

func (p *platformValues) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || val == "" || !strings.Contains(k, "/") {
		return fmt.Errorf("%q: want OS/ARCH=VALUE, e.g. linux/amd64=build/image/aclwasm-linux-amd64", v)
	}
	if p.values == nil {
		p.values = map[string]string{}
	}
	if _, dup := p.values[k]; dup {
		return fmt.Errorf("%s is given twice", k)
	}
	p.keys = append(p.keys, k)
	p.values[k] = val
	return nil
}

// run is the command, with its arguments and output as values for the test.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mkimage", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var bins, debs platformValues
	fs.Var(&bins, "binary", "OS/ARCH=PATH of the CLI built for the platform (repeatable; the first is the one in -out)")
	fs.Var(&debs, "debs", "OS/ARCH=DIR of the .deb files of the Debian packages the platform's image carries ("+strings.Join(image.Packages, ", ")+")")
	out := fs.String("out", "build/image/aclwasm.tar", "the tar to write (OCI layout and docker-archive in one); empty: none")
	sbomOut := fs.String("sbom", "", "write the SBOM of the tar's image (CycloneDX JSON, as in the image at "+image.SBOMPath+") here")
	tag := fs.String("tag", "", "the name the tar loads as (default aclwasm:VERSION)")
	push := fs.String("push", "", "push the image (an index for several platforms) to this reference")
	o := image.Options{}
	fs.StringVar(&o.Version, "version", "", "the version label and default tag (git describe)")
	fs.StringVar(&o.Revision, "revision", "", "the VCS revision label (git rev-parse HEAD)")
	fs.StringVar(&o.Source, "source", "https://github.com/aclwasm/aclwasm", "the source label")
	fs.StringVar(&o.Licenses, "licenses", "Apache-2.0", "the licenses label (SPDX expression)")
	fs.IntVar(&o.Port, "port", 8080, "the port the default command listens on and the image exposes")
	created := fs.String("created", os.Getenv("SOURCE_DATE_EPOCH"), "creation time and files' mtime, in Unix seconds (default $SOURCE_DATE_EPOCH, else 0)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if len(bins.keys) == 0 {
		return errors.New("no -binary given")
	}
	secs := int64(0)
	if *created != "" {
		var err error
		if secs, err = strconv.ParseInt(*created, 10, 64); err != nil {
			return fmt.Errorf("-created %q: want Unix seconds", *created)
		}
	}
	o.Created = time.Unix(secs, 0).UTC()
	var ps []image.Platform
	for _, k := range bins.keys {
		os_, arch, _ := strings.Cut(k, "/")
		dir, ok := debs.values[k]
		if !ok {
			return fmt.Errorf("no -debs for %s: the directory of its Debian packages (%s)", k, strings.Join(image.Packages, ", "))
		}
		files, err := filepath.Glob(filepath.Join(dir, "*.deb"))
		if err != nil {
			return err
		}
		if len(files) == 0 {
			return fmt.Errorf("-debs %s: no .deb file in %s", k, dir)
		}
		ps = append(ps, image.Platform{OS: os_, Architecture: arch, Binary: bins.values[k], Debs: files})
	}
	for _, k := range debs.keys {
		if _, ok := bins.values[k]; !ok {
			return fmt.Errorf("-debs %s: no -binary for that platform", k)
		}
	}
	img, err := image.Build(ps[0], o)
	if err != nil {
		return err
	}
	// Every platform is built, pushed or not, so that one that cannot be
	// (no packages, a missing library) fails the build.
	var idx v1.ImageIndex
	if len(ps) > 1 {
		if idx, err = image.BuildIndex(ps, o); err != nil {
			return err
		}
	}
	if *out != "" {
		if *tag == "" {
			*tag = "aclwasm:" + o.Version
		}
		ref, err := name.NewTag(*tag)
		if err != nil {
			return fmt.Errorf("-tag: %w", err)
		}
		if err := writeFile(*out, func(f *os.File) error { return image.WriteTar(f, img, ref, o.Created) }); err != nil {
			return err
		}
		d, err := img.Digest()
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %s %s (docker load -i %s)\n", *out, ps[0], d, *out)
	}
	if *sbomOut != "" {
		b, err := image.ReadSBOM(img)
		if err != nil {
			return err
		}
		if err := writeFile(*sbomOut, func(f *os.File) error { _, err := f.Write(b); return err }); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: the SBOM of %s (CycloneDX)\n", *sbomOut, ps[0])
	}
	if *push == "" {
		return nil
	}
	ref, err := name.ParseReference(*push)
	if err != nil {
		return fmt.Errorf("-push: %w", err)
	}
	if err := image.Push(ctx, ref, img, idx); err != nil {
		return fmt.Errorf("push %s: %w", ref, err)
	}
	var d v1.Hash
	if idx != nil {
		d, err = idx.Digest()
	} else {
		d, err = img.Digest()
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "pushed %s@%s (%s)\n", ref.Context(), d, bins.String())
	return nil
}

// writeFile writes a file next to its final path and renames it, so
// that a failed build leaves no half-written tar or SBOM behind.
func writeFile(path string, write func(*os.File) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".mkimage-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
