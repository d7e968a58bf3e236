package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/aclwasm/aclwasm/abi"
)

func abiCmd() *cobra.Command {
	var (
		asJSON bool
		module string
	)
	c := &cobra.Command{
		Use:   "abi",
		Short: "Print the guest ABI's import table (Markdown, or JSON with --json)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, ok := abi.ProfileOf(module)
			if !ok {
				return &exitError{exitHost, fmt.Errorf("--profile %q: want %q (wide) or %q (native 32-bit layout)", module, abi.Module, abi.Module32)}
			}
			if asJSON {
				return abi.WriteJSON(cmd.OutOrStdout(), p)
			}
			return abi.WriteMarkdown(cmd.OutOrStdout(), p)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of Markdown")
	c.Flags().StringVar(&module, "profile", abi.Module, "the profile, by its import module: acl (wide) or acl32 (native 32-bit layout)")
	return c
}
