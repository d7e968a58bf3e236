package abi

// The signature blocks of docs/ABI.md are rendered from Funcs too.
//go:generate go run ./internal/specgen

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteMarkdown writes the import table in profile p as a Markdown
// document, grouped as Funcs orders it. A gptr parameter that holds
// addresses, sizes or uint64_t values says so: "devPtr gptr(addr)".
func WriteMarkdown(w io.Writer, p Profile) error {
	if _, err := fmt.Fprintf(w, "# Guest ABI v%d: imports from module %q\n\n| function | parameters | wasm signature | what it does |\n|---|---|---|---|\n", Version, p.Module()); err != nil {
		return err
	}
	for i := range Funcs {
		f := &Funcs[i]
		var ps string
		for k, q := range f.Params {
			if k > 0 {
				ps += ", "
			}
			ps += q.Name + " " + q.Type.String()
			if q.Elem != 0 {
				ps += "(" + q.Elem.String() + ")"
			}
		}
		if _, err := fmt.Fprintf(w, "| `%s` | %s | `%s` | %s |\n", f.Name, ps, f.SignatureIn(p), f.Doc); err != nil {
			return err
		}
	}
	return nil
}

// jsonFunc is a Func with its wasm signature in the profile written.
type jsonFunc struct {
	Func
	Signature string `json:"signature"`
}

// WriteJSON writes the import table in profile p as JSON: the module, the
// version and every function with its group, parameters, wire types (and
// Elem where set), its wasm signature in p, and its doc.
func WriteJSON(w io.Writer, p Profile) error {
	fs := make([]jsonFunc, len(Funcs))
	for i := range Funcs {
		fs[i] = jsonFunc{Funcs[i], Funcs[i].SignatureIn(p)}
	}
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(struct {
		Module  string     `json:"module"`
		Version int        `json:"version"`
		Funcs   []jsonFunc `json:"functions"`
	}{p.Module(), Version, fs})
}
