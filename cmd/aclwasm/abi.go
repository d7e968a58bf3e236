package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

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
		Short: "Print the guest ABI's import tables, modules acl (or acl32) and aclwasm (Markdown, or JSON with --json)",
		Long: `Print the guest ABI's import tables: the ACL functions of module acl (or,
with --profile acl32, of the native 32-bit layout), then the functions of
module aclwasm, the bytes-in, bytes-out convention of aclwasm call, serve
and host.Instance.CallBytes (input, output, configuration), which are the
same in both profiles.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, ok := abi.ProfileOf(module)
			if !ok {
				return &exitError{exitHost, fmt.Errorf("--profile %q: want %q (wide) or %q (native 32-bit layout)", module, abi.Module, abi.Module32)}
			}
			if asJSON {
				return writeABIJSON(cmd.OutOrStdout(), p)
			}
			if err := abi.WriteMarkdown(cmd.OutOrStdout(), p); err != nil {
				return err
			}
			return writeIOMarkdown(cmd.OutOrStdout(), p)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of Markdown")
	c.Flags().StringVar(&module, "profile", abi.Module, "the profile, by its import module: acl (wide) or acl32 (native 32-bit layout)")
	return c
}

// writeIOMarkdown writes the table of module aclwasm (abi.IOFuncs) after
// the ACL table, in its form.
func writeIOMarkdown(w io.Writer, p abi.Profile) error {
	if _, err := fmt.Fprintf(w, "\n# Imports from module %q: bytes in and out, configuration\n\n| function | parameters | wasm signature | what it does |\n|---|---|---|---|\n", abi.IOModule); err != nil {
		return err
	}
	for i := range abi.IOFuncs {
		f := &abi.IOFuncs[i]
		var ps string
		for k, q := range f.Params {
			if k > 0 {
				ps += ", "
			}
			ps += q.Name + " " + q.Type.String()
		}
		if _, err := fmt.Fprintf(w, "| `%s` | %s | `%s` | %s |\n", f.Name, ps, f.SignatureIn(p), f.Doc); err != nil {
			return err
		}
	}
	return nil
}

// ioJSONFunc is a function of module aclwasm with its wasm signature, as
// abi.WriteJSON writes those of module acl.
type ioJSONFunc struct {
	abi.Func
	Signature string `json:"signature"`
}

// writeABIJSON writes abi.WriteJSON's document with one field more,
// "modules": the other import modules (aclwasm) with their functions, so
// that readers of the ACL table see it unchanged.
func writeABIJSON(w io.Writer, p abi.Profile) error {
	var buf bytes.Buffer
	if err := abi.WriteJSON(&buf, p); err != nil {
		return err
	}
	var doc struct {
		Module  string          `json:"module"`
		Version int             `json:"version"`
		Funcs   json.RawMessage `json:"functions"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		return fmt.Errorf("abi: re-reading the ACL table: %w", err)
	}
	fs := make([]ioJSONFunc, len(abi.IOFuncs))
	for i, f := range abi.IOFuncs {
		if f.Params == nil {
			f.Params = []abi.Param{} // [] as for acl's functions without any, not null
		}
		fs[i] = ioJSONFunc{f, f.SignatureIn(p)}
	}
	type module struct {
		Module string       `json:"module"`
		Funcs  []ioJSONFunc `json:"functions"`
	}
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(struct {
		Module  string          `json:"module"`
		Version int             `json:"version"`
		Funcs   json.RawMessage `json:"functions"`
		Modules []module        `json:"modules"`
	}{doc.Module, doc.Version, doc.Funcs, []module{{abi.IOModule, fs}}})
}
