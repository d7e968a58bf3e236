package abi

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteMarkdown writes the import table as a Markdown document, grouped
// as Funcs orders it.
func WriteMarkdown(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "# Guest ABI v%d: imports from module %q\n\n| function | parameters | wasm signature | what it does |\n|---|---|---|---|\n", Version, Module); err != nil {
		return err
	}
	for i := range Funcs {
		f := &Funcs[i]
		var ps string
		for k, p := range f.Params {
			if k > 0 {
				ps += ", "
			}
			ps += p.Name + " " + p.Type.String()
		}
		if _, err := fmt.Fprintf(w, "| `%s` | %s | `%s` | %s |\n", f.Name, ps, f.Signature(), f.Doc); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON writes the import table as JSON: the module, the version and
// every function with its group, parameters, wire types and doc.
func WriteJSON(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(struct {
		Module  string `json:"module"`
		Version int    `json:"version"`
		Funcs   []Func `json:"functions"`
	}{Module, Version, Funcs})
}
