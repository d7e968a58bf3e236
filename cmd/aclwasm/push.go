package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/ociplugin"
)

func pushCmd() *cobra.Command {
	var (
		man       string
		plainHTTP bool
	)
	c := &cobra.Command{
		Use:   "push [flags] PLUGIN.wasm oci://REGISTRY/REPOSITORY:TAG",
		Short: "Publish a plugin to an OCI registry as a Wasm artifact, with its manifest if given",
		Long: `Publish PLUGIN.wasm to an OCI registry in the layout of the CNCF Wasm OCI
artifact: config application/vnd.wasm.config.v0+json, one layer
application/wasm. With --manifest, the plugin's manifest (the file of run
--manifest, checked first) goes with it as a second layer,
application/vnd.aclwasm.manifest.v1+yaml: aclwasm serve applies it to a
plugin whose NAME.yaml holds only its source. Prints the artifact's digest,
which oci://REGISTRY/REPOSITORY@DIGEST names for good.

Credentials come from the Docker config file ($DOCKER_CONFIG/config.json or
~/.docker/config.json; docker login writes it). Loopback registries
(localhost, 127.0.0.1, ::1) are spoken to in plain HTTP, others in HTTPS
unless --plain-http. Exit codes: 0 pushed; 126 for a bad argument, a
module that is not wasm or is over the host's module size limit, or a
failed push.`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 2 {
				return &exitError{exitHost, fmt.Errorf("usage: %s", c.UseLine())}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			fail := func(err error) error { return &exitError{exitHost, err} }
			ref, err := ociplugin.ParseRef(args[1])
			if err != nil {
				return fail(err)
			}
			wasm, err := os.ReadFile(args[0])
			if err != nil {
				return fail(err)
			}
			var manifest []byte
			if man != "" {
				if manifest, err = os.ReadFile(man); err != nil {
					return fail(err)
				}
				m, err := host.ParseManifest(manifest)
				if err != nil {
					return fail(fmt.Errorf("--manifest %s: %w", man, err))
				}
				if got := sha256.Sum256(wasm); m.SHA256 != "" && hex.EncodeToString(got[:]) != m.SHA256 {
					return fail(fmt.Errorf("--manifest %s: module.sha256 is %s, but %s has sha256 %x", man, m.SHA256, args[0], got))
				}
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			c, err := newOCIClient("", plainHTTP)
			if err != nil {
				return err
			}
			defer c.CloseIdleConnections()
			d, err := c.Push(ctx, ref, wasm, manifest)
			if err != nil {
				return fail(err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), d)
			return nil
		},
	}
	c.Flags().StringVar(&man, "manifest", "", "the plugin's manifest (YAML) to publish with it")
	c.Flags().BoolVar(&plainHTTP, "plain-http", false, "speak plain HTTP to the registry even if it is not on this machine")
	_ = c.MarkFlagFilename("manifest", "yaml", "yml")
	return c
}
