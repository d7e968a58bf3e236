package raw

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestOtherMatchesWasip1: raw_other.go declares every function of
// raw_wasip1.go (both generated), with the same parameter and result
// types, and nothing else, so that code using the SDK builds the same on
// every GOOS.
func TestOtherMatchesWasip1(t *testing.T) {
	sigs := func(file string) map[string]string {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !fd.Name.IsExported() {
				continue
			}
			var ts []string
			for _, p := range fd.Type.Params.List {
				for range max(len(p.Names), 1) {
					ts = append(ts, types(p.Type))
				}
			}
			var rs []string
			for _, r := range fd.Type.Results.List {
				rs = append(rs, types(r.Type))
			}
			out[fd.Name.Name] = "(" + strings.Join(ts, ", ") + ") " + strings.Join(rs, ", ")
		}
		return out
	}
	want, got := sigs("raw_wasip1.go"), sigs("raw_other.go")
	if len(want) == 0 {
		t.Fatal("raw_wasip1.go declares no function")
	}
	for name, sig := range want {
		if got[name] != sig {
			t.Errorf("raw_other.go: %s%s, want %s%s", name, got[name], name, sig)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("raw_other.go declares %s, which raw_wasip1.go does not", name)
		}
	}
}

func types(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return types(e.X) + "." + e.Sel.Name
	}
	return "?"
}
