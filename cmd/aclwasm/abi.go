package main

import (
	"github.com/spf13/cobra"

	"github.com/aclwasm/aclwasm/abi"
)

func abiCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "abi",
		Short: "Print the guest ABI's import table (Markdown, or JSON with --json)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if asJSON {
				return abi.WriteJSON(cmd.OutOrStdout())
			}
			return abi.WriteMarkdown(cmd.OutOrStdout())
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of Markdown")
	return c
}
