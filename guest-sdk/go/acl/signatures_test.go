package acl

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"testing"
)

// TestOtherGOOSSignatures: the API built for another GOOS (what go doc and
// an editor show a plugin author on their own machine) declares every
// function of the wasip1 build with the same signature, parameter names
// included.
func TestOtherGOOSSignatures(t *testing.T) {
	for _, pair := range [][2]string{{"bytes_wasip1.go", "bytes_other.go"}} {
		want, got := signatures(t, pair[0]), signatures(t, pair[1])
		for name, sig := range want {
			if got[name] != sig {
				t.Errorf("%s: %s, want %s (as in %s)", pair[1], got[name], sig, pair[0])
			}
		}
		for name := range got {
			if _, ok := want[name]; !ok {
				t.Errorf("%s declares %s, which %s does not", pair[1], name, pair[0])
			}
		}
	}
}

// signatures are the exported functions of a file, printed with their
// parameter names.
func signatures(t *testing.T, file string) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || !fn.Name.IsExported() {
			continue
		}
		var b bytes.Buffer
		if err := printer.Fprint(&b, fset, fn.Type); err != nil {
			t.Fatal(err)
		}
		out[fn.Name.Name] = "func " + fn.Name.Name + b.String()[len("func"):]
	}
	return out
}
