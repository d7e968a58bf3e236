package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/aclwasm/aclwasm/internal/ociplugin"
)

// ociCacheDir is where run, call, pull and serve keep what they pulled, by
// digest: the oci directory of --cache-dir when it is given (” keeps
// nothing), else of the user's cache directory's aclwasm, whatever the
// engine (the compilation cache is wazero's only; this one is not).
func ociCacheDir(fs *pflag.FlagSet, cacheDir string) string {
	if fs != nil && fs.Changed("cache-dir") {
		if cacheDir == "" {
			return ""
		}
		return filepath.Join(cacheDir, "oci")
	}
	user, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(user, "aclwasm", "oci")
}

// newOCIClient is the registry client of the commands: the Docker config's
// credentials, plain HTTP for loopback registries or with --plain-http.
func newOCIClient(cacheDir string, plainHTTP bool) (*ociplugin.Client, error) {
	c, err := ociplugin.NewClient(ociplugin.Options{CacheDir: cacheDir, PlainHTTP: plainHTTP})
	if err != nil {
		return nil, &exitError{exitHost, err}
	}
	return c, nil
}

// pullModule pulls the plugin ref names (oci://...). An artifact that is
// refused (a layer too large or not wasm, bytes that do not match their
// digest) is a load refusal (125); a registry that cannot be reached, or
// a bad reference, a host error (126).
func pullModule(ctx context.Context, ref, cacheDir string, plainHTTP bool) (*ociplugin.Artifact, error) {
	r, err := ociplugin.ParseRef(ref)
	if err != nil {
		return nil, &exitError{exitHost, err}
	}
	c, err := newOCIClient(cacheDir, plainHTTP)
	if err != nil {
		return nil, err
	}
	defer c.CloseIdleConnections()
	a, err := c.Pull(ctx, r)
	switch {
	case errors.Is(err, ociplugin.ErrRefused):
		return nil, &exitError{exitLoad, fmt.Errorf("pull: %w", err)}
	case err != nil:
		return nil, &exitError{exitHost, fmt.Errorf("pull: %w", err)}
	}
	return a, nil
}

// readModule reads the module at path, or pulls it when path is an oci://
// reference (the artifact's manifest, if any, is not applied: run's and
// call's policy comes from their flags or --manifest).
func (f *sandboxFlags) readModule(ctx context.Context, path string) ([]byte, error) {
	if !ociplugin.IsRef(path) {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, &exitError{exitHost, err}
		}
		return b, nil
	}
	a, err := pullModule(ctx, path, ociCacheDir(f.fs, f.cacheDir), f.plainHTTP)
	if err != nil {
		return nil, err
	}
	return a.Module, nil
}
