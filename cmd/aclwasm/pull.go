package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

func pullCmd() *cobra.Command {
	var (
		out, manOut string
		cacheDir    string
		plainHTTP   bool
	)
	c := &cobra.Command{
		Use:   "pull [flags] oci://REGISTRY/REPOSITORY:TAG|@sha256:DIGEST",
		Short: "Fetch a plugin from an OCI registry, verified by digest, and print its digest",
		Long: `Fetch a plugin published as a Wasm OCI artifact (aclwasm push) and print the
artifact's digest. The module layer is refused before it is downloaded if
it is not application/wasm or is over the host's module size limit
(64 MiB), and every byte is checked against its digest. What was fetched is
kept by digest in the cache (the user's cache directory's aclwasm/oci, or
--cache-dir's oci; --cache-dir '' keeps nothing), so that a digest is
downloaded once. With -o the module is written to that file, with
--manifest-out the artifact's manifest, if it has one.

Exit codes: 0 fetched; 125 the artifact was refused (size, media type,
digest); 126 a bad argument, a registry that cannot be reached, a file that
cannot be written, or --manifest-out for an artifact without a manifest.`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &exitError{exitHost, fmt.Errorf("usage: %s", c.UseLine())}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			a, err := pullModule(ctx, args[0], ociCacheDir(cmd.Flags(), cacheDir), plainHTTP)
			if err != nil {
				return err
			}
			if out != "" {
				if err := os.WriteFile(out, a.Module, 0o644); err != nil {
					return &exitError{exitHost, err}
				}
			}
			if manOut != "" {
				if a.Manifest == nil {
					return &exitError{exitHost, fmt.Errorf("--manifest-out: %s has no manifest layer", args[0])}
				}
				if err := os.WriteFile(manOut, a.Manifest, 0o644); err != nil {
					return &exitError{exitHost, err}
				}
			}
			fmt.Fprintln(cmd.OutOrStdout(), a.Digest)
			return nil
		},
	}
	fl := c.Flags()
	fl.StringVarP(&out, "output", "o", "", "write the module to this file")
	fl.StringVar(&manOut, "manifest-out", "", "write the artifact's manifest to this file (an error if it has none)")
	fl.StringVar(&cacheDir, "cache-dir", "", "keep what is fetched under this directory's oci (default: the user's cache directory's aclwasm; '' keeps nothing)")
	fl.BoolVar(&plainHTTP, "plain-http", false, "speak plain HTTP to the registry even if it is not on this machine")
	_ = c.MarkFlagFilename("output", "wasm")
	_ = c.MarkFlagDirname("cache-dir")
	return c
}
